/**
 * Finds every out-of-memory message in a log, of every family, with its line and rank. Each family has
 * its own grammar file; this one cleans the text (log-lines.ts), reads each rank's lines as one text
 * when ranks interleave, and runs them all.
 */
import { findBitsandbytesMessages } from './bitsandbytes.js';
import { findCudaRuntimeMessages } from './cuda-runtime.js';
import type { GrammarHit } from './grammar-hit.js';
import { findHostOomMessages } from './host-oom.js';
import { type LogLine, lineAt, logStreams, normalizeLog } from './log-lines.js';
import { findLookAlikes } from './look-alikes.js';
import { findNcclMessages } from './nccl.js';
import type { OomMatch } from './oom-message.js';
import { findTensorflowMessages } from './tensorflow.js';
import { findTorchAllocatorMessages } from './torch-allocator.js';
import { findXlaMessages } from './xla.js';

/** Messages kept per family and stream: a log with more is pathological (the first ones are kept). */
export const MAX_MESSAGES_PER_FAMILY = 1000;

/** The grammars of the OOM families, most informative first. */
const GRAMMARS: readonly ((text: string) => GrammarHit[])[] = [
  findTorchAllocatorMessages,
  findXlaMessages,
  findTensorflowMessages,
  findBitsandbytesMessages,
  findNcclMessages,
  findCudaRuntimeMessages,
  findHostOomMessages,
];

function run(lines: readonly LogLine[], grammars: readonly ((text: string) => GrammarHit[])[]): OomMatch[] {
  const out: OomMatch[] = [];
  const seen = new Set<string>();
  for (const stream of logStreams(lines)) {
    for (const grammar of grammars) {
      for (const hit of grammar(stream.text).slice(0, MAX_MESSAGES_PER_FAMILY)) {
        const line = lineAt(stream, hit.start);
        const rank = lines[line]?.rank ?? stream.rank;
        // The same message printed twice on a rank (traceback, then a launcher's summary) counts once.
        const key = `${rank}:${JSON.stringify(hit.oom)}:${hit.signature}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({
          oom: hit.oom,
          quote: hit.quote,
          line,
          rank,
          backend: hit.backend,
          layout: hit.layout,
          requestUnbounded: hit.requestUnbounded,
          signature: hit.signature,
        });
      }
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * Every out-of-memory message in `text`, in log order (device and host families; look-alikes are not
 * included — see findLookAlikeErrors).
 * @example findOomMessages('[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.')
 */
export function findOomMessages(text: string): OomMatch[] {
  return run(normalizeLog(text), GRAMMARS);
}

/** Errors in `text` that look like out-of-memory errors and are not (family `not-oom`). */
export function findLookAlikeErrors(text: string): OomMatch[] {
  return run(normalizeLog(text), [findLookAlikes]);
}

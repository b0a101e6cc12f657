/**
 * Finds the out-of-memory report in a command's stderr: the last line that names one, with the
 * Python traceback that leads to it. Markers (data/validation/oom_corpus.jsonl families):
 * PyTorch's `CUDA out of memory` / `OutOfMemoryError` / `Tried to allocate N` (a message cut before
 * its start), the CUDA runtime's `CUDA error: out of memory`, NCCL's `Cuda failure 'out of memory'`,
 * cuBLAS `CUBLAS_STATUS_ALLOC_FAILED`, XLA's `RESOURCE_EXHAUSTED`, TensorFlow's `OOM when allocating`.
 */

import { findLookAlikeErrors, findOomMessages } from './oom/find-oom-messages.js';

const OOM_MARKER =
  /out of memory|OutOfMemoryError|Tried to allocate \d|CUBLAS_STATUS_ALLOC_FAILED|RESOURCE_EXHAUSTED|OOM when allocating/i;
const TRACEBACK_START = 'Traceback (most recent call last):';
/** How far back from the OOM line a traceback start is looked for. */
export const OOM_TRACEBACK_MAX_LINES = 400;
/** Lines kept after the OOM line (chained exceptions, the rank's summary). */
export const OOM_TRAILING_MAX_LINES = 20;
/** Longest OOM text kept. */
export const OOM_TEXT_MAX_CHARS = 65_536;

export interface StderrOom {
  /** The line that names the out-of-memory, trimmed. */
  readonly message: string;
  /** From the traceback's first line (when found) to the end of the report. */
  readonly text: string;
}

/** True when a piece of stderr names an out-of-memory. */
export function mentionsOom(text: string): boolean {
  return OOM_MARKER.test(text);
}

/** The last out-of-memory report in `stderr`, or null. */
export function findOomInStderr(stderr: string): StderrOom | null {
  const lines = stderr.split(/\r?\n/);
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (OOM_MARKER.test(lines[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  let start = at;
  for (let i = at; i >= Math.max(0, at - OOM_TRACEBACK_MAX_LINES); i--) {
    if (lines[i]!.includes(TRACEBACK_START)) {
      start = i;
      break;
    }
  }
  let end = at;
  while (end + 1 < lines.length && end - at < OOM_TRAILING_MAX_LINES && lines[end + 1]!.trim() !== '') end++;
  let text = lines.slice(start, end + 1).join('\n');
  if (text.length > OOM_TEXT_MAX_CHARS) text = text.slice(text.length - OOM_TEXT_MAX_CHARS);
  // The marker only finds candidates; the OOM grammar (src/core/oom) decides. A look-alike it knows
  // (a gRPC RESOURCE_EXHAUSTED, say) is not an out-of-memory.
  if (findOomMessages(text).length === 0 && findLookAlikeErrors(text).length > 0) return null;
  return { message: lines[at]!.trim(), text };
}

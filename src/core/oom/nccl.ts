/**
 * NCCL's out-of-memory reports (data/docs/MONITORING.md §A7): `NCCL WARN Cuda failure 'out of memory'`
 * (alloc.h, enqueue.cc), `NCCL WARN Failed to CUDA calloc N bytes`, and how PyTorch surfaces them:
 * `NCCL error … unhandled cuda error` / `ncclUnhandledCudaError` (whose most common cause is memory).
 */
import { type GrammarHit, groupNearby, LineIndex, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';

const PATTERNS: readonly RegExp[] = [
  /\bCuda\s+failure\s+(?:\d+\s+)?'out\s+of\s+memory'/gi,
  /\bNCCL\s+WARN\s+Failed\s+to\s+CUDA\s+calloc\s+(\d+)\s+bytes/gi,
  /\bNCCL\b[^\n]{0,300}?(?:unhandled\s+cuda\s+error|ncclUnhandledCudaError)/gi,
  /\bncclUnhandledCudaError\b/g,
];

const SAME_FAILURE_CHARS = 4000;

/** Every NCCL memory failure in `text`; lines of one failure become one message. */
export function findNcclMessages(text: string): GrammarHit[] {
  const found: { at: number; end: number; requested: number | null; oom: boolean }[] = [];
  const lines = new LineIndex(text);
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const isOom = /out\s+of\s+memory|calloc/i.test(m[0]);
      // A bare "Cuda failure 'out of memory'" belongs to NCCL only when NCCL is named nearby.
      if (
        /^Cuda\s+failure/i.test(m[0]) &&
        !/NCCL/.test(text.slice(Math.max(0, m.index - 400), m.index + 400))
      )
        continue;
      found.push({
        at: m.index,
        end: m.index + m[0].length,
        requested: m[1] ? Number(m[1]) : null,
        oom: isOom,
      });
    }
  }
  const hits: GrammarHit[] = [];
  for (const group of groupNearby(found, SAME_FAILURE_CHARS, true)) {
    const first = group.find((g) => g.oom) ?? group[0]!;
    hits.push({
      start: group[0]!.at,
      oom: {
        ...emptyOom('nccl'),
        requestedBytes: group.find((g) => g.requested !== null)?.requested ?? null,
      },
      backend: null,
      layout: null,
      requestUnbounded: false,
      signature: group.some((g) => g.oom) ? "Cuda failure 'out of memory'" : 'unhandled cuda error',
      quote: quoteOf(lines.line(first.at)),
    });
  }
  return hits;
}

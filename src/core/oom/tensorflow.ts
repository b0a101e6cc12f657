/**
 * TensorFlow out-of-memory messages (data/docs/MONITORING.md §A7; tensorflow/core/common_runtime/bfc_allocator.cc):
 *   "Allocator (GPU_0_bfc) ran out of memory trying to allocate 43.75MiB."
 *   "Resource exhausted: OOM when allocating tensor with shape[44800,256] and type float on /job:…/device:GPU:0"
 *   "failed to allocate 3.58G (3840000000 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY" (stream executor)
 * Lines of one failure become one message. JAX uses the same BFC allocator; a log with XLA's own
 * words is XLA's (xla.ts), not TensorFlow's.
 */
import { SIZE, sizeBytes } from './byte-size.js';
import { type GrammarHit, groupNearby, LineIndex, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';
import { XLA_OWN_WORDS } from './xla.js';

const r = (source: string) => new RegExp(source, 'gi');
const BFC = r(
  String.raw`\bAllocator\s+\((\w+)\)\s+ran\s+out\s+of\s+memory\s+trying\s+to\s+allocate\s+${SIZE}`,
);
const OOM_TENSOR = /\bOOM\s+when\s+allocating\s+tensor\b[^\n]{0,500}/g;
const STREAM_EXECUTOR =
  /\bfailed\s+to\s+alloc(?:ate)?\s+[\d.]+\s*[KMGTP]?i?B?\s*\((\d+)\s+bytes\)\s+from\s+device:?\s*CUDA_ERROR_OUT_OF_MEMORY/gi;
const RESOURCE_EXHAUSTED_ERROR = /\bResourceExhaustedError\b[^\n]{0,300}?\bOOM\b[^\n]{0,500}/g;

const SAME_FAILURE_CHARS = 8000;

/** Every TensorFlow out-of-memory message in `text` (none when the log is JAX/XLA's). */
export function findTensorflowMessages(text: string): GrammarHit[] {
  if (XLA_OWN_WORDS.test(text)) return [];
  const found: { at: number; end: number; requested: number | null; gpu: number | null }[] = [];
  const scan = (
    pattern: RegExp,
    read: (m: RegExpExecArray) => { requested: number | null; gpu: number | null },
  ) => {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text))
      found.push({ at: m.index, end: m.index + m[0].length, ...read(m) });
  };
  scan(BFC, (m) => ({
    requested: sizeBytes(m[2]!, m[3]!),
    gpu: /^GPU_(\d+)_bfc$/i.test(m[1]!) ? Number(/\d+/.exec(m[1]!)![0]) : null,
  }));
  const deviceGpu = (line: string) => {
    const d = /device:GPU:(\d+)/i.exec(line) ?? /\bGPU_(\d+)_bfc\b/i.exec(line);
    return d ? Number(d[1]) : null;
  };
  scan(OOM_TENSOR, (m) => ({ requested: null, gpu: deviceGpu(m[0]) }));
  scan(RESOURCE_EXHAUSTED_ERROR, (m) => ({ requested: null, gpu: deviceGpu(m[0]) }));
  scan(STREAM_EXECUTOR, (m) => ({ requested: Number(m[1]), gpu: null }));
  const hits: GrammarHit[] = [];
  const lines = new LineIndex(text);
  for (const group of groupNearby(found, SAME_FAILURE_CHARS, false)) {
    const first = group[0]!;
    hits.push({
      start: first.at,
      oom: {
        ...emptyOom('tensorflow'),
        requestedBytes: group.find((g) => g.requested !== null)?.requested ?? null,
        gpuIndex: group.find((g) => g.gpu !== null)?.gpu ?? null,
      },
      backend: null,
      layout: null,
      requestUnbounded: false,
      signature: /Allocator/.test(text.slice(first.at, first.end))
        ? 'ran out of memory'
        : 'OOM when allocating',
      quote: quoteOf(text.slice(first.at, Math.max(first.end, lines.end(first.at)))),
    });
  }
  return hits;
}

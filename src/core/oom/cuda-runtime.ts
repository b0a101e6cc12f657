/**
 * Numberless CUDA out-of-memory errors, raised outside PyTorch's caching allocator (data/docs/MONITORING.md
 * §A7): `CUDA error: out of memory` (context creation, cuBLAS/cuDNN workspaces, kernels; newer builds raise
 * it as torch.AcceleratorError), legacy THC `THCudaCheck FAIL … error=2 : out of memory` and
 * `cuda runtime error (2) : out of memory`, the driver's `CUDA_ERROR_OUT_OF_MEMORY`, and the library
 * forms `CUBLAS_STATUS_ALLOC_FAILED`, `CUDNN_STATUS_ALLOC_FAILED`, `CUDNN_STATUS_NOT_INITIALIZED` (cuDNN
 * fails to create its handle when the card is full).
 */
import { type GrammarHit, LineIndex, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';

const PATTERNS: readonly RegExp[] = [
  /\bCUDA\s+error\s*:\s*out\s+of\s+memory/gi,
  /\bcuda\s+runtime\s+error\s*\(\s*2\s*\)\s*:\s*out\s+of\s+memory/gi,
  /\bTHCudaCheck\s+FAIL\s+file=\S+\s+line=\d+\s+error=2\s*:\s*out\s+of\s+memory/g,
  /\bCUDA\s+error\s+2\b[^\n]{0,200}?out\s+of\s+memory/gi,
  /\bCUDA\s+driver\s+error\s*:\s*out\s+of\s+memory/gi,
  /\[CUDA\]\s*:\s*out\s+of\s+memory/gi,
  /\bCUDA_ERROR_OUT_OF_MEMORY\b/g,
  /\bcudaErrorMemoryAllocation\b/g,
  /\bCUBLAS_STATUS_ALLOC_FAILED\b/g,
  /\bcublas\s+runtime\s+error\s*:\s*resource\s+allocation\s+failed/gi, // THC's words for the same status
  /\bCUDNN_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED)\b/g,
];

/** Every numberless CUDA out-of-memory error in `text`, one per line. */
export function findCudaRuntimeMessages(text: string): GrammarHit[] {
  const byLine = new Map<number, GrammarHit>();
  const lines = new LineIndex(text);
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const lineStart = lines.start(m.index);
      if (byLine.has(lineStart)) continue;
      byLine.set(lineStart, {
        start: m.index,
        oom: emptyOom('cuda-runtime'),
        backend: 'cuda',
        layout: null,
        requestUnbounded: false,
        signature: m[0].replace(/\s+/g, ' '),
        quote: quoteOf(lines.line(m.index)),
      });
    }
  }
  return [...byLine.values()].sort((a, b) => a.start - b.start);
}

/**
 * JAX/XLA out-of-memory messages (data/docs/MONITORING.md §A7):
 *   "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 285212672 bytes."
 *   "RESOURCE_EXHAUSTED: Failed to allocate request for 176.00MiB (184549376B) on device ordinal 0"
 *   "Out of memory allocating 8589934592 bytes." (PJRT), older "Resource exhausted: Out of memory ..."
 * Lines of one failure (the error, BufferAssignment stats, the BFC allocator) become one message.
 */
import { SIZE, sizeBytes } from './byte-size.js';
import { type GrammarHit, groupNearby, LineIndex, quoteOf } from './grammar-hit.js';
import { emptyOom, type OomMessage } from './oom-message.js';

const r = (source: string) => new RegExp(source, 'gi');
/** Text that marks a log as JAX/XLA's (so generic "out of memory allocating" is read as XLA's). */
export const XLA_CONTEXT =
  /RESOURCE_EXHAUSTED|XlaRuntimeError|JaxRuntimeError|jaxlib|xla_extension|\bjax\b|XLA_PYTHON_CLIENT/i;
/** Words only XLA prints: a log with these is JAX/XLA's even when TensorFlow's BFC allocator also speaks. */
export const XLA_OWN_WORDS =
  /RESOURCE_EXHAUSTED\s*:\s*Out\s+of\s+memory|Failed\s+to\s+allocate\s+request\s+for|XlaRuntimeError|JaxRuntimeError|jaxlib|xla_extension/;

const PATTERNS: readonly { pattern: RegExp; needsContext: boolean }[] = [
  {
    pattern: r(
      String.raw`\bRESOURCE_EXHAUSTED\s*:\s*Out\s+of\s+memory\s+(?:while\s+trying\s+to\s+allocate|allocating)(?:\s+${SIZE})?`,
    ),
    needsContext: false,
  },
  {
    pattern: r(
      String.raw`\bResource\s+exhausted\s*:\s*Out\s+of\s+memory\s+(?:while\s+trying\s+to\s+allocate|allocating)(?:\s+${SIZE})?`,
    ),
    needsContext: false,
  },
  {
    pattern: r(
      String.raw`\bFailed\s+to\s+allocate\s+request\s+for\s+${SIZE}\s*(?:\((\d+)\s*B\))?(?:\s+on\s+device\s+ordinal\s+(\d+))?`,
    ),
    needsContext: false,
  },
  {
    pattern: r(String.raw`\bOut\s+of\s+memory\s+(?:while\s+trying\s+to\s+allocate|allocating)\s+${SIZE}`),
    needsContext: true,
  },
  // TPU/GPU reservations: "RESOURCE_EXHAUSTED: Attempting to reserve 10.5G at the bottom of memory"
  { pattern: /\bRESOURCE_EXHAUSTED\s*:[^\n]{0,300}?\b(?:memory|allocat\w*|OOM)\b/gi, needsContext: false },
];

/** Characters within which several XLA lines describe one failure. */
const SAME_FAILURE_CHARS = 4000;

/** Every JAX/XLA out-of-memory message in `text`. */
export function findXlaMessages(text: string): GrammarHit[] {
  const context = XLA_CONTEXT.test(text);
  const found: { at: number; end: number; requested: number | null; gpu: number | null }[] = [];
  for (const { pattern, needsContext } of PATTERNS) {
    if (needsContext && !context) continue;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      // "(184549376B)" is the exact figure; the rounded one before it only stands in when it is missing.
      const exact = m[3] !== undefined && /Failed/i.test(m[0]) ? Number(m[3]) : null;
      const printed = m[1] !== undefined && m[2] !== undefined ? sizeBytes(m[1], m[2]) : null;
      const gpu = /ordinal/i.test(m[0]) && m[4] !== undefined ? Number(m[4]) : null;
      found.push({ at: m.index, end: m.index + m[0].length, requested: exact ?? printed, gpu });
    }
  }
  const hits: GrammarHit[] = [];
  const lines = new LineIndex(text);
  for (const group of groupNearby(found, SAME_FAILURE_CHARS, true)) {
    const first = group[0]!;
    const oom: OomMessage = {
      ...emptyOom('xla'),
      requestedBytes: group.find((g) => g.requested !== null)?.requested ?? null,
      gpuIndex: group.find((g) => g.gpu !== null)?.gpu ?? null,
    };
    hits.push({
      start: first.at,
      oom,
      backend: null,
      layout: null,
      requestUnbounded: false,
      signature: 'RESOURCE_EXHAUSTED',
      quote: quoteOf(text.slice(first.at, Math.max(first.end, lines.end(first.at)))),
    });
  }
  return hits;
}

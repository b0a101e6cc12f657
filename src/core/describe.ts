/** One-line descriptions of a scenario, for headers, tables and reports. */
import type { PeakTermName } from './estimate.js';

// The line's words are src/words/scenario-line.ts's (English and Chinese); this path stays its entry.
export { describeScenario } from '../words/scenario-line.js';

/** What each term of a phase's high point is, in a few words (estimate --explain, the dashboard). */
export const PEAK_TERM_LABELS: Readonly<Record<PeakTermName, string>> = {
  weights: 'weights (this GPU’s share)',
  'optimizer-states': 'optimizer states',
  'communication-buckets': 'DDP/ZeRO communication buckets',
  'gathered-weights': 'gathered layers (ZeRO-3/FSDP)',
  'cublas-workspaces': 'cuBLAS workspaces (forward and backward threads)',
  'fsdp-root-unit': 'FSDP root unit (embeddings, head)',
  'accumulated-gradients': 'gradients kept between micro-batches',
  gradients: 'gradients',
  'saved-activations': 'saved activations',
  'logits-and-loss': 'logits and loss',
  'autocast-copies': 'autocast 16-bit weight copies',
  'dequantized-weight': 'a dequantized 4/8-bit weight',
  'quantization-transient': 'a weight being quantized at load',
  'previous-step-inputs': 'the previous step’s kept 4-bit inputs',
  'backward-transient': 'backward transient (recomputed layer or logit/head gradients)',
  'gathered-gradients': 'unsharded gradients before reduce-scatter',
  'fsdp-root-gradient': 'FSDP root gradient',
  'optimizer-step-temporary': 'optimizer step temporaries',
  calibration: 'calibration (the measured run’s difference)',
};

/**
 * What an estimate is: the per-GPU peak at the three levels a user can observe, the five parts, each
 * phase's high point term by term, and the pieces behind them (the breakdown). The steps beside this
 * file compute it; src/core/estimate.ts is the entry other modules import.
 */
import type { ModelShape } from '../architecture.js';
import type { GpuSpec } from '../catalog/gpu-spec.js';
import type { EstimateNote } from '../estimate-notes.js';
import type { Fit } from '../margin.js';
import type { NoParams } from '../message.js';
import type { Scenario } from '../scenario.js';
import type { UpperBound } from './upper.js';

/** The phases every run has: loading and the training step's three. */
export type StepPhase = 'load' | 'forward' | 'backward' | 'optimizer-step';
/** With evaluation (scenario.evaluation): its forward without the graph, and sample generation. */
export type Phase = StepPhase | 'eval' | 'generate';
/**
 * What set the reserve above allocated (allocator.ts fixedReserve): the share of the churn, the loss's
 * block, the optimizer states carved out of the cache at the first step, or the step's temporaries.
 */
export type ReserveBasis = 'churn-share' | 'loss-block' | 'optimizer-states' | 'step-temporaries';

export const PHASES: readonly Phase[] = ['load', 'forward', 'backward', 'optimizer-step', 'eval', 'generate'];
/** A figure per phase: the step's four always, eval and generate when the run evaluates (and generates). */
export type PhaseFigures<T> = Readonly<Record<StepPhase, T>> & {
  readonly eval?: T;
  readonly generate?: T;
};

export interface Components {
  readonly weights: number;
  readonly gradients: number;
  readonly optimizer: number;
  readonly activations: number;
  readonly runtime: number;
}

/** The terms a phase's high point adds up to (torch-allocated bytes), in the order they are held. */
export const PEAK_TERMS = [
  'weights',
  'optimizer-states',
  'communication-buckets',
  'gathered-weights',
  'cublas-workspaces',
  'fsdp-root-unit',
  'zero3-turn-weights',
  'accumulated-gradients',
  'gradients',
  'saved-activations',
  'logits-and-loss',
  'autocast-copies',
  'dequantized-weight',
  'quantization-transient',
  // Loading (load.ts): a 16-bit base held in fp32 before its cast; prepare_model_for_kbit_training's fp32 copies.
  'load-fp32-weights',
  'kbit-upcast',
  'previous-step-inputs',
  'backward-transient',
  'gathered-gradients',
  'fsdp-root-gradient',
  'optimizer-step-temporary',
  // Evaluation (evaluation.ts): one layer without the graph, the eval batch's logits and loss, the
  // logits kept for metrics; generation's KV cache and its prompt's logits.
  'eval-layer',
  'eval-logits-and-loss',
  'kept-eval-logits',
  'kv-cache',
  'generation-logits',
  // A calibrated estimate (calibrate.ts): the measured run's difference from the terms above.
  'calibration',
] as const;
export type PeakTermName = (typeof PEAK_TERMS)[number];
/** The params of each term as a code of the catalog (src/words/peak-terms.ts words them): none, a term is its name. */
export type PeakTermParams = { readonly [T in PeakTermName]: NoParams };

/** One term of a phase's high point: what it is and its torch-allocated bytes. */
export interface TermBytes {
  readonly term: PeakTermName;
  readonly bytes: number;
}

/**
 * The pieces behind the parts, whole bytes each (the fragmentation share is a ratio), for people who
 * want to check the arithmetic. The JSON of `estimate --json` carries it under these names, in this
 * order. A type alias, not an interface, so that it reads as a record of numbers where one is asked
 * for (margin.ts's FitEvidence).
 */
export type Breakdown = {
  /** Weights on this GPU: its shard, quantized bytes no strategy partitions, adapters. */
  readonly weightsBytes: number;
  /** Gradients on this GPU after sharding and offload (the largest tensor's under optimizer-in-backward). */
  readonly gradientsBytes: number;
  /** Optimizer states on this GPU, paged ones excluded. */
  readonly optimizerBytes: number;
  /** Paged optimizer states on this GPU's share: CUDA managed memory, outside torch allocated. */
  readonly pagedOptimizerBytes: number;
  /** What forward saves for backward, on the GPU (offloaded layers excluded). */
  readonly activationsSavedBytes: number;
  /** Saved activations waiting in pinned CPU memory (offload.activations "cpu"). */
  readonly activationsOffloadedBytes: number;
  /** The previous step's kept quantized-layer inputs during this step's forward. */
  readonly previousStepBytes: number;
  /** Saved bytes per token of one decoder layer. */
  readonly activationsPerLayerPerTokenBytes: number;
  /** Logits and loss held at the end of forward. */
  readonly lossResidentBytes: number;
  /** Backward's largest transient: a recomputed layer, or the logits' and head's gradients. */
  readonly backwardTransientBytes: number;
  /** Autocast's 16-bit copies of fp32 weights. */
  readonly autocastCopyBytes: number;
  /** One dequantized weight (and its cast) of a quantized base. */
  readonly dequantTransientBytes: number;
  /** The current and prefetched units gathered whole (ZeRO-3, FSDP). */
  readonly gatheredWeightsBytes: number;
  /** FSDP's root unit (embeddings, head), gathered through forward and backward. */
  readonly fsdpRootUnitBytes: number;
  /** The root unit's whole gradient. */
  readonly fsdpRootGradientBytes: number;
  /** DDP buckets or DeepSpeed's reduce bucket(s). */
  readonly commBufferBytes: number;
  /** The optimizer step's state-sized temporary (foreach kernels). */
  readonly optimizerTempBytes: number;
  /** Bytes per element of the optimizer's states and that temporary (2 for bf16 states, 4 for fp32). */
  readonly optimizerTempElementBytes: number;
  /** The cuBLAS (hipBLAS) workspaces of the step's two handles. */
  readonly cublasWorkspaceBytes: number;
  /** The bytes that churn at the peak (the reserve model's input). */
  readonly churnBytes: number;
  /** The share of the churn the allocator keeps as reserve. */
  readonly allocatorFragmentationShare: number;
  /**
   * The training step's loss tensors (the logits' fp32 copies and their gradients): at a training-step
   * peak the reserve holds at least a replayed share of them (allocator.ts FIXED_RESERVE) where they
   * dominate the churn; 0 with expandable segments.
   */
  readonly reserveLossBytes: number;
  /**
   * What backward leaves in the cache before the optimizer step (saved activations, the loss's tensors,
   * the backward transient): at an optimizer-step peak the reserve holds a replayed share of the smaller
   * of it and the step's temporaries (allocator.ts OPTIMIZER_STEP_RESERVE, by the temporaries' element size). 0 with expandable segments.
   */
  readonly reserveStepCacheBytes: number;
  /**
   * The optimizer states the first step() made on the GPU out of that cache: at a training-step peak the
   * reserve holds a replayed share of the smaller of them and the cache (allocator.ts
   * OPTIMIZER_STATES_RESERVE). 0 when the states are made before training (DeepSpeed ZeRO), paged or offloaded.
   */
  readonly reserveStatesBytes: number;
  /**
   * FSDP's communication streams' cached blocks in reserved and not allocated at the peak: the sharded
   * gradients' (reduce-scatter stream) and FSDP2's all-gather output (copy-in stream), which the compute
   * stream cannot reuse (allocator.ts streamCacheBytes); 0 on one GPU and for other strategies.
   */
  readonly reserveStreamCacheBytes: number;
  /** Batches padded to their longest sample: the reserve's growth over the run (allocator.ts RESERVE_GROWTH); 0 otherwise. */
  readonly variableLengthReserveBytes: number;
  /**
   * What a card without room for that climb must still hold of it: the allocator releases its unsplit
   * cached segments and retries before it fails (RESERVE_GROWTH's pressure factors); in `upper`.
   */
  readonly variableLengthNeedBytes: number;
  /** The CUDA context outside torch. */
  readonly cudaContextBytes: number;
  /** NCCL's buffers when more than one GPU is used. */
  readonly ncclBytes: number;
};

export interface Estimate {
  readonly perGpu: true;
  readonly peak: {
    readonly allocatedBytes: number;
    readonly reservedBytes: number;
    readonly deviceBytes: number;
  };
  /** The five parts at the peak; they add up to peak.deviceBytes. */
  readonly components: Components;
  readonly peakPhase: Phase;
  /**
   * What set the reserve above allocated at the peak (allocator.ts fixedReserve): the share of the churn,
   * the loss's cached block, or the optimizer step's temporaries beside the cache backward left.
   */
  readonly reserveBasis: ReserveBasis;
  /**
   * What the peak phase's high point holds, term by term (torch-allocated bytes; they add up to
   * peak.allocatedBytes). Reserved adds the allocator's reserve, device the CUDA context and NCCL.
   * Present when the estimate was asked for its terms (EstimateInput.terms).
   */
  readonly peakTerms?: readonly TermBytes[];
  /** torch-allocated bytes at the high point of each phase (eval and generate when the run does them). */
  readonly phases: PhaseFigures<number>;
  /** Each phase's high point term by term; each list adds up to that phase's figure in `phases`. */
  readonly phaseTerms?: PhaseFigures<readonly TermBytes[]>;
  /** Host memory (CPU RAM, pinned buffers included) and NVMe space per node when anything is offloaded. */
  readonly host: { readonly cpuBytes: number; readonly nvmeBytes: number } | null;
  readonly params: { readonly total: number; readonly trainable: number; readonly exactFromWeights: boolean };
  /** The pieces behind the parts, for people who want to check the arithmetic. */
  readonly breakdown: Breakdown;
  /**
   * The honest top of the range (upper.ts): per level, the value the measured peak stays under on nine
   * runs in ten of this kind of setup, from the estimator's own error on measured runs. `fits` is judged
   * on upper.deviceBytes, with the margin.
   */
  readonly upper: UpperBound;
  readonly fits?: Fit;
  /** Assumptions the estimate had to make, as data (src/words/estimate-notes.ts words them). */
  readonly notes: readonly EstimateNote[];
}

export interface EstimateInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  /** Exact parameter count read from the weight files, when known; the shape's count otherwise. */
  readonly exactParams?: number | null;
  readonly gpu?: GpuSpec | null;
  /** The share of the GPU's memory kept free when judging the fit (margin.ts); default 10 %. */
  readonly marginFraction?: number;
  /**
   * Also return what each phase's high point is made of (`peakTerms`, `phaseTerms`): the CLI's
   * output and the dashboard ask for them; planners and searches, which only compare peaks, do not.
   */
  readonly terms?: boolean;
}

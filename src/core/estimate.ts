/**
 * The memory model: per-GPU peak memory of one fine-tuning step, by part and by phase, at the three
 * levels a user can observe (torch allocated, torch reserved, nvidia-smi). This file is the entry other
 * modules import; the steps live in src/core/estimate/ (pipeline.ts lists them in order).
 * docs/memory-model.md explains each term and its source; the constants carry their source where they
 * have one.
 */
export { ACTIVATION_OFFLOAD_LAYERS_ON_GPU, LOSS_CHUNKS } from './estimate/activations.js';
export {
  ALLOCATOR_BASE_RESERVE_BYTES,
  ALLOCATOR_FRAGMENTATION,
  EXPANDABLE_SEGMENTS_FRAGMENTATION,
  FIXED_RESERVE,
  fixedReserve,
  fragmentationShare,
  OPTIMIZER_STATES_RESERVE,
  OPTIMIZER_STEP_RESERVE,
  stepReserveFactor,
  stepReuseBytes,
} from './estimate/allocator.js';
export { GPUS_PER_NODE } from './estimate/host.js';
export { type LayerContext, layerActivationBytesPerToken } from './estimate/layer-activations.js';
export { fullTrainingModelStates } from './estimate/optimizer.js';
export { estimate } from './estimate/pipeline.js';
export { quantizedBytesPerParam, unshardedQuantBytesPerParam } from './estimate/precision.js';
export {
  CUBLAS_HANDLES_PER_STEP,
  CUBLAS_WORKSPACE_BYTES,
  CUBLAS_WORKSPACE_BYTES_HOPPER,
  CUDA_CONTEXT_BYTES,
  cublasWorkspaceBytes,
  cudaContextBytes,
  HIPBLAS_WORKSPACE_BYTES,
  HIPBLAS_WORKSPACE_BYTES_GFX942,
  HOPPER_CUDA_CONTEXT_BYTES,
  NCCL_BUFFER_BYTES,
} from './estimate/runtime.js';
export {
  autoReduceBucketElements,
  reduceBucketElements,
  ZERO_REDUCE_BUCKET_ELEMENTS,
} from './estimate/strategy-terms.js';
export {
  type Breakdown,
  type Components,
  type Estimate,
  type EstimateInput,
  PEAK_TERMS,
  type PeakTermName,
  type PeakTermParams,
  PHASES,
  type Phase,
  type PhaseFigures,
  type ReserveBasis,
  type StepPhase,
  type TermBytes,
} from './estimate/types.js';
export {
  type PeakLevels,
  UPPER_LEVELS,
  UPPER_MIN_ROWS,
  UPPER_QUANTILE,
  type UpperBasis,
  type UpperBound,
  type UpperKind,
  type UpperLayout,
  type UpperLevel,
  type UpperSetup,
  type UpperTable,
  upperBound,
  upperFromBasis,
} from './estimate/upper.js';

/**
 * What the data-parallel strategy holds beyond its shards: the layers it gathers, FSDP's root unit,
 * the communication buckets, and the gradients accumulation keeps between micro-batches. What each
 * strategy does is its row of STRATEGY_TRAITS (sharding.ts); this step turns the traits into bytes.
 */
import type { ModelShape } from '../architecture.js';
import type { ParamBreakdown } from '../params.js';
import type { Scenario } from '../scenario.js';
import type { StrategyTraits } from '../sharding.js';
import type { ModelStates } from './model-states.js';
import { type PrecisionPlan, quantizedBytesPerParam, unshardedQuantBytesPerParam } from './precision.js';
import type { TrainingPlan } from './training.js';

/** DeepSpeed ZeRO's gradient reduce bucket, elements (reduce_bucket_size default 5e8, deepspeed/runtime/zero/config.py). */
export const ZERO_REDUCE_BUCKET_ELEMENTS = 5e8;

/** DeepSpeed's reduce bucket in elements for "auto", as the Hugging Face integration sizes it: hidden_size². */
export function autoReduceBucketElements(shape: ModelShape): number {
  return shape.hiddenSize * shape.hiddenSize;
}

/** DeepSpeed's reduce bucket in elements: the scenario's, "auto", else DeepSpeed's default. */
export function reduceBucketElements(scenario: Scenario, shape: ModelShape): number {
  const size = scenario.parallelism.reduceBucketSize;
  if (size === 'auto') return autoReduceBucketElements(shape);
  return size ?? ZERO_REDUCE_BUCKET_ELEMENTS;
}

export interface StrategyTerms {
  /** The weights are sharded and gathered unit by unit around their use (ZeRO-3, FSDP) on several GPUs. */
  readonly gathersAcrossGpus: boolean;
  /** The current and the prefetched unit gathered in compute precision. */
  readonly gatheredBytes: number;
  /** Unsharded gradients of the gathered units before their reduce-scatter (full fine-tunes). */
  readonly gatheredGradBytes: number;
  /** FSDP's root unit (embeddings, head, final norm), gathered from forward to the end of backward. */
  readonly rootBytes: number;
  /** The root unit's whole gradient. */
  readonly rootGradBytes: number;
  /** The head's part of the root gradient, which forms at the start of backward. */
  readonly rootHeadGradBytes: number;
  /** The output head's weight: its own matrix, or the embedding when they are tied. */
  readonly headWeightParams: number;
  /** DDP's gradient buckets or DeepSpeed's reduce bucket(s), inside torch's allocator. */
  readonly bucketBytes: number;
  /** FSDP accumulates whole, unsharded gradients inside no_sync() between syncs. */
  readonly unshardedAccumulation: boolean;
  /** Gradients held through the next forward while micro-batches accumulate. */
  readonly gradsDuringForward: number;
}

/** The strategy step. */
export function strategyTerms(
  scenario: Scenario,
  shape: ModelShape,
  params: ParamBreakdown,
  plan: PrecisionPlan,
  training: TrainingPlan,
  traits: StrategyTraits,
  states: ModelStates,
): StrategyTerms {
  const gpus = scenario.parallelism.gpus;
  const quantized = scenario.quantization !== 'none';
  // Working set of sharded weights: the current and the prefetched unit gathered in compute precision
  // (DeepSpeed's "4 × largest layer"; FSDP unshards one unit and prefetches the next).
  const gatheredLayerParams = params.largestLayerParams;
  const weightsAreSharded = traits.shards.weights;
  const layerBytesQuant = quantized
    ? quantizedBytesPerParam(scenario.quantization) - unshardedQuantBytesPerParam(scenario)
    : plan.computeBytes;
  const gatheredBytes =
    weightsAreSharded && (gpus > 1 || scenario.offload.params !== 'none')
      ? 2 * gatheredLayerParams * layerBytesQuant
      : 0;
  const gatheredGradBytes =
    weightsAreSharded && gpus > 1 && (scenario.method === 'full' || scenario.method === 'freeze')
      ? traits.gatheredGradientUnits * gatheredLayerParams * plan.computeBytes
      : 0;

  // FSDP's root unit holds what no wrapped block does: the embeddings and the output head (and the
  // final norm). FSDP keeps the root gathered from the start of forward to the end of backward, and
  // builds the root's whole gradient before one reduce-scatter at the very end (PyTorch FSDP
  // _runtime_utils: the root is not resharded after forward; FSDP2 fully_shard documents the same
  // heuristic). parallelism.wrapEmbeddings makes them ordinary units (torchtune custom_sharded_layers).
  const rootParams =
    traits.rootUnitGathered && gpus > 1 && !scenario.parallelism.wrapEmbeddings
      ? params.embeddingParams + params.lmHeadParams
      : 0;
  const rootBytes = rootParams * plan.computeBytes;
  // Trained root parameters: all of it in a full fine-tune, else the modules_to_save copies.
  const savedCopies = (training.embeddingTrained ? 1 : 0) + (training.lmHeadTrained ? 1 : 0);
  const rootTrainedParams =
    scenario.method === 'full' ? rootParams : savedCopies * shape.vocabSize * shape.hiddenSize;
  const rootGradBytes = rootParams > 0 ? rootTrainedParams * plan.computeBytes : 0;
  // The root's gradient forms in two steps. The head's part comes first, at the start of backward; the
  // embeddings' at the very end, when FSDP joins the per-parameter gradients into one flat tensor: the
  // FlatParameter's split-view backward concatenates them (FSDP1, flat_param.py
  // _get_unflat_views_unaligned: torch.split + view), and FSDP2 copies them into its reduce-scatter
  // input (_fsdp_collectives.py foreach_reduce: torch._chunk_cat). Both exist for that moment.
  // The head's weight: its own matrix, or the embedding when they are tied.
  const headWeightParams = params.lmHeadParams > 0 ? params.lmHeadParams : params.embeddingParams;
  const rootHeadGradBytes =
    rootGradBytes === 0
      ? 0
      : scenario.method === 'full'
        ? headWeightParams * plan.computeBytes
        : training.lmHeadTrained
          ? shape.vocabSize * shape.hiddenSize * plan.computeBytes
          : 0;

  // Communication buffers inside torch's allocator. DeepSpeed's contiguous gradients (on by default)
  // reduce through a flat bucket of reduce_bucket_size elements in the model's dtype, whatever the
  // number of trained parameters: ZeRO-1/2 make one at the start of each backward, two with
  // overlap_comm (stage_1_and_2.py, backward: "Use double buffers"); ZeRO-3 one, when it sets up its
  // optimizer (stage3.py, _setup_for_real_optimizer: __ipg_bucket_flat_buffer).
  let bucketBytes = 0;
  if (traits.buckets === 'gradient-copies' && gpus > 1) bucketBytes = states.wholeGradientBytes;
  if (traits.buckets === 'reduce-bucket' && states.trainableParams > 0) {
    const buckets = traits.overlapDoublesBucket && scenario.parallelism.overlapComm ? 2 : 1;
    bucketBytes = buckets * reduceBucketElements(scenario, shape) * plan.computeBytes;
  }

  // Accumulating micro-batches keeps the gradients alive through the next forward. FSDP accumulates
  // them unsharded inside no_sync() (FSDP docs: "FSDP will accumulate the full model gradients (instead
  // of gradient shards) until the eventual sync"), which Accelerate and Lightning use between syncs;
  // parallelism.syncEachMicroBatch says the run reduce-scatters every micro-batch instead.
  const accumulating = scenario.gradAccumSteps > 1;
  const unshardedAccumulation =
    accumulating &&
    traits.accumulatesUnshardedInNoSync &&
    gpus > 1 &&
    !scenario.parallelism.syncEachMicroBatch &&
    !states.optimizerInBackward;
  const G = states.gradientsBytes;
  const gradsDuringForward = accumulating
    ? unshardedAccumulation
      ? Math.max(G, states.wholeGradientBytes)
      : G
    : 0;
  return {
    gathersAcrossGpus: weightsAreSharded && gpus > 1,
    gatheredBytes,
    gatheredGradBytes,
    rootBytes,
    rootGradBytes,
    rootHeadGradBytes,
    headWeightParams,
    bucketBytes,
    unshardedAccumulation,
    gradsDuringForward,
  };
}

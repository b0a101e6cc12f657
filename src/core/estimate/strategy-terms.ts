/**
 * What the data-parallel strategy holds beyond its shards: the layers it gathers, FSDP's root unit,
 * the communication buckets, and the gradients accumulation keeps between micro-batches. What each
 * strategy does is its row of STRATEGY_TRAITS (sharding.ts); this step turns the traits into bytes.
 */
import type { ModelShape } from '../architecture.js';
import type { ParamBreakdown } from '../params.js';
import type { Scenario } from '../scenario.js';
import { fsdp1FrozenGradients, fsdpVersion, STRATEGY_TRAITS, type StrategyTraits } from '../sharding.js';
import type { ModelStates } from './model-states.js';
import { type PrecisionPlan, quantizedBytesPerParam, unshardedQuantBytesPerParam } from './precision.js';
import type { TrainingPlan } from './training.js';

/** DeepSpeed ZeRO's gradient reduce bucket, elements (reduce_bucket_size default 5e8, deepspeed/runtime/zero/config.py). */
export const ZERO_REDUCE_BUCKET_ELEMENTS = 5e8;

/**
 * DeepSpeed ZeRO-3 does not release a gathered parameter whose next use comes within this many
 * parameter elements of the trace (stage3_max_reuse_distance, default 1e9: deepspeed/runtime/zero/
 * config.py @0.19.6, DeepSpeedZeroConfig.max_reuse_distance; the Hugging Face and DeepSpeed example
 * configs write the same 1e9). The scenario has no field for it: the DeepSpeed importer reports the key.
 */
export const ZERO3_MAX_REUSE_DISTANCE = 1e9;

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

/**
 * Bytes per element FSDP unshards the weights in on several GPUs: its mixed-precision param_dtype,
 * the compute dtype unless gatherDtype says fp32 (Lightning's FSDPPrecision "bf16-mixed" keeps
 * param_dtype=fp32 and computes under autocast: lightning/fabric/plugins/precision/fsdp.py @71aed751,
 * FSDPPrecision.mixed_precision_config). Null for a strategy that is not FSDP or runs on one GPU.
 */
export function fsdpGatherBytes(scenario: Scenario, plan: PrecisionPlan): number | null {
  const fsdp = STRATEGY_TRAITS[scenario.parallelism.strategy].family === 'fsdp';
  if (!fsdp || scenario.parallelism.gpus <= 1) return null;
  return scenario.parallelism.gatherDtype === 'fp32' ? 4 : plan.computeBytes;
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
  /**
   * The buffer the root's gradient is reduce-scattered from at the end of backward: a copy of it in the
   * reduce dtype (FSDP1 flat-parameter split-view concatenation, FSDP2 foreach_reduce's input).
   */
  readonly rootReduceInputBytes: number;
  /** The head's part of the root gradient, which forms at the start of backward. */
  readonly rootHeadGradBytes: number;
  /**
   * ZeRO-3's weights gathered at the turn from forward into backward beyond the two-unit working set:
   * the output head, and the last layers whose reuse comes within stage3_max_reuse_distance.
   */
  readonly turnGatheredBytes: number;
  /** The output head's weight: its own matrix, or the embedding when they are tied. */
  readonly headWeightParams: number;
  /** DDP's gradient buckets or DeepSpeed's reduce bucket(s), inside torch's allocator. */
  readonly bucketBytes: number;
  /** FSDP accumulates whole, unsharded gradients inside no_sync() between syncs. */
  readonly unshardedAccumulation: boolean;
  /** Gradients held through the next forward while micro-batches accumulate. */
  readonly gradsDuringForward: number;
  /**
   * The sharded gradients FSDP makes in its reduce-scatter (FSDP1: post-backward) stream: the caching
   * allocator keeps their blocks in that stream's pool when zero_grad frees them, where no tensor of
   * the compute stream can use them (allocator.ts streamCacheBytes).
   */
  readonly streamGradientBytes: number;
  /** FSDP2's all-gather output, made in its copy-in stream: one unit's, cached in that stream's pool. */
  readonly streamGatherBytes: number;
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
  // FSDP unshards in its param_dtype: the compute dtype, or fp32 (gatherDtype).
  const gatherBytes = fsdpGatherBytes(scenario, plan) ?? plan.computeBytes;
  const layerBytesQuant = quantized
    ? quantizedBytesPerParam(scenario.quantization) - unshardedQuantBytesPerParam(scenario)
    : gatherBytes;
  // FSDP2 (fully_shard, torchtitan) keeps the last block gathered from the end of forward into backward
  // (reshard_after_forward=False for it: torchtitan parallelize_llama.py @9dec370, apply_fsdp): that
  // block is one of the two units counted here, so it adds nothing beyond them.
  const gatheredBytes =
    weightsAreSharded && (gpus > 1 || scenario.offload.params !== 'none')
      ? 2 * gatheredLayerParams * layerBytesQuant
      : 0;
  // Unsharded gradients of whole units: a full fine-tune's, and a LoRA run's under FSDP1 when the
  // frozen weights share the flat parameter (fsdp1FrozenGradients).
  const frozenGrads = fsdp1FrozenGradients(scenario);
  const unitGradients =
    weightsAreSharded &&
    gpus > 1 &&
    (scenario.method === 'full' || scenario.method === 'freeze' || frozenGrads);
  // The reduce dtype: fp32 copies each unit's 16-bit gradient into an fp32 buffer before it is
  // reduce-scattered. FSDP1 casts the flat gradient (torch/distributed/fsdp/_runtime_utils.py,
  // _post_backward_hook: `flat_param.grad.data = flat_param.grad.to(handle._reduce_dtype)`, the 16-bit
  // one kept alive by record_stream until the reduction is done; read in copies of torch 2.1-2.3);
  // FSDP2 copies the gradients into one reduce_dtype buffer and frees them, but that buffer lives until
  // the next unit reduces (torch/distributed/_composable/fsdp/_fsdp_collectives.py foreach_reduce_scatter
  // @torch 2.4; fsdp/_fully_shard/_fsdp_param_group.py post_backward keeps it as
  // comm_ctx.reduce_scatter_state): one unit's gradient forming beside the last unit's reduce input.
  const reduceBytes =
    traits.family === 'fsdp' && scenario.parallelism.reduceDtype === 'fp32' ? 4 : plan.computeBytes;
  const fsdp2 = traits.family === 'fsdp' && fsdpVersion(scenario) === 2;
  const unitGradBytes = fsdp2
    ? plan.computeBytes + reduceBytes
    : traits.gatheredGradientUnits * plan.computeBytes + (reduceBytes > plan.computeBytes ? reduceBytes : 0);
  const gatheredGradBytes = unitGradients ? gatheredLayerParams * unitGradBytes : 0;

  // FSDP's root unit holds what no wrapped block does: the embeddings and the output head (and the
  // final norm). FSDP keeps the root gathered from the start of forward to the end of backward, and
  // builds the root's whole gradient before one reduce-scatter at the very end (PyTorch FSDP
  // _runtime_utils: the root is not resharded after forward; FSDP2 fully_shard documents the same
  // heuristic). parallelism.wrapEmbeddings makes them ordinary units (torchtune custom_sharded_layers).
  const rootParams =
    traits.rootUnitGathered && gpus > 1 && !scenario.parallelism.wrapEmbeddings
      ? params.embeddingParams + params.lmHeadParams
      : 0;
  const rootBytes = rootParams * gatherBytes;
  // Trained root parameters: all of it in a full fine-tune, else the modules_to_save copies.
  const savedCopies = (training.embeddingTrained ? 1 : 0) + (training.lmHeadTrained ? 1 : 0);
  const rootTrainedParams =
    scenario.method === 'full' ? rootParams : savedCopies * shape.vocabSize * shape.hiddenSize;
  const rootGradBytes = rootParams > 0 ? rootTrainedParams * plan.computeBytes : 0;
  const rootReduceInputBytes = rootParams > 0 ? rootTrainedParams * reduceBytes : 0;
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

  const turnGatheredBytes =
    traits.keepsReusedParams && weightsAreSharded && (gpus > 1 || scenario.offload.params !== 'none')
      ? zero3TurnGatheredBytes(scenario, shape, params, headWeightParams, plan.computeBytes, layerBytesQuant)
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
  // FSDP's communication streams allocate from pools of their own: the caching allocator hands a cached
  // block only to a request on the stream it was made on (c10/cuda/CUDACachingAllocator.cpp
  // get_free_block: `(*it)->stream != p.stream()` → no block). FSDP2 makes each unit's sharded gradient
  // in the reduce-scatter stream ("the GPU sharded gradient is allocated in the RS stream",
  // torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py foreach_reduce: reduce_output, of which the
  // gradients are views) and the all-gather output in the copy-in stream (foreach_all_gather, under
  // `stream(all_gather_copy_in_stream)`; the unsharded parameters are copied out of it into tensors of
  // the compute stream, and at most one unit's output is alive at a time, _fsdp_param_group.py unshard
  // freeing the last before the next); FSDP1 makes them in its post-backward stream
  // (_runtime_utils.py _post_backward_hook → _reduce_grad, new_sharded_grad = torch.empty_like(chunk)).
  // Read at torch 2.5–main; the gradients' share only when they stay on the GPU.
  const fsdpAcrossGpus = traits.family === 'fsdp' && gpus > 1;
  const streamGradientBytes = fsdpAcrossGpus ? states.gradientsBytes : 0;
  const streamGatherBytes = fsdpAcrossGpus && fsdp2 ? gatheredBytes / 2 : 0;
  return {
    gathersAcrossGpus: weightsAreSharded && gpus > 1,
    gatheredBytes,
    gatheredGradBytes,
    rootBytes,
    rootGradBytes,
    rootReduceInputBytes,
    rootHeadGradBytes,
    turnGatheredBytes,
    headWeightParams,
    bucketBytes,
    unshardedAccumulation,
    gradsDuringForward,
    streamGradientBytes,
    streamGatherBytes,
  };
}

/**
 * What ZeRO-3 keeps gathered at the turn from forward into backward, beyond the current and prefetched
 * unit. DeepSpeed records the order modules fetch their parameters in, forward and backward alike
 * (parameter_offload.py, pre_sub_module_forward_function and pre_sub_module_backward_function both call
 * record_module), and after a module runs it keeps every parameter that reappears within
 * stage3_max_reuse_distance elements of that trace (partitioned_param_coordinator.py @0.19.6,
 * __params_to_release). At the end of forward the output head is used again at once, by its backward;
 * the last layers come back after the layers behind them have run forward, the head twice, and each of
 * those layers again in backward (twice under checkpointing: its recomputation, then its backward).
 * Elements are counted as DeepSpeed counts them (ds_numel): a 4-bit layer stored in 16-bit words has a
 * quarter of its weights' count. The head is never quantized (bitsandbytes and torchao skip lm_head).
 */
function zero3TurnGatheredBytes(
  scenario: Scenario,
  shape: ModelShape,
  params: ParamBreakdown,
  headParams: number,
  computeBytes: number,
  layerBytes: number,
): number {
  const layerElements = params.largestLayerParams * (scenario.quantization === 'none' ? 1 : layerBytes / 2);
  const usesPerLayerInBackward = scenario.gradientCheckpointing === 'none' ? 1 : 2;
  // The head's forward and backward sit between the end of forward and every layer's reuse.
  const headDistance = 2 * headParams;
  // Layer L-k (k = 1 behind the last) comes back after k layers forward and k layers' backward uses;
  // the last layer and the one behind it are the working set already counted.
  let kept = 0;
  for (let k = 2; k < shape.numLayers; k++) {
    if (k * layerElements * (1 + usesPerLayerInBackward) + headDistance >= ZERO3_MAX_REUSE_DISTANCE) break;
    kept++;
  }
  return headParams * computeBytes + kept * params.largestLayerParams * layerBytes;
}

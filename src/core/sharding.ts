/**
 * How model states (weights, gradients, optimizer states) divide across data-parallel GPUs, and what
 * offload moves to the host. The estimator uses shardModelStates for every strategy; DeepSpeed's own
 * published estimators are expressed with the same function below, which is how the tests check it.
 */
import type { OffloadTarget, Scenario, Strategy } from './scenario.js';

/** Model-state bytes for the whole model, before sharding. */
export interface ModelStateBytes {
  readonly weights: number;
  readonly gradients: number;
  /** Optimizer states, plus the fp32 master copy and fp32 gradient partition where the strategy keeps them. */
  readonly optimizer: number;
}

/**
 * What a data-parallel strategy does with the model states, one row per strategy: the one place the
 * estimator, the scenario's rules and the planners read "does this strategy shard the weights, keep the
 * root unit gathered, bucket its gradients" from. Sources: the ZeRO paper §5 (what each stage
 * partitions), DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py and stage3.py (master weights, reduce
 * buckets, overlap_comm), PyTorch FSDP's docs and torch/distributed/fsdp/_runtime_utils.py (no_sync,
 * the root unit), DDP's docs (gradient buckets).
 */
export interface StrategyTraits {
  /** Which library runs it: none (one GPU), DDP, DeepSpeed ZeRO, or PyTorch FSDP. */
  readonly family: 'single' | 'ddp' | 'deepspeed' | 'fsdp';
  /** The model states it partitions across the data-parallel group; the rest every GPU holds whole. */
  readonly shards: { readonly [P in keyof ModelStateBytes]: boolean };
  /**
   * Unsharded gradient units a full fine-tune holds in backward before they are reduce-scattered, when
   * the weights are sharded: ZeRO-3 the unit being reduced, FSDP that one and the prefetched unit's.
   */
  readonly gatheredGradientUnits: number;
  /**
   * FSDP FULL_SHARD keeps its root unit (what no wrapped block holds: the embeddings, the output head)
   * gathered from the start of forward to the end of backward, and reduces its gradient once at the end
   * (FSDP _runtime_utils: the root is not resharded after forward; FSDP2 fully_shard does the same).
   */
  readonly rootUnitGathered: boolean;
  /**
   * DeepSpeed ZeRO-3 keeps a gathered parameter whose next use is near (stage3_max_reuse_distance), so
   * the head and the last layers stay gathered from the end of forward into backward
   * (estimate/strategy-terms.ts, zero3TurnGatheredBytes).
   */
  readonly keepsReusedParams: boolean;
  /**
   * The buffers its gradient communication holds in torch's allocator: DDP's buckets copy every
   * gradient (gradient_as_bucket_view=False); DeepSpeed reduces through a flat bucket of
   * reduce_bucket_size elements; FSDP reduce-scatters from the gradients themselves.
   */
  readonly buckets: 'gradient-copies' | 'reduce-bucket' | 'none';
  /** overlap_comm double-buffers the reduce bucket (ZeRO-1/2, stage_1_and_2.py "Use double buffers"); ZeRO-3 keeps one. */
  readonly overlapDoublesBucket: boolean;
  /**
   * Under gradient accumulation FSDP accumulates whole, unsharded gradients inside no_sync() between
   * syncs (FSDP docs), unless the run reduce-scatters every micro-batch (parallelism.syncEachMicroBatch).
   */
  readonly accumulatesUnshardedInNoSync: boolean;
  /**
   * Mixed precision keeps the model in 16 bits and the fp32 master weights plus an fp32 gradient
   * partition inside the optimizer (DeepSpeed, stage_1_and_2.py: 2 + 2 + 16 B/param with Adam), where
   * AMP and FSDP keep the parameters themselves in fp32.
   */
  readonly fp32MasterInOptimizer: boolean;
  /** What it can move to the host: optimizer states (ZeRO-Offload, FSDP CPUOffload) and parameters (ZeRO-Infinity, FSDP offload_params). */
  readonly offloads: { readonly optimizer: boolean; readonly params: boolean };
  /** Whether it runs on more than one GPU (single does not). */
  readonly multiGpu: boolean;
}

const NO_SHARDS = { weights: false, gradients: false, optimizer: false } as const;
const OPTIMIZER_SHARDS = { weights: false, gradients: false, optimizer: true } as const;
const GRADIENT_SHARDS = { weights: false, gradients: true, optimizer: true } as const;
const FULL_SHARDS = { weights: true, gradients: true, optimizer: true } as const;
const NO_OFFLOAD = { optimizer: false, params: false } as const;
const OPTIMIZER_OFFLOAD = { optimizer: true, params: false } as const;
const FULL_OFFLOAD = { optimizer: true, params: true } as const;

/** The traits of each strategy (see StrategyTraits for what each means and where it comes from). */
export const STRATEGY_TRAITS: Readonly<Record<Strategy, StrategyTraits>> = {
  single: {
    family: 'single',
    shards: NO_SHARDS,
    gatheredGradientUnits: 0,
    rootUnitGathered: false,
    keepsReusedParams: false,
    buckets: 'none',
    overlapDoublesBucket: false,
    accumulatesUnshardedInNoSync: false,
    fp32MasterInOptimizer: false,
    offloads: NO_OFFLOAD,
    multiGpu: false,
  },
  ddp: {
    family: 'ddp',
    shards: NO_SHARDS,
    gatheredGradientUnits: 0,
    rootUnitGathered: false,
    keepsReusedParams: false,
    buckets: 'gradient-copies',
    overlapDoublesBucket: false,
    accumulatesUnshardedInNoSync: false,
    fp32MasterInOptimizer: false,
    offloads: NO_OFFLOAD,
    multiGpu: true,
  },
  zero1: {
    family: 'deepspeed',
    shards: OPTIMIZER_SHARDS,
    gatheredGradientUnits: 0,
    rootUnitGathered: false,
    keepsReusedParams: false,
    buckets: 'reduce-bucket',
    overlapDoublesBucket: true,
    accumulatesUnshardedInNoSync: false,
    fp32MasterInOptimizer: true,
    offloads: OPTIMIZER_OFFLOAD,
    multiGpu: true,
  },
  zero2: {
    family: 'deepspeed',
    shards: GRADIENT_SHARDS,
    gatheredGradientUnits: 0,
    rootUnitGathered: false,
    keepsReusedParams: false,
    buckets: 'reduce-bucket',
    overlapDoublesBucket: true,
    accumulatesUnshardedInNoSync: false,
    fp32MasterInOptimizer: true,
    offloads: OPTIMIZER_OFFLOAD,
    multiGpu: true,
  },
  zero3: {
    family: 'deepspeed',
    shards: FULL_SHARDS,
    gatheredGradientUnits: 1,
    rootUnitGathered: false,
    keepsReusedParams: true,
    buckets: 'reduce-bucket',
    overlapDoublesBucket: false,
    accumulatesUnshardedInNoSync: false,
    fp32MasterInOptimizer: true,
    offloads: FULL_OFFLOAD,
    multiGpu: true,
  },
  'fsdp-grad-op': {
    family: 'fsdp',
    shards: GRADIENT_SHARDS,
    gatheredGradientUnits: 0,
    rootUnitGathered: false,
    keepsReusedParams: false,
    buckets: 'none',
    overlapDoublesBucket: false,
    accumulatesUnshardedInNoSync: true,
    fp32MasterInOptimizer: false,
    offloads: OPTIMIZER_OFFLOAD,
    multiGpu: true,
  },
  fsdp: {
    family: 'fsdp',
    shards: FULL_SHARDS,
    gatheredGradientUnits: 2,
    rootUnitGathered: true,
    keepsReusedParams: false,
    buckets: 'none',
    overlapDoublesBucket: false,
    accumulatesUnshardedInNoSync: true,
    fp32MasterInOptimizer: false,
    offloads: FULL_OFFLOAD,
    multiGpu: true,
  },
};

/** Which PyTorch FSDP runs an FSDP strategy: FSDP1 (FullyShardedDataParallel) unless the scenario says 2. */
export function fsdpVersion(scenario: Pick<Scenario, 'parallelism'>): 1 | 2 {
  return scenario.parallelism.fsdpVersion ?? 1;
}

/**
 * FSDP1 gives the frozen base weights of a LoRA run a gradient: with use_orig_params=True a unit's
 * flat parameter mixes trained and frozen parameters, requires a gradient because some of them do, and
 * its gradient is one flat tensor over all of them (torch FullyShardedDataParallel docstring, torch
 * 2.1-2.4: "For use_orig_params=True, FSDP supports mixing frozen and non-frozen, but we recommend not
 * doing so since then the gradient memory usage will be higher than expected (namely, equivalent to not
 * freezing those parameters)"; torch/distributed/fsdp/_flat_param.py: the original parameters are
 * views into the flat parameter, so autograd computes their gradients and the split-view backward
 * joins them into flat_param.grad). FSDP2 shards each parameter as its own DTensor: a frozen one never
 * gets a gradient. Only unquantized bases: a 4-bit weight is not a float tensor a flat parameter holds.
 */
export function fsdp1FrozenGradients(
  scenario: Pick<Scenario, 'parallelism' | 'method' | 'quantization'>,
): boolean {
  // The scenario's own flag first: nearly every estimate stops there, before the strategy's traits.
  return (
    scenario.parallelism.frozenParamGrads === true &&
    scenario.method === 'lora' &&
    scenario.quantization === 'none' &&
    STRATEGY_TRAITS[scenario.parallelism.strategy].family === 'fsdp' &&
    fsdpVersion(scenario) === 1
  );
}

/** The traits of a strategy. */
export function strategyTraits(strategy: Strategy): StrategyTraits {
  return STRATEGY_TRAITS[strategy];
}

/**
 * The strategies of a family, in STRATEGY_TRAITS's order (the scenario's rules name them in hints):
 * `strategiesWhere((t) => t.family === 'deepspeed')` is zero1, zero2, zero3.
 */
export function strategiesWhere(test: (traits: StrategyTraits) => boolean): Strategy[] {
  return (Object.keys(STRATEGY_TRAITS) as Strategy[]).filter((s) => test(STRATEGY_TRAITS[s]));
}

/**
 * The strategy of the same library that shards up to `part`: FSDP stays FSDP (fsdp-grad-op shards the
 * gradients, fsdp the weights too), anything else becomes DeepSpeed (zero2, zero3). The planners use
 * it to move a run to a sharding strategy without changing its library.
 */
export function shardingStrategyFor(from: Strategy, part: 'gradients' | 'weights'): Strategy {
  const fsdp = STRATEGY_TRAITS[from].family === 'fsdp';
  if (part === 'weights') return fsdp ? 'fsdp' : 'zero3';
  return fsdp ? 'fsdp-grad-op' : 'zero2';
}

/** Per-GPU model-state bytes: the parts the strategy shards are divided by the GPU count. */
export function shardModelStates(total: ModelStateBytes, strategy: Strategy, gpus: number): ModelStateBytes {
  const shards = STRATEGY_TRAITS[strategy].shards;
  return {
    weights: shards.weights ? total.weights / gpus : total.weights,
    gradients: shards.gradients ? total.gradients / gpus : total.gradients,
    optimizer: shards.optimizer ? total.optimizer / gpus : total.optimizer,
  };
}

export interface OffloadPlacement {
  /** Per-GPU bytes that stay on the device. */
  readonly gpu: ModelStateBytes;
  /** Per-GPU bytes moved to host memory or NVMe. */
  readonly host: ModelStateBytes;
  readonly nvme: ModelStateBytes;
}

/**
 * Where the model states go for a strategy's offload settings. FSDP has one switch: with
 * `CPUOffload(offload_params=True)` "this offloads gradients to CPU as well, meaning that the optimizer
 * step runs on CPU" (torch/distributed/fsdp/api.py, CPUOffload's docstring), and FSDP2's
 * `CPUOffloadPolicy` offloads "parameters, gradients, and optimizer states" the same way; so under FSDP
 * a parameter offload takes the optimizer states and gradients with it. DeepSpeed's two switches
 * (offload_param, offload_optimizer) are apart.
 */
export function strategyOffload(
  strategy: Strategy,
  offload: { readonly optimizer: OffloadTarget; readonly params: OffloadTarget },
): { readonly optimizer: OffloadTarget; readonly params: OffloadTarget } {
  if (
    STRATEGY_TRAITS[strategy].family !== 'fsdp' ||
    offload.params === 'none' ||
    offload.optimizer !== 'none'
  )
    return offload;
  return { optimizer: offload.params, params: offload.params };
}

/**
 * Applies optimizer and parameter offload to per-GPU model states. Optimizer offload (ZeRO-Offload,
 * FSDP CPUOffload) moves optimizer states and the gradient partition they consume; parameter offload
 * (ZeRO-Infinity, FSDP offload_params) moves the weight shards too.
 */
export function placeModelStates(
  perGpu: ModelStateBytes,
  offload: { readonly optimizer: OffloadTarget; readonly params: OffloadTarget },
): OffloadPlacement {
  // Each part stays, or moves whole to the host ("cpu") or else to NVMe (0 + its bytes, as an addition
  // to an empty place); written out part by part, with no copies of the records (bench:speed).
  const statesStay = offload.optimizer === 'none';
  const statesToHost = offload.optimizer === 'cpu';
  const paramsStay = offload.params === 'none';
  const paramsToHost = offload.params === 'cpu';
  return {
    gpu: {
      weights: paramsStay ? perGpu.weights : 0,
      gradients: statesStay ? perGpu.gradients : 0,
      optimizer: statesStay ? perGpu.optimizer : 0,
    },
    host: {
      weights: paramsToHost ? 0 + perGpu.weights : 0,
      gradients: statesToHost ? 0 + perGpu.gradients : 0,
      optimizer: statesToHost ? 0 + perGpu.optimizer : 0,
    },
    nvme: {
      weights: paramsStay || paramsToHost ? 0 : 0 + perGpu.weights,
      gradients: statesStay || statesToHost ? 0 : 0 + perGpu.gradients,
      optimizer: statesStay || statesToHost ? 0 : 0 + perGpu.optimizer,
    },
  };
}

/** DeepSpeed's host buffer factor for pinned memory (deepspeed/runtime/zero/stage3.py, additional_buffer_factor). */
export const DEEPSPEED_HOST_BUFFER_FACTOR = 1.5;

/**
 * DeepSpeed's ZeRO-2 model-state estimate, per GPU and per node, in bytes
 * (deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs). Mixed precision
 * with Adam: 2 B fp16 weights, 2 B fp16 gradients, 16 B of fp32 master, fp32 gradients and Adam states.
 * `formula: 'docs'` is the older one still printed in docs/code-docs/source/memory.rst (4P + 16P/N:
 * gradients not partitioned), `'current'` the code since DeepSpeed PR #5099 (2P + 18P/N).
 */
export function deepspeedZero2Estimate(options: {
  readonly totalParams: number;
  readonly gpusPerNode: number;
  readonly nodes: number;
  readonly offloadOptimizer: boolean;
  readonly formula: 'current' | 'docs';
}): { gpuBytes: number; cpuBytes: number } {
  const P = options.totalParams;
  const gpus = options.gpusPerNode * options.nodes;
  const states: ModelStateBytes = { weights: 2 * P, gradients: 2 * P, optimizer: 16 * P };
  // The docs formula leaves the fp16 gradients whole on every GPU, which is ZeRO-1's partitioning.
  const perGpu = shardModelStates(states, options.formula === 'current' ? 'zero2' : 'zero1', gpus);
  const placed = placeModelStates(perGpu, {
    optimizer: options.offloadOptimizer ? 'cpu' : 'none',
    params: 'none',
  });
  const gpuBytes = placed.gpu.weights + placed.gpu.gradients + placed.gpu.optimizer;
  // Host: each process builds its fp32 model on the CPU (4 B × P per GPU of the node) or holds the
  // offloaded 16 B/param optimizer partition, whichever is larger, times the pinned-buffer factor.
  const cpuBytes =
    P * Math.max(4 * options.gpusPerNode, options.offloadOptimizer ? 16 : 0) * DEEPSPEED_HOST_BUFFER_FACTOR;
  return { gpuBytes, cpuBytes };
}

/**
 * DeepSpeed's ZeRO-3 model-state estimate (deepspeed/runtime/zero/stage3.py,
 * estimate_zero3_model_states_mem_needs): the sharded states plus the largest layer gathered whole
 * (4 × its parameter count in bytes: fp16 weights and gradients).
 */
export function deepspeedZero3Estimate(options: {
  readonly totalParams: number;
  readonly largestLayerParams: number;
  readonly gpusPerNode: number;
  readonly nodes: number;
  readonly offloadOptimizer: boolean;
  readonly offloadParams: boolean;
  readonly zeroInit: boolean;
}): { gpuBytes: number; cpuBytes: number } {
  const P = options.totalParams;
  const gpus = options.gpusPerNode * options.nodes;
  const perGpu = shardModelStates({ weights: 2 * P, gradients: 2 * P, optimizer: 14 * P }, 'zero3', gpus);
  const offloadOptimizer = options.offloadOptimizer || options.offloadParams;
  const placed = placeModelStates(perGpu, {
    optimizer: offloadOptimizer ? 'cpu' : 'none',
    params: options.offloadParams ? 'cpu' : 'none',
  });
  const gatheredBytes = 4 * options.largestLayerParams;
  // DeepSpeed truncates the sharded term to whole bytes (int(...)) before adding the gathered layer.
  const shardedOnGpu = Math.trunc(placed.gpu.weights + placed.gpu.gradients + placed.gpu.optimizer);
  const gpuBytes = gatheredBytes + shardedOnGpu;
  const perNodeFactor = 1 / options.nodes;
  let cpuPerParam: number;
  if (options.offloadParams)
    cpuPerParam = options.zeroInit
      ? 18 * perNodeFactor
      : Math.max(4 * options.gpusPerNode, 18 * perNodeFactor);
  else if (offloadOptimizer)
    cpuPerParam = options.zeroInit
      ? 16 * perNodeFactor
      : Math.max(4 * options.gpusPerNode, 16 * perNodeFactor);
  else cpuPerParam = -1;
  const cpuBytes =
    cpuPerParam >= 0
      ? P * cpuPerParam * DEEPSPEED_HOST_BUFFER_FACTOR
      : (options.zeroInit ? options.largestLayerParams : P) *
        4 *
        options.gpusPerNode *
        DEEPSPEED_HOST_BUFFER_FACTOR;
  return { gpuBytes, cpuBytes };
}

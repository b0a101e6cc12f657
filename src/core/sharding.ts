/**
 * How model states (weights, gradients, optimizer states) divide across data-parallel GPUs, and what
 * offload moves to the host. The estimator uses shardModelStates for every strategy; DeepSpeed's own
 * published estimators are expressed with the same function below, which is how the tests check it.
 */
import type { OffloadTarget, Strategy } from './scenario.js';

/** Model-state bytes for the whole model, before sharding. */
export interface ModelStateBytes {
  readonly weights: number;
  readonly gradients: number;
  /** Optimizer states, plus the fp32 master copy and fp32 gradient partition where the strategy keeps them. */
  readonly optimizer: number;
}

/** Which parts each strategy partitions across the data-parallel group (ZeRO paper §5; FSDP docs). */
export const SHARDED_PARTS: Readonly<Record<Strategy, ReadonlySet<keyof ModelStateBytes>>> = {
  single: new Set(),
  ddp: new Set(),
  zero1: new Set(['optimizer']),
  zero2: new Set(['optimizer', 'gradients']),
  'fsdp-grad-op': new Set(['optimizer', 'gradients']),
  zero3: new Set(['optimizer', 'gradients', 'weights']),
  fsdp: new Set(['optimizer', 'gradients', 'weights']),
};

/** Per-GPU model-state bytes: the parts the strategy shards are divided by the GPU count. */
export function shardModelStates(total: ModelStateBytes, strategy: Strategy, gpus: number): ModelStateBytes {
  const sharded = SHARDED_PARTS[strategy];
  const share = (part: keyof ModelStateBytes): number =>
    sharded.has(part) ? total[part] / gpus : total[part];
  return { weights: share('weights'), gradients: share('gradients'), optimizer: share('optimizer') };
}

export interface OffloadPlacement {
  /** Per-GPU bytes that stay on the device. */
  readonly gpu: ModelStateBytes;
  /** Per-GPU bytes moved to host memory or NVMe. */
  readonly host: ModelStateBytes;
  readonly nvme: ModelStateBytes;
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
  const zero: ModelStateBytes = { weights: 0, gradients: 0, optimizer: 0 };
  const gpu = { ...perGpu };
  const host = { ...zero };
  const nvme = { ...zero };
  const move = (part: keyof ModelStateBytes, target: OffloadTarget): void => {
    if (target === 'none') return;
    (target === 'cpu' ? host : nvme)[part] += gpu[part];
    gpu[part] = 0;
  };
  move('optimizer', offload.optimizer);
  move('gradients', offload.optimizer);
  move('weights', offload.params);
  return { gpu, host, nvme };
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

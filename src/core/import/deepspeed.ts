/**
 * A DeepSpeed config (JSON) to scenario fields. Alone, a DeepSpeed file decides only the parallel layout
 * and offload (data/fixtures/configs/README.md rule); batch sizes and precision belong to the trainer
 * that launches it, so they are reported, and DeepSpeed's "auto" values are reported, never guessed.
 * Keys and defaults: deepspeed/runtime/zero/config.py and docs/_pages/config-json.md.
 */
import { type Config, has, ReportBuilder, truthy } from './_builder.js';
import type { ImportReport } from './import-report.js';

const STAGE_TO_STRATEGY = ['ddp', 'zero1', 'zero2', 'zero3'] as const;

/** ZeRO keys that change memory with no scenario field, and what each does. */
const ZERO_MEMORY_KEYS: Readonly<Record<string, string>> = {
  sub_group_size: 'optimizer step sub-groups: the fp32 working buffer of the step is this many elements',
  stage3_max_live_parameters: 'how many gathered parameters ZeRO-3 keeps alive before releasing them',
  max_live_parameters: 'how many gathered parameters ZeRO-3 keeps alive before releasing them',
  stage3_max_reuse_distance: 'gathered parameters reused within this distance are not released',
  max_reuse_distance: 'gathered parameters reused within this distance are not released',
  allgather_bucket_size: 'parameter all-gather bucket of ZeRO-1/2',
  stage3_prefetch_bucket_size:
    'how far ahead ZeRO-3 gathers parameters (Headroom counts the layer in use and the next one)',
  prefetch_bucket_size:
    'how far ahead ZeRO-3 gathers parameters (Headroom counts the layer in use and the next one)',
  stage3_param_persistence_threshold: 'parameters smaller than this stay gathered on every GPU',
  param_persistence_threshold: 'parameters smaller than this stay gathered on every GPU',
};

const OFFLOAD_MEMORY_KEYS: Readonly<Record<string, string>> = {
  pin_memory: 'pinned host buffers: host RAM that cannot be swapped',
  buffer_count: 'host/NVMe staging buffers for offload',
  buffer_size: 'host/NVMe staging buffers for offload',
  max_in_cpu: 'parameters kept in CPU memory before spilling to NVMe',
};

const ACTIVATION_KEYS: Readonly<Record<string, string>> = {
  partition_activations: 'Megatron activation partitioning across model-parallel ranks',
  contiguous_memory_optimization: 'checkpointed activations copied into one contiguous buffer',
  cpu_checkpointing:
    "checkpointed activations go to CPU memory only under DeepSpeed's own checkpoint API (Megatron-style models), not the Hugging Face Trainer's: not mapped to offload.activations",
};

function isAuto(value: unknown): boolean {
  return value === 'auto';
}

function offloadDevice(value: unknown): 'none' | 'cpu' | 'nvme' | null {
  if (value === undefined || value === null || value === 'none') return 'none';
  if (value === 'cpu' || value === 'nvme') return value;
  return null;
}

/** What a DeepSpeed file says about precision: bf16 or fp16 enabled, "auto" (the trainer decides), or nothing. */
export function deepspeedPrecision(config: Config): 'bf16' | 'fp16' | 'auto' | null {
  const bf16 = (config.bf16 ?? config.bfloat16) as Config | undefined;
  const fp16 = config.fp16 as Config | undefined;
  if (bf16 && truthy(bf16.enabled)) return 'bf16';
  if (fp16 && truthy(fp16.enabled)) return 'fp16';
  if ((bf16 && isAuto(bf16.enabled)) || (fp16 && isAuto(fp16.enabled))) return 'auto';
  return null;
}

/** True when a parsed object looks like a DeepSpeed config. */
export function looksLikeDeepSpeed(config: Config): boolean {
  return (
    has(config, 'zero_optimization') ||
    has(config, 'train_micro_batch_size_per_gpu') ||
    has(config, 'train_batch_size') ||
    (typeof config.fp16 === 'object' && has(config, 'fp16.enabled')) ||
    (typeof config.bf16 === 'object' && has(config, 'bf16.enabled'))
  );
}

/**
 * Maps a DeepSpeed config object to parallelism and offload; everything else memory-relevant is reported.
 * @example mapDeepSpeedConfig({ zero_optimization: { stage: 3 } }).scenario // { parallelism: { strategy: 'zero3' }, offload: {...} }
 */
export function mapDeepSpeedConfig(config: Config): ImportReport {
  const b = new ReportBuilder('deepspeed');
  const zero = (config.zero_optimization ?? {}) as Config;
  const stageRaw = zero.stage;
  const stage = stageRaw === undefined ? 0 : stageRaw;
  if (isAuto(stage)) {
    b.skip('zero_optimization.stage', stage, 'auto', '"auto": the trainer picks the ZeRO stage at launch');
  } else if (typeof stage === 'number' && STAGE_TO_STRATEGY[stage] !== undefined) {
    b.map('zero_optimization.stage', stageRaw ?? null, 'parallelism.strategy', STAGE_TO_STRATEGY[stage]);
  } else {
    b.skip('zero_optimization.stage', stage, 'unresolved', 'ZeRO stage must be 0, 1, 2 or 3');
  }

  // Optimizer offload: offload_optimizer.device, or the legacy cpu_offload: true (stage 1/2).
  const optimizerBlock = zero.offload_optimizer as Config | undefined;
  if (truthy(zero.cpu_offload)) {
    b.map('zero_optimization.cpu_offload', zero.cpu_offload, 'offload.optimizer', 'cpu');
  } else {
    const device = offloadDevice(optimizerBlock?.device);
    if (device === null) {
      b.skip(
        'zero_optimization.offload_optimizer.device',
        optimizerBlock?.device,
        'unresolved',
        'offload device must be none, cpu or nvme',
      );
    } else {
      b.map(
        optimizerBlock ? 'zero_optimization.offload_optimizer.device' : 'zero_optimization.offload_optimizer',
        optimizerBlock ? (optimizerBlock.device ?? null) : null,
        'offload.optimizer',
        device,
      );
    }
  }
  // Parameter offload: ZeRO-3 only (offload_param.device, or the legacy cpu_offload_params).
  const paramBlock = zero.offload_param as Config | undefined;
  const paramDevice = truthy(zero.cpu_offload_params) ? 'cpu' : offloadDevice(paramBlock?.device);
  if (paramDevice === null) {
    b.skip(
      'zero_optimization.offload_param.device',
      paramBlock?.device,
      'unresolved',
      'offload device must be none, cpu or nvme',
    );
  } else if (paramDevice !== 'none' && stage !== 3) {
    b.skip(
      'zero_optimization.offload_param',
      paramBlock ?? zero.cpu_offload_params,
      'unresolved',
      `parameter offload works with ZeRO stage 3 only; DeepSpeed ignores it at stage ${String(stage)}`,
    );
    b.map('zero_optimization.offload_param', null, 'offload.params', 'none');
  } else {
    const key = truthy(zero.cpu_offload_params)
      ? 'zero_optimization.cpu_offload_params'
      : paramBlock
        ? 'zero_optimization.offload_param.device'
        : 'zero_optimization.offload_param';
    b.map(
      key,
      truthy(zero.cpu_offload_params) ? zero.cpu_offload_params : (paramBlock?.device ?? null),
      'offload.params',
      paramDevice,
    );
  }

  // The gradient reduce bucket: DeepSpeed allocates it whole, whatever is trained; "auto" is the Hugging
  // Face integration's hidden_size², which the estimate sizes from the model.
  const bucket = zero.reduce_bucket_size;
  const zeroStage = typeof stage === 'number' && stage >= 1 && stage <= 3;
  if (bucket !== undefined && !zeroStage) {
    b.skip(
      'zero_optimization.reduce_bucket_size',
      bucket,
      'no-field',
      'a ZeRO setting; this config runs no ZeRO stage',
    );
  } else if (isAuto(bucket)) {
    b.map('zero_optimization.reduce_bucket_size', bucket, 'parallelism.reduceBucketSize', 'auto');
  } else if (bucket !== undefined) {
    // DeepSpeed reads "5e8" written as a string too.
    const elements = typeof bucket === 'number' || typeof bucket === 'string' ? Number(bucket) : Number.NaN;
    if (Number.isFinite(elements) && elements >= 1) {
      b.map(
        'zero_optimization.reduce_bucket_size',
        bucket,
        'parallelism.reduceBucketSize',
        Math.round(elements),
      );
    } else {
      b.skip(
        'zero_optimization.reduce_bucket_size',
        bucket,
        'unresolved',
        'reduce_bucket_size must be a number of elements or "auto"',
      );
    }
  }
  if (truthy(zero.overlap_comm) && zeroStage) {
    b.map('zero_optimization.overlap_comm', zero.overlap_comm, 'parallelism.overlapComm', true);
  }
  for (const [key, why] of Object.entries(ZERO_MEMORY_KEYS)) {
    if (!has(zero, key)) continue;
    const value = zero[key];
    b.skip(
      `zero_optimization.${key}`,
      value,
      'no-field',
      isAuto(value) ? `${why}; "auto": sized from the model's hidden size at launch` : why,
    );
  }
  for (const [blockName, block] of [
    ['offload_optimizer', optimizerBlock],
    ['offload_param', paramBlock],
  ] as const) {
    if (block)
      b.unmodelled(block, Object.entries(OFFLOAD_MEMORY_KEYS), {
        prefix: `zero_optimization.${blockName}.`,
      });
  }
  const activation = config.activation_checkpointing as Config | undefined;
  if (activation) {
    b.unmodelled(activation, Object.entries(ACTIVATION_KEYS), { prefix: 'activation_checkpointing.' });
  }
  const optimizerParams = (config.optimizer as Config | undefined)?.params as Config | undefined;
  if (optimizerParams && has(optimizerParams, 'torch_adam')) {
    b.skip(
      'optimizer.params.torch_adam',
      optimizerParams.torch_adam,
      'no-field',
      'runs torch AdamW instead of DeepSpeedCPUAdam on offloaded states (slower step, same memory)',
    );
  }

  // Batch sizes and precision belong to the trainer that launches DeepSpeed.
  const trainerOwned: readonly [string, unknown, string][] = [
    [
      'train_micro_batch_size_per_gpu',
      config.train_micro_batch_size_per_gpu,
      'microBatchSize: the trainer sets it (HF integration checks both agree)',
    ],
    [
      'gradient_accumulation_steps',
      config.gradient_accumulation_steps,
      'gradAccumSteps: the trainer sets it (HF integration checks both agree)',
    ],
    [
      'train_batch_size',
      config.train_batch_size,
      'global batch = micro-batch × accumulation × GPUs; the GPU count is not in the file',
    ],
    [
      'fp16.enabled',
      (config.fp16 as Config | undefined)?.enabled,
      'precision also depends on how the trainer loads the weights',
    ],
    [
      'bf16.enabled',
      (config.bf16 as Config | undefined)?.enabled,
      'precision also depends on how the trainer loads the weights',
    ],
  ];
  for (const [key, value, why] of trainerOwned) {
    if (value === undefined || value === false) continue;
    if (isAuto(value)) b.skip(key, value, 'auto', `"auto": filled from the trainer's arguments at launch`);
    else b.skip(key, value, 'deferred', why);
  }
  return b.build();
}

/**
 * A DeepSpeed config (JSON) to scenario fields. Alone, a DeepSpeed file decides only the parallel layout
 * and offload (data/fixtures/configs/README.md rule); batch sizes and precision belong to the trainer
 * that launches it, so they are reported, and DeepSpeed's "auto" values are reported, never guessed.
 * Keys and defaults: deepspeed/runtime/zero/config.py and docs/_pages/config-json.md.
 */
import { type Config, has, ReportBuilder, textOf, truthy } from './_builder.js';
import { because, type ImportReason, type ImportReasonParams, type ImportReport } from './import-report.js';

const STAGE_TO_STRATEGY = ['ddp', 'zero1', 'zero2', 'zero3'] as const;

/** The ZeRO memory keys' reasons: each takes whether the file writes "auto" for it. */
type ZeroMemoryCode = {
  [C in keyof ImportReasonParams]: ImportReasonParams[C] extends { readonly auto: boolean } ? C : never;
}[keyof ImportReasonParams];

/** ZeRO keys that change memory with no scenario field, and why each matters (the words say what it does). */
const ZERO_MEMORY_KEYS: Readonly<Record<string, ZeroMemoryCode>> = {
  sub_group_size: 'sub-group-size',
  stage3_max_live_parameters: 'max-live-parameters',
  max_live_parameters: 'max-live-parameters',
  stage3_max_reuse_distance: 'max-reuse-distance',
  max_reuse_distance: 'max-reuse-distance',
  allgather_bucket_size: 'allgather-bucket',
  stage3_prefetch_bucket_size: 'prefetch-bucket',
  prefetch_bucket_size: 'prefetch-bucket',
  stage3_param_persistence_threshold: 'persistence-threshold',
  param_persistence_threshold: 'persistence-threshold',
};

const OFFLOAD_MEMORY_KEYS: Readonly<Record<string, ImportReason>> = {
  pin_memory: because('pin-memory'),
  buffer_count: because('staging-buffers'),
  buffer_size: because('staging-buffers'),
  max_in_cpu: because('max-in-cpu'),
};

const ACTIVATION_KEYS: Readonly<Record<string, ImportReason>> = {
  partition_activations: because('partition-activations'),
  contiguous_memory_optimization: because('contiguous-activations'),
  // Only DeepSpeed's own checkpoint API (Megatron-style models) moves them to CPU memory, not the
  // Hugging Face Trainer's: not mapped to offload.activations.
  cpu_checkpointing: because('cpu-checkpointing'),
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
    b.skip('zero_optimization.stage', stage, 'auto', because('auto-stage'));
  } else if (typeof stage === 'number' && STAGE_TO_STRATEGY[stage] !== undefined) {
    b.map('zero_optimization.stage', stageRaw ?? null, 'parallelism.strategy', STAGE_TO_STRATEGY[stage]);
  } else {
    b.skip('zero_optimization.stage', stage, 'unresolved', because('zero-stage'));
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
        because('offload-device'),
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
      because('offload-device'),
    );
  } else if (paramDevice !== 'none' && stage !== 3) {
    b.skip(
      'zero_optimization.offload_param',
      paramBlock ?? zero.cpu_offload_params,
      'unresolved',
      because('param-offload-stage', { stage: textOf(stage) }),
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
    b.skip('zero_optimization.reduce_bucket_size', bucket, 'no-field', because('bucket-without-zero'));
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
      b.skip('zero_optimization.reduce_bucket_size', bucket, 'unresolved', because('bucket-value'));
    }
  }
  if (truthy(zero.overlap_comm) && zeroStage) {
    b.map('zero_optimization.overlap_comm', zero.overlap_comm, 'parallelism.overlapComm', true);
  }
  for (const [key, code] of Object.entries(ZERO_MEMORY_KEYS)) {
    if (!has(zero, key)) continue;
    const value = zero[key];
    b.skip(`zero_optimization.${key}`, value, 'no-field', because(code, { auto: isAuto(value) }));
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
    b.skip('optimizer.params.torch_adam', optimizerParams.torch_adam, 'no-field', because('torch-adam'));
  }

  // Batch sizes and precision belong to the trainer that launches DeepSpeed.
  const trainerOwned: readonly [string, unknown, ImportReason][] = [
    [
      'train_micro_batch_size_per_gpu',
      config.train_micro_batch_size_per_gpu,
      because('trainer-sets', { field: 'microBatchSize' }),
    ],
    [
      'gradient_accumulation_steps',
      config.gradient_accumulation_steps,
      because('trainer-sets', { field: 'gradAccumSteps' }),
    ],
    ['train_batch_size', config.train_batch_size, because('global-batch')],
    ['fp16.enabled', (config.fp16 as Config | undefined)?.enabled, because('precision-depends')],
    ['bf16.enabled', (config.bf16 as Config | undefined)?.enabled, because('precision-depends')],
  ];
  for (const [key, value, why] of trainerOwned) {
    if (value === undefined || value === false) continue;
    if (isAuto(value)) b.skip(key, value, 'auto', because('auto-from-trainer'));
    else b.skip(key, value, 'deferred', why);
  }
  return b.build();
}

/**
 * The scenario: one fine-tuning setup as a user describes it (docs/scenario.md is the
 * contract). Parsing fills defaults and rejects bad values with an error naming the field and the
 * accepted values.
 */
import { HeadroomUserError } from './errors.js';

export const METHODS = ['full', 'lora', 'qlora', 'freeze'] as const;
export const QUANTIZATIONS = ['none', 'int8', 'nf4', 'nf4-dq', 'fp4', 'int4-gptq'] as const;
export const PRECISIONS = ['fp32', 'fp16-mixed', 'bf16-mixed', 'fp16-true', 'bf16-true'] as const;
export const OPTIMIZERS = [
  'adamw',
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
  'sgd',
  'sgd-momentum',
  'adafactor',
  'lion',
] as const;
export const CHECKPOINTING = ['none', 'full', 'selective'] as const;
export const ATTENTIONS = ['eager', 'sdpa', 'flash'] as const;
export const LOSSES = ['standard', 'chunked', 'fused'] as const;
export const STRATEGIES = ['single', 'ddp', 'zero1', 'zero2', 'zero3', 'fsdp', 'fsdp-grad-op'] as const;
export const OFFLOADS = ['none', 'cpu', 'nvme'] as const;
/** Saved activations go to pinned CPU memory only; no trainer streams them to NVMe. */
export const ACTIVATION_OFFLOADS = ['none', 'cpu'] as const;
export const QUANTIZED_FROM = ['fp16', 'bf16', 'fp32'] as const;
export const QUANTIZED_INPUTS_KEPT = ['none', 'step', 'next-forward'] as const;
/** The libraries that quantize a base: bitsandbytes (Hugging Face, PEFT, Axolotl, Lightning) or torchao (torchtune's NF4Tensor). */
export const QUANTIZERS = ['bitsandbytes', 'torchao'] as const;
/** What dtype LoRA adapters are kept in: fp32 (PEFT's default) or the model's own. */
export const ADAPTER_DTYPES = ['fp32', 'model'] as const;
/**
 * The stack that runs the training, as a user names it (docs/scenario.md). The estimator derives the
 * behaviours the user did not set from it; an explicit field always wins.
 */
export const FRAMEWORKS = [
  'hf-trainer',
  'axolotl',
  'llama-factory',
  'ms-swift',
  'unsloth',
  'torchtune',
  'litgpt',
  'torchtitan',
  'accelerate',
  'deepspeed',
  'pytorch',
] as const;
/** The packages whose versions a scenario may state (docs/scenario.md, `versions`). */
export const VERSION_KEYS = [
  'torch',
  'transformers',
  'peft',
  'trl',
  'accelerate',
  'deepspeed',
  'bitsandbytes',
  'flashAttn',
  'torchao',
  'torchtune',
  'litgpt',
  'lightning',
  'axolotl',
  'llamaFactory',
  'msSwift',
  'unsloth',
  'torchtitan',
] as const;
/**
 * How batches are shaped: "longest" pads each batch to its longest sample (seqLen is the cap),
 * "max-length" pads every batch to seqLen, "packed" packs samples into exactly seqLen tokens.
 */
export const PADDINGS = ['longest', 'max-length', 'packed'] as const;
/** The quantizations torchao's NF4Tensor does: NF4 with its block scales quantized again (double quantization). */
const TORCHAO_QUANTIZATIONS: ReadonlySet<string> = new Set(['nf4', 'nf4-dq']);

export type Method = (typeof METHODS)[number];
export type Quantization = (typeof QUANTIZATIONS)[number];
/** The quantizations bitsandbytes layers do (Linear8bitLt, Linear4bit); int4-gptq is not one. */
export const BITSANDBYTES_QUANTIZATIONS: ReadonlySet<Quantization> = new Set([
  'int8',
  'nf4',
  'nf4-dq',
  'fp4',
]);
export type Precision = (typeof PRECISIONS)[number];
export type Optimizer = (typeof OPTIMIZERS)[number];
export type Checkpointing = (typeof CHECKPOINTING)[number];
export type Attention = (typeof ATTENTIONS)[number];
export type Loss = (typeof LOSSES)[number];
export type Strategy = (typeof STRATEGIES)[number];
export type OffloadTarget = (typeof OFFLOADS)[number];
export type QuantizedFrom = (typeof QUANTIZED_FROM)[number];
export type QuantizedInputsKept = (typeof QUANTIZED_INPUTS_KEPT)[number];
export type Quantizer = (typeof QUANTIZERS)[number];
export type Framework = (typeof FRAMEWORKS)[number];
export type VersionKey = (typeof VERSION_KEYS)[number];
export type Padding = (typeof PADDINGS)[number];
/** Package versions, as strings ("2.5.1", "4.46.0.dev0", "2.5.1+cu121"). */
export type Versions = Readonly<Partial<Record<VersionKey, string>>>;

/** A model reference: a catalog id, a Hugging Face repo id, or an inline config.json object. */
export type ModelRef = string | Readonly<Record<string, unknown>>;

export interface LoraConfig {
  readonly rank: number;
  readonly alpha?: number;
  readonly dropout: number;
  /** Module names (Llama-style or the architecture's own), or "all-linear". */
  readonly targets: readonly string[] | 'all-linear';
  readonly modulesToSave: readonly string[];
  /**
   * The adapters' dtype. Absent: fp32, as PEFT keeps them (autocast_adapter_dtype, on by default).
   * "model": the model's own dtype, 16 bits under a -true precision: torchtune builds them under its
   * training dtype, Lightning's bf16-true (litgpt) converts every parameter, and PEFT does with
   * autocast_adapter_dtype=False. Present only when "model".
   */
  readonly adapterDtype?: 'model';
}

/** A complete scenario: every field present, defaults applied. */
export interface Scenario {
  readonly model: ModelRef;
  readonly method: Method;
  readonly lora?: LoraConfig;
  readonly trainableLayers?: number;
  readonly quantization: Quantization;
  /**
   * The output head is quantized with the decoder layers (Lightning's BitsandbytesPrecision converts
   * every nn.Linear; Hugging Face's bitsandbytes integration keeps lm_head in 16 bits). Only an untied
   * head can be. Present only when true.
   */
  readonly quantizeHead?: true;
  /**
   * The dtype the bitsandbytes weights were quantized from, which dequantization returns before the
   * cast to the compute dtype (Hugging Face: the load torch_dtype, float16 when none is given;
   * Lightning: always float16). Absent: the precision's own 16-bit type (fp32 for -mixed and fp32).
   */
  readonly quantizedFrom?: QuantizedFrom;
  /**
   * How long a bitsandbytes layer keeps its input. bitsandbytes before 0.43.2 kept every 4-bit layer's
   * input as a plain attribute of the autograd context, which backward does not free: "step" when the
   * loop frees the graph after backward (Hugging Face Trainer), "next-forward" when it still holds the
   * last step's outputs while the next forward runs (litgpt, a plain `loss = model(...)` loop). "none"
   * for 4-bit since 0.43.2. Absent: "step" for int8 (MatMul8bitLt keeps its input), else "none".
   */
  readonly quantizedInputsKept?: QuantizedInputsKept;
  /**
   * The library that quantized the base. Absent: bitsandbytes for int8, nf4, nf4-dq and fp4. "torchao":
   * torchtune's NF4Tensor, a tensor subclass whose codes and block scales FSDP shards together, and whose
   * layers keep no input. Present only when "torchao".
   */
  readonly quantizer?: 'torchao';
  readonly precision: Precision;
  readonly optimizer: Optimizer;
  readonly microBatchSize: number;
  readonly seqLen: number;
  readonly gradAccumSteps: number;
  /**
   * The optimizer steps each parameter inside backward, as soon as its gradient is ready, and frees that
   * gradient (torchtune `optimizer_in_bwd`, PyTorch's post-accumulate-grad hooks). Present only when true.
   */
  readonly optimizerInBackward?: true;
  /**
   * torch's optimizer runs its fused kernel (AdamW or SGD `fused=True`; Hugging Face `adamw_torch_fused`,
   * the Trainer's default with torch ≥ 2.8): no state-sized temporary in the step. Present only when true.
   */
  readonly fusedOptimizer?: true;
  readonly gradientCheckpointing: Checkpointing;
  readonly attention: Attention;
  /**
   * torch.compile over the model and its loss (torchtune `compile`, Hugging Face `torch_compile`).
   * Present only when true.
   */
  readonly torchCompile?: true;
  readonly loss: Loss;
  readonly parallelism: {
    readonly strategy: Strategy;
    readonly gpus: number;
    /**
     * FSDP: the embeddings and output head are FSDP units of their own (torchtune
     * custom_sharded_layers) instead of staying in the root unit, which FSDP keeps gathered from
     * forward through backward. Present only when true.
     */
    readonly wrapEmbeddings?: true;
    /**
     * FSDP with gradient accumulation: gradients are reduce-scattered after every micro-batch
     * (torchtune's FSDP2 recipes, Accelerate's sync_each_batch) instead of accumulating unsharded
     * inside no_sync(). Present only when true.
     */
    readonly syncEachMicroBatch?: true;
    /**
     * DeepSpeed ZeRO's gradient reduce bucket, in elements (`zero_optimization.reduce_bucket_size`): a
     * number, or "auto", which the Hugging Face integration sizes as hidden_size². Absent: DeepSpeed's
     * default, 5e8.
     */
    readonly reduceBucketSize?: number | 'auto';
    /** DeepSpeed `overlap_comm`: ZeRO-1/2 then keep two reduce buckets. Present only when true. */
    readonly overlapComm?: true;
  };
  readonly offload: {
    readonly optimizer: OffloadTarget;
    readonly params: OffloadTarget;
    /**
     * The activations the forward pass saves for backward wait in pinned CPU memory and come back when
     * backward needs them: Hugging Face `gradient_checkpointing_kwargs={"offload": True}` and TRL
     * `activation_offloading`, torchtune `enable_activation_offloading`, Unsloth's and Axolotl's
     * offloaded checkpointing. Present only when "cpu".
     */
    readonly activations?: 'cpu';
  };
  /**
   * The run sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch ≥ 2.1): the caching
   * allocator grows segments in place instead of keeping blocks of one size, so little of what is
   * freed stays unusable. It changes the reserved and nvidia-smi levels, not allocated. Present only
   * when true.
   */
  readonly expandableSegments?: true;
  readonly gpu?: string;
  /** The stack that runs the training. Absent: not stated. */
  readonly framework?: Framework;
  /** Package versions where the user stated them. Present only when at least one is given. */
  readonly versions?: Versions;
  /** How batches are shaped. Default "max-length": every batch is seqLen tokens. */
  readonly padding: Padding;
}

/**
 * The precision a scenario takes when it names none (docs/scenario.md): full and freeze train in
 * bf16 mixed precision (fp32 master weights); LoRA and QLoRA load the frozen base in 16 bits, as the
 * Hugging Face, LLaMA-Factory, Axolotl and torchtune setups do.
 */
export function defaultPrecision(method: Method): Precision {
  return method === 'lora' || method === 'qlora' ? 'bf16-true' : 'bf16-mixed';
}

/** Defaults as docs/scenario.md states them (precision: defaultPrecision, by method). */
export const SCENARIO_DEFAULTS = {
  method: 'full',
  quantization: 'none',
  optimizer: 'adamw',
  microBatchSize: 1,
  seqLen: 2048,
  gradAccumSteps: 1,
  gradientCheckpointing: 'none',
  attention: 'sdpa',
  loss: 'standard',
  lora: { rank: 16, dropout: 0, targets: ['q_proj', 'v_proj'] as readonly string[] },
  trainableLayers: 2,
} as const;

const DEEPSPEED_STRATEGIES: ReadonlySet<Strategy> = new Set(['zero1', 'zero2', 'zero3']);

const PARALLELISM_FIELDS: readonly string[] = [
  'strategy',
  'gpus',
  'wrapEmbeddings',
  'syncEachMicroBatch',
  'reduceBucketSize',
  'overlapComm',
];

const TOP_LEVEL_FIELDS = new Set([
  'model',
  'method',
  'lora',
  'trainableLayers',
  'quantization',
  'quantizeHead',
  'quantizedFrom',
  'quantizedInputsKept',
  'quantizer',
  'precision',
  'optimizer',
  'microBatchSize',
  'seqLen',
  'gradAccumSteps',
  'optimizerInBackward',
  'fusedOptimizer',
  'gradientCheckpointing',
  'attention',
  'torchCompile',
  'loss',
  'parallelism',
  'offload',
  'expandableSegments',
  'gpu',
  'framework',
  'versions',
  'padding',
]);

/**
 * Whether an allocator setting turns expandable segments on: PYTORCH_CUDA_ALLOC_CONF (or PyTorch 2.9's
 * PYTORCH_ALLOC_CONF) is comma-separated key:value pairs, and torch accepts exactly "True"
 * (c10/cuda/CUDAAllocatorConfig.cpp, parseExpandableSegments).
 */
export function allocConfExpandsSegments(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value.split(',').some((pair) => {
    const [key, setting] = pair.split(':').map((part) => part.trim());
    return key === 'expandable_segments' && setting === 'True';
  });
}

/**
 * The scenario of a run whose environment had this allocator setting: expandable segments on when the
 * setting turns them on and the user did not decline them (--no-expandable-segments).
 */
export function withAllocatorSetting(
  scenario: Scenario,
  allocConf: string | undefined,
  declined: boolean,
): Scenario {
  if (scenario.expandableSegments || declined || !allocConfExpandsSegments(allocConf)) return scenario;
  return { ...scenario, expandableSegments: true };
}

/** Whether torchao can have quantized a base to this: its NF4Tensor, with double-quantized scales. */
export function torchaoQuantizes(quantization: string): boolean {
  return TORCHAO_QUANTIZATIONS.has(quantization);
}

/** Whether bitsandbytes quantized the scenario's base (not torchao, not GPTQ). */
export function usesBitsandbytes(scenario: Pick<Scenario, 'quantization' | 'quantizer'>): boolean {
  return BITSANDBYTES_QUANTIZATIONS.has(scenario.quantization) && scenario.quantizer !== 'torchao';
}

/** The optimizers torch implements with a fused kernel (`fused=True`). */
const TORCH_FUSED_OPTIMIZERS: ReadonlySet<string> = new Set<Optimizer>(['adamw', 'sgd', 'sgd-momentum']);

/** Whether `fusedOptimizer` applies to an optimizer: torch's AdamW and SGD (bitsandbytes' are one kernel already). */
export function fusesInTorch(optimizer: string): boolean {
  return TORCH_FUSED_OPTIMIZERS.has(optimizer);
}

function invalid(where: string, message: string, hint?: string): HeadroomUserError {
  return new HeadroomUserError({
    code: 'invalid-field',
    where,
    message: `${where}: ${message}`,
    ...(hint === undefined ? {} : { hint }),
  });
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string, fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(where, `${JSON.stringify(value)} is not one of ${allowed.join(' | ')}`);
}

/** An optional one-of field: absent stays absent instead of taking a default. */
function optionalOneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  where: string,
): T | undefined {
  return value === undefined || value === null ? undefined : oneOf(value, allowed, where, allowed[0]!);
}

/** The most a count field takes, in what unit, and why no run needs more. */
export interface CountLimit {
  readonly max: number;
  /** What the count counts, for the message ("tokens", "GPUs"; empty for a plain number). */
  readonly unit: string;
  /** Why no training run goes past it: the figure the limit was chosen from. */
  readonly why: string;
}

/**
 * The largest value each count field accepts (by its SCENARIO.md path), without knowing the model. Past
 * these a figure describes no training run, only a slip of the keyboard (1e12 for 1e4), and its estimate
 * would mean nothing. Limits that depend on the model (a LoRA rank above its hidden size, more trainable
 * layers than it has) are checked where the model is known: scenario-limits.ts.
 */
export const SCENARIO_LIMITS = {
  /** 10 × 2^20: Llama 4 Scout's 10M-token context (Meta, "The Llama 4 herd", 2025-04-05) is the longest of any released model. */
  seqLen: {
    max: 10_485_760,
    unit: 'tokens',
    why: "Llama 4 Scout's 10M-token context, the longest of any model",
  },
  /** 2^16 sequences per GPU: far past the per-GPU batches fine-tuning recipes use (tens to a few thousand short ones). */
  microBatchSize: {
    max: 65_536,
    unit: 'sequences',
    why: 'far past any per-GPU batch a fine-tuning recipe uses',
  },
  /** 2^16 micro-batches per optimizer step: far past any recipe's accumulation. */
  gradAccumSteps: { max: 65_536, unit: 'micro-batches', why: 'far past any accumulation a recipe uses' },
  /** The largest training clusters hold about 100,000 GPUs (xAI Colossus, 2024: 100k H100). */
  'parallelism.gpus': { max: 100_000, unit: 'GPUs', why: 'the size of the largest training clusters' },
  /** 2^16: above every model's hidden size (the widest in the catalog, Llama-3.1-405B, is 16,384), where a rank adds nothing. */
  'lora.rank': {
    max: 65_536,
    unit: '',
    why: "above every model's hidden size, where a rank adds nothing",
  },
  /** Decoder blocks: the deepest models have a few hundred at most (Llama-3.1-405B: 126). */
  trainableLayers: { max: 1024, unit: 'layers', why: 'deeper than any model' },
} as const satisfies Readonly<Record<string, CountLimit>>;

function positiveInt(value: unknown, where: keyof typeof SCENARIO_LIMITS, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const limit: CountLimit = SCENARIO_LIMITS[where];
  const outOfRange = (message: string) =>
    new HeadroomUserError({
      code: 'out-of-range',
      where,
      message: `${where}: ${message}`,
      params: { value: typeof value === 'number' ? value : JSON.stringify(value), min: 1, max: limit.max },
    });
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw outOfRange(`${JSON.stringify(value)} must be a whole number from 1 to ${limit.max}`);
  }
  if (value > limit.max) {
    throw outOfRange(
      `${value} is more than ${`${limit.max} ${limit.unit}`.trim()}, the most Headroom takes (${limit.why})`,
    );
  }
  return value;
}

function flag(value: unknown, where: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalid(where, `${JSON.stringify(value)} must be true or false`);
  return value;
}

function record(value: unknown, where: string): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(where, 'must be an object');
  return value as Record<string, unknown>;
}

function parseLora(value: unknown): LoraConfig {
  const raw = record(value, 'lora');
  for (const key of Object.keys(raw)) {
    if (!['rank', 'alpha', 'dropout', 'targets', 'modulesToSave', 'adapterDtype'].includes(key)) {
      throw invalid(
        `lora.${key}`,
        'is not a LoRA field (rank, alpha, dropout, targets, modulesToSave, adapterDtype)',
      );
    }
  }
  const rank = positiveInt(raw.rank, 'lora.rank', SCENARIO_DEFAULTS.lora.rank);
  const dropout = raw.dropout ?? 0;
  if (typeof dropout !== 'number' || dropout < 0 || dropout >= 1) {
    throw invalid(
      'lora.dropout',
      `${JSON.stringify(dropout)} must be a number from 0 up to (not including) 1`,
    );
  }
  let targets: LoraConfig['targets'] = SCENARIO_DEFAULTS.lora.targets;
  if (raw.targets === 'all-linear') targets = 'all-linear';
  else if (raw.targets !== undefined) {
    if (
      !Array.isArray(raw.targets) ||
      raw.targets.length === 0 ||
      raw.targets.some((t) => typeof t !== 'string')
    ) {
      throw invalid('lora.targets', 'must be "all-linear" or a non-empty list of module names');
    }
    targets = raw.targets as string[];
  }
  const modulesToSave = raw.modulesToSave ?? [];
  if (!Array.isArray(modulesToSave) || modulesToSave.some((t) => typeof t !== 'string')) {
    throw invalid('lora.modulesToSave', 'must be a list of module names, e.g. ["embed_tokens", "lm_head"]');
  }
  const alpha = raw.alpha;
  if (alpha !== undefined && (typeof alpha !== 'number' || alpha <= 0)) {
    throw invalid('lora.alpha', `${JSON.stringify(alpha)} must be a positive number`);
  }
  const adapterDtype = optionalOneOf(raw.adapterDtype, ADAPTER_DTYPES, 'lora.adapterDtype');
  return {
    rank,
    dropout,
    targets,
    modulesToSave: modulesToSave as string[],
    ...(alpha === undefined ? {} : { alpha }),
    ...(adapterDtype === 'model' ? { adapterDtype } : {}),
  };
}

/**
 * Validates a scenario object (parsed JSON or built from flags) and fills every default.
 * Throws HeadroomUserError naming the field and the accepted values.
 * @example parseScenario({ model: 'llama-3.1-8b', method: 'qlora', quantization: 'nf4' })
 */
export function parseScenario(input: unknown): Scenario {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalid('scenario', 'must be a JSON object with at least a "model" field');
  }
  const raw = input as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_FIELDS.has(key)) {
      throw invalid(key, 'is not a scenario field', `the fields are: ${[...TOP_LEVEL_FIELDS].join(', ')}`);
    }
  }
  const model = raw.model;
  if (typeof model === 'string') {
    if (model.trim() === '') throw invalid('model', 'is empty', 'name a catalog model: headroom models');
  } else if (model === null || typeof model !== 'object' || Array.isArray(model)) {
    throw invalid(
      'model',
      'is missing: give a catalog id, a Hugging Face repo id or an inline config.json object',
      'headroom models lists the catalog',
    );
  }
  if (raw.method === 'peft-other') {
    throw new HeadroomUserError({
      code: 'unsupported',
      where: 'method',
      message: 'method: "peft-other" (IA3, prefix tuning, VeRA, DoRA…) is not modelled',
      hint: 'estimate the closest LoRA setup instead: method "lora" with a similar rank and targets',
    });
  }
  const method = oneOf(raw.method, METHODS, 'method', SCENARIO_DEFAULTS.method);
  const quantization = oneOf(raw.quantization, QUANTIZATIONS, 'quantization', SCENARIO_DEFAULTS.quantization);
  if (method === 'qlora' && quantization === 'none') {
    throw invalid(
      'quantization',
      'method "qlora" needs a quantized base, but quantization is "none"',
      'set quantization to nf4, nf4-dq, fp4, int8 or int4-gptq, or use method "lora"',
    );
  }
  if ((method === 'full' || method === 'freeze') && quantization !== 'none') {
    throw invalid(
      'quantization',
      `method "${method}" trains the base weights, which cannot be ${quantization}-quantized`,
      'use method "qlora" (adapters on a quantized base) or quantization "none"',
    );
  }
  if (raw.lora !== undefined && method !== 'lora' && method !== 'qlora') {
    throw invalid('lora', `is only used with method lora or qlora, not "${method}"`);
  }
  const lora = method === 'lora' || method === 'qlora' ? parseLora(raw.lora) : undefined;
  if (raw.trainableLayers !== undefined && method !== 'freeze') {
    throw invalid('trainableLayers', `is only used with method "freeze", not "${method}"`);
  }
  const trainableLayers =
    method === 'freeze'
      ? positiveInt(raw.trainableLayers, 'trainableLayers', SCENARIO_DEFAULTS.trainableLayers)
      : undefined;
  const parallelismRaw = record(raw.parallelism, 'parallelism');
  for (const key of Object.keys(parallelismRaw)) {
    if (!PARALLELISM_FIELDS.includes(key))
      throw invalid(`parallelism.${key}`, `is not a field (${PARALLELISM_FIELDS.join(', ')})`);
  }
  const strategy = oneOf(parallelismRaw.strategy, STRATEGIES, 'parallelism.strategy', 'single');
  const gpus = positiveInt(parallelismRaw.gpus, 'parallelism.gpus', 1);
  const wrapEmbeddings = flag(parallelismRaw.wrapEmbeddings, 'parallelism.wrapEmbeddings');
  const syncEach = flag(parallelismRaw.syncEachMicroBatch, 'parallelism.syncEachMicroBatch');
  if (syncEach && strategy !== 'fsdp' && strategy !== 'fsdp-grad-op') {
    throw invalid(
      'parallelism.syncEachMicroBatch',
      `is about how FSDP accumulates gradients, but the strategy is "${strategy}"`,
      'use it with strategy fsdp or fsdp-grad-op',
    );
  }
  if (wrapEmbeddings && strategy !== 'fsdp' && strategy !== 'fsdp-grad-op') {
    throw invalid(
      'parallelism.wrapEmbeddings',
      `wraps the embeddings as FSDP units of their own, but the strategy is "${strategy}"`,
      'use it with strategy fsdp or fsdp-grad-op',
    );
  }
  const reduceBucketSize = parallelismRaw.reduceBucketSize;
  if (
    reduceBucketSize !== undefined &&
    reduceBucketSize !== null &&
    reduceBucketSize !== 'auto' &&
    (typeof reduceBucketSize !== 'number' || !Number.isInteger(reduceBucketSize) || reduceBucketSize < 1)
  ) {
    throw invalid(
      'parallelism.reduceBucketSize',
      `${JSON.stringify(reduceBucketSize)} must be a whole number of elements (at least 1) or "auto"`,
      'copy zero_optimization.reduce_bucket_size from the DeepSpeed config, e.g. 500000000',
    );
  }
  const overlapComm = flag(parallelismRaw.overlapComm, 'parallelism.overlapComm');
  for (const [where, given] of [
    ['parallelism.reduceBucketSize', reduceBucketSize !== undefined && reduceBucketSize !== null],
    ['parallelism.overlapComm', overlapComm],
  ] as const) {
    if (given && !DEEPSPEED_STRATEGIES.has(strategy)) {
      throw invalid(
        where,
        `is a DeepSpeed ZeRO setting, but the strategy is "${strategy}"`,
        'use it with strategy zero1, zero2 or zero3',
      );
    }
  }
  if (strategy === 'single' && gpus !== 1) {
    throw invalid(
      'parallelism.gpus',
      `strategy "single" runs on one GPU, but gpus is ${gpus}`,
      'choose a multi-GPU strategy: ddp, zero1, zero2, zero3, fsdp or fsdp-grad-op',
    );
  }
  const offloadRaw = record(raw.offload, 'offload');
  for (const key of Object.keys(offloadRaw)) {
    if (key !== 'optimizer' && key !== 'params' && key !== 'activations')
      throw invalid(`offload.${key}`, 'is not a field (optimizer, params, activations)');
  }
  const activationsOffload = oneOf(
    offloadRaw.activations,
    ACTIVATION_OFFLOADS,
    'offload.activations',
    'none',
  );
  const offload = {
    optimizer: oneOf(offloadRaw.optimizer, OFFLOADS, 'offload.optimizer', 'none'),
    params: oneOf(offloadRaw.params, OFFLOADS, 'offload.params', 'none'),
    ...(activationsOffload === 'cpu' ? { activations: 'cpu' as const } : {}),
  };
  const sharded = ['zero1', 'zero2', 'zero3', 'fsdp', 'fsdp-grad-op'].includes(strategy);
  if (offload.optimizer !== 'none' && !sharded) {
    throw invalid(
      'offload.optimizer',
      `offloading needs a ZeRO or FSDP strategy, not "${strategy}"`,
      'set parallelism.strategy to zero2, zero3 or fsdp (it works with gpus: 1)',
    );
  }
  if (offload.params !== 'none' && strategy !== 'zero3' && strategy !== 'fsdp') {
    throw invalid(
      'offload.params',
      `parameter offload needs ZeRO-3 or FSDP full sharding, not "${strategy}"`,
      'set parallelism.strategy to zero3 or fsdp',
    );
  }
  const inBackward = flag(raw.optimizerInBackward, 'optimizerInBackward');
  const optimizer = oneOf(raw.optimizer, OPTIMIZERS, 'optimizer', SCENARIO_DEFAULTS.optimizer);
  const fused = flag(raw.fusedOptimizer, 'fusedOptimizer');
  if (fused && !fusesInTorch(optimizer)) {
    throw invalid(
      'fusedOptimizer',
      `applies to torch's AdamW and SGD only; "${optimizer}" is one kernel already, with no step temporary to save`,
      'drop fusedOptimizer, or use optimizer adamw, sgd or sgd-momentum',
    );
  }
  const gradAccumSteps = positiveInt(raw.gradAccumSteps, 'gradAccumSteps', SCENARIO_DEFAULTS.gradAccumSteps);
  if (inBackward && gradAccumSteps > 1) {
    throw invalid(
      'optimizerInBackward',
      `steps the optimizer on every micro-batch, so it cannot accumulate ${gradAccumSteps} micro-batches of gradients`,
      'set gradAccumSteps to 1, or optimizerInBackward to false',
    );
  }
  if (inBackward && DEEPSPEED_STRATEGIES.has(strategy)) {
    throw invalid(
      'optimizerInBackward',
      `is a PyTorch hook on each parameter; DeepSpeed's ${strategy} steps its own partitioned optimizer`,
      'use strategy single, ddp or fsdp with it',
    );
  }
  const quantizer = optionalOneOf(raw.quantizer, QUANTIZERS, 'quantizer');
  if (quantizer === 'torchao' && !torchaoQuantizes(quantization)) {
    throw invalid(
      'quantizer',
      `torchao quantizes to NF4 (torchtune's QLoRA), but quantization is "${quantization}"`,
      'set quantization to nf4-dq, or drop quantizer',
    );
  }
  if (quantizer === 'bitsandbytes' && !BITSANDBYTES_QUANTIZATIONS.has(quantization)) {
    throw invalid(
      'quantizer',
      `bitsandbytes quantizes to int8, nf4, nf4-dq or fp4, but quantization is "${quantization}"`,
      'set quantization to one of those, or drop quantizer',
    );
  }
  // Fields that only mean something for a bitsandbytes base.
  const bnbBase = usesBitsandbytes({ quantization, ...(quantizer === 'torchao' ? { quantizer } : {}) });
  const requireBnb = (where: string, says: string): void => {
    if (!bnbBase) {
      throw invalid(
        where,
        quantizer === 'torchao'
          ? `${says}, but the base is quantized by torchao`
          : `${says}, but quantization is "${quantization}"`,
        quantizer === 'torchao'
          ? 'drop it, or set quantizer to bitsandbytes'
          : 'use it with quantization nf4, nf4-dq, fp4 or int8',
      );
    }
  };
  const quantizeHead = flag(raw.quantizeHead, 'quantizeHead');
  if (quantizeHead) requireBnb('quantizeHead', 'quantizes the output head with a bitsandbytes base');
  const quantizedFrom = optionalOneOf(raw.quantizedFrom, QUANTIZED_FROM, 'quantizedFrom');
  if (quantizedFrom !== undefined) requireBnb('quantizedFrom', 'says how a bitsandbytes base was quantized');
  const inputsKept = optionalOneOf(raw.quantizedInputsKept, QUANTIZED_INPUTS_KEPT, 'quantizedInputsKept');
  if (inputsKept !== undefined) {
    requireBnb('quantizedInputsKept', 'says how long a bitsandbytes layer keeps its input');
  }
  const framework = optionalOneOf(raw.framework, FRAMEWORKS, 'framework');
  const versions = parseVersions(raw.versions);
  const gpu = raw.gpu;
  if (gpu !== undefined && (typeof gpu !== 'string' || gpu.trim() === '')) {
    throw invalid('gpu', 'must be a catalog GPU id', 'headroom gpus lists them');
  }
  return {
    model: model as ModelRef,
    method,
    ...(lora === undefined ? {} : { lora }),
    ...(trainableLayers === undefined ? {} : { trainableLayers }),
    quantization,
    ...(quantizeHead ? { quantizeHead: true as const } : {}),
    ...(quantizedFrom === undefined ? {} : { quantizedFrom }),
    ...(inputsKept === undefined ? {} : { quantizedInputsKept: inputsKept }),
    ...(quantizer === 'torchao' ? { quantizer } : {}),
    precision: oneOf(raw.precision, PRECISIONS, 'precision', defaultPrecision(method)),
    optimizer,
    microBatchSize: positiveInt(raw.microBatchSize, 'microBatchSize', SCENARIO_DEFAULTS.microBatchSize),
    seqLen: positiveInt(raw.seqLen, 'seqLen', SCENARIO_DEFAULTS.seqLen),
    gradAccumSteps,
    ...(inBackward ? { optimizerInBackward: true as const } : {}),
    ...(fused ? { fusedOptimizer: true as const } : {}),
    gradientCheckpointing: oneOf(
      raw.gradientCheckpointing,
      CHECKPOINTING,
      'gradientCheckpointing',
      SCENARIO_DEFAULTS.gradientCheckpointing,
    ),
    attention: oneOf(raw.attention, ATTENTIONS, 'attention', SCENARIO_DEFAULTS.attention),
    ...(flag(raw.torchCompile, 'torchCompile') ? { torchCompile: true as const } : {}),
    loss: oneOf(raw.loss, LOSSES, 'loss', SCENARIO_DEFAULTS.loss),
    parallelism: {
      strategy,
      gpus,
      ...(wrapEmbeddings ? { wrapEmbeddings: true as const } : {}),
      ...(syncEach ? { syncEachMicroBatch: true as const } : {}),
      ...(typeof reduceBucketSize === 'number' || reduceBucketSize === 'auto' ? { reduceBucketSize } : {}),
      ...(overlapComm ? { overlapComm: true as const } : {}),
    },
    offload,
    ...(flag(raw.expandableSegments, 'expandableSegments') ? { expandableSegments: true as const } : {}),
    ...(typeof gpu === 'string' ? { gpu } : {}),
    ...(framework === undefined ? {} : { framework }),
    ...(versions === undefined ? {} : { versions }),
    padding: oneOf(raw.padding, PADDINGS, 'padding', 'max-length'),
  };
}

/** A version as packages print it: digits and dots first, then a local or pre-release tail. */
const VERSION_PATTERN = /^\d{1,6}(\.\d{1,6}){0,3}[0-9A-Za-z.+-]{0,32}$/;

function parseVersions(value: unknown): Versions | undefined {
  if (value === undefined || value === null) return undefined;
  const raw = record(value, 'versions');
  const out: Partial<Record<VersionKey, string>> = {};
  for (const [key, version] of Object.entries(raw)) {
    if (!(VERSION_KEYS as readonly string[]).includes(key)) {
      throw invalid(
        `versions.${key}`,
        'is not a package headroom knows',
        `the keys are: ${VERSION_KEYS.join(', ')}`,
      );
    }
    if (typeof version !== 'string' || !VERSION_PATTERN.test(version)) {
      throw invalid(
        `versions.${key}`,
        `${JSON.stringify(version)} must be a version string such as "2.5.1"`,
        'write it as `pip show` prints it, e.g. "2.5.1" or "4.46.0.dev0"',
      );
    }
    out[key as VersionKey] = version;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

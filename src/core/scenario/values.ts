/**
 * The values a scenario's fields take (docs/scenario.md), their types, and the predicates the field
 * table's rules and the estimator share.
 */
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
/**
 * Activation checkpointing: none; full (each layer keeps its input and is recomputed in backward);
 * selective (every matmul output kept, the elementwise ops recomputed); selective-op (torchtitan's
 * op-level policy: the SDPA outputs and every second matmul output kept, the rest recomputed);
 * every-nth (per-layer: every checkpointEvery-th layer fully checkpointed, the others keep everything).
 */
export const CHECKPOINTING = ['none', 'full', 'selective', 'selective-op', 'every-nth'] as const;
export const ATTENTIONS = ['eager', 'sdpa', 'flash'] as const;
export const LOSSES = ['standard', 'chunked', 'fused'] as const;
export const STRATEGIES = ['single', 'ddp', 'zero1', 'zero2', 'zero3', 'fsdp', 'fsdp-grad-op'] as const;
export const OFFLOADS = ['none', 'cpu', 'nvme'] as const;
/** Which PyTorch FSDP runs an FSDP strategy: 1, FullyShardedDataParallel (flat parameters); 2, fully_shard (per-parameter DTensors). */
export const FSDP_VERSIONS = [1, 2] as const;
/** The dtype FSDP all-gathers the weights or reduce-scatters the gradients in: the compute dtype, or fp32. */
export const FSDP_DTYPES = ['compute', 'fp32'] as const;
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
/**
 * The dtype from_pretrained loads the base in: "fp32" when no torch_dtype is given before transformers
 * 5 (a 16-bit checkpoint is upcast), "auto" the checkpoint's own dtype (transformers 5's default).
 */
export const LOAD_DTYPES = ['fp32', 'auto'] as const;
/**
 * PEFT prepare_model_for_kbit_training casts every 16-bit parameter that is not quantized to fp32:
 * "kept" leaves them there (PEFT alone), "cast-back" casts the embeddings, head and norms back to the
 * 16-bit dtype afterwards (TRL's peft_module_casting_to_bf16 under bf16, Axolotl).
 */
export const KBIT_UPCASTS = ['kept', 'cast-back'] as const;
/**
 * Whose modelling code builds the decoder layers: Hugging Face transformers (q/k/v as the checkpoint
 * names them, PEFT adapters on each) or litgpt's own GPT (one fused qkv linear, one LoRAQKVLinear).
 */
export const MODEL_CODES = ['transformers', 'litgpt'] as const;
/** The quantizations torchao's NF4Tensor does: NF4 with its block scales quantized again (double quantization). */
export const TORCHAO_QUANTIZATIONS: ReadonlySet<string> = new Set(['nf4', 'nf4-dq']);

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
export type FsdpVersion = (typeof FSDP_VERSIONS)[number];
export type FsdpDtype = (typeof FSDP_DTYPES)[number];
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
export type LoadDtype = (typeof LOAD_DTYPES)[number];
export type KbitUpcast = (typeof KBIT_UPCASTS)[number];
export type ModelCode = (typeof MODEL_CODES)[number];
/** Package versions, as strings ("2.5.1", "4.46.0.dev0", "2.5.1+cu121"). */
export type Versions = Readonly<Partial<Record<VersionKey, string>>>;

/**
 * The precision a scenario takes when it names none (docs/scenario.md): full and freeze train in
 * bf16 mixed precision (fp32 master weights); LoRA and QLoRA load the frozen base in 16 bits, as the
 * Hugging Face, LLaMA-Factory, Axolotl and torchtune setups do.
 */
export function defaultPrecision(method: Method): Precision {
  return method === 'lora' || method === 'qlora' ? 'bf16-true' : 'bf16-mixed';
}

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

/** Whether torchao can have quantized a base to this: its NF4Tensor, with double-quantized scales. */
export function torchaoQuantizes(quantization: string): boolean {
  return TORCHAO_QUANTIZATIONS.has(quantization);
}

/** Whether bitsandbytes quantized the scenario's base (not torchao, not GPTQ). */
export function usesBitsandbytes(scenario: {
  readonly quantization: string;
  readonly quantizer?: string | undefined;
}): boolean {
  // An unquantized base (most estimates) is answered before the set is searched.
  return (
    scenario.quantization !== 'none' &&
    BITSANDBYTES_QUANTIZATIONS.has(scenario.quantization as Quantization) &&
    scenario.quantizer !== 'torchao'
  );
}

/** The optimizers torch implements with a fused kernel (`fused=True`). */
const TORCH_FUSED_OPTIMIZERS: ReadonlySet<string> = new Set<Optimizer>(['adamw', 'sgd', 'sgd-momentum']);

/** Whether `fusedOptimizer` applies to an optimizer: torch's AdamW and SGD (bitsandbytes' are one kernel already). */
export function fusesInTorch(optimizer: string): boolean {
  return TORCH_FUSED_OPTIMIZERS.has(optimizer);
}

/** DeepSpeed ZeRO's stages: they step their own partitioned optimizer and size their own reduce buckets. */
export const DEEPSPEED_STRATEGIES: ReadonlySet<string> = new Set<Strategy>(['zero1', 'zero2', 'zero3']);
/** PyTorch FSDP, fully sharded or sharding gradients and optimizer states only. */
export const FSDP_STRATEGIES: ReadonlySet<string> = new Set<Strategy>(['fsdp', 'fsdp-grad-op']);
/** The strategies that shard optimizer states, and so can offload them (ZeRO, FSDP). */
export const SHARDED_STRATEGIES: ReadonlySet<string> = new Set<Strategy>([
  'zero1',
  'zero2',
  'zero3',
  'fsdp',
  'fsdp-grad-op',
]);
/** The strategies that shard the parameters themselves, and so can offload them (ZeRO-3, FSDP full sharding). */
export const PARAM_SHARDED_STRATEGIES: ReadonlySet<string> = new Set<Strategy>(['zero3', 'fsdp']);

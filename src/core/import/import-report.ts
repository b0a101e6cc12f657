/**
 * What importing a trainer config produces: the scenario fields the file decides (SCENARIO.md spelling),
 * and a report of every memory-relevant key — mapped to a field, left unmapped (with why), or a trainer
 * default assumed because the file leaves it unset. Why is data: a code and its figures
 * (ImportReasonParams), worded by src/words/import-reasons.ts.
 */
import type { MessageOf, NoParams } from '../message.js';

/** The trainer config formats Headroom reads. */
export const CONFIG_FORMATS = [
  'llama-factory',
  'axolotl',
  'torchtune',
  'hf-trainer',
  'accelerate',
  'deepspeed',
] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

/** A config key turned into a scenario field. */
export interface MappedKey {
  /** The key as written in the file, dotted for nested keys (`fsdp_config.fsdp_offload_params`). */
  readonly key: string;
  readonly value: unknown;
  /** The scenario field it set, dotted (`lora.rank`, `parallelism.strategy`). */
  readonly field: string;
  /** The value the field received. */
  readonly to: unknown;
}

/**
 * Why a memory-relevant key did not become a scenario field:
 * - `no-field`: it changes memory but SCENARIO.md has no field for it (ZeRO bucket sizes, activation offloading);
 * - `auto`: DeepSpeed's "auto", filled by the trainer at launch — reported, never guessed;
 * - `deferred`: it has a field, but this file alone does not decide it (a launcher or another file does);
 * - `unresolved`: a value Headroom does not recognise, or a referenced file it could not find.
 */
export type UnmappedKind = 'no-field' | 'auto' | 'deferred' | 'unresolved';

/**
 * Why a key was left unmapped or a trainer default assumed, by code, with the figures the words need.
 * Each trainer's documented behaviour is cited where the mapper decides it (src/core/import/*.ts).
 */
export interface ImportReasonParams {
  // Trainer defaults assumed for what the file leaves unset.
  /** `key` not set: `trainer` defaults to `value` (as the trainer writes it: 16, "lora", False). */
  'trainer-default': { readonly key: string; readonly trainer: string; readonly value: string | number };
  'hf-default-optim': NoParams;
  'axolotl-default-optim': NoParams;
  'axolotl-qlora-base': NoParams;
  'accelerate-default-bucket': NoParams;
  'alpha-twice-rank': NoParams;
  'from-deepspeed': NoParams;
  'llama-factory-checkpointing': NoParams;
  'flash-attn-auto': NoParams;
  'torchtune-sync-each': NoParams;
  'torchtune-sdpa': NoParams;
  // Referenced DeepSpeed files.
  /** Not found beside the config, in this many folders above it, or in the working directory. */
  'deepspeed-not-found': { readonly folders: number };
  'deepspeed-not-read': NoParams;
  'deepspeed-path-expected': NoParams;
  // Values Headroom does not recognise.
  'optimizer-not-modelled': NoParams;
  'optimizer-name-expected': NoParams;
  'attention-not-modelled': NoParams;
  'loss-not-modelled': NoParams;
  'adapter-not-modelled': NoParams;
  '4bit-needs-qlora': NoParams;
  '8bit-needs-lora': NoParams;
  'quantized-needs-peft': NoParams;
  'offload-device': NoParams;
  'launcher-layout': NoParams;
  fp8: NoParams;
  'zero-stage': NoParams;
  /** Parameter offload below ZeRO stage 3, at the stage the file names. */
  'param-offload-stage': { readonly stage: string };
  'bucket-value': NoParams;
  'finetuning-type': NoParams;
  /** A quantization method other than bitsandbytes, as the file names it. */
  'quantization-method': { readonly method: string };
  'quantization-bits': NoParams;
  'lora-target': NoParams;
  'negative-freeze': NoParams;
  'flash-attn-values': NoParams;
  /** A LoRA module name that is no torchtune attention projection. */
  'not-attention-projection': { readonly name: string };
  'torchtune-dtype': NoParams;
  // Keys that change memory with no scenario field, or that another file decides.
  'activations-to-disk': NoParams;
  'reentrant-checkpointing': NoParams;
  'fsdp-activation-checkpointing': NoParams;
  'rank0-loading': NoParams;
  'zero3-init': NoParams;
  'tpu-downcast': NoParams;
  'fsdp-orig-params': NoParams;
  'eval-batch': NoParams;
  'upcast-layernorm': NoParams;
  'upcast-lmhead': NoParams;
  'unsloth-kernels': NoParams;
  'no-sequence-cap': NoParams;
  'partial-root-sharding': NoParams;
  'auto-stage': NoParams;
  'auto-from-trainer': NoParams;
  'bucket-without-zero': NoParams;
  'torch-adam': NoParams;
  /** ZeRO memory keys with no field; `auto`: written "auto", sized from the hidden size at launch. */
  'sub-group-size': { readonly auto: boolean };
  'max-live-parameters': { readonly auto: boolean };
  'max-reuse-distance': { readonly auto: boolean };
  'allgather-bucket': { readonly auto: boolean };
  'prefetch-bucket': { readonly auto: boolean };
  'persistence-threshold': { readonly auto: boolean };
  'pin-memory': NoParams;
  'staging-buffers': NoParams;
  'max-in-cpu': NoParams;
  'partition-activations': NoParams;
  'contiguous-activations': NoParams;
  'cpu-checkpointing': NoParams;
  /** A DeepSpeed batch key the trainer sets, for this scenario field. */
  'trainer-sets': { readonly field: 'microBatchSize' | 'gradAccumSteps' };
  'global-batch': NoParams;
  'precision-depends': NoParams;
  'dtype-16-bit': NoParams;
  'dtype-auto': NoParams;
  'dtype-load': NoParams;
  /** The framework a config of this format runs under (its profile decides the behaviour fields). */
  'framework-of-format': { readonly format: string };
}
export type ImportReason = MessageOf<ImportReasonParams>;

/** A reason: its code, and its figures where it has some. */
export const because = <C extends keyof ImportReasonParams>(
  code: C,
  ...params: ImportReasonParams[C] extends NoParams ? [] : [ImportReasonParams[C]]
): ImportReason => ({ code, params: params[0] ?? {} }) as ImportReason;

export interface UnmappedKey {
  readonly key: string;
  readonly value: unknown;
  readonly kind: UnmappedKind;
  readonly reason: ImportReason;
}

/** A scenario field the file leaves unset, filled with the trainer's own default. */
export interface AssumedField {
  readonly field: string;
  readonly value: unknown;
  readonly reason: ImportReason;
}

export interface ImportReport {
  readonly format: ConfigFormat;
  /** Scenario fields from the file and the trainer's defaults; Headroom's own defaults are not added. */
  readonly scenario: Readonly<Record<string, unknown>>;
  readonly mapped: readonly MappedKey[];
  readonly unmapped: readonly UnmappedKey[];
  readonly assumed: readonly AssumedField[];
}

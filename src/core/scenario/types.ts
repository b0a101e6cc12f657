/**
 * The scenario as a type: one fine-tuning setup, every field present and defaults applied
 * (docs/scenario.md is the contract). The field table (fields.ts) declares each of its leaves once;
 * `FieldPath` is how the two are held to each other.
 */

import type { ScenarioProfile } from '../frameworks/decision.js';
import type {
  Attention,
  Checkpointing,
  Framework,
  Loss,
  Method,
  OffloadTarget,
  Optimizer,
  Padding,
  Precision,
  Quantization,
  QuantizedFrom,
  QuantizedInputsKept,
  Strategy,
  Versions,
} from './values.js';

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
  /**
   * What `framework`'s profile decided for the fields the user left out (src/core/frameworks): data the
   * parser derives, not a field a user sets. Present only when `framework` is.
   */
  readonly profile?: ScenarioProfile;
}

/** The parts of a scenario the parser derives rather than reads: no field of the table. */
export type DerivedKey = 'profile';

/** The fields that are objects of fields of their own (`lora.rank`, `parallelism.gpus`, `offload.params`). */
export type GroupKey = 'lora' | 'parallelism' | 'offload';

/** Every leaf of a scenario by its dotted path (docs/scenario.md's spelling): `seqLen`, `lora.rank`. */
export type FieldPath = {
  [K in Exclude<keyof Scenario, DerivedKey> & string]: K extends GroupKey
    ? `${K}.${keyof NonNullable<Scenario[K]> & string}`
    : K;
}[Exclude<keyof Scenario, DerivedKey> & string];

/** The type of the value at a field path. */
export type ValueAt<P extends string> = P extends `${infer G}.${infer L}`
  ? G extends GroupKey
    ? L extends keyof NonNullable<Scenario[G]>
      ? NonNullable<Scenario[G]>[L]
      : never
    : never
  : P extends keyof Scenario
    ? Scenario[P]
    : never;

/**
 * A scenario seen flat, by path, as the table's rules read it: each field's value, or its default
 * where it has one. Read from input that is not yet validated, a value may be anything; the rules
 * only compare.
 */
export type ScenarioView = { readonly [P in FieldPath]: ValueAt<P> | undefined };

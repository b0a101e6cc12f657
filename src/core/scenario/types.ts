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
  FsdpDtype,
  FsdpVersion,
  KbitUpcast,
  LoadDtype,
  Loss,
  Method,
  ModelCode,
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

/**
 * The evaluation a run does between training steps (docs/scenario.md, "evaluation"): a forward pass
 * without the autograd graph at its own batch size, the logits a trainer keeps for metrics, and the
 * KV cache of sample generation. Absent: the run does not evaluate.
 */
export interface EvaluationConfig {
  /** Sequences per GPU per evaluation batch (Hugging Face per_device_eval_batch_size). */
  readonly microBatchSize: number;
  /**
   * The evaluation batches whose logits stay on the GPU at once: the eval set's batches per GPU, or
   * eval_accumulation_steps when it is set and smaller. Read only with keepLogits.
   */
  readonly batches: number;
  /**
   * The trainer keeps every evaluation batch's full logits on the GPU for metrics (Hugging Face
   * Trainer with compute_metrics, until eval_accumulation_steps). Present only when true.
   */
  readonly keepLogits?: true;
  /** Sample generation during evaluation: the KV cache's length in tokens (prompt and new tokens). */
  readonly generateTokens?: number;
  /** Sequences generated at once; absent: the evaluation batch. */
  readonly generateBatch?: number;
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
  /**
   * The dtype the base was loaded in before training (Hugging Face from_pretrained's torch_dtype):
   * "fp32" when none is given before transformers 5. Absent: the dtype it trains in. With a 16-bit
   * precision ("-true") the whole base is in fp32 at load before it is cast; with no precision given,
   * an fp32 base trains under autocast (bf16-mixed).
   */
  readonly loadDtype?: LoadDtype;
  /**
   * PEFT prepare_model_for_kbit_training on a bitsandbytes base: the 16-bit parameters that are not
   * quantized (embeddings, head, norms) go to fp32, "kept" for the run or "cast-back" to 16 bits after
   * loading. Absent: not called.
   */
  readonly prepareKbitUpcast?: KbitUpcast;
  /**
   * Whose code builds the layers. "litgpt": litgpt's GPT, whose attention is one fused qkv linear (one
   * LoRA adapter and one dropout for q, k and v together, zero-padded into the qkv output) and whose
   * multi-head attention hands SDPA v as a view of that output. Absent: Hugging Face transformers.
   * Present only when "litgpt".
   */
  readonly modelCode?: Exclude<ModelCode, 'transformers'>;
  /**
   * transformers' caching_allocator_warmup: one block of the model's bytes is reserved before the
   * weights load into it. Present only when true.
   */
  readonly cachingAllocatorWarmup?: true;
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
  /**
   * With gradientCheckpointing "every-nth": every this-many-th decoder layer is fully checkpointed and
   * the others keep all their activations (torchtitan selective_ac_option = "2", torchtune ac_option).
   * Absent: 2.
   */
  readonly checkpointEvery?: number;
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
     * Which PyTorch FSDP: 1, FullyShardedDataParallel, whose units are flat parameters; 2, fully_shard
     * (torch ≥ 2.4), which shards every parameter as its own DTensor, so frozen parameters never get
     * a gradient. Absent: 1.
     */
    readonly fsdpVersion?: FsdpVersion;
    /**
     * FSDP1 with use_orig_params=True and trained and frozen parameters in one unit: the unit's flat
     * parameter requires a gradient, and that gradient covers the frozen parameters too (Lightning
     * Fabric's FSDPStrategy under litgpt < 0.5.11). Only with FSDP1. Present only when true.
     */
    readonly frozenParamGrads?: true;
    /**
     * The dtype FSDP all-gathers the weights in: "fp32" when its mixed-precision param_dtype is fp32
     * (Lightning's FSDPPrecision "bf16-mixed", which computes under autocast). Present only when "fp32";
     * absent: the compute dtype.
     */
    readonly gatherDtype?: FsdpDtype;
    /**
     * The dtype FSDP reduce-scatters gradients in: "fp32" when its mixed-precision reduce_dtype is fp32
     * (torchtitan's MixedPrecisionPolicy, mixed_precision_reduce = "float32"): each unit's 16-bit
     * gradient is copied into an fp32 buffer first. Present only when "fp32"; absent: the compute dtype.
     */
    readonly reduceDtype?: FsdpDtype;
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
  /** The run evaluates between steps. Absent: it does not. */
  readonly evaluation?: EvaluationConfig;
  /**
   * What `framework`'s profile decided for the fields the user left out (src/core/frameworks): data the
   * parser derives, not a field a user sets. Present only when `framework` is.
   */
  readonly profile?: ScenarioProfile;
}

/** The parts of a scenario the parser derives rather than reads: no field of the table. */
export type DerivedKey = 'profile';

/** The fields that are objects of fields of their own (`lora.rank`, `parallelism.gpus`, `offload.params`). */
export type GroupKey = 'lora' | 'parallelism' | 'offload' | 'evaluation';

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

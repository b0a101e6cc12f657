/**
 * The shape of a framework profile (issue #19): facts about what a training stack does, each read in
 * that stack's code at a named file and version. docs/frameworks.md is the same table in prose.
 */
import type { Method, Optimizer, Precision, Quantization, Strategy, VersionKey } from '../scenario/values.js';

/**
 * The scenario fields a profile can fill when the user left them out, as paths into the scenario
 * object. `modelConfig.tie_word_embeddings` is not a scenario field: it overrides the model's config.json
 * (a framework that keeps the output head as its own tensor). Resolved in this order, so a field can
 * depend on one resolved before it (bitsandbytes facts need to know the quantizer).
 */
export const BEHAVIOUR_FIELDS = [
  'quantizer',
  // Before precision: a base loaded in fp32 trains under autocast unless the precision says otherwise.
  'loadDtype',
  'precision',
  'lora.adapterDtype',
  'lora.rank',
  'lora.targets',
  'lora.dropout',
  'modelCode',
  'quantizeHead',
  'quantizedFrom',
  'quantizedInputsKept',
  'fusedOptimizer',
  'parallelism.fsdpVersion',
  'parallelism.frozenParamGrads',
  'parallelism.gatherDtype',
  'parallelism.reduceDtype',
  'gradientCheckpointing',
  'offload.activations',
  'loss',
  'padding',
  'parallelism.syncEachMicroBatch',
  'parallelism.reduceBucketSize',
  'expandableSegments',
  'prepareKbitUpcast',
  'cachingAllocatorWarmup',
  'evaluation.microBatchSize',
  'evaluation.generateTokens',
  'evaluation.generateBatch',
  'modelConfig.tie_word_embeddings',
] as const;
export type BehaviourField = (typeof BEHAVIOUR_FIELDS)[number];
export type BehaviourValue = string | number | boolean;

/**
 * Mechanisms the frameworks' code shows that the estimator does not model yet: codes with raw params
 * (docs/frameworks.md, "Mechanisms not modelled yet", gives each one's memory formula).
 */
export const MECHANISMS = [
  /** Accelerate's FSDP2 under mixed precision upcasts trainable 16-bit parameters to fp32 before sharding. */
  'fsdp2-trainable-upcast-fp32',
  /** Loading: each FSDP unit (or each parameter) is put on the GPU whole, then sharded; the peak at load is one unit. */
  'fsdp-load-per-unit',
  /** Hugging Face's own AdamW (adamw_hf) loops over parameters: one parameter-sized temporary, not a state-sized list. */
  'optimizer-per-param-loop',
] as const;
export type MechanismCode = (typeof MECHANISMS)[number];
export type MechanismParams = Readonly<Record<string, BehaviourValue>>;

/** Where a fact was read: repository, file, and the tag or commit read (a PR thread when marked). */
export interface Source {
  readonly repo: string;
  readonly path: string;
  readonly ref: string;
  /** The function, class or field read. */
  readonly symbol?: string;
}

/** A version condition on one package: `atLeast` included, `below` excluded. */
export interface VersionCondition {
  readonly package: VersionKey;
  readonly atLeast?: string;
  readonly below?: string;
}

/**
 * What to do when a fact's package version is not given (or does not parse): `assume` applies it and
 * says so, because it is what most users of the framework run today (`current-release`) or because it
 * costs more memory and the estimate must not be optimistic (`more-memory`); `skip` leaves the field to
 * the estimator's default.
 */
export type IfUnknown =
  | { readonly assume: true; readonly why: 'current-release' | 'more-memory' }
  | { readonly assume: false };

/** The scenarios a fact is about; every listed condition must hold. Absent: all. */
export interface Applies {
  readonly methods?: readonly Method[];
  readonly quantizations?: readonly Quantization[];
  /** The library that quantized the base (after the profile's own `quantizer` fact). */
  readonly quantizedBy?: 'bitsandbytes' | 'torchao';
  readonly strategies?: readonly Strategy[];
  readonly optimizers?: readonly Optimizer[];
  /** After the profile's own `precision` fact, else the method's default. */
  readonly precisions?: readonly Precision[];
  /** More than one GPU. */
  readonly multiGpu?: true;
  /**
   * The scenario evaluates: it has an `evaluation` object, `{}` included (the Hugging Face Trainer
   * evaluates only when eval_strategy is not "no", its default).
   */
  readonly evaluates?: true;
}

interface FactBase {
  /** Unique across all profiles, e.g. "litgpt.untied-head". */
  readonly id: string;
  /** Every condition must hold. */
  readonly when?: readonly VersionCondition[];
  /** Absent: skip when a `when` version is unknown. */
  readonly ifUnknown?: IfUnknown;
  readonly applies?: Applies;
  readonly source: Source;
  /** A developer's note on why, for docs/frameworks.md; not rendered to users. */
  readonly reason: string;
  /** Present when the fact was not read in the framework's own file at that ref (a PR thread, a copy). */
  readonly unverified?: string;
}

/** A value that is another field's, as the scenario has it (given, or its default). */
export interface SameAs {
  readonly sameAs: 'microBatchSize' | 'seqLen';
}

/** A field the framework sets: to a value, or to another field's (an eval batch that is the training micro-batch). */
export interface SettingFact extends FactBase {
  readonly kind: 'sets';
  readonly field: BehaviourField;
  readonly value: BehaviourValue | SameAs;
}

/** A mechanism the framework implies that the estimator does not model yet. */
export interface MechanismFact extends FactBase {
  readonly kind: 'mechanism';
  readonly mechanism: MechanismCode;
  readonly params: MechanismParams;
}

export type Fact = SettingFact | MechanismFact;

/** A dependency version the framework pins: known framework version → known package version. */
export interface Pin {
  readonly when: VersionCondition;
  readonly package: VersionKey;
  readonly version: string;
  readonly source: Source;
}

/** Which framework version most of its users run today, when the user names none. */
export interface Profile {
  /** The packages whose versions change this framework's behaviour. */
  readonly packages: readonly VersionKey[];
  readonly pins?: readonly Pin[];
  /** In priority order: for a field, the first fact that applies wins. */
  readonly facts: readonly Fact[];
}

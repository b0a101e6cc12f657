/**
 * The plan's types: the rungs of the ladder, their changes and risks, and the plan itself. Apart from
 * plan.ts (the climb) and plan-prune.ts (the pruning) so that neither imports the other for its types.
 */
import type { ModelShape } from './architecture.js';
import type { Calibration } from './calibrate.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import type { Estimate } from './estimate.js';
import type { MemoryTarget } from './margin.js';
import type { MessageOf, NoParams } from './message.js';
import type { Checkpointing, Optimizer, Precision, Scenario, Strategy } from './scenario.js';

export const RUNG_IDS = [
  'expandable-segments',
  'bitsandbytes-upgrade',
  'sdpa-attention',
  'smaller-micro-batch',
  'selective-checkpointing',
  'full-checkpointing',
  'chunked-loss',
  'compile-loss',
  'fused-optimizer',
  'zero-reduce-bucket',
  'fsdp-sync-each-micro-batch',
  'fsdp-wrap-embeddings',
  'shorter-sequence',
  'pure-bf16',
  '8bit-optimizer',
  'lora',
  'qlora',
  'zero2',
  'zero3',
  'offload-activations-cpu',
  'offload-optimizer-cpu',
  'offload-params-cpu',
  'offload-nvme',
] as const;
export type RungId = (typeof RUNG_IDS)[number];

export type RiskLevel = 'none' | 'low' | 'medium' | 'high';

/**
 * What each risk of a rung could cost, by code, with its figures (src/words/plan-risks.ts words them).
 * The bytes are per node: what the offload needs of host RAM and NVMe.
 */
export interface RiskParams {
  /** The same training, computed differently (attention kernel, checkpointing, loss, fused kernel). */
  'same-training': NoParams;
  'allocator-setting': NoParams;
  'newer-bitsandbytes': NoParams;
  'same-effective-batch': NoParams;
  'compile-warmup': NoParams;
  'smaller-reductions': NoParams;
  'reduce-scatter-each-micro-batch': NoParams;
  'more-all-gathers': NoParams;
  'truncated-samples': { readonly seqLen: number };
  'no-fp32-master-weights': NoParams;
  'bf16-frozen-base': NoParams;
  '8bit-states': NoParams;
  'low-rank-adapters': NoParams;
  '4bit-base': NoParams;
  'zero2-reduce-scatter': NoParams;
  'zero3-gathers': NoParams;
  'pinned-activations': { readonly cpuBytes: number };
  'cpu-optimizer-step': { readonly cpuBytes: number };
  'cpu-parameters': { readonly cpuBytes: number };
  'nvme-bound': { readonly nvmeBytes: number; readonly cpuBytes: number };
  'other-hardware': NoParams;
}

/** A rung's risk: how much (level) and what could go wrong (a code and its figures). */
export type Risk = { readonly level: RiskLevel } & MessageOf<RiskParams>;

/** A ladder rung, or 'hardware' for an alternative that changes the GPUs instead of the training. */
export type ChangeId = RungId | 'hardware';

/**
 * What each rung changes, by rung, with the values before and after (src/words/plan-rungs.ts words
 * them): the code of a rung's change is its id.
 */
export interface RungChangeParams {
  'expandable-segments': NoParams;
  'bitsandbytes-upgrade': NoParams;
  /** eager → sdpa. */
  'sdpa-attention': NoParams;
  'smaller-micro-batch': {
    readonly fromMicroBatch: number;
    readonly toMicroBatch: number;
    readonly fromAccumulation: number;
    readonly toAccumulation: number;
  };
  'selective-checkpointing': NoParams;
  'full-checkpointing': NoParams;
  'chunked-loss': NoParams;
  'compile-loss': NoParams;
  'fused-optimizer': { readonly optimizer: Optimizer };
  /** DeepSpeed's reduce bucket before and after, in elements ("auto" is hidden²). */
  'zero-reduce-bucket': { readonly fromElements: number; readonly toElements: number };
  'fsdp-sync-each-micro-batch': NoParams;
  'fsdp-wrap-embeddings': NoParams;
  'shorter-sequence': { readonly fromSeqLen: number; readonly toSeqLen: number };
  'pure-bf16': { readonly from: Precision };
  '8bit-optimizer': { readonly from: Optimizer; readonly to: Optimizer };
  /** LoRA of this rank on all linear layers. */
  lora: { readonly rank: number };
  qlora: NoParams;
  zero2: { readonly strategy: Strategy; readonly gpus: number };
  zero3: { readonly strategy: Strategy; readonly gpus: number };
  /** What the activation offload moves depends on the checkpointing it runs with. */
  'offload-activations-cpu': { readonly checkpointing: Checkpointing };
  'offload-optimizer-cpu': { readonly strategy: Strategy };
  'offload-params-cpu': { readonly strategy: Strategy };
  'offload-nvme': NoParams;
  /** Another GPU: this many of it, with this strategy. */
  hardware: {
    readonly gpu: string;
    readonly gpuName: string;
    readonly gpus: number;
    readonly strategy: Strategy;
  };
}

/** A rung's change: which rung (`id`, also its message `code`) and its figures. */
export type RungChange = {
  readonly [C in ChangeId]: { readonly id: C; readonly code: C; readonly params: RungChangeParams[C] };
}[ChangeId];

export interface Rung {
  readonly change: RungChange;
  readonly scenario: Scenario;
  readonly estimate: Estimate;
  /** Device bytes saved against the scenario before this rung (for alternatives: before the winning rung). */
  readonly savedBytes: number;
  /** Time per training token against the starting scenario (1 = unchanged, 1.3 = 30 % slower). */
  readonly relativeStepTime: number;
  readonly risk: Risk;
  readonly fits: boolean;
}

export interface PlanTarget extends MemoryTarget {
  /** GPUs the plan may shard across (the scenario's parallelism.gpus). */
  readonly gpus: number;
  /** Per-GPU device peak of the scenario as given. */
  readonly startPeakBytes: number;
  /** Its upper bound (Estimate.upper.deviceBytes): the top of the range the verdict judges. */
  readonly startUpperBytes: number;
  /** usableBytes − what the GPU holds as given (negative when it does not fit at all; see Fit). */
  readonly headroomBytes: number;
  /** budgetBytes − what the scenario as given must keep on the GPU at its upper bound (see Fit). */
  readonly beyondMarginBytes: number;
  /** Paged optimizer states of the scenario as given that wait in host RAM (see Fit). */
  readonly pagedToHostBytes: number;
}

export interface Plan {
  readonly scenario: Scenario;
  readonly target: PlanTarget;
  readonly fitsAlready: boolean;
  /**
   * The rungs applied, in ladder order; the last one fits when any does, and then each one is needed:
   * without it (and the rungs that only apply on top of it) the ladder does not fit, or fits only
   * slower or with shorter sequences.
   */
  readonly rungs: readonly Rung[];
  /**
   * The next best ways to fit: other rungs applied instead of the winning one, fastest first; or, when
   * nothing on the ladder fits, the hardware that runs the scenario (its rungs without risk applied).
   */
  readonly alternatives: readonly Rung[];
  /**
   * Rungs the climb applied that a later rung made pointless (an 8-bit optimizer once LoRA trains only
   * the adapters), in the order climbed; empty unless a rung fits.
   */
  readonly dropped: readonly DroppedRung[];
}

export interface PlanInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly exactParams?: number | null;
  readonly gpu: GpuSpec;
  readonly marginFraction?: number;
  /** Allow the shorter-sequence rung (it truncates samples). */
  readonly allowShorter?: boolean;
  /** GPUs searched for the hardware alternatives when nothing fits (default: the whole catalog). */
  readonly catalog?: readonly GpuSpec[];
  /**
   * A measured run's factors (calibrate.ts): every rung is predicted from the measured baseline. The
   * hardware alternatives (when nothing fits) stay the estimator's. Absent or null: the estimator alone.
   */
  readonly calibration?: Calibration | null;
}

/** A climbed rung the ladder shown does without. */
export interface DroppedRung {
  /** The rung as the climb applied it: its savedBytes is what it saved then, on the rungs climbed before it. */
  readonly rung: Rung;
  /** The scenario the climb applied it to (rung.change has the figures as climbed: "micro-batch 4 → 1"). */
  readonly from: Scenario;
  /**
   * Device bytes it would still save applied on top of the ladder shown (0 where it saves nothing
   * there or no longer applies: selective checkpointing on top of full).
   */
  readonly savingBytes: number;
  /**
   * The rung of the ladder shown, climbed after this one, that took more than half of its saving (LoRA,
   * for an 8-bit optimizer); null when none did (it still saves about what it did, and the ladder fits
   * without it anyway).
   */
  readonly after: RungId | null;
}

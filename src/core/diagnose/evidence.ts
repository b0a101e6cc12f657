/**
 * What a finding rests on, as data: each evidence line is a label (a code) and a value (a code with raw
 * figures: bytes, counts, steps, the phase reading), plus the log text it was read from. The words of
 * both are src/words/evidence.ts's, in the language asked for.
 */
import type { MessageOf, NoParams } from '../message.js';
import type { OomFamily, OomPhase, PhaseBasis, PhaseReason } from '../oom/index.js';

/** The labels of evidence lines, in no particular order. */
export const EVIDENCE_LABELS = [
  'message',
  'requested',
  'card-total',
  'card-free',
  'card-used',
  'torch-allocated',
  'reserved-unallocated',
  'reserved-total',
  'this-process',
  'process',
  'processes-total',
  'unaccounted',
  'allowed',
  'cuda-context',
  'free-plus-cache',
  'log',
  'phase',
  'estimate-peak',
  'estimate-part',
  'estimate-error',
  'kept-inputs',
  'rank',
  'allocated',
  'peak-allocated',
  'reserved',
  'growth-per-step',
  'rising-steps',
  'projected-full',
  'inactive-split',
  'retries',
  'rank-peak',
  'first-step-allocated',
  'peak-phase',
  'step-correlation',
  'outside-torch',
  'smi-used',
  'this-run',
] as const;

export type EvidenceLabel = (typeof EVIDENCE_LABELS)[number];

/** The part of memory a phase points at. */
export type MemoryPart = 'weights' | 'activations' | 'optimizer';

/** The figures of each kind of evidence value. */
export interface EvidenceValueParams {
  /** A size: "22.00 MiB". */
  readonly bytes: { readonly bytes: number };
  /** A whole number as it was read (a rank, a step): "3". */
  readonly count: { readonly n: number };
  /** The message family the text was read as. */
  readonly family: { readonly family: OomFamily };
  /** A process and what it holds; `name` when nvidia-smi gave one. */
  readonly process: { readonly pid: number; readonly name: string | null; readonly bytes: number };
  readonly 'share-of-card': { readonly bytes: number; readonly cardBytes: number };
  readonly 'share-of-reserved': { readonly bytes: number; readonly reservedBytes: number };
  /** "22.90 GiB of 23.65 GiB (97 %)". */
  readonly 'part-of-whole': { readonly partBytes: number; readonly wholeBytes: number };
  /** Memory no listed process accounts for: the median over `samples` nvidia-smi samples. */
  readonly 'unaccounted-samples': {
    readonly bytes: number;
    readonly cardBytes: number;
    readonly samples: number;
  };
  /** PyTorch ≤ 1.4's "cached" figure. */
  readonly 'cached-legacy': { readonly bytes: number };
  readonly 'reserved-minus-allocated': {
    readonly cacheBytes: number;
    readonly reservedBytes: number;
    readonly allocatedBytes: number;
  };
  /** Free plus cached against the request: "514 MiB + 737 MiB = 1.22 GiB ≥ 546 MiB". */
  readonly 'free-plus-cache': {
    readonly freeBytes: number;
    readonly cacheBytes: number;
    readonly requestedBytes: number;
  };
  /** A line of the log, counted from 1. */
  readonly 'log-line': { readonly line: number };
  /** The phase as read, with how and why. */
  readonly phase: {
    readonly phase: OomPhase;
    readonly basis: PhaseBasis;
    readonly reason: PhaseReason | null;
  };
  /** A phase by name alone. */
  readonly 'phase-name': { readonly phase: OomPhase };
  readonly 'more-than-exabyte': NoParams;
  /** A part of the estimate: "weights 14.96 GiB". */
  readonly part: { readonly part: MemoryPart; readonly bytes: number };
  /** A part of the estimate at the peak: "activations 6.10 GiB (38 % of the peak)". */
  readonly 'part-of-peak': { readonly part: MemoryPart; readonly bytes: number; readonly peakBytes: number };
  /** The estimate against the card: "31.95 GiB / 23.65 GiB, 8.30 GiB short". */
  readonly 'estimate-on-card': { readonly estimateBytes: number; readonly cardBytes: number };
  /**
   * The estimate against a recorded run's peak, error = (estimate − measured) / measured read as a side
   * and a percent (src/core/estimate-error.ts readEstimateError).
   */
  readonly 'estimate-against-run': {
    readonly side: 'under' | 'over' | 'match';
    readonly percent: number;
    readonly estimatedBytes: number;
    readonly measuredBytes: number;
  };
  /** A figure from one step to another: "6.00 GiB at step 4 → 9.00 GiB at step 30". */
  readonly 'step-range': {
    readonly fromBytes: number;
    readonly fromStep: number;
    readonly toBytes: number;
    readonly toStep: number;
  };
  /** A figure from the first step to the last: "6.00 GiB → 6.02 GiB". */
  readonly 'bytes-range': { readonly fromBytes: number; readonly toBytes: number };
  /** num_alloc_retries from one step to another, on a rank's device. */
  readonly 'retries-range': {
    readonly fromCount: number;
    readonly fromStep: number;
    readonly toCount: number;
    readonly toStep: number;
    readonly rank: number;
    readonly device: number;
  };
  /** A rank's peak, and how far it is above the others' median (on the worst rank only). */
  readonly 'rank-peak': { readonly rank: number; readonly bytes: number; readonly aboveBytes: number | null };
  /** One rank's figure against the others' median (at `step`, when it is one step's). */
  readonly 'rank-vs-others': {
    readonly rank: number;
    readonly step: number | null;
    readonly bytes: number;
    readonly othersBytes: number;
  };
  /** A rank's peak and the phase (as the probe named it) and step it fell in. */
  readonly 'rank-phase': {
    readonly rank: number;
    readonly phase: string;
    readonly bytes: number;
    readonly step: number | null;
  };
  /** Pearson's r of a rank's per-step peaks against the other ranks' mean, over `steps` shared steps. */
  readonly 'rank-correlation': { readonly rank: number; readonly r: number; readonly steps: number };
  /** "12 of 16" steps. */
  readonly 'steps-of': { readonly rising: number; readonly total: number };
}

export type EvidenceValue = MessageOf<EvidenceValueParams>;

/** One number or line a finding rests on. */
export interface Evidence {
  readonly label: EvidenceLabel;
  readonly value: EvidenceValue;
  /** The log text it was read from, verbatim (whitespace collapsed). */
  readonly quote?: string;
}

/**
 * A finding is data: what was checked (`code`), how bad it is, its raw figures (`params`), the numbers it
 * read (quoted where they came from a log), and — when a scenario is known — the estimator's figure for
 * each change. The terminal, `--json` and the dashboard render the same objects; their words come from
 * src/words (findings.ts, finding-actions.ts, evidence.ts, remedies.ts), in the language asked for.
 */
import type { NoParams } from '../message.js';
import type { Evidence } from './evidence.js';
import type { RemedyChange } from './remedy-codes.js';

export type Severity = 'error' | 'warn' | 'info';

/** Why one rank holds more than the others, as the evidence supports it (src/core/diagnose/rank-rules.ts). */
export const RANK_IMBALANCE_REASONS = [
  'uneven-shards',
  'eval-on-rank',
  'length-split',
  'extra-contexts',
] as const;
export type RankImbalanceReason = (typeof RANK_IMBALANCE_REASONS)[number];

/** The troubleshooting order people should follow (issue 5): environment, then configuration, then code. */
export type FindingGroup = 'environment' | 'configuration' | 'code';

/** Every finding code, in the fixed order findings are listed. */
export const FINDING_ORDER = [
  // 1. environment
  'no-oom-message',
  'not-an-oom',
  'other-processes',
  'own-process-in-container',
  'leftover-process',
  'memory-outside-process',
  'free-exceeds-request',
  'numberless-oom',
  'framework-preallocation',
  'request-exceeds-card',
  'allocated-exceeds-card',
  'host-memory',
  'second-model-copy',
  'old-bitsandbytes',
  // 2. configuration: the phase and the part it points at
  'weights-at-load',
  'activations',
  'optimizer-states',
  'rank-imbalance',
  'evaluation-memory',
  'checkpoint-save',
  'mid-run',
  'phase-unknown',
  // 3. code, then the two non-problems
  'leak',
  'eval-growth',
  'fragmentation',
  'stable-full',
  'alloc-retries',
] as const;

export type FindingCode = (typeof FINDING_ORDER)[number];

/** The group of each code. */
export const FINDING_GROUP: Readonly<Record<FindingCode, FindingGroup>> = {
  'no-oom-message': 'environment',
  'not-an-oom': 'environment',
  'other-processes': 'environment',
  'own-process-in-container': 'environment',
  'leftover-process': 'environment',
  'memory-outside-process': 'environment',
  'free-exceeds-request': 'environment',
  'numberless-oom': 'environment',
  'framework-preallocation': 'environment',
  'request-exceeds-card': 'environment',
  'allocated-exceeds-card': 'environment',
  'host-memory': 'environment',
  'second-model-copy': 'environment',
  'old-bitsandbytes': 'environment',
  'weights-at-load': 'configuration',
  activations: 'configuration',
  'optimizer-states': 'configuration',
  'rank-imbalance': 'configuration',
  'evaluation-memory': 'configuration',
  'checkpoint-save': 'configuration',
  'mid-run': 'configuration',
  'phase-unknown': 'configuration',
  leak: 'code',
  'eval-growth': 'code',
  fragmentation: 'code',
  'stable-full': 'code',
  'alloc-retries': 'code',
};

/** The raw figures each finding's words take (bytes, counts, ids as read, small enums). */
export interface FindingParams {
  readonly 'no-oom-message': NoParams;
  readonly 'not-an-oom': {
    /** The error the text names instead, as the log wrote it. */
    readonly error: string;
    readonly kind: 'bitsandbytes' | 'cuda' | 'resource' | 'signal' | 'other';
  };
  /** `gpus`: the card indexes they were seen on; empty when the message does not say. */
  readonly 'other-processes': {
    readonly count: number;
    readonly bytes: number;
    readonly gpus: readonly number[];
  };
  readonly 'own-process-in-container': { readonly pid: number; readonly bytes: number };
  readonly 'leftover-process': NoParams;
  readonly 'memory-outside-process': { readonly bytes: number };
  readonly 'free-exceeds-request': { readonly freeBytes: number; readonly requestedBytes: number };
  readonly 'numberless-oom': { readonly family: 'cuda-runtime' | 'nccl' | 'bitsandbytes' };
  readonly 'framework-preallocation': { readonly framework: 'xla' | 'tensorflow' };
  /** `unbounded`: a size of more than 1 EB (then the request is null: it is no figure). */
  readonly 'request-exceeds-card': {
    readonly requestedBytes: number | null;
    readonly totalBytes: number | null;
    readonly unbounded: boolean;
  };
  readonly 'allocated-exceeds-card': { readonly allocatedBytes: number; readonly totalBytes: number };
  readonly 'host-memory': { readonly kind: 'dataloader' | 'shared-memory' | 'loading' | 'kill' };
  readonly 'second-model-copy': NoParams;
  /** The installed bitsandbytes, as the probe recorded it; null when only the scenario says it is old. */
  readonly 'old-bitsandbytes': { readonly version: string | null };
  readonly 'weights-at-load': NoParams;
  readonly activations: { readonly phase: 'forward' | 'backward' };
  readonly 'optimizer-states': NoParams;
  /**
   * `rank`: the rank that holds more (null when only the message says so, without a rank);
   * `aboveBytes` its peak reserved above the others' median (for `extra-contexts` without a reserved
   * imbalance: nvidia-smi minus reserved above theirs); `contexts` the other ranks' CUDA contexts its
   * card holds, in whole contexts, when that is the reading.
   */
  readonly 'rank-imbalance': {
    readonly rank: number | null;
    readonly reason: RankImbalanceReason | null;
    readonly aboveBytes: number | null;
    readonly contexts: number | null;
  };
  readonly 'evaluation-memory': NoParams;
  readonly 'checkpoint-save': NoParams;
  readonly 'mid-run': NoParams;
  readonly 'phase-unknown': NoParams;
  /** Where it grows: the rank and its device. */
  readonly leak: { readonly rank: number; readonly device: number };
  readonly 'eval-growth': NoParams;
  /** `cachedBytes`: the message's cached-but-unusable memory; null when read from a timeline. */
  readonly fragmentation: { readonly cachedBytes: number | null; readonly legacy: boolean };
  readonly 'stable-full': NoParams;
  readonly 'alloc-retries': { readonly count: number };
}

/** One change, with the estimator's figure for it. */
export interface Remedy {
  /** The changes it makes, in the order they are applied (one, or a combination that fits). */
  readonly changes: readonly RemedyChange[];
  /** The scenario flags that make the change (`headroom estimate … --gradient-checkpointing full`). */
  readonly flags: string;
  /** Device-level bytes the change saves, per GPU (estimate before − after). */
  readonly savedBytes: number;
  /** Whether the estimate after the change fits the card; null when the card's size is unknown. */
  readonly fitsAfter: boolean | null;
  /** Card capacity − estimate after the change; null when the card's size is unknown. */
  readonly headroomAfterBytes: number | null;
}

/** One finding of one code: what it is, how bad, its figures, what it rests on, what to change. */
export interface FindingOf<C extends FindingCode> {
  readonly code: C;
  readonly severity: Severity;
  readonly group: FindingGroup;
  readonly params: FindingParams[C];
  readonly evidence: readonly Evidence[];
  readonly remedies?: readonly Remedy[];
}

/** A finding of any code (a union on `code`, so `params` follows it). */
export type Finding = { readonly [C in FindingCode]: FindingOf<C> }[FindingCode];

/** Findings in the fixed order of FINDING_ORDER. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const rank = (code: FindingCode) => FINDING_ORDER.indexOf(code);
  return [...findings].sort((a, b) => rank(a.code) - rank(b.code));
}

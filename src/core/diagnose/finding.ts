/**
 * A finding is data: what was checked, how bad it is, the numbers it read (quoted where they came from a
 * log), what to do, and — when a scenario is known — the estimator's figure for each change. The
 * terminal, `--json` and the dashboard render the same objects; their words come from messages.ts.
 */

export type Severity = 'error' | 'warn' | 'info';

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

/** One number or line a finding rests on. */
export interface Evidence {
  readonly label: string;
  /** The figure, formatted ("22.00 MiB", "96 %", "pid 441650"). */
  readonly value: string;
  /** The log text it was read from, verbatim (whitespace collapsed). */
  readonly quote?: string;
}

/** One change, with the estimator's figure for it. */
export interface Remedy {
  readonly change: string;
  /** The scenario flags that make the change (`headroom estimate … --gradient-checkpointing full`). */
  readonly flags: string;
  /** Device-level bytes the change saves, per GPU (estimate before − after). */
  readonly savedBytes: number;
  /** Whether the estimate after the change fits the card; null when the card's size is unknown. */
  readonly fitsAfter: boolean | null;
  /** Card capacity − estimate after the change; null when the card's size is unknown. */
  readonly headroomAfterBytes: number | null;
}

export interface Finding {
  readonly code: FindingCode;
  readonly severity: Severity;
  readonly group: FindingGroup;
  readonly title: string;
  readonly evidence: readonly Evidence[];
  readonly action: string;
  readonly remedies?: readonly Remedy[];
}

/** Findings in the fixed order of FINDING_ORDER. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const rank = (code: FindingCode) => FINDING_ORDER.indexOf(code);
  return [...findings].sort((a, b) => rank(a.code) - rank(b.code));
}

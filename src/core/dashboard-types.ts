/**
 * The shapes the dashboard API serves (src/server/runs-api.ts) and the dashboard reads (web/src/api.ts).
 * Times are seconds since the run started; memory in bytes.
 */
import type { Estimate } from './estimate.js';
import type { PerRankSteps } from './ranks.js';
import type { PeakChange } from './run-diff.js';
import type { RankRecord, RunSnapshot, RunStatus } from './run-record.js';

export interface RunSummary {
  readonly id: number;
  readonly name: string;
  readonly status: RunStatus;
  readonly exitCode: number | null;
  readonly model: string | null;
  readonly method: string | null;
  readonly microBatchSize: number | null;
  readonly seqLen: number | null;
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly peakDeviceBytes: number | null;
  readonly steps: number;
  readonly startedAt: string;
  readonly durationMs: number | null;
  readonly demo?: boolean;
}

export interface StepPoint {
  readonly step: number;
  /** Seconds since the run started. */
  readonly t: number;
  readonly loss: number | null;
  readonly allocatedBytes: number | null;
  readonly reservedBytes: number | null;
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly phase: string | null;
}

export interface SamplePoint {
  readonly t: number;
  readonly usedBytes: number;
  readonly totalBytes: number;
}

export interface FindingView {
  readonly code: string;
  readonly severity: 'error' | 'warn' | 'info';
  readonly title: string;
  readonly evidence: readonly { readonly label: string; readonly value: string }[];
  readonly action: string;
}

export interface RunDetail {
  readonly run: RunSummary & { readonly command: string; readonly scenario: Record<string, unknown> | null };
  /** The points the chart draws: every peak kept, a few thousand at most (src/core/downsample.ts). */
  readonly steps: readonly StepPoint[];
  readonly samples: readonly SamplePoint[];
  /** How many points the run recorded (more than `steps` / `samples` when those were thinned). */
  readonly recorded?: { readonly steps: number; readonly samples: number };
  readonly phases: readonly { readonly name: string; readonly start: number; readonly end: number }[];
  readonly oom: { readonly t: number; readonly text: string } | null;
  readonly findings: readonly FindingView[];
  readonly estimate: Estimate | null;
  /** The allocator snapshots the probe wrote, each opened by the snapshot page (`#/snapshot?run=ID&rank=N`). */
  readonly snapshots: readonly Pick<RunSnapshot, 'rank' | 'reason' | 'bytes' | 'step'>[];
  /** The run's ranks as recorded, the rank whose peak is the run's, and each step's peak per rank. */
  readonly ranks: readonly RankRecord[];
  readonly peakRank: number | null;
  readonly rankSteps: PerRankSteps;
}

export interface RunDiff {
  readonly a: RunSummary;
  readonly b: RunSummary;
  readonly changes: readonly { readonly field: string; readonly a: unknown; readonly b: unknown }[];
  readonly oneVariableWarning: boolean;
  /** The warning's words when more than one variable (or none) changed. */
  readonly warning: string | null;
  readonly peaks: readonly PeakChange[];
}

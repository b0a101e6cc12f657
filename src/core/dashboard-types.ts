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

/**
 * Step points as columns, one array per series with a value per point (the run page's chart payload:
 * no object per point). `allocatedBytes` and `reservedBytes` are what the chart draws for the step:
 * its peak within the step, else the end-of-step figure when the probe gave no peak.
 */
export interface StepColumns {
  readonly step: readonly number[];
  /** Seconds since the run started, ascending. */
  readonly t: readonly number[];
  readonly phase: readonly (string | null)[];
  readonly loss: readonly (number | null)[];
  readonly allocatedBytes: readonly (number | null)[];
  readonly reservedBytes: readonly (number | null)[];
}

/** nvidia-smi used memory as columns (the run's busiest GPU at each sample). */
export interface SampleColumns {
  readonly t: readonly number[];
  readonly usedBytes: readonly number[];
}

/** Row marks of the ledger: the last step and sample rows read, where the live stream picks up. */
export interface RowMarks {
  readonly steps: number;
  readonly samples: number;
}

/**
 * What the run page paints first (GET /api/runs/:id/chart): the run, its chart as columns with every
 * peak kept, its phases, OOM and estimate. The diagnosis follows (RunExtras).
 */
export interface RunChart {
  readonly run: RunDetail['run'];
  readonly steps: StepColumns;
  readonly samples: SampleColumns;
  /** The card's memory.total as nvidia-smi gave it (the per-step bars' red line); null without samples. */
  readonly capacityBytes: number | null;
  /** Points the run recorded (more than the columns hold when those were thinned). */
  readonly recorded: { readonly steps: number; readonly samples: number };
  readonly phases: RunDetail['phases'];
  readonly oom: RunDetail['oom'];
  readonly snapshots: RunDetail['snapshots'];
  /** The estimate of the run's scenario, set against its measured peaks. */
  readonly estimate: Estimate | null;
  /** The rows this chart was read up to (GET /api/runs/:id/stream?after=steps,samples goes on from here). */
  readonly after: RowMarks;
}

/** The detail of a zoomed window (GET /api/runs/:id/window?from&to): every point in it, peaks kept. */
export interface RunWindow {
  readonly from: number;
  readonly to: number;
  readonly steps: StepColumns;
  readonly samples: SampleColumns;
  /** Points recorded inside the window. */
  readonly recorded: { readonly steps: number; readonly samples: number };
}

/** What the run page shows once the chart is up (GET /api/runs/:id/extras?lang): diagnosis and ranks. */
export type RunExtras = Pick<RunDetail, 'findings' | 'ranks' | 'peakRank' | 'rankSteps'> & {
  /** The run's name in that language (the demo run's name is words; a recorded run's is its own). */
  readonly name: string;
};

/** A live run's new rows (the stream's `update` event): only what was written since the last one. */
export interface RunUpdate {
  /** True when the columns hold the run from its start (the stream was opened without `after`). */
  readonly replace: boolean;
  readonly run: RunDetail['run'];
  readonly steps: StepColumns;
  readonly samples: SampleColumns;
  readonly after: RowMarks;
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

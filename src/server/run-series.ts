/**
 * A run's series as the run page reads them: the ledger's rows read once as columns (Ledger.columns, no
 * object per row), one point per step and per nvidia-smi time, thinned for the chart with every peak kept
 * (src/core/downsample.ts), cut to a zoomed window in detail, and the diagnosis's timeline from the same
 * read. A run's rows are only ever added, so what was read holds while its row marks (how many rows,
 * the last rowid) and its status stay the same: a small cache keeps the last few runs opened.
 */

import { pickSamples, pickSteps } from '../core/chart-columns.js';
import type {
  RowMarks,
  SampleColumns,
  SamplePoint,
  StepColumns,
  StepPoint,
} from '../core/dashboard-types.js';
import { type TimelineColumns, TimelineWriter, timelineStepOf } from '../core/diagnose/index.js';
import { DEFAULT_MAX_POINTS, peakIndices } from '../core/downsample.js';
import type { PerRankSteps } from '../core/ranks.js';
import type { RunRecord } from '../core/run-record.js';
import type { Ledger } from '../io/ledger.js';

/** The step fields the page and the diagnosis read (nothing else of a step row is read). */
const STEP_FIELDS = [
  'tMs',
  'step',
  'phase',
  'rank',
  'device',
  'loss',
  'allocatedBytes',
  'reservedBytes',
  'peakAllocatedBytes',
  'peakReservedBytes',
  'inactiveSplitBytes',
  'numAllocRetries',
] as const;

const SAMPLE_FIELDS = ['tMs', 'usedBytes', 'totalBytes'] as const;

type Col<T> = readonly T[];

/** A run's series at full resolution: one point per step (its highest device and rank), one per sample time. */
export interface RunSeries {
  readonly steps: StepColumns;
  readonly samples: SampleColumns;
  /** memory.total of the first sample (nvidia-smi), or null. */
  readonly capacityBytes: number | null;
  /** The rows read: where a live view picks up. */
  readonly after: RowMarks;
  /** The rank of each step row read. */
  readonly ranks: readonly number[];
  /** The step rows as the diagnosis's timeline reads them (rows without device figures left out). */
  readonly timeline: () => TimelineColumns;
  /** Each step's peak per rank (src/core/ranks.ts). */
  readonly rankSteps: () => PerRankSteps;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : (v as number));

/** The chart's step columns: at most about maxPoints, the highest and lowest of each series per bucket kept. */
export function thinSteps(s: StepColumns, maxPoints = DEFAULT_MAX_POINTS): StepColumns {
  if (s.t.length <= maxPoints) return s;
  return pickSteps(s, peakIndices(s.t.length, [s.allocatedBytes, s.reservedBytes, s.loss], maxPoints));
}

export function thinSamples(s: SampleColumns, maxPoints = DEFAULT_MAX_POINTS): SampleColumns {
  if (s.t.length <= maxPoints) return s;
  return pickSamples(s, peakIndices(s.t.length, [s.usedBytes], maxPoints));
}

/** The first index with t ≥ from and the first with t > to, by bisection (t ascending). */
function span(t: Col<number>, from: number, to: number): [number, number] {
  const lower = (x: number, strict: boolean) => {
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (strict ? t[mid]! <= x : t[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [lower(from, false), lower(to, true)];
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);

/** The points between from and to (seconds, inclusive), every one of them, or thinned past maxPoints. */
export function windowOf(series: RunSeries, from: number, to: number, maxPoints = DEFAULT_MAX_POINTS) {
  const [s0, s1] = span(series.steps.t, from, to);
  const [g0, g1] = span(series.samples.t, from, to);
  return {
    steps: thinSteps(pickSteps(series.steps, range(s0, s1)), maxPoints),
    samples: thinSamples(pickSamples(series.samples, range(g0, g1)), maxPoints),
    recorded: { steps: s1 - s0, samples: g1 - g0 },
  };
}

/** Index order of `t` ascending (stable); null when it is ascending already (the usual case). */
function timeOrder(t: Col<number>): number[] | null {
  for (let i = 1; i < t.length; i++) {
    if (t[i]! < t[i - 1]!) return range(0, t.length).sort((a, b) => t[a]! - t[b]! || a - b);
  }
  return null;
}

/** One point per step from step columns (StepPoint's rule: the highest device of the highest rank). */
function stepColumnsOf(
  values: Record<(typeof STEP_FIELDS)[number], unknown[]>,
  startMs: number,
): StepColumns {
  const n = values.step.length;
  const keep = new Map<number | string, number>();
  const peakOf = (i: number) => num(values.peakAllocatedBytes[i]) ?? num(values.allocatedBytes[i]) ?? 0;
  for (let i = 0; i < n; i++) {
    const phase = values.phase[i] as string;
    const key = phase === 'train' ? (values.step[i] as number) : `${phase}:${values.step[i]}`;
    const prev = keep.get(key);
    // The first row of a step keeps its place; a higher one on another device or rank replaces it.
    if (prev === undefined || peakOf(i) > peakOf(prev)) keep.set(key, i);
  }
  const rows = [...keep.values()];
  const t = rows.map((i) => ((values.tMs[i] as number) - startMs) / 1000);
  const order = timeOrder(t);
  const at = order ? order.map((k) => rows[k]!) : rows;
  return {
    step: at.map((i) => values.step[i] as number),
    t: order ? order.map((k) => t[k]!) : t,
    phase: at.map((i) => (values.phase[i] as string | null) ?? null),
    loss: at.map((i) => num(values.loss[i])),
    allocatedBytes: at.map((i) => num(values.peakAllocatedBytes[i]) ?? num(values.allocatedBytes[i])),
    reservedBytes: at.map((i) => num(values.peakReservedBytes[i]) ?? num(values.reservedBytes[i])),
  };
}

/** One point per sample time from sample columns (samplePoints' rule: the busiest GPU). */
function sampleColumnsOf(values: Record<(typeof SAMPLE_FIELDS)[number], unknown[]>, startMs: number) {
  const byTime = new Map<number, number>();
  const n = values.tMs.length;
  for (let i = 0; i < n; i++) {
    const tMs = values.tMs[i] as number;
    const prev = byTime.get(tMs);
    if (prev === undefined || (num(values.usedBytes[i]) ?? 0) > (num(values.usedBytes[prev]) ?? 0))
      byTime.set(tMs, i);
  }
  const rows = [...byTime.values()];
  const t = rows.map((i) => ((values.tMs[i] as number) - startMs) / 1000);
  const order = timeOrder(t);
  const at = order ? order.map((k) => rows[k]!) : rows;
  return {
    samples: {
      t: order ? order.map((k) => t[k]!) : t,
      usedBytes: at.map((i) => num(values.usedBytes[i]) ?? 0),
    },
    capacityBytes: at.length > 0 ? (num(values.totalBytes[at[0]!]) ?? 0) : null,
  };
}

/** Reads a run's series from the ledger: its step and sample rows after `after`, in one pass each. */
export function readRunSeries(ledger: Ledger, run: RunRecord, after: RowMarks = { steps: 0, samples: 0 }) {
  const stepRows = ledger.columns('steps', run.id, STEP_FIELDS, after.steps);
  const sampleRows = ledger.columns('gpuSamples', run.id, SAMPLE_FIELDS, after.samples);
  const v = stepRows.values;
  const { samples, capacityBytes } = sampleColumnsOf(sampleRows.values, run.startedAtMs);
  const series: RunSeries = {
    steps: stepColumnsOf(v, run.startedAtMs),
    samples,
    capacityBytes,
    after: { steps: stepRows.last, samples: sampleRows.last },
    ranks: v.rank as number[],
    timeline: () => {
      const out = new TimelineWriter(stepRows.rows);
      for (let i = 0; i < stepRows.rows; i++) {
        const step = timelineStepOf({
          step: v.step[i] as number,
          phase: v.phase[i] as string,
          device: num(v.device[i]),
          rank: v.rank[i] as number,
          allocatedBytes: num(v.allocatedBytes[i]),
          reservedBytes: num(v.reservedBytes[i]),
          peakAllocatedBytes: num(v.peakAllocatedBytes[i]),
          peakReservedBytes: num(v.peakReservedBytes[i]),
          inactiveSplitBytes: num(v.inactiveSplitBytes[i]),
          numAllocRetries: num(v.numAllocRetries[i]),
        });
        if (step) out.push(step);
      }
      return out.done();
    },
    rankSteps: () => rankStepsOf(v),
  };
  return series;
}

/**
 * Each step's peak per rank from step columns: perRankStepPeaks (src/core/ranks.ts) without a record
 * and two maps per step — one slot per step, one array per rank (runs-api.test.ts holds the two equal).
 */
export function rankStepsOf(
  v: Record<'step' | 'phase' | 'rank' | 'peakAllocatedBytes' | 'peakReservedBytes', unknown[]>,
): PerRankSteps {
  const n = v.step.length;
  const ranks = [...new Set(v.rank as number[])].sort((a, b) => a - b);
  const column = new Map(ranks.map((r, i) => [r, i]));
  const slotOf = new Map<number, number>();
  const steps: number[] = [];
  const phases: string[] = [];
  const allocated: (number | null)[][] = ranks.map(() => []);
  const reserved: (number | null)[][] = ranks.map(() => []);
  const raise = (col: (number | null)[], slot: number, bytes: number | null) => {
    if (bytes === null) return;
    const was = col[slot] ?? null;
    col[slot] = was === null ? Math.max(0, bytes) : Math.max(was, bytes);
  };
  for (let i = 0; i < n; i++) {
    const step = v.step[i] as number;
    let slot = slotOf.get(step);
    if (slot === undefined) {
      slot = steps.length;
      slotOf.set(step, slot);
      steps.push(step);
      phases.push(v.phase[i] as string);
      for (let r = 0; r < ranks.length; r++) {
        allocated[r]!.push(null);
        reserved[r]!.push(null);
      }
    }
    const r = column.get(v.rank[i] as number)!;
    raise(allocated[r]!, slot, num(v.peakAllocatedBytes[i]));
    raise(reserved[r]!, slot, num(v.peakReservedBytes[i]));
  }
  let order = range(0, steps.length);
  if (steps.some((s, i) => i > 0 && s < steps[i - 1]!)) order = order.sort((a, b) => steps[a]! - steps[b]!);
  return {
    ranks,
    steps: order.map((slot) => ({
      step: steps[slot]!,
      phase: phases[slot]!,
      allocatedBytes: ranks.map((_, r) => allocated[r]![slot]!),
      reservedBytes: ranks.map((_, r) => reserved[r]![slot]!),
    })),
  };
}

/** Step points (the RunDetail shape) as columns. */
export function stepColumnsFromPoints(points: readonly StepPoint[]): StepColumns {
  return {
    step: points.map((p) => p.step),
    t: points.map((p) => p.t),
    phase: points.map((p) => p.phase),
    loss: points.map((p) => p.loss),
    allocatedBytes: points.map((p) => p.peakAllocatedBytes ?? p.allocatedBytes),
    reservedBytes: points.map((p) => p.peakReservedBytes ?? p.reservedBytes),
  };
}

export function sampleColumnsFromPoints(points: readonly SamplePoint[]): SampleColumns {
  return { t: points.map((p) => p.t), usedBytes: points.map((p) => p.usedBytes) };
}

/** What a cached series was read against: it holds while these are the same. */
function markOf(ledger: Ledger, run: RunRecord): string {
  const s = ledger.rowMark('steps', run.id);
  const g = ledger.rowMark('gpuSamples', run.id);
  return `${run.status}:${run.endedAtMs}:${s.rows}:${s.last}:${g.rows}:${g.last}`;
}

/** A cached run: its series and what was worked out from them (the diagnosis per language, …). */
export interface CachedRun {
  readonly series: RunSeries;
  /** Anything derived from the series, by name (it is dropped with them when new rows arrive). */
  readonly derived: Map<string, unknown>;
}

/**
 * The last few runs' series. A page load of a finished run reads its rows once; the chart, a zoomed
 * window and the diagnosis are then worked out from what was read, until a row is added.
 */
export class RunSeriesCache {
  private readonly runs = new Map<number, { mark: string; entry: CachedRun }>();

  constructor(private readonly size = 4) {}

  get(ledger: Ledger, run: RunRecord): CachedRun {
    const mark = markOf(ledger, run);
    const hit = this.runs.get(run.id);
    if (hit && hit.mark === mark) {
      // Most recently used last.
      this.runs.delete(run.id);
      this.runs.set(run.id, hit);
      return hit.entry;
    }
    const entry: CachedRun = { series: readRunSeries(ledger, run), derived: new Map() };
    this.runs.delete(run.id);
    this.runs.set(run.id, { mark, entry });
    while (this.runs.size > this.size) this.runs.delete(this.runs.keys().next().value!);
    return entry;
  }

  /** A value derived from a run's series, worked out once per series. */
  static derive<T>(entry: CachedRun, key: string, make: () => T): T {
    if (!entry.derived.has(key)) entry.derived.set(key, make());
    return entry.derived.get(key) as T;
  }
}

/**
 * The run page's chart data: the server's columns (one array per series) merged onto one time axis, a
 * zoomed window's detail set into the overview, a live run's new rows appended. Pure: no DOM, no React.
 */
import { pickSamples, pickSteps } from '../../src/core/chart-columns.js';
import type { SampleColumns, StepColumns } from '../../src/core/dashboard-types.js';

/** The chart's columns on one ascending time axis; null where a series has no point at that time. */
export interface TimeSeries {
  /** Seconds since the start, ascending. */
  readonly t: readonly number[];
  readonly used: readonly (number | null)[];
  readonly reserved: readonly (number | null)[];
  readonly allocated: readonly (number | null)[];
  readonly loss: readonly (number | null)[];
}

/** Steps and samples as the chart reads them. */
export interface ChartColumns {
  readonly steps: StepColumns;
  readonly samples: SampleColumns;
}

/**
 * Merges nvidia-smi samples and step points (each ascending in time) onto one axis, in one pass: a
 * sample comes before a step at the same time.
 */
export function toSeries({ steps, samples }: ChartColumns): TimeSeries {
  const n = steps.t.length + samples.t.length;
  const t = new Array<number>(n);
  const used = new Array<number | null>(n);
  const reserved = new Array<number | null>(n);
  const allocated = new Array<number | null>(n);
  const loss = new Array<number | null>(n);
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    if (j < samples.t.length && (i >= steps.t.length || samples.t[j]! <= steps.t[i]!)) {
      t[k] = samples.t[j]!;
      used[k] = samples.usedBytes[j]!;
      reserved[k] = null;
      allocated[k] = null;
      loss[k] = null;
      j++;
    } else {
      t[k] = steps.t[i]!;
      used[k] = null;
      reserved[k] = steps.reservedBytes[i]!;
      allocated[k] = steps.allocatedBytes[i]!;
      loss[k] = steps.loss[i]!;
      i++;
    }
  }
  return { t, used, reserved, allocated, loss };
}

/** The indices of `t` outside [from, to]. */
function outside(t: readonly number[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.length; i++) if (t[i]! < from || t[i]! > to) out.push(i);
  return out;
}

/** Concatenates step columns (b after a in time). */
export function appendSteps(a: StepColumns, b: StepColumns): StepColumns {
  return {
    step: [...a.step, ...b.step],
    t: [...a.t, ...b.t],
    phase: [...a.phase, ...b.phase],
    loss: [...a.loss, ...b.loss],
    allocatedBytes: [...a.allocatedBytes, ...b.allocatedBytes],
    reservedBytes: [...a.reservedBytes, ...b.reservedBytes],
  };
}

export function appendSamples(a: SampleColumns, b: SampleColumns): SampleColumns {
  return { t: [...a.t, ...b.t], usedBytes: [...a.usedBytes, ...b.usedBytes] };
}

/**
 * The overview with a zoomed window's detail in place of its own points between from and to: the
 * window drawn in full, the rest of the run still there to pan into.
 */
export function withWindow(
  overview: ChartColumns,
  window: ChartColumns & { readonly from: number; readonly to: number },
): ChartColumns {
  const { from, to } = window;
  const stepsOut = outside(overview.steps.t, from, to);
  const samplesOut = outside(overview.samples.t, from, to);
  const before = (t: readonly number[], at: readonly number[]) => at.filter((i) => t[i]! < from);
  const after = (t: readonly number[], at: readonly number[]) => at.filter((i) => t[i]! > to);
  const steps = appendSteps(
    appendSteps(pickSteps(overview.steps, before(overview.steps.t, stepsOut)), window.steps),
    pickSteps(overview.steps, after(overview.steps.t, stepsOut)),
  );
  const samples = appendSamples(
    appendSamples(pickSamples(overview.samples, before(overview.samples.t, samplesOut)), window.samples),
    pickSamples(overview.samples, after(overview.samples.t, samplesOut)),
  );
  return { steps, samples };
}

/**
 * Whether a zoom to [from, to] needs the server's detail: the overview was thinned (the run recorded
 * more points than it holds) and the window is narrower than the whole run.
 */
export function needsDetail(
  overview: ChartColumns,
  recorded: { readonly steps: number; readonly samples: number },
  from: number,
  to: number,
): boolean {
  const thinned = recorded.steps > overview.steps.t.length || recorded.samples > overview.samples.t.length;
  if (!thinned) return false;
  const first = Math.min(overview.steps.t[0] ?? Infinity, overview.samples.t[0] ?? Infinity);
  const last = Math.max(overview.steps.t.at(-1) ?? -Infinity, overview.samples.t.at(-1) ?? -Infinity);
  return from > first || to < last;
}

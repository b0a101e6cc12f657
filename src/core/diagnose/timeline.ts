/**
 * A run's memory step by step, per rank and device: the input of the timeline rules. Phase 2 fills it
 * from the run ledger (the probe records torch.cuda.memory_stats() each step); tests build it in code.
 * Field meanings follow torch.cuda.memory_stats() (data/docs/MONITORING.md §A5).
 *
 * A recorded run's timeline is columns (TimelineColumns: one typed array per field), not an object per
 * step: 2,000,000 steps are about 130 MB so, where as objects they were over a gigabyte with the lists the
 * rules made of them (npm run bench:ledger-rows). The rules read the columns through row indices.
 */

/** What the step was doing. */
export type TimelinePhase = 'train' | 'eval' | 'save' | 'load' | 'other';

/** The phases in the order of their codes in TimelineColumns.phase. */
export const TIMELINE_PHASES: readonly TimelinePhase[] = ['train', 'eval', 'save', 'load', 'other'];
export const TRAIN = 0;
export const EVAL = 1;

export interface TimelineStep {
  readonly step: number;
  readonly phase: TimelinePhase;
  /** memory_allocated() at the end of the step (allocated_bytes.all.current). */
  readonly allocatedBytes: number;
  /** memory_reserved() at the end of the step (reserved_bytes.all.current). */
  readonly reservedBytes: number;
  /** max_memory_allocated() within the step (peak stats reset each step). */
  readonly peakAllocatedBytes: number;
  /** max_memory_reserved() within the step. */
  readonly peakReservedBytes: number;
  /** inactive_split_bytes.all.current: cached, split, not releasable. */
  readonly inactiveSplitBytes: number;
  /** num_alloc_retries since the start of the run (cumulative). */
  readonly numAllocRetries: number;
  readonly rank: number;
  readonly device: number;
}

/** The steps of a timeline as columns, row i of each being one step record (TimelineStep's fields). */
export interface TimelineColumns {
  readonly length: number;
  readonly step: Float64Array;
  /** The phase's index in TIMELINE_PHASES. */
  readonly phase: Uint8Array;
  readonly allocatedBytes: Float64Array;
  readonly reservedBytes: Float64Array;
  readonly peakAllocatedBytes: Float64Array;
  readonly peakReservedBytes: Float64Array;
  readonly inactiveSplitBytes: Float64Array;
  readonly numAllocRetries: Float64Array;
  readonly rank: Int32Array;
  readonly device: Int32Array;
}

export interface Timeline {
  /** The steps: columns (a recorded run's, timelineFromSteps) or records (tests, the demo run). */
  readonly steps: TimelineColumns | readonly TimelineStep[];
  /** The card's memory.total, when known (for projections and "full"). */
  readonly capacityBytes?: number | null;
}

const FLOAT_FIELDS = [
  'step',
  'allocatedBytes',
  'reservedBytes',
  'peakAllocatedBytes',
  'peakReservedBytes',
  'inactiveSplitBytes',
  'numAllocRetries',
] as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function allocate(size: number): Mutable<TimelineColumns> {
  const out = {
    length: 0,
    phase: new Uint8Array(size),
    rank: new Int32Array(size),
    device: new Int32Array(size),
  };
  for (const f of FLOAT_FIELDS) (out as Record<string, unknown>)[f] = new Float64Array(size);
  return out as Mutable<TimelineColumns>;
}

/**
 * Timeline columns written a step at a time: sized for `expected` rows (a run's row count) and grown
 * when more come, cut to the rows written by `done`.
 */
export class TimelineWriter {
  private cols: Mutable<TimelineColumns>;
  private size: number;
  private n = 0;

  constructor(expected = 1024) {
    this.size = Math.max(16, expected);
    this.cols = allocate(this.size);
  }

  push(s: TimelineStep): void {
    this.pushRow(
      s.step,
      TIMELINE_PHASES.indexOf(s.phase),
      s.allocatedBytes,
      s.reservedBytes,
      s.peakAllocatedBytes,
      s.peakReservedBytes,
      s.inactiveSplitBytes,
      s.numAllocRetries,
      s.rank,
      s.device,
    );
  }

  /**
   * One step as its figures, in TimelineStep's order (the phase as its index in TIMELINE_PHASES): what a
   * reader of millions of rows writes without making a record of each.
   */
  pushRow(
    step: number,
    phase: number,
    allocatedBytes: number,
    reservedBytes: number,
    peakAllocatedBytes: number,
    peakReservedBytes: number,
    inactiveSplitBytes: number,
    numAllocRetries: number,
    rank: number,
    device: number,
  ): void {
    if (this.n === this.size) this.grow();
    const c = this.cols;
    const i = this.n++;
    c.step[i] = step;
    c.phase[i] = phase;
    c.allocatedBytes[i] = allocatedBytes;
    c.reservedBytes[i] = reservedBytes;
    c.peakAllocatedBytes[i] = peakAllocatedBytes;
    c.peakReservedBytes[i] = peakReservedBytes;
    c.inactiveSplitBytes[i] = inactiveSplitBytes;
    c.numAllocRetries[i] = numAllocRetries;
    c.rank[i] = rank;
    c.device[i] = device;
  }

  private grow(): void {
    const next = allocate(this.size * 2);
    for (const f of [...FLOAT_FIELDS, 'phase', 'rank', 'device'] as const)
      (next[f] as Float64Array).set(this.cols[f] as Float64Array);
    this.cols = next;
    this.size *= 2;
  }

  done(): TimelineColumns {
    const c = this.cols;
    const n = this.n;
    const cut = <A extends Float64Array | Int32Array | Uint8Array>(a: A) => a.subarray(0, n) as A;
    return {
      length: n,
      step: cut(c.step),
      phase: cut(c.phase),
      allocatedBytes: cut(c.allocatedBytes),
      reservedBytes: cut(c.reservedBytes),
      peakAllocatedBytes: cut(c.peakAllocatedBytes),
      peakReservedBytes: cut(c.peakReservedBytes),
      inactiveSplitBytes: cut(c.inactiveSplitBytes),
      numAllocRetries: cut(c.numAllocRetries),
      rank: cut(c.rank),
      device: cut(c.device),
    };
  }
}

const asColumns = new WeakMap<object, TimelineColumns>();

/** A timeline's steps as columns (records are turned into columns once). */
export function timelineColumns(timeline: Timeline): TimelineColumns {
  const steps = timeline.steps;
  if (!Array.isArray(steps)) return steps as TimelineColumns;
  let cols = asColumns.get(steps);
  if (!cols) {
    const w = new TimelineWriter(steps.length);
    for (const s of steps as readonly TimelineStep[]) w.push(s);
    cols = w.done();
    asColumns.set(steps, cols);
  }
  return cols;
}

/** Row i of the columns as a record. */
export function timelineStepAt(c: TimelineColumns, i: number): TimelineStep {
  return {
    step: c.step[i]!,
    phase: TIMELINE_PHASES[c.phase[i]!]!,
    allocatedBytes: c.allocatedBytes[i]!,
    reservedBytes: c.reservedBytes[i]!,
    peakAllocatedBytes: c.peakAllocatedBytes[i]!,
    peakReservedBytes: c.peakReservedBytes[i]!,
    inactiveSplitBytes: c.inactiveSplitBytes[i]!,
    numAllocRetries: c.numAllocRetries[i]!,
    rank: c.rank[i]!,
    device: c.device[i]!,
  };
}

/** One (rank, device)'s rows: indices into the columns, in step order (rows of one step as written). */
export type Series = Int32Array;

const seriesCache = new WeakMap<TimelineColumns, readonly Series[]>();

/** The rows of each (rank, device), in the order each was first seen, each list sorted by step. */
export function seriesOf(c: TimelineColumns): readonly Series[] {
  const cached = seriesCache.get(c);
  if (cached) return cached;
  const ids = new Int32Array(c.length);
  const idOf = new Map<number, Map<number, number>>();
  const counts: number[] = [];
  for (let i = 0; i < c.length; i++) {
    const byDevice = idOf.get(c.rank[i]!) ?? new Map<number, number>();
    idOf.set(c.rank[i]!, byDevice);
    let id = byDevice.get(c.device[i]!);
    if (id === undefined) {
      id = counts.length;
      byDevice.set(c.device[i]!, id);
      counts.push(0);
    }
    ids[i] = id;
    counts[id]!++;
  }
  const out = counts.map((n) => new Int32Array(n));
  const filled = counts.map(() => 0);
  for (let i = 0; i < c.length; i++) out[ids[i]!]![filled[ids[i]!]!++] = i;
  const sorted = out.map((rows) => {
    let inOrder = true;
    for (let k = 1; k < rows.length && inOrder; k++) inOrder = c.step[rows[k]!]! >= c.step[rows[k - 1]!]!;
    if (inOrder) return rows;
    // By step, rows of one step in the order written (what a stable sort by step gives).
    return Int32Array.from([...rows].sort((a, b) => c.step[a]! - c.step[b]! || a - b));
  });
  seriesCache.set(c, sorted);
  return sorted;
}

/** The rows of `rows` in phase `phase` (an index in TIMELINE_PHASES), in order. */
export function rowsInPhase(c: TimelineColumns, rows: Series, phase: number): Series {
  let n = 0;
  for (let k = 0; k < rows.length; k++) if (c.phase[rows[k]!] === phase) n++;
  const out = new Int32Array(n);
  let j = 0;
  for (let k = 0; k < rows.length; k++) if (c.phase[rows[k]!] === phase) out[j++] = rows[k]!;
  return out;
}

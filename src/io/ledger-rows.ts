/**
 * A run's rows read one at a time, and the figures over them that SQLite sums up itself: what every
 * command reads a long run with. A run of 2,000,000 steps is 2,000,000 step records; as an array of
 * objects that is gigabytes, so nothing here returns one (npm run bench:ledger-rows). Each iterator
 * holds the connection while it runs: finish it (or let a `for … of` loop end) before the next query.
 */
import type Database from 'better-sqlite3';
import type { SamplePoint, StepPoint } from '../core/dashboard-types.js';
import { timelinePhase } from '../core/diagnose/run-timeline.js';
import { type SampleColumns, SampleWriter } from '../core/diagnose/samples.js';
import { TIMELINE_PHASES, type TimelineColumns, TimelineWriter } from '../core/diagnose/timeline.js';
import { DEFAULT_MAX_POINTS, peakKeeper } from '../core/downsample.js';
import { maxOf } from '../core/extremes.js';
import {
  type PerRankSteps,
  type RankStepPeaks,
  type RankStepRow,
  rankStepPeaksByStep,
} from '../core/ranks.js';
import type { GpuSampleRecord, ProcessSampleRecord, RunEvent, StepRecord } from '../core/run-record.js';
import {
  codec,
  EVENTS,
  exportFields,
  GPU_SAMPLES,
  PROCESS_SAMPLES,
  type SqlRow,
  STEPS,
} from './ledger-schema.js';

const stepRecord = codec(STEPS).reader(exportFields(STEPS) as (keyof StepRecord)[]);
const gpuSampleRecord = codec(GPU_SAMPLES).reader(exportFields(GPU_SAMPLES) as (keyof GpuSampleRecord)[]);
const processSampleRecord = codec(PROCESS_SAMPLES).reader(
  exportFields(PROCESS_SAMPLES) as (keyof ProcessSampleRecord)[],
);
const eventRecord = codec(EVENTS).reader(exportFields(EVENTS) as (keyof RunEvent)[]);

type Prepare = (sql: string) => Database.Statement;

/** The tables of a run's rows, as `rowCount` names them. */
export type RowTable = 'steps' | 'gpu_samples' | 'process_samples' | 'events';

/** One nvidia-smi reading of the run's own processes: their memory summed per GPU, the fullest GPU's. */
export interface OwnDeviceSample {
  readonly tMs: number;
  readonly bytes: number;
}

/** A nullable column's value as its reader gives it (ledger-schema.ts: nullable, integer, text). */
const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The rows of a statement, read as `read` says; the query starts at the first row asked for, not before. */
function* mapped<T>(rows: () => IterableIterator<unknown>, read: (row: SqlRow) => T): IterableIterator<T> {
  for (const row of rows()) yield read(row as SqlRow);
}

/** The row readers of one ledger connection (Ledger.rows). */
export class RunRows {
  constructor(private readonly prepare: Prepare) {}

  /**
   * A run's step records one at a time: in the order written, or by step (each step's rows in the order
   * written, what the per-step figures group). The index on (run, step) serves both without a sort.
   */
  steps(runId: number, order: 'written' | 'step' = 'written'): IterableIterator<StepRecord> {
    const by = order === 'step' ? 'step, rowid' : 'rowid';
    const st = this.prepare(`SELECT ${stepRecord.select} FROM steps WHERE run_id = ? ORDER BY ${by}`);
    return mapped(() => st.iterate(runId), stepRecord.read);
  }

  gpuSamples(runId: number): IterableIterator<GpuSampleRecord> {
    const st = this.prepare(
      `SELECT ${gpuSampleRecord.select} FROM gpu_samples WHERE run_id = ? ORDER BY rowid`,
    );
    return mapped(() => st.iterate(runId), gpuSampleRecord.read);
  }

  processSamples(runId: number): IterableIterator<ProcessSampleRecord> {
    const st = this.prepare(
      `SELECT ${processSampleRecord.select} FROM process_samples WHERE run_id = ? ORDER BY rowid`,
    );
    return mapped(() => st.iterate(runId), processSampleRecord.read);
  }

  events(runId: number): IterableIterator<RunEvent> {
    const st = this.prepare(`SELECT ${eventRecord.select} FROM events WHERE run_id = ? ORDER BY id`);
    return mapped(() => st.iterate(runId), eventRecord.read);
  }

  /**
   * A run's step timeline (src/core/diagnose/timeline.ts) as columns, read straight from the rows in the
   * order written: the fields the timeline has and nothing else, no record per row. The same columns as
   * timelineFromSteps(steps(runId)) gives (ledger-rows.test.ts), at a fraction of the memory and time.
   */
  timeline(runId: number): TimelineColumns {
    const out = new TimelineWriter(this.count('steps', runId));
    const st = this.prepare(
      `SELECT step, phase, device, rank, allocated_bytes, reserved_bytes, peak_allocated_bytes,
              peak_reserved_bytes, inactive_split_bytes, num_alloc_retries
         FROM steps WHERE run_id = ? ORDER BY rowid`,
    ).raw(true);
    // The probe's phase names are few: each is mapped once.
    const phases = new Map<string, number>();
    const phaseOf = (raw: unknown): number => {
      const name = String(raw);
      let i = phases.get(name);
      if (i === undefined) {
        i = TIMELINE_PHASES.indexOf(timelinePhase(name));
        phases.set(name, i);
      }
      return i;
    };
    for (const r of st.iterate(runId) as IterableIterator<unknown[]>) {
      const device = numberOrNull(r[2]);
      const allocated = numberOrNull(r[4]);
      const reserved = numberOrNull(r[5]);
      // A step without device figures is not in the timeline (timelineStepOf).
      if (device === null || allocated === null || reserved === null) continue;
      out.pushRow(
        Number(r[0]),
        phaseOf(r[1]),
        allocated,
        reserved,
        numberOrNull(r[6]) ?? allocated,
        numberOrNull(r[7]) ?? reserved,
        numberOrNull(r[8]) ?? 0,
        numberOrNull(r[9]) ?? 0,
        Number(r[3]),
        device,
      );
    }
    return out.done();
  }

  /**
   * A run's nvidia-smi samples as columns (src/core/diagnose/samples.ts), per GPU and per process in the
   * order written: the fields the card rules read, no record per row. The same samples as gpuSamples and
   * processSamples give (ledger-rows.test.ts).
   */
  sampleColumns(runId: number): SampleColumns {
    const out = new SampleWriter({
      gpus: this.count('gpu_samples', runId),
      processes: this.count('process_samples', runId),
    });
    const gpus = this.prepare(
      `SELECT t_ms, gpu, uuid, name, total_bytes, used_bytes, own_bytes
         FROM gpu_samples WHERE run_id = ? ORDER BY rowid`,
    ).raw(true);
    for (const r of gpus.iterate(runId) as IterableIterator<unknown[]>)
      out.gpu(
        Number(r[0]),
        Number(r[1]),
        textOrNull(r[2]),
        textOrNull(r[3]),
        numberOrNull(r[4]),
        numberOrNull(r[5]),
        numberOrNull(r[6]),
      );
    const processes = this.prepare(
      `SELECT t_ms, gpu, gpu_uuid, pid, name, used_bytes, ours
         FROM process_samples WHERE run_id = ? ORDER BY rowid`,
    ).raw(true);
    for (const r of processes.iterate(runId) as IterableIterator<unknown[]>)
      out.process(
        Number(r[0]),
        numberOrNull(r[1]),
        textOrNull(r[2]),
        numberOrNull(r[3]),
        textOrNull(r[4]),
        numberOrNull(r[5]),
        Number(r[6]) === 1,
      );
    return out.done();
  }

  /** How many rows of a table a run has. */
  count(table: RowTable, runId: number): number {
    return Number(
      (this.prepare(`SELECT count(*) AS n FROM ${table} WHERE run_id = ?`).get(runId) as SqlRow).n,
    );
  }

  /**
   * The run's own processes in nvidia-smi, per reading (one time): summed per GPU (by UUID, else index),
   * the fullest GPU's sum, oldest first — what a calibration holds each step's device peak to.
   */
  ownDeviceSamples(runId: number): IterableIterator<OwnDeviceSample> {
    const st = this.prepare(
      `SELECT t_ms, max(bytes) AS bytes FROM (
         SELECT t_ms, sum(used_bytes) AS bytes FROM process_samples
          WHERE run_id = ? AND ours = 1 AND used_bytes IS NOT NULL
          GROUP BY t_ms, coalesce(gpu_uuid, CAST(gpu AS TEXT)))
       GROUP BY t_ms ORDER BY t_ms`,
    );
    return mapped(
      () => st.iterate(runId),
      (r) => ({ tMs: Number(r.t_ms), bytes: Number(r.bytes) }),
    );
  }

  /** The smallest card nvidia-smi reported for the run (its memory.total), or null. */
  smallestCardBytes(runId: number): number | null {
    const row = this.prepare(
      'SELECT min(total_bytes) AS b FROM gpu_samples WHERE run_id = ? AND total_bytes > 0',
    ).get(runId) as SqlRow;
    return row.b === null || row.b === undefined ? null : Number(row.b);
  }

  /**
   * The run page's step points (runs-api's stepPoints) summed up by SQLite: one per phase and step, the
   * figures of its row with the highest peak, in time order; and how many there are.
   */
  stepPoints(
    runId: number,
    startMs: number,
  ): { readonly count: number; readonly points: IterableIterator<StepPoint> } {
    const count = Number(
      (
        this.prepare(
          'SELECT count(*) AS n FROM (SELECT 1 FROM steps WHERE run_id = ? GROUP BY phase, step)',
        ).get(runId) as SqlRow
      ).n,
    );
    // One max() aggregate: SQLite takes the other columns from the row that has it.
    const st = this.prepare(
      `SELECT step, phase, t_ms, loss, allocated_bytes, reserved_bytes, peak_allocated_bytes, peak_reserved_bytes,
              max(coalesce(peak_allocated_bytes, allocated_bytes, 0)) AS top
         FROM steps WHERE run_id = ? GROUP BY phase, step ORDER BY t_ms, step`,
    );
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return {
      count,
      points: mapped(
        () => st.iterate(runId),
        (r) => ({
          step: Number(r.step),
          t: (Number(r.t_ms) - startMs) / 1000,
          loss: n(r.loss),
          allocatedBytes: n(r.allocated_bytes),
          reservedBytes: n(r.reserved_bytes),
          peakAllocatedBytes: n(r.peak_allocated_bytes),
          peakReservedBytes: n(r.peak_reserved_bytes),
          phase: r.phase === null ? null : String(r.phase),
        }),
      ),
    };
  }

  /** The run page's nvidia-smi points (runs-api's samplePoints): the fullest GPU at each time, in time order. */
  samplePoints(
    runId: number,
    startMs: number,
  ): { readonly count: number; readonly points: IterableIterator<SamplePoint> } {
    const count = Number(
      (
        this.prepare('SELECT count(DISTINCT t_ms) AS n FROM gpu_samples WHERE run_id = ?').get(
          runId,
        ) as SqlRow
      ).n,
    );
    const st = this.prepare(
      `SELECT t_ms, max(coalesce(used_bytes, 0)) AS used, total_bytes
         FROM gpu_samples WHERE run_id = ? GROUP BY t_ms ORDER BY t_ms`,
    );
    return {
      count,
      points: mapped(
        () => st.iterate(runId),
        (r) => ({
          t: (Number(r.t_ms) - startMs) / 1000,
          usedBytes: Number(r.used),
          totalBytes: Number(r.total_bytes ?? 0),
        }),
      ),
    };
  }

  /** The ranks that reported steps, ascending. */
  stepRanks(runId: number): number[] {
    return (
      this.prepare('SELECT DISTINCT rank FROM steps WHERE run_id = ? ORDER BY rank').all(runId) as SqlRow[]
    ).map((r) => Number(r.rank));
  }

  /**
   * The fields of a run's step records the per-rank peaks read, by step (as steps(runId, 'step') orders
   * them): five columns, not every one of a step record (a third of the time at 2,000,000 steps).
   */
  rankStepRows(runId: number): IterableIterator<RankStepRow> {
    const st = this.prepare(
      `SELECT step, phase, rank, peak_allocated_bytes, peak_reserved_bytes
         FROM steps WHERE run_id = ? ORDER BY step, rowid`,
    ).raw(true);
    return mapped(
      () => st.iterate(runId),
      (row) => {
        const r = row as unknown as unknown[];
        return {
          step: Number(r[0]),
          phase: String(r[1]),
          rank: Number(r[2]),
          peakAllocatedBytes: numberOrNull(r[3]),
          peakReservedBytes: numberOrNull(r[4]),
        };
      },
    );
  }

  /**
   * Each step's peak per rank (perRankStepPeaks) for a chart: every step of a run of up to `maxPoints`
   * steps; of a longer one, in each bucket of steps the ones where a rank's allocated or reserved peak is
   * highest and lowest (src/core/downsample.ts), so no rank's peak is dropped.
   */
  rankSteps(runId: number, maxPoints: number = DEFAULT_MAX_POINTS): PerRankSteps {
    const ranks = this.stepRanks(runId);
    const total = Number(
      (this.prepare('SELECT count(DISTINCT step) AS n FROM steps WHERE run_id = ?').get(runId) as SqlRow).n,
    );
    const top = (values: readonly (number | null)[]) => {
      const known = values.filter((v): v is number => v !== null);
      return known.length === 0 ? null : maxOf(known);
    };
    const keeper = peakKeeper<RankStepPeaks>(
      total,
      [(s) => top(s.allocatedBytes), (s) => top(s.reservedBytes)],
      maxPoints,
    );
    for (const { index: _, ...s } of rankStepPeaksByStep(this.rankStepRows(runId), ranks)) keeper.push(s);
    return { ranks, steps: keeper.done() };
  }
}

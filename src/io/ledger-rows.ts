/**
 * A run's rows read one at a time, and the figures over them that SQLite sums up itself: what every
 * command reads a long run with. A run of 2,000,000 steps is 2,000,000 step records; as an array of
 * objects that is gigabytes, so nothing here returns one (npm run bench:ledger-rows). Each iterator
 * holds the connection while it runs: finish it (or let a `for … of` loop end) before the next query.
 */
import type Database from 'better-sqlite3';
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

function* mapped<T>(rows: IterableIterator<unknown>, read: (row: SqlRow) => T): IterableIterator<T> {
  for (const row of rows) yield read(row as SqlRow);
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
    return mapped(st.iterate(runId), stepRecord.read);
  }

  gpuSamples(runId: number): IterableIterator<GpuSampleRecord> {
    const st = this.prepare(
      `SELECT ${gpuSampleRecord.select} FROM gpu_samples WHERE run_id = ? ORDER BY rowid`,
    );
    return mapped(st.iterate(runId), gpuSampleRecord.read);
  }

  processSamples(runId: number): IterableIterator<ProcessSampleRecord> {
    const st = this.prepare(
      `SELECT ${processSampleRecord.select} FROM process_samples WHERE run_id = ? ORDER BY rowid`,
    );
    return mapped(st.iterate(runId), processSampleRecord.read);
  }

  events(runId: number): IterableIterator<RunEvent> {
    const st = this.prepare(`SELECT ${eventRecord.select} FROM events WHERE run_id = ? ORDER BY id`);
    return mapped(st.iterate(runId), eventRecord.read);
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
    return mapped(st.iterate(runId), (r) => ({ tMs: Number(r.t_ms), bytes: Number(r.bytes) }));
  }

  /** The smallest card nvidia-smi reported for the run (its memory.total), or null. */
  smallestCardBytes(runId: number): number | null {
    const row = this.prepare(
      'SELECT min(total_bytes) AS b FROM gpu_samples WHERE run_id = ? AND total_bytes > 0',
    ).get(runId) as SqlRow;
    return row.b === null || row.b === undefined ? null : Number(row.b);
  }
}

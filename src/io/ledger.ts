/**
 * The run ledger: every run headroom records, in SQLite (better-sqlite3, WAL) at
 * `$HEADROOM_HOME/ledger.db` (default `~/.headroom/ledger.db`). Rows are written as they arrive,
 * each batch in one transaction together with the probe-log offset it reaches, so a killed
 * recorder loses nothing and a restarted one resumes exactly where the last commit stopped.
 *
 * Reading (for `headroom runs`, the dashboard and the diagnoser):
 * @example
 *   const ledger = Ledger.open(headroomHome(process.env));
 *   const run = ledger.getRun('7');                 // id or name
 *   ledger.steps(run.id);                           // per step, rank and device: loss, lr, peaks
 *   ledger.gpuSamples(run.id);                      // nvidia-smi per GPU
 *   ledger.processSamples(run.id);                  // nvidia-smi per process (ours flagged)
 *   ledger.events(run.id, ['oom', 'oom-text']);     // the probe's OOM record and stderr's OOM text
 *   for (const s of ledger.rows.steps(run.id)) …;   // one at a time: a run of millions of rows
 *   run.snapshots;                                  // allocator snapshots the probe wrote (path, rank, why)
 *   ledger.close();
 */

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { versionsFromPackages } from '../core/env-versions.js';
import { fileError } from '../core/file-errors.js';
import type { ProbeDeviceStats, ProbeEvent, ProbeLineProblem } from '../core/probe-log.js';
import { peakRankOf } from '../core/ranks.js';
import type {
  GpuSampleRecord,
  LayerPeak,
  ProcessSampleRecord,
  RankRecord,
  RunEvent,
  RunEventSource,
  RunRecord,
  RunSnapshot,
  StepRecord,
} from '../core/run-record.js';
import { CANNOT_WRITE, LEDGER_BUSY_TIMEOUT_MS, ledgerError, readOnlyLedger } from './ledger-open.js';
import { BACKFILL_RANKS_SQL, RankRows } from './ledger-ranks.js';
import { RunRows } from './ledger-rows.js';
import {
  applySql,
  codec,
  columnName,
  createSql,
  EVENTS,
  exportFields,
  GPU_SAMPLES,
  LEDGER_SCHEMA_VERSION,
  LOG_FILES,
  META,
  migrationSql,
  PEAK_LAYERS,
  type PeakLayerField,
  PROCESS_SAMPLES,
  type RowOf,
  RUNS,
  SNAPSHOTS,
  type SqlRow,
  STEPS,
  TABLES,
} from './ledger-schema.js';
import {
  columnsSql,
  type RunColumns,
  readColumns,
  rowBoundsSql,
  rowMarkSql,
  SERIES_TABLES,
  type SeriesField,
  type SeriesTable,
} from './ledger-series.js';

export { LEDGER_BUSY_TIMEOUT_MS, LEDGER_SCHEMA_VERSION };
export const LEDGER_FILE = 'ledger.db';
/** Headroom's folder: HEADROOM_HOME, else ~/.headroom. */
export function headroomHome(env: NodeJS.ProcessEnv): string {
  return env.HEADROOM_HOME && env.HEADROOM_HOME.trim() !== ''
    ? env.HEADROOM_HOME
    : join(homedir(), '.headroom');
}

// The mappings of each table, compiled once from its declaration (src/io/ledger-schema.ts).
const runs = codec(RUNS);
const steps = codec(STEPS);
const gpuSamples = codec(GPU_SAMPLES);
const processSamples = codec(PROCESS_SAMPLES);
const events = codec(EVENTS);
const logFiles = codec(LOG_FILES);
const snapshots = codec(SNAPSHOTS);
const meta = codec(META);

// A record is its table's row without the run it belongs to: the compiler holds each to the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const recordsMatchTables: [
  Same<Omit<RowOf<typeof STEPS>, 'runId'>, StepRecord>,
  Same<Omit<RowOf<typeof GPU_SAMPLES>, 'runId'>, GpuSampleRecord>,
  Same<Omit<RowOf<typeof PROCESS_SAMPLES>, 'runId'>, ProcessSampleRecord>,
  Same<Omit<RowOf<typeof EVENTS>, 'runId'>, RunEvent>,
  Same<Omit<RowOf<typeof SNAPSHOTS>, 'runId'>, RunSnapshot>,
] = [true, true, true, true, true];
void recordsMatchTables;

const stepRecord = steps.reader(exportFields(STEPS) as (keyof StepRecord)[]);
const gpuSampleRecord = gpuSamples.reader(exportFields(GPU_SAMPLES) as (keyof GpuSampleRecord)[]);
const processSampleRecord = processSamples.reader(
  exportFields(PROCESS_SAMPLES) as (keyof ProcessSampleRecord)[],
);
const eventRecord = events.reader(exportFields(EVENTS) as (keyof RunEvent)[]);
const snapshotRecord = snapshots.reader(exportFields(SNAPSHOTS) as (keyof RunSnapshot)[]);

/** The fields an event is written with (its id is the database's). */
const EVENT_FIELDS = ['runId', ...exportFields(EVENTS).filter((f) => f !== 'id')] as (
  | Exclude<keyof RunEvent, 'id'>
  | 'runId'
)[];

type RunRow = RowOf<typeof RUNS>;
type Row = SqlRow;

/** What a new run starts with: the fields of its record known before the command runs. */
export type NewRun = Pick<
  RunRecord,
  'name' | 'command' | 'cwd' | 'host' | 'scenario' | 'estimate' | 'env' | 'startedAtMs' | 'monitorPid'
>;

/** A probe-log line as read: its event (or the problem with it) and where it starts in its file. */
export interface ProbeLineRead {
  readonly offset: number;
  readonly event?: ProbeEvent;
  readonly problem?: ProbeLineProblem;
}

/** Lines read from one probe file, and the offset up to which the file has now been consumed. */
export interface ProbeBatch {
  readonly path: string;
  readonly endOffset: number;
  readonly lines: readonly ProbeLineRead[];
}

export type GpuSampleInput = Omit<GpuSampleRecord, 'tMs'>;

export type ProcessSampleInput = Omit<ProcessSampleRecord, 'tMs'>;

/** The fields of a run headroom changes as it records it (those left undefined keep their value). */
export type RunPatch = Partial<
  Pick<
    RowOf<typeof RUNS>,
    | 'status'
    | 'exitCode'
    | 'signal'
    | 'endedAtMs'
    | 'monitorPid'
    | 'childPid'
    | 'logPath'
    | 'stderrPath'
    | 'env'
    | 'versions'
  >
>;

export interface NewRunEvent {
  readonly tMs: number;
  readonly kind: string;
  readonly source: RunEventSource;
  readonly message?: string | null;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly pid?: number | null;
  readonly rank?: number | null;
  readonly step?: number | null;
  readonly phase?: string | null;
}

/** The layers whose peak belongs to a step (the probe's). */
type StepPeakField = {
  [K in PeakLayerField]: (typeof PEAK_LAYERS)[K]['step'] extends true ? K : never;
}[PeakLayerField];
const hasStep = (field: PeakLayerField): field is StepPeakField => PEAK_LAYERS[field].step;

function layer(row: RunRow, field: PeakLayerField): LayerPeak | null {
  const bytes = row[`${field}Bytes`];
  if (bytes === null) return null;
  return {
    bytes,
    atMs: row[`${field}AtMs`] ?? 0,
    step: hasStep(field) ? row[`${field}Step`] : null,
    gpu: row[`${field}Gpu`],
  };
}

/**
 * A stored run (its row, the count of its distinct steps, its snapshots and its ranks) as the record the
 * rest of headroom reads.
 */
function toRun(stored: Row, runSnapshots: readonly RunSnapshot[], ranks: readonly RankRecord[]): RunRecord {
  const row = runs.read(stored);
  const fromScenario = (key: string) =>
    typeof row.scenario?.[key] === 'number' ? (row.scenario[key] as number) : null;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    exitCode: row.exitCode,
    signal: row.signal,
    command: row.command,
    cwd: row.cwd,
    host: row.host,
    scenario: row.scenario,
    estimate: row.estimate,
    env: row.env,
    logPath: row.logPath,
    stderrPath: row.stderrPath,
    startedAtMs: row.startedAtMs,
    endedAtMs: row.endedAtMs,
    monitorPid: row.monitorPid,
    childPid: row.childPid,
    steps: Number(stored.step_count ?? 0),
    lastStep: row.lastStep,
    batchSize: row.batchSize ?? fromScenario('microBatchSize'),
    seqLen: row.seqLen ?? fromScenario('seqLen'),
    peakAllocated: layer(row, 'peakAllocated'),
    peakReserved: layer(row, 'peakReserved'),
    peakDevice: layer(row, 'peakDevice'),
    peakGpuUsed: layer(row, 'peakGpuUsed'),
    snapshots: runSnapshots,
    versions: row.versions,
    ranks,
    peakRank: peakRankOf(ranks),
  };
}

/** The run ledger. One instance per process; close it when done. */
export class Ledger {
  readonly home: string;
  readonly path: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly rankRows: RankRows;
  /** A run's rows one at a time and the figures SQLite sums over them: what a long run is read with. */
  readonly rows: RunRows;

  private constructor(home: string, path: string, db: Database.Database) {
    this.home = home;
    this.path = path;
    this.db = db;
    this.rankRows = new RankRows((sql) => this.prepare(sql));
    this.rows = new RunRows((sql) => this.prepare(sql));
  }

  /**
   * Opens (creating if needed) the ledger in `home`; a ledger of an older schema is brought up to this
   * one (the tables and columns declared since). Throws HeadroomUserError for a file that is not a ledger.
   *
   * `access: 'read'` is for the commands that only read (runs, report, diagnose, calibrate, --calibrated,
   * the dashboard): on a home they may not write (a read-only mount, another user's folder) they read
   * the ledger as it is instead of failing (readOnlyLedger).
   */
  static open(home: string, access: 'write' | 'read' = 'write'): Ledger {
    const path = join(home, LEDGER_FILE);
    let db: Database.Database | null = null;
    try {
      mkdirSync(home, { recursive: true });
      db = new Database(path);
      db.pragma(`busy_timeout = ${LEDGER_BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a commit survives the process being killed (not a power cut), at a fraction of FULL's cost.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      // Read the schema and create or migrate in one write transaction: two processes opening a fresh
      // ledger at once (two watches, run and watch) must not both create its tables.
      const opened = db;
      opened
        .transaction(() => {
          const version = Number(opened.pragma('user_version', { simple: true }));
          if (version === 0) {
            const tables = Number(
              (opened.prepare("SELECT count(*) AS c FROM sqlite_master WHERE type = 'table'").get() as Row).c,
            );
            if (tables > 0) {
              throw fileError('ledger-foreign-db', { path, tables }, path);
            }
            opened.transaction(() => {
              applySql(opened, TABLES.map(createSql));
              const app = meta.insert();
              opened.prepare(app.sql).run(app.values({ key: 'app', value: 'headroom' }));
              opened.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
            })();
          } else if (version < LEDGER_SCHEMA_VERSION) {
            migrateLedger(opened, version);
          } else if (version > LEDGER_SCHEMA_VERSION) {
            throw fileError('ledger-newer', { path, version, reads: LEDGER_SCHEMA_VERSION }, path);
          }
        })
        .immediate();
      return new Ledger(home, path, db);
    } catch (error) {
      db?.close();
      if (access === 'read' && CANNOT_WRITE.test((error as { code?: string }).code ?? '') && existsSync(path))
        return new Ledger(home, path, readOnlyLedger(path));
      throw ledgerError(path, error) ?? error;
    }
  }

  close(): void {
    this.db.close();
  }

  /**
   * A statement prepared once per connection: the recorder writes a few rows every poll, and
   * preparing its statements anew each time cost more than the rows (npm run bench:ingest).
   */
  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Folder for a run's files (probe log, captured stderr). */
  runDir(runId: number): string {
    return join(this.home, 'runs', String(runId));
  }

  // ── writing ────────────────────────────────────────────────────────────────────────────────

  /** Adds a run in status `running`; returns it. */
  createRun(init: NewRun): RunRecord {
    const insert = runs.insert([
      'name',
      'status',
      'command',
      'cwd',
      'host',
      'scenario',
      'estimate',
      'env',
      'startedAtMs',
      'monitorPid',
    ]);
    const info = this.prepare(insert.sql).run(insert.values({ ...init, status: 'running' }));
    return this.getRun(Number(info.lastInsertRowid))!;
  }

  /** Updates a run's bookkeeping fields (those left undefined keep their value). */
  updateRun(runId: number, patch: RunPatch): void {
    const set = runs.assignments(patch);
    if (set.values.length === 0) return;
    this.prepare(`UPDATE runs SET ${set.sql} WHERE id = ?`).run(...set.values, runId);
  }

  /** Raises a layer's peak to `peak` when it is higher than the one stored. */
  private raisePeak(runId: number, field: PeakLayerField, peak: LayerPeak): void {
    const col = (part: string) => columnName(`${field}${part}`);
    const stepCol = hasStep(field) ? `, ${col('Step')} = @step` : '';
    this.prepare(
      `UPDATE runs SET ${col('Bytes')} = @bytes, ${col('AtMs')} = @at, ${col('Gpu')} = @gpu${stepCol}
         WHERE id = @id AND (${col('Bytes')} IS NULL OR ${col('Bytes')} < @bytes)`,
    ).run({
      id: runId,
      bytes: peak.bytes,
      at: Math.round(peak.atMs),
      gpu: peak.gpu,
      ...(hasStep(field) ? { step: peak.step } : {}),
    });
  }

  /**
   * Stores probe-log lines and the offset they reach, in one transaction: either all of the batch
   * and its offset are recorded, or none (so a resumed reader neither loses nor repeats a line).
   */
  ingestProbe(runId: number, batches: readonly ProbeBatch[]): void {
    const stepInsert = steps.insert();
    const insertStep = stepInsert.bind(this.prepare(stepInsert.sql));
    const snapshotInsert = snapshots.insert();
    const insertSnapshot = snapshotInsert.bind(this.prepare(snapshotInsert.sql));
    const setOffset = this.prepare(
      `${logFiles.insert().sql} ON CONFLICT (run_id, path) DO UPDATE SET offset = excluded.offset`,
    );
    const setShape = this.prepare(
      `UPDATE runs SET batch_size = coalesce(batch_size, ?), seq_len = coalesce(seq_len, ?),
         last_step = max(coalesce(last_step, ?), ?) WHERE id = ?`,
    );
    this.db.transaction(() => {
      const rankBatch = this.rankRows.begin(runId);
      let allocated: LayerPeak | null = null;
      let reserved: LayerPeak | null = null;
      let batchSize: number | null = null;
      let seqLen: number | null = null;
      let lastStep: number | null = null;
      let versions: Record<string, string> | null = null;
      const consider = (devices: readonly ProbeDeviceStats[], tMs: number, step: number | null) => {
        for (const d of devices) {
          if (!allocated || d.peakAllocatedBytes > allocated.bytes)
            allocated = { bytes: d.peakAllocatedBytes, atMs: tMs, step, gpu: d.index };
          if (!reserved || d.peakReservedBytes > reserved.bytes)
            reserved = { bytes: d.peakReservedBytes, atMs: tMs, step, gpu: d.index };
        }
      };
      for (const batch of batches) {
        for (const line of batch.lines) {
          if (line.problem) {
            this.insertEvent(runId, {
              tMs: Date.now(),
              kind: 'probe-bad-line',
              source: 'headroom',
              message: `${batch.path} at byte ${line.offset}: ${line.problem.message}`,
              data: { path: batch.path, offset: line.offset, ...line.problem },
            });
            continue;
          }
          const e = line.event!;
          rankBatch.event(batch.path, e);
          const tMs = Math.round(e.t * 1000);
          // The versions installed where the run started: any rank's start record says the same.
          if (e.event === 'start') versions = { ...versionsFromPackages(e.packages), ...(versions ?? {}) };
          if (e.event === 'step') {
            const rows = e.devices.length > 0 ? e.devices : [null];
            for (const d of rows) {
              insertStep({
                runId,
                tMs,
                pid: e.pid,
                rank: e.rank,
                localRank: e.localRank,
                device: d?.index ?? null,
                step: e.step,
                phase: e.phase,
                loss: e.loss,
                lossText: e.lossText,
                lr: e.lr,
                batchSize: e.batchSize,
                seqLen: e.seqLen,
                durationS: e.durationS,
                allocatedBytes: d?.allocatedBytes ?? null,
                reservedBytes: d?.reservedBytes ?? null,
                peakAllocatedBytes: d?.peakAllocatedBytes ?? null,
                peakReservedBytes: d?.peakReservedBytes ?? null,
                inactiveSplitBytes: d?.inactiveSplitBytes ?? null,
                numAllocRetries: d?.numAllocRetries ?? null,
                numOoms: d?.numOoms ?? null,
              });
            }
            consider(e.devices, tMs, e.step);
            batchSize ??= e.batchSize;
            seqLen ??= e.seqLen;
            lastStep = lastStep === null ? e.step : Math.max(lastStep, e.step);
            continue;
          }
          if (e.event === 'snapshot') {
            insertSnapshot({
              runId,
              tMs,
              pid: e.pid,
              rank: e.rank,
              path: e.path,
              bytes: e.bytes,
              reason: e.reason,
              entries: e.entries,
              step: e.step,
            });
          }
          const devices =
            e.event === 'phase' || e.event === 'oom' || e.event === 'exception' ? e.devices : [];
          // A phase or error event's peaks belong to the interval after the last step.
          const step =
            e.event === 'phase' || e.event === 'oom' || e.event === 'exception' || e.event === 'snapshot'
              ? e.step
              : null;
          consider(devices, tMs, step);
          this.insertEvent(runId, {
            tMs,
            kind: e.event === 'other' ? e.kind : e.event,
            source: 'probe',
            pid: e.pid,
            rank: e.rank,
            step,
            phase:
              e.event === 'phase' ? e.phase : e.event === 'oom' || e.event === 'exception' ? e.phase : null,
            message:
              e.event === 'oom' || e.event === 'exception'
                ? e.message.split('\n')[0]!.slice(0, 2000)
                : e.event === 'phase'
                  ? `${e.previous ?? '?'} → ${e.phase}`
                  : e.event === 'snapshot'
                    ? e.path
                    : null,
            data: e.event === 'other' ? e.raw : (e as unknown as Record<string, unknown>),
          });
        }
        setOffset.run(runId, batch.path, batch.endOffset);
      }
      if (lastStep !== null) setShape.run(batchSize, seqLen, lastStep, lastStep, runId);
      if (versions !== null) this.updateRun(runId, { versions });
      if (allocated) this.raisePeak(runId, 'peakAllocated', allocated);
      if (reserved) this.raisePeak(runId, 'peakReserved', reserved);
      rankBatch.commit();
    })();
  }

  /** Stores one nvidia-smi per-GPU sample. */
  addGpuSamples(runId: number, tMs: number, rows: readonly GpuSampleInput[]): void {
    const insert = gpuSamples.insert();
    const store = insert.bind(this.prepare(insert.sql));
    this.db.transaction(() => {
      let used: LayerPeak | null = null;
      for (const r of rows) {
        store({ runId, tMs, ...r });
        if (r.usedBytes !== null && (!used || r.usedBytes > used.bytes))
          used = { bytes: r.usedBytes, atMs: tMs, step: null, gpu: r.gpu };
      }
      if (used) this.raisePeak(runId, 'peakGpuUsed', used);
    })();
  }

  /**
   * Stores one nvidia-smi per-process sample; the run's processes, summed per GPU, feed the device peak,
   * and each rank's on `host` (the machine nvidia-smi ran on; null: any rank) its own.
   */
  addProcessSamples(
    runId: number,
    tMs: number,
    rows: readonly ProcessSampleInput[],
    host: string | null = null,
  ): void {
    const insert = processSamples.insert();
    const store = insert.bind(this.prepare(insert.sql));
    this.db.transaction(() => {
      const ours = new Map<string, { gpu: number | null; bytes: number }>();
      for (const r of rows) {
        store({ runId, tMs, ...r });
        if (r.ours && r.usedBytes !== null) {
          const key = r.gpuUuid ?? String(r.gpu);
          const seen = ours.get(key) ?? { gpu: r.gpu, bytes: 0 };
          ours.set(key, { gpu: seen.gpu, bytes: seen.bytes + r.usedBytes });
        }
      }
      let best: LayerPeak | null = null;
      for (const { gpu, bytes } of ours.values())
        if (!best || bytes > best.bytes) best = { bytes, atMs: tMs, step: null, gpu };
      if (best) this.raisePeak(runId, 'peakDevice', best);
      this.rankRows.raiseDevicePeaks(runId, host, rows);
    })();
  }

  private insertEvent(runId: number, e: NewRunEvent): number {
    const insert = events.insert(EVENT_FIELDS);
    const info = this.prepare(insert.sql).run(
      insert.values({
        runId,
        tMs: e.tMs,
        kind: e.kind,
        source: e.source,
        pid: e.pid ?? null,
        rank: e.rank ?? null,
        step: e.step ?? null,
        phase: e.phase ?? null,
        message: e.message ?? null,
        data: e.data ?? {},
      }),
    );
    return Number(info.lastInsertRowid);
  }

  /** Adds one event (a warning, a note, the stderr OOM text); returns its id. */
  addEvent(runId: number, event: NewRunEvent): number {
    return this.insertEvent(runId, event);
  }

  /** Byte offsets already consumed per probe file of a run. */
  logOffsets(runId: number): Map<string, number> {
    const rows = this.prepare(`SELECT ${logFiles.select} FROM log_files WHERE run_id = ?`).all(
      runId,
    ) as Row[];
    return new Map(rows.map((r) => logFiles.read(r)).map((r) => [r.path, r.offset]));
  }

  /** Deletes a run, its rows and its folder of files. */
  deleteRun(runId: number): void {
    this.prepare('DELETE FROM runs WHERE id = ?').run(runId);
    rmSync(this.runDir(runId), { recursive: true, force: true });
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  private static readonly RUN_SELECT =
    `SELECT ${runs.select}, (SELECT count(DISTINCT step) FROM steps WHERE steps.run_id = runs.id) AS step_count FROM runs`;

  /** Every run, oldest first. */
  listRuns(): RunRecord[] {
    const byRun = new Map<number, RunSnapshot[]>();
    for (const row of this.prepare(
      `SELECT run_id, ${snapshotRecord.select} FROM snapshots ORDER BY rowid`,
    ).all() as Row[]) {
      const id = Number(row.run_id);
      const list = byRun.get(id) ?? [];
      list.push(snapshotRecord.read(row));
      byRun.set(id, list);
    }
    const ranks = this.rankRows.all();
    return (this.prepare(`${Ledger.RUN_SELECT} ORDER BY id`).all() as Row[]).map((row) =>
      toRun(row, byRun.get(Number(row.id)) ?? [], ranks.get(Number(row.id)) ?? []),
    );
  }

  /** The allocator snapshots a run's probe wrote, in the order written. */
  snapshots(runId: number): RunSnapshot[] {
    return (
      this.prepare(`SELECT ${snapshotRecord.select} FROM snapshots WHERE run_id = ? ORDER BY rowid`).all(
        runId,
      ) as Row[]
    ).map(snapshotRecord.read);
  }

  /** A run by id, or by name (the latest run of that name); `last` is the latest run. */
  getRun(ref: string | number): RunRecord | undefined {
    const key = String(ref).trim();
    let row: Row | undefined;
    if (key === 'last') row = this.prepare(`${Ledger.RUN_SELECT} ORDER BY id DESC LIMIT 1`).get() as Row;
    else if (/^\d+$/.test(key))
      row = this.prepare(`${Ledger.RUN_SELECT} WHERE id = ?`).get(Number(key)) as Row;
    else row = this.prepare(`${Ledger.RUN_SELECT} WHERE name = ? ORDER BY id DESC LIMIT 1`).get(key) as Row;
    return row ? toRun(row, this.snapshots(Number(row.id)), this.rankRows.of(Number(row.id))) : undefined;
  }

  /** A run's ranks, by rank then host (also on its record: RunRecord.ranks). */
  ranks(runId: number): RankRecord[] {
    return this.rankRows.of(runId);
  }

  /** The latest run recorded from a probe log path. */
  findRunByLog(logPath: string): RunRecord | undefined {
    const row = this.prepare(`${Ledger.RUN_SELECT} WHERE log_path = ? ORDER BY id DESC LIMIT 1`).get(
      logPath,
    ) as Row | undefined;
    return row ? toRun(row, this.snapshots(Number(row.id)), this.rankRows.of(Number(row.id))) : undefined;
  }

  /** Step records in the order written, optionally for one rank. */
  steps(runId: number, filter: { readonly rank?: number } = {}): StepRecord[] {
    const select = `SELECT ${stepRecord.select} FROM steps WHERE run_id = ?`;
    const rows =
      filter.rank === undefined
        ? this.prepare(`${select} ORDER BY rowid`).all(runId)
        : this.prepare(`${select} AND rank = ? ORDER BY rowid`).all(runId, filter.rank);
    return (rows as Row[]).map(stepRecord.read);
  }

  /** nvidia-smi per-GPU samples in time order. */
  gpuSamples(runId: number): GpuSampleRecord[] {
    return (
      this.prepare(`SELECT ${gpuSampleRecord.select} FROM gpu_samples WHERE run_id = ? ORDER BY rowid`).all(
        runId,
      ) as Row[]
    ).map(gpuSampleRecord.read);
  }

  /**
   * Chosen fields of a run's step records or nvidia-smi samples as columns, rows after `afterRow`
   * (src/io/ledger-series.ts): what the dashboard's chart reads from a long run.
   */
  columns<T extends SeriesTable, F extends SeriesField<T>>(
    table: T,
    runId: number,
    fields: readonly F[],
    afterRow = 0,
  ): RunColumns<F> {
    const t = SERIES_TABLES[table];
    return readColumns(
      this.prepare(rowBoundsSql(t)),
      this.prepare(columnsSql(t, fields)),
      fields,
      runId,
      afterRow,
    );
  }

  /** How many rows a run has in a series table and the last one's rowid (rows are only ever added). */
  rowMark(table: SeriesTable, runId: number): { readonly rows: number; readonly last: number } {
    const row = this.prepare(rowMarkSql(SERIES_TABLES[table])).get(runId) as { n: number; last: number };
    return { rows: Number(row.n), last: Number(row.last) };
  }

  /** nvidia-smi per-process samples in time order. */
  processSamples(runId: number): ProcessSampleRecord[] {
    return (
      this.prepare(
        `SELECT ${processSampleRecord.select} FROM process_samples WHERE run_id = ? ORDER BY rowid`,
      ).all(runId) as Row[]
    ).map(processSampleRecord.read);
  }

  /** Events in the order recorded, optionally only some kinds. */
  events(runId: number, kinds?: readonly string[]): RunEvent[] {
    const select = `SELECT ${eventRecord.select} FROM events WHERE run_id = ?`;
    const rows =
      kinds && kinds.length > 0
        ? this.prepare(`${select} AND kind IN (${kinds.map(() => '?').join(', ')}) ORDER BY id`).all(
            runId,
            ...kinds,
          )
        : this.prepare(`${select} ORDER BY id`).all(runId);
    return (rows as Row[]).map(eventRecord.read);
  }

  /**
   * The out-of-memory text of a run: the probe's record (message and traceback) when there is one,
   * else what the command printed on stderr; null when no OOM was seen.
   */
  oomText(runId: number): string | null {
    const probe = this.events(runId, ['oom']).at(-1);
    if (probe) return String(probe.data.traceback ?? '') || String(probe.data.message ?? '');
    const stderr = this.events(runId, ['oom-text']).at(-1);
    return stderr ? String(stderr.data.text ?? stderr.message ?? '') : null;
  }
}

/** Brings a ledger of schema `from` up to LEDGER_SCHEMA_VERSION, in one transaction. */
function migrateLedger(db: Database.Database, from: number): void {
  db.transaction(() => {
    applySql(db, migrationSql(TABLES, from));
    if (from < 2) db.exec(BACKFILL_RANKS_SQL);
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
  })();
}

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
 *   ledger.close();
 */
import { mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { HeadroomUserError } from '../core/errors.js';
import type { ProbeDeviceStats, ProbeEvent, ProbeLineProblem } from '../core/probe-log.js';
import type {
  EstimatedPeak,
  GpuSampleRecord,
  LayerPeak,
  ProcessSampleRecord,
  RunEvent,
  RunEventSource,
  RunRecord,
  RunStatus,
  StepRecord,
} from '../core/run-record.js';

/** Schema version of the ledger file (SQLite `user_version`). */
export const LEDGER_SCHEMA_VERSION = 1;
export const LEDGER_FILE = 'ledger.db';
/** How long a writer waits for another one holding the lock. */
export const LEDGER_BUSY_TIMEOUT_MS = 5000;

/** Headroom's folder: HEADROOM_HOME, else ~/.headroom. */
export function headroomHome(env: NodeJS.ProcessEnv): string {
  return env.HEADROOM_HOME && env.HEADROOM_HOME.trim() !== ''
    ? env.HEADROOM_HOME
    : join(homedir(), '.headroom');
}

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT,
  status TEXT NOT NULL CHECK (status IN ('running','ok','oom','failed','killed')),
  exit_code INTEGER,
  signal TEXT,
  command TEXT NOT NULL,
  cwd TEXT,
  host TEXT,
  scenario TEXT,
  estimate TEXT,
  env TEXT NOT NULL,
  log_path TEXT,
  stderr_path TEXT,
  started_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER,
  monitor_pid INTEGER,
  child_pid INTEGER,
  batch_size INTEGER,
  seq_len INTEGER,
  last_step INTEGER,
  peak_allocated_bytes INTEGER, peak_allocated_at_ms INTEGER, peak_allocated_step INTEGER, peak_allocated_gpu INTEGER,
  peak_reserved_bytes INTEGER, peak_reserved_at_ms INTEGER, peak_reserved_step INTEGER, peak_reserved_gpu INTEGER,
  peak_device_bytes INTEGER, peak_device_at_ms INTEGER, peak_device_gpu INTEGER,
  peak_gpu_used_bytes INTEGER, peak_gpu_used_at_ms INTEGER, peak_gpu_used_gpu INTEGER
);
CREATE INDEX runs_log_path ON runs (log_path);
CREATE TABLE steps (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  t_ms INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  local_rank INTEGER NOT NULL,
  device INTEGER,
  step INTEGER NOT NULL,
  phase TEXT NOT NULL,
  loss REAL, loss_text TEXT, lr REAL, batch_size INTEGER, seq_len INTEGER, duration_s REAL,
  allocated_bytes INTEGER, reserved_bytes INTEGER, peak_allocated_bytes INTEGER, peak_reserved_bytes INTEGER,
  inactive_split_bytes INTEGER, num_alloc_retries INTEGER, num_ooms INTEGER
);
CREATE INDEX steps_run ON steps (run_id, step);
CREATE TABLE gpu_samples (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  t_ms INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  uuid TEXT, name TEXT,
  total_bytes INTEGER, reserved_bytes INTEGER, used_bytes INTEGER, free_bytes INTEGER,
  utilization_percent REAL,
  own_bytes INTEGER
);
CREATE INDEX gpu_samples_run ON gpu_samples (run_id, t_ms);
CREATE TABLE process_samples (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  t_ms INTEGER NOT NULL,
  gpu INTEGER, gpu_uuid TEXT, pid INTEGER, name TEXT, used_bytes INTEGER,
  ours INTEGER NOT NULL
);
CREATE INDEX process_samples_run ON process_samples (run_id, t_ms);
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  t_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  pid INTEGER, rank INTEGER, step INTEGER, phase TEXT,
  message TEXT,
  data TEXT NOT NULL
);
CREATE INDEX events_run ON events (run_id, kind);
CREATE TABLE log_files (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  offset INTEGER NOT NULL,
  PRIMARY KEY (run_id, path)
);
`;

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

type Row = Record<string, unknown>;

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function layer(row: Row, prefix: string, hasStep: boolean): LayerPeak | null {
  const bytes = n(row[`${prefix}_bytes`]);
  if (bytes === null) return null;
  return {
    bytes,
    atMs: n(row[`${prefix}_at_ms`]) ?? 0,
    step: hasStep ? n(row[`${prefix}_step`]) : null,
    gpu: n(row[`${prefix}_gpu`]),
  };
}

function toRun(row: Row): RunRecord {
  const scenario = parseJson<Record<string, unknown> | null>(row.scenario, null);
  const fromScenario = (key: string) =>
    typeof scenario?.[key] === 'number' ? (scenario[key] as number) : null;
  return {
    id: Number(row.id),
    name: s(row.name),
    status: row.status as RunStatus,
    exitCode: n(row.exit_code),
    signal: s(row.signal),
    command: parseJson<string[]>(row.command, []),
    cwd: s(row.cwd),
    host: s(row.host),
    scenario,
    estimate: parseJson<EstimatedPeak | null>(row.estimate, null),
    env: parseJson<Record<string, unknown>>(row.env, {}),
    logPath: s(row.log_path),
    stderrPath: s(row.stderr_path),
    startedAtMs: Number(row.started_at_ms),
    endedAtMs: n(row.ended_at_ms),
    monitorPid: n(row.monitor_pid),
    childPid: n(row.child_pid),
    steps: Number(row.step_count ?? 0),
    lastStep: n(row.last_step),
    batchSize: n(row.batch_size) ?? fromScenario('microBatchSize'),
    seqLen: n(row.seq_len) ?? fromScenario('seqLen'),
    peakAllocated: layer(row, 'peak_allocated', true),
    peakReserved: layer(row, 'peak_reserved', true),
    peakDevice: layer(row, 'peak_device', false),
    peakGpuUsed: layer(row, 'peak_gpu_used', false),
  };
}

function toStep(r: Row): StepRecord {
  return {
    tMs: Number(r.t_ms),
    pid: Number(r.pid),
    rank: Number(r.rank),
    localRank: Number(r.local_rank),
    device: n(r.device),
    step: Number(r.step),
    phase: String(r.phase),
    loss: n(r.loss),
    lossText: s(r.loss_text),
    lr: n(r.lr),
    batchSize: n(r.batch_size),
    seqLen: n(r.seq_len),
    durationS: n(r.duration_s),
    allocatedBytes: n(r.allocated_bytes),
    reservedBytes: n(r.reserved_bytes),
    peakAllocatedBytes: n(r.peak_allocated_bytes),
    peakReservedBytes: n(r.peak_reserved_bytes),
    inactiveSplitBytes: n(r.inactive_split_bytes),
    numAllocRetries: n(r.num_alloc_retries),
    numOoms: n(r.num_ooms),
  };
}

function ledgerError(path: string, error: unknown): HeadroomUserError | null {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new HeadroomUserError({
      code: 'bad-file',
      where: path,
      message: `the ledger ${path} is not a SQLite database (${(error as Error).message}); no run was read or written`,
      hint: `move it aside (mv ${path} ${path}.bad) so headroom starts a new ledger, or set HEADROOM_HOME to another folder`,
    });
  }
  if (['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST'].includes(code)) {
    return new HeadroomUserError({
      code: 'bad-file',
      where: path,
      message: `cannot open the ledger ${path} for writing (${(error as Error).message})`,
      hint: 'set HEADROOM_HOME to a folder you can write (it must be a folder, not a file)',
    });
  }
  return null;
}

/** The run ledger. One instance per process; close it when done. */
export class Ledger {
  readonly home: string;
  readonly path: string;
  private readonly db: Database.Database;

  private constructor(home: string, path: string, db: Database.Database) {
    this.home = home;
    this.path = path;
    this.db = db;
  }

  /** Opens (creating if needed) the ledger in `home`. Throws HeadroomUserError for a file that is not a ledger. */
  static open(home: string): Ledger {
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
      const version = Number(db.pragma('user_version', { simple: true }));
      if (version === 0) {
        const tables = Number(
          (db.prepare("SELECT count(*) AS c FROM sqlite_master WHERE type = 'table'").get() as Row).c,
        );
        if (tables > 0) {
          throw new HeadroomUserError({
            code: 'bad-file',
            where: path,
            message: `${path} is a SQLite database but not a headroom ledger (it has ${tables} tables of its own); it was left untouched`,
            hint: `move it aside (mv ${path} ${path}.other), or set HEADROOM_HOME to another folder`,
          });
        }
        db.transaction(() => {
          db!.exec(SCHEMA);
          db!.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('app', 'headroom');
          db!.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
        })();
      } else if (version > LEDGER_SCHEMA_VERSION) {
        throw new HeadroomUserError({
          code: 'bad-file',
          where: path,
          message: `the ledger ${path} was written by a newer headroom (schema ${version}; this one reads ${LEDGER_SCHEMA_VERSION})`,
          hint: 'upgrade headroom (npm install -g headroom@latest), or set HEADROOM_HOME to another folder',
        });
      }
      return new Ledger(home, path, db);
    } catch (error) {
      db?.close();
      throw ledgerError(path, error) ?? error;
    }
  }

  close(): void {
    this.db.close();
  }

  /** Folder for a run's files (probe log, captured stderr). */
  runDir(runId: number): string {
    return join(this.home, 'runs', String(runId));
  }

  // ── writing ────────────────────────────────────────────────────────────────────────────────

  /** Adds a run in status `running`; returns it. */
  createRun(init: NewRun): RunRecord {
    const info = this.db
      .prepare(
        `INSERT INTO runs (name, status, command, cwd, host, scenario, estimate, env, started_at_ms, monitor_pid)
         VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        init.name,
        JSON.stringify(init.command),
        init.cwd,
        init.host,
        init.scenario ? JSON.stringify(init.scenario) : null,
        init.estimate ? JSON.stringify(init.estimate) : null,
        JSON.stringify(init.env),
        Math.round(init.startedAtMs),
        init.monitorPid,
      );
    return this.getRun(Number(info.lastInsertRowid))!;
  }

  /** Updates a run's bookkeeping fields. */
  updateRun(
    runId: number,
    patch: {
      readonly status?: RunStatus;
      readonly exitCode?: number | null;
      readonly signal?: string | null;
      readonly endedAtMs?: number | null;
      readonly monitorPid?: number | null;
      readonly childPid?: number | null;
      readonly logPath?: string | null;
      readonly stderrPath?: string | null;
      readonly env?: Readonly<Record<string, unknown>>;
    },
  ): void {
    const columns: Record<string, unknown> = {
      status: patch.status,
      exit_code: patch.exitCode,
      signal: patch.signal,
      ended_at_ms:
        patch.endedAtMs === undefined || patch.endedAtMs === null
          ? patch.endedAtMs
          : Math.round(patch.endedAtMs),
      monitor_pid: patch.monitorPid,
      child_pid: patch.childPid,
      log_path: patch.logPath,
      stderr_path: patch.stderrPath,
      env: patch.env === undefined ? undefined : JSON.stringify(patch.env),
    };
    const set = Object.entries(columns).filter(([, v]) => v !== undefined);
    if (set.length === 0) return;
    this.db
      .prepare(`UPDATE runs SET ${set.map(([k]) => `${k} = ?`).join(', ')} WHERE id = ?`)
      .run(...set.map(([, v]) => v), runId);
  }

  private raisePeak(runId: number, prefix: string, peak: LayerPeak, hasStep: boolean): void {
    const stepCol = hasStep ? `, ${prefix}_step = @step` : '';
    this.db
      .prepare(
        `UPDATE runs SET ${prefix}_bytes = @bytes, ${prefix}_at_ms = @at, ${prefix}_gpu = @gpu${stepCol}
         WHERE id = @id AND (${prefix}_bytes IS NULL OR ${prefix}_bytes < @bytes)`,
      )
      .run({
        id: runId,
        bytes: peak.bytes,
        at: Math.round(peak.atMs),
        gpu: peak.gpu,
        ...(hasStep ? { step: peak.step } : {}),
      });
  }

  /**
   * Stores probe-log lines and the offset they reach, in one transaction: either all of the batch
   * and its offset are recorded, or none (so a resumed reader neither loses nor repeats a line).
   */
  ingestProbe(runId: number, batches: readonly ProbeBatch[]): void {
    const insertStep = this.db.prepare(
      `INSERT INTO steps (run_id, t_ms, pid, rank, local_rank, device, step, phase, loss, loss_text, lr, batch_size, seq_len,
         duration_s, allocated_bytes, reserved_bytes, peak_allocated_bytes, peak_reserved_bytes, inactive_split_bytes,
         num_alloc_retries, num_ooms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const setOffset = this.db.prepare(
      `INSERT INTO log_files (run_id, path, offset) VALUES (?, ?, ?)
       ON CONFLICT (run_id, path) DO UPDATE SET offset = excluded.offset`,
    );
    const setShape = this.db.prepare(
      `UPDATE runs SET batch_size = coalesce(batch_size, ?), seq_len = coalesce(seq_len, ?),
         last_step = max(coalesce(last_step, ?), ?) WHERE id = ?`,
    );
    this.db.transaction(() => {
      let allocated: LayerPeak | null = null;
      let reserved: LayerPeak | null = null;
      let batchSize: number | null = null;
      let seqLen: number | null = null;
      let lastStep: number | null = null;
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
          const tMs = Math.round(e.t * 1000);
          if (e.event === 'step') {
            const rows = e.devices.length > 0 ? e.devices : [null];
            for (const d of rows) {
              insertStep.run(
                runId,
                tMs,
                e.pid,
                e.rank,
                e.localRank,
                d?.index ?? null,
                e.step,
                e.phase,
                e.loss,
                e.lossText,
                e.lr,
                e.batchSize,
                e.seqLen,
                e.durationS,
                d?.allocatedBytes ?? null,
                d?.reservedBytes ?? null,
                d?.peakAllocatedBytes ?? null,
                d?.peakReservedBytes ?? null,
                d?.inactiveSplitBytes ?? null,
                d?.numAllocRetries ?? null,
                d?.numOoms ?? null,
              );
            }
            consider(e.devices, tMs, e.step);
            batchSize ??= e.batchSize;
            seqLen ??= e.seqLen;
            lastStep = lastStep === null ? e.step : Math.max(lastStep, e.step);
            continue;
          }
          const devices =
            e.event === 'phase' || e.event === 'oom' || e.event === 'exception' ? e.devices : [];
          // A phase or error event's peaks belong to the interval after the last step.
          const step = e.event === 'phase' || e.event === 'oom' || e.event === 'exception' ? e.step : null;
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
                  : null,
            data: e.event === 'other' ? e.raw : (e as unknown as Record<string, unknown>),
          });
        }
        setOffset.run(runId, batch.path, batch.endOffset);
      }
      if (lastStep !== null) setShape.run(batchSize, seqLen, lastStep, lastStep, runId);
      if (allocated) this.raisePeak(runId, 'peak_allocated', allocated, true);
      if (reserved) this.raisePeak(runId, 'peak_reserved', reserved, true);
    })();
  }

  /** Stores one nvidia-smi per-GPU sample. */
  addGpuSamples(runId: number, tMs: number, rows: readonly GpuSampleInput[]): void {
    const insert = this.db.prepare(
      `INSERT INTO gpu_samples (run_id, t_ms, gpu, uuid, name, total_bytes, reserved_bytes, used_bytes, free_bytes,
         utilization_percent, own_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      let used: LayerPeak | null = null;
      for (const r of rows) {
        insert.run(
          runId,
          Math.round(tMs),
          r.gpu,
          r.uuid,
          r.name,
          r.totalBytes,
          r.reservedBytes,
          r.usedBytes,
          r.freeBytes,
          r.utilizationPercent,
          r.ownBytes,
        );
        if (r.usedBytes !== null && (!used || r.usedBytes > used.bytes))
          used = { bytes: r.usedBytes, atMs: tMs, step: null, gpu: r.gpu };
      }
      if (used) this.raisePeak(runId, 'peak_gpu_used', used, false);
    })();
  }

  /** Stores one nvidia-smi per-process sample; the run's processes, summed per GPU, feed the device peak. */
  addProcessSamples(runId: number, tMs: number, rows: readonly ProcessSampleInput[]): void {
    const insert = this.db.prepare(
      `INSERT INTO process_samples (run_id, t_ms, gpu, gpu_uuid, pid, name, used_bytes, ours) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      const ours = new Map<string, { gpu: number | null; bytes: number }>();
      for (const r of rows) {
        insert.run(runId, Math.round(tMs), r.gpu, r.gpuUuid, r.pid, r.name, r.usedBytes, r.ours ? 1 : 0);
        if (r.ours && r.usedBytes !== null) {
          const key = r.gpuUuid ?? String(r.gpu);
          const seen = ours.get(key) ?? { gpu: r.gpu, bytes: 0 };
          ours.set(key, { gpu: seen.gpu, bytes: seen.bytes + r.usedBytes });
        }
      }
      let best: LayerPeak | null = null;
      for (const { gpu, bytes } of ours.values())
        if (!best || bytes > best.bytes) best = { bytes, atMs: tMs, step: null, gpu };
      if (best) this.raisePeak(runId, 'peak_device', best, false);
    })();
  }

  private insertEvent(runId: number, e: NewRunEvent): number {
    const info = this.db
      .prepare(
        `INSERT INTO events (run_id, t_ms, kind, source, pid, rank, step, phase, message, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        Math.round(e.tMs),
        e.kind,
        e.source,
        e.pid ?? null,
        e.rank ?? null,
        e.step ?? null,
        e.phase ?? null,
        e.message ?? null,
        JSON.stringify(e.data ?? {}),
      );
    return Number(info.lastInsertRowid);
  }

  /** Adds one event (a warning, a note, the stderr OOM text); returns its id. */
  addEvent(runId: number, event: NewRunEvent): number {
    return this.insertEvent(runId, event);
  }

  /** Byte offsets already consumed per probe file of a run. */
  logOffsets(runId: number): Map<string, number> {
    const rows = this.db.prepare('SELECT path, offset FROM log_files WHERE run_id = ?').all(runId) as Row[];
    return new Map(rows.map((r) => [String(r.path), Number(r.offset)]));
  }

  /** Deletes a run, its rows and its folder of files. */
  deleteRun(runId: number): void {
    this.db.prepare('DELETE FROM runs WHERE id = ?').run(runId);
    rmSync(this.runDir(runId), { recursive: true, force: true });
  }

  // ── reading ────────────────────────────────────────────────────────────────────────────────

  private static readonly RUN_SELECT =
    `SELECT runs.*, (SELECT count(DISTINCT step) FROM steps WHERE steps.run_id = runs.id) AS step_count FROM runs`;

  /** Every run, oldest first. */
  listRuns(): RunRecord[] {
    return (this.db.prepare(`${Ledger.RUN_SELECT} ORDER BY id`).all() as Row[]).map(toRun);
  }

  /** A run by id, or by name (the latest run of that name); `last` is the latest run. */
  getRun(ref: string | number): RunRecord | undefined {
    const key = String(ref).trim();
    let row: Row | undefined;
    if (key === 'last') row = this.db.prepare(`${Ledger.RUN_SELECT} ORDER BY id DESC LIMIT 1`).get() as Row;
    else if (/^\d+$/.test(key))
      row = this.db.prepare(`${Ledger.RUN_SELECT} WHERE id = ?`).get(Number(key)) as Row;
    else
      row = this.db.prepare(`${Ledger.RUN_SELECT} WHERE name = ? ORDER BY id DESC LIMIT 1`).get(key) as Row;
    return row ? toRun(row) : undefined;
  }

  /** The latest run recorded from a probe log path. */
  findRunByLog(logPath: string): RunRecord | undefined {
    const row = this.db
      .prepare(`${Ledger.RUN_SELECT} WHERE log_path = ? ORDER BY id DESC LIMIT 1`)
      .get(logPath) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Step records in the order written, optionally for one rank. */
  steps(runId: number, filter: { readonly rank?: number } = {}): StepRecord[] {
    const rows =
      filter.rank === undefined
        ? this.db.prepare('SELECT * FROM steps WHERE run_id = ? ORDER BY rowid').all(runId)
        : this.db
            .prepare('SELECT * FROM steps WHERE run_id = ? AND rank = ? ORDER BY rowid')
            .all(runId, filter.rank);
    return (rows as Row[]).map(toStep);
  }

  /** nvidia-smi per-GPU samples in time order. */
  gpuSamples(runId: number): GpuSampleRecord[] {
    return (
      this.db.prepare('SELECT * FROM gpu_samples WHERE run_id = ? ORDER BY rowid').all(runId) as Row[]
    ).map((r) => ({
      tMs: Number(r.t_ms),
      gpu: Number(r.gpu),
      uuid: s(r.uuid),
      name: s(r.name),
      totalBytes: n(r.total_bytes),
      reservedBytes: n(r.reserved_bytes),
      usedBytes: n(r.used_bytes),
      freeBytes: n(r.free_bytes),
      utilizationPercent: n(r.utilization_percent),
      ownBytes: n(r.own_bytes),
    }));
  }

  /** nvidia-smi per-process samples in time order. */
  processSamples(runId: number): ProcessSampleRecord[] {
    return (
      this.db.prepare('SELECT * FROM process_samples WHERE run_id = ? ORDER BY rowid').all(runId) as Row[]
    ).map((r) => ({
      tMs: Number(r.t_ms),
      gpu: n(r.gpu),
      gpuUuid: s(r.gpu_uuid),
      pid: n(r.pid),
      name: s(r.name),
      usedBytes: n(r.used_bytes),
      ours: Number(r.ours) === 1,
    }));
  }

  /** Events in the order recorded, optionally only some kinds. */
  events(runId: number, kinds?: readonly string[]): RunEvent[] {
    const rows =
      kinds && kinds.length > 0
        ? this.db
            .prepare(
              `SELECT * FROM events WHERE run_id = ? AND kind IN (${kinds.map(() => '?').join(', ')}) ORDER BY id`,
            )
            .all(runId, ...kinds)
        : this.db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY id').all(runId);
    return (rows as Row[]).map((r) => ({
      id: Number(r.id),
      tMs: Number(r.t_ms),
      kind: String(r.kind),
      source: String(r.source) as RunEventSource,
      pid: n(r.pid),
      rank: n(r.rank),
      step: n(r.step),
      phase: s(r.phase),
      message: s(r.message),
      data: parseJson<Record<string, unknown>>(r.data, {}),
    }));
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

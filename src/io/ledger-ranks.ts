/**
 * The ledger's rank rows (table run_ranks, src/io/ledger-schema.ts): one per run, rank and host, kept
 * up to date inside the ledger's own transactions as probe lines and nvidia-smi samples arrive. A run
 * under torchrun, accelerate launch, deepspeed or srun writes one probe file per rank (RANK, else
 * OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID: probe/headroom_probe.py, _rank_info); each file's
 * `start` line names its host, so ranks of several nodes — read from one shared folder, or by one
 * `headroom watch --log` per node — merge into one run without two hosts' rank 0 ever mixing.
 */
import type Database from 'better-sqlite3';
import { nvmlUuid } from '../core/fleet/metrics-source.js';
import type { ProbeDeviceStats, ProbeEvent } from '../core/probe-log.js';
import type { RankRecord } from '../core/run-record.js';
import { codec, RANKS, type RowOf, type SqlRow } from './ledger-schema.js';

const ranks = codec(RANKS);
type RankRow = RowOf<typeof RANKS>;

// The record is the table's row without its run: the compiler holds each to the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const recordMatchesTable: Same<Omit<RankRow, 'runId'>, RankRecord> = true;
void recordMatchesTable;

const FIELDS = Object.keys(RANKS.columns).filter((f) => f !== 'runId') as (keyof RankRecord)[];
const rankRecord = ranks.reader(FIELDS);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Acc {
  /** The row's rowid when it is already stored. */
  readonly rowid: number | null;
  row: Mutable<RankRow>;
  changed: boolean;
}

type Prepare = (sql: string) => Database.Statement;

/** What one ingest transaction does to the rank rows: call `event` for each line, then `commit`. */
export interface RankBatch {
  event(path: string, e: ProbeEvent): void;
  commit(): void;
}

export class RankRows {
  /** The host each probe file's `start` line named, per run and file. */
  private readonly hosts = new Map<string, string | null>();
  /** Each device's UUID as its `device` line gave it, per run, host, rank and CUDA ordinal. */
  private readonly uuids = new Map<string, string>();

  constructor(private readonly prepare: Prepare) {}

  begin(runId: number): RankBatch {
    const accs = new Map<string, Acc>();
    const hostOf = (path: string, e: ProbeEvent): string | null => {
      const key = `${runId}\u0000${path}`;
      if (e.event === 'start') {
        this.hosts.set(key, e.host);
        return e.host;
      }
      const known = this.hosts.get(key);
      if (known !== undefined) return known;
      // A resumed reader starts past the file's `start` line: the stored row of this process knows it.
      const stored = this.prepare(
        'SELECT host FROM run_ranks WHERE run_id = ? AND rank = ? AND pid = ? ORDER BY rowid DESC LIMIT 1',
      ).get(runId, e.rank, e.pid) as { host: string | null } | undefined;
      const host = stored ? stored.host : null;
      this.hosts.set(key, host);
      return host;
    };
    const accOf = (rank: number, host: string | null): Acc => {
      const key = `${rank}\u0000${host ?? ''}`;
      let acc = accs.get(key);
      if (acc) return acc;
      const stored = this.prepare(
        `SELECT rowid AS rid, ${ranks.select} FROM run_ranks WHERE run_id = ? AND rank = ? AND host IS ?`,
      ).get(runId, rank, host) as SqlRow | undefined;
      acc = stored
        ? { rowid: Number(stored.rid), row: { ...ranks.read(stored), runId }, changed: false }
        : {
            rowid: null,
            changed: true,
            row: {
              runId,
              rank,
              localRank: rank,
              worldSize: null,
              host,
              pid: null,
              gpu: null,
              gpuUuid: null,
              cudaVisibleDevices: null,
              peakAllocatedBytes: null,
              peakAllocatedStep: null,
              peakAllocatedPhase: null,
              peakReservedBytes: null,
              peakDeviceBytes: null,
              steps: 0,
              lastStep: null,
            },
          };
      accs.set(key, acc);
      return acc;
    };
    const uuidKey = (host: string | null, rank: number, index: number) =>
      `${runId}\u0000${host ?? ''}\u0000${rank}\u0000${index}`;
    const consider = (
      acc: Acc,
      devices: readonly ProbeDeviceStats[],
      step: number | null,
      phase: string | null,
    ) => {
      const row = acc.row;
      for (const d of devices) {
        if (row.peakAllocatedBytes === null || d.peakAllocatedBytes > row.peakAllocatedBytes) {
          row.peakAllocatedBytes = d.peakAllocatedBytes;
          row.peakAllocatedStep = step;
          row.peakAllocatedPhase = phase;
          if (row.gpu !== d.index) {
            row.gpu = d.index;
            row.gpuUuid = this.uuids.get(uuidKey(row.host, row.rank, d.index)) ?? null;
          }
          acc.changed = true;
        }
        if (row.peakReservedBytes === null || d.peakReservedBytes > row.peakReservedBytes) {
          row.peakReservedBytes = d.peakReservedBytes;
          acc.changed = true;
        }
      }
    };
    return {
      event: (path, e) => {
        const host = hostOf(path, e);
        const acc = accOf(e.rank, host);
        const row = acc.row;
        if (row.localRank !== e.localRank || row.worldSize !== e.worldSize || row.pid !== e.pid) {
          row.localRank = e.localRank;
          row.worldSize = e.worldSize;
          row.pid = e.pid;
          acc.changed = true;
        }
        switch (e.event) {
          case 'start':
            row.cudaVisibleDevices = e.cudaVisibleDevices;
            acc.changed = true;
            return;
          case 'device': {
            const uuid = nvmlUuid(e.uuid);
            if (uuid === null) return;
            this.uuids.set(uuidKey(host, e.rank, e.index), uuid);
            if (row.gpu === e.index && row.gpuUuid !== uuid) {
              row.gpuUuid = uuid;
              acc.changed = true;
            }
            return;
          }
          case 'step':
            consider(acc, e.devices, e.step, e.phase);
            if (row.lastStep === null || e.step > row.lastStep) {
              row.steps++;
              row.lastStep = e.step;
              acc.changed = true;
            }
            return;
          case 'phase':
            // Its peaks are those of the interval that ends here: the phase it leaves.
            consider(acc, e.devices, e.step, e.previous ?? 'train');
            return;
          case 'oom':
          case 'exception':
            consider(acc, e.devices, e.step, e.phase);
            return;
          default:
            return;
        }
      },
      commit: () => {
        const insert = ranks.insert();
        for (const acc of accs.values()) {
          if (!acc.changed) continue;
          if (acc.rowid === null) {
            this.prepare(insert.sql).run(insert.values(acc.row));
            continue;
          }
          const { runId: _run, ...patch } = acc.row;
          const set = ranks.assignments(patch);
          this.prepare(`UPDATE run_ranks SET ${set.sql} WHERE rowid = ?`).run(...set.values, acc.rowid);
        }
      },
    };
  }

  /**
   * Raises each rank's device peak from one nvidia-smi per-process sample of `host` (the recorder's
   * machine: a pid means nothing on another; null: every rank): the run's processes on the rank's card, summed, when the
   * card's UUID is known, else the rank's own process.
   */
  raiseDevicePeaks(
    runId: number,
    host: string | null,
    rows: readonly {
      readonly gpuUuid: string | null;
      readonly pid: number | null;
      readonly usedBytes: number | null;
      readonly ours: boolean;
    }[],
  ): void {
    const ours = rows.filter((r) => r.ours && r.usedBytes !== null);
    if (ours.length === 0) return;
    const select = 'SELECT rowid AS rid, pid, gpu_uuid FROM run_ranks WHERE run_id = ?';
    const stored = (
      host === null
        ? this.prepare(select).all(runId)
        : this.prepare(`${select} AND (host IS ? OR host IS NULL)`).all(runId, host)
    ) as SqlRow[];
    const raise = this.prepare(
      `UPDATE run_ranks SET peak_device_bytes = ?
         WHERE rowid = ? AND (peak_device_bytes IS NULL OR peak_device_bytes < ?)`,
    );
    for (const r of stored) {
      const uuid = typeof r.gpu_uuid === 'string' ? r.gpu_uuid : null;
      const onCard = uuid === null ? [] : ours.filter((p) => nvmlUuid(p.gpuUuid) === uuid);
      const counted = onCard.length > 0 ? onCard : ours.filter((p) => p.pid !== null && p.pid === r.pid);
      if (counted.length === 0) continue;
      const bytes = counted.reduce((sum, p) => sum + p.usedBytes!, 0);
      raise.run(bytes, Number(r.rid), bytes);
    }
  }

  /** The ranks of one run, by rank then host. */
  of(runId: number): RankRecord[] {
    return (
      this.prepare(`SELECT ${rankRecord.select} FROM run_ranks WHERE run_id = ? ORDER BY rank, host`).all(
        runId,
      ) as SqlRow[]
    ).map(rankRecord.read);
  }

  /** The ranks of every run, by run. */
  all(): Map<number, RankRecord[]> {
    const out = new Map<number, RankRecord[]>();
    const rows = this.prepare(
      `SELECT run_id, ${rankRecord.select} FROM run_ranks ORDER BY run_id, rank, host`,
    ).all() as SqlRow[];
    for (const row of rows) {
      const id = Number(row.run_id);
      const list = out.get(id);
      const record = rankRecord.read(row);
      if (list) list.push(record);
      else out.set(id, [record]);
    }
    return out;
  }
}

/**
 * A ledger of schema 1 has no rank rows: each run's ranks are filled from its steps (the probe's
 * per-rank figures) and its `start` events (their hosts), so its older runs read as they were recorded.
 */
export const BACKFILL_RANKS_SQL = `INSERT INTO run_ranks (run_id, rank, local_rank, world_size, host, pid, gpu,
    peak_allocated_bytes, peak_reserved_bytes, steps, last_step)
  SELECT s.run_id, s.rank, max(s.local_rank), NULL,
    coalesce((SELECT json_extract(e.data, '$.host') FROM events e
              WHERE e.run_id = s.run_id AND e.kind = 'start' AND e.rank = s.rank ORDER BY e.id LIMIT 1),
             (SELECT host FROM runs WHERE runs.id = s.run_id)),
    max(s.pid), min(s.device), max(s.peak_allocated_bytes), max(s.peak_reserved_bytes),
    count(DISTINCT s.step), max(s.step)
  FROM steps s GROUP BY s.run_id, s.rank`;

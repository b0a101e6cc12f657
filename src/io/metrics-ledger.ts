/**
 * The MetricsSource over the ledger (src/io/ledger.ts): runs from the `runs` table, each rank's card
 * and peaks from its row in `run_ranks` (src/io/ledger-ranks.ts: what the probe recorded per rank, its
 * host and card, and nvidia-smi's per-process figure on that card). A read-only connection of its own,
 * opened per scrape.
 *
 * Bounded per scrape: one query over `runs` (O(runs)); a finished run's ranks and findings are kept
 * after their first reading, keyed by what would change them, so only runs still recording (or just
 * changed) are read again, in one query over the rank rows of those runs alone.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fileError } from '../core/file-errors.js';
import {
  cardOf,
  type FindingCount,
  type LevelBytes,
  type ListedGpu,
  type MetricsSource,
  nvmlUuid,
  type RankMetrics,
  type RunMetrics,
} from '../core/fleet/metrics-source.js';
import { diagnoseRun } from './diagnose-run.js';
import { LEDGER_BUSY_TIMEOUT_MS, LEDGER_FILE, LEDGER_SCHEMA_VERSION, Ledger } from './ledger.js';

type Row = Record<string, unknown>;

/** How many runs' diagnoses one scrape may compute; the rest follow on later scrapes. */
export const DIAGNOSES_PER_SCRAPE = 16;
/** Run ids per IN (…) list, below SQLite's default limit of bound parameters. */
const CHUNK = 500;

export interface LedgerMetricsOptions {
  /** HEADROOM_HOME: the folder of ledger.db. */
  readonly home: string;
  /** Only this run (headroom run --metrics-port); every run otherwise. */
  readonly runId?: number;
  /** A run's diagnosis as codes and severities; none when left out. */
  readonly findings?: (runId: number) => readonly { code: string; severity: string }[];
  /** At most this many diagnoses per scrape (DIAGNOSES_PER_SCRAPE). */
  readonly diagnosesPerScrape?: number;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function levels(value: unknown): LevelBytes | null {
  if (!isRecord(value)) return null;
  const n = (k: string) => (typeof value[k] === 'number' && Number.isFinite(value[k]) ? value[k] : null);
  const out = {
    allocatedBytes: n('allocatedBytes'),
    reservedBytes: n('reservedBytes'),
    deviceBytes: n('deviceBytes'),
  };
  return out.allocatedBytes === null && out.reservedBytes === null && out.deviceBytes === null ? null : out;
}

interface Cached {
  readonly key: string;
  readonly ranks: readonly RankMetrics[];
}

export class LedgerMetricsSource implements MetricsSource {
  private readonly path: string;
  private readonly ranksCache = new Map<number, Cached>();
  private readonly findingsCache = new Map<number, { key: string; findings: FindingCount[] }>();

  constructor(private readonly options: LedgerMetricsOptions) {
    this.path = join(options.home, LEDGER_FILE);
  }

  runs(): RunMetrics[] {
    if (!existsSync(this.path)) return [];
    const db = new Database(this.path, { readonly: true, fileMustExist: true });
    try {
      db.pragma(`busy_timeout = ${LEDGER_BUSY_TIMEOUT_MS}`);
      const version = Number(db.pragma('user_version', { simple: true }));
      if (version === 0) return []; // created, not yet written
      // Schema 2 added the snapshots table and runs.versions, which the exposition does not read: a ledger
      // of 1 (not yet opened since) reads the same.
      if (version > LEDGER_SCHEMA_VERSION) {
        throw fileError(
          'ledger-newer',
          { path: this.path, version, reads: LEDGER_SCHEMA_VERSION, reader: 'exposition' },
          this.path,
        );
      }
      return this.read(db);
    } finally {
      db.close();
    }
  }

  private read(db: Database.Database): RunMetrics[] {
    const only = this.options.runId;
    const rows = db
      .prepare(
        `SELECT id, name, status, host, estimate, env, last_step, ended_at_ms,
           peak_allocated_bytes, peak_reserved_bytes, peak_reserved_gpu, peak_device_bytes, peak_device_gpu,
           (SELECT sum(steps) FROM run_ranks WHERE run_ranks.run_id = runs.id) AS rank_steps
         FROM runs ${only === undefined ? '' : 'WHERE id = ?'} ORDER BY id`,
      )
      .all(...(only === undefined ? [] : [only])) as Row[];
    // What changes a run's reading; a run still recording can change any rank at any time.
    const keyOf = (r: Row) =>
      [
        r.status,
        r.last_step,
        r.ended_at_ms,
        r.peak_allocated_bytes,
        r.peak_reserved_bytes,
        r.peak_device_bytes,
        // Every rank's progress: the last rank to reach a step changes no column of runs.
        r.rank_steps,
      ].join('|');
    const stale = rows.filter(
      (r) => r.status === 'running' || this.ranksCache.get(Number(r.id))?.key !== keyOf(r),
    );
    if (stale.length > 0) {
      const fresh = this.readRanks(db, stale);
      for (const r of stale)
        this.ranksCache.set(Number(r.id), { key: keyOf(r), ranks: fresh.get(Number(r.id)) ?? [] });
    }
    // Runs deleted from the ledger leave the caches.
    const ids = new Set(rows.map((r) => Number(r.id)));
    for (const id of this.ranksCache.keys()) if (!ids.has(id)) this.ranksCache.delete(id);
    for (const id of this.findingsCache.keys()) if (!ids.has(id)) this.findingsCache.delete(id);

    let diagnoses = this.options.diagnosesPerScrape ?? DIAGNOSES_PER_SCRAPE;
    return rows.map((r) => {
      const id = Number(r.id);
      const estimate = parse(r.estimate);
      let findings: FindingCount[] = [];
      const find = this.options.findings;
      if (find) {
        const cached = this.findingsCache.get(id);
        if (cached?.key === keyOf(r)) findings = cached.findings;
        else if (diagnoses > 0) {
          diagnoses--;
          findings = countFindings(find(id));
          this.findingsCache.set(id, { key: keyOf(r), findings });
        } else if (cached) findings = cached.findings;
      }
      return {
        id,
        name: str(r.name) ?? `run ${id}`,
        running: r.status === 'running',
        host: str(r.host),
        ranks: this.ranksCache.get(id)?.ranks ?? [],
        estimate: levels(estimate),
        upper: isRecord(estimate) ? levels(estimate.upper) : null,
        findings,
      };
    });
  }

  /** The ranks of some runs, from their rank rows (src/io/ledger-ranks.ts): one query per chunk of runs. */
  private readRanks(db: Database.Database, runs: readonly Row[]): Map<number, RankMetrics[]> {
    const out = new Map<number, RankMetrics[]>();
    for (let i = 0; i < runs.length; i += CHUNK) {
      const chunk = runs.slice(i, i + CHUNK);
      const ids = chunk.map((r) => Number(r.id));
      const list = ids.map(() => '?').join(', ');
      const rows = db
        .prepare(
          `SELECT run_id, rank, local_rank, host, gpu, gpu_uuid, cuda_visible_devices,
             peak_allocated_bytes, peak_reserved_bytes, peak_device_bytes, last_step
           FROM run_ranks WHERE run_id IN (${list}) ORDER BY run_id, rank, host`,
        )
        .all(...ids) as Row[];
      const byRunRanks = byRun(rows);
      for (const run of chunk) {
        const id = Number(run.id);
        out.set(id, ranksOf(run, byRunRanks.get(id) ?? []));
      }
    }
    return out;
  }
}

function byRun(rows: readonly Row[]): Map<number, Row[]> {
  const out = new Map<number, Row[]>();
  for (const r of rows) {
    const id = Number(r.run_id);
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  return out;
}

function countFindings(findings: readonly { code: string; severity: string }[]): FindingCount[] {
  const counts = new Map<string, FindingCount>();
  for (const f of findings) {
    const key = `${f.code}\u0000${f.severity}`;
    counts.set(key, { code: f.code, severity: f.severity, count: (counts.get(key)?.count ?? 0) + 1 });
  }
  return [...counts.values()];
}

/** One run's ranks, each on the card that held its peak. */
function ranksOf(run: Row, rows: readonly Row[]): RankMetrics[] {
  const env = parse(run.env);
  const listed: ListedGpu[] =
    isRecord(env) && Array.isArray(env.gpus)
      ? env.gpus
          .filter(isRecord)
          .flatMap((g) =>
            typeof g.index === 'number'
              ? [{ index: g.index, uuid: typeof g.uuid === 'string' ? g.uuid : null }]
              : [],
          )
      : [];
  const runCvd = isRecord(env) && typeof env.cudaVisibleDevices === 'string' ? env.cudaVisibleDevices : null;
  const runHost = str(run.host);
  const ranks = rows
    .filter((r) => r.peak_allocated_bytes !== null || r.peak_reserved_bytes !== null || r.last_step !== null)
    .map((r): RankMetrics => {
      const host = str(r.host) ?? runHost;
      // The cards nvidia-smi listed before the run are those of the recorder's machine only.
      const here = host === null || host === runHost;
      const cvd = str(r.cuda_visible_devices) ?? (here ? runCvd : null);
      const card = cardOf(num(r.gpu), str(r.gpu_uuid), cvd, here ? listed : []);
      return {
        rank: Number(r.rank),
        localRank: num(r.local_rank),
        host,
        gpu: card.gpu,
        uuid: card.uuid,
        peakAllocatedBytes: num(r.peak_allocated_bytes),
        peakReservedBytes: num(r.peak_reserved_bytes),
        peakDeviceBytes: num(r.peak_device_bytes),
        lastStep: num(r.last_step),
      };
    });
  if (ranks.length > 0) return ranks;
  // Nothing from the probe: the run's own peaks (nvidia-smi alone, or an older record) as rank 0.
  const device = num(run.peak_device_bytes);
  const reserved = num(run.peak_reserved_bytes);
  const allocated = num(run.peak_allocated_bytes);
  if (device === null && reserved === null && allocated === null) return [];
  // The device peak's GPU is nvidia-smi's index already; the probe's is a CUDA ordinal.
  const smiGpu = device === null ? null : num(run.peak_device_gpu);
  const card =
    smiGpu !== null
      ? { gpu: smiGpu, uuid: nvmlUuid(listed.find((g) => g.index === smiGpu)?.uuid) }
      : cardOf(num(run.peak_reserved_gpu), null, runCvd, listed);
  return [
    {
      rank: 0,
      localRank: 0,
      host: str(run.host),
      gpu: card.gpu,
      uuid: card.uuid,
      peakAllocatedBytes: allocated,
      peakReservedBytes: reserved,
      peakDeviceBytes: device,
      lastStep: num(run.last_step),
    },
  ];
}

/** A run's diagnosis (src/io/diagnose-run.ts) as codes and severities: what `headroom_findings` counts. */
export function diagnosedFindings(home: string): (runId: number) => { code: string; severity: string }[] {
  return (runId) => {
    const ledger = Ledger.open(home);
    try {
      return diagnoseRun(ledger, runId).findings.map((f) => ({ code: f.code, severity: f.severity }));
    } finally {
      ledger.close();
    }
  };
}

/** The runs of a HEADROOM_HOME (or one of them) with their findings: what /metrics serves. */
export function ledgerMetricsSource(home: string, runId?: number): LedgerMetricsSource {
  return new LedgerMetricsSource({
    home,
    findings: diagnosedFindings(home),
    ...(runId === undefined ? {} : { runId }),
  });
}

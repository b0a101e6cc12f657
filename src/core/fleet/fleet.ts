/**
 * The fleet: every card dcgm-exporter reports through Prometheus, the Headroom runs recorded on each,
 * and what is wrong across them — a full card with no run of ours (a leftover job), a card of a job
 * far above its siblings, memory on a card that no process of ours accounts for. Pure: it reads the
 * instant vectors src/io/prometheus.ts fetched and returns data; the words are in src/words/fleet.ts.
 */
import type { MessageOf } from '../message.js';
import { DCGM_LABELS } from './names.js';
import type { VectorSample } from './prometheus-response.js';

const MIB = 2 ** 20;
const GIB = 2 ** 30;

/**
 * A card is full at 95 % of its memory used: what is left is about the size of one CUDA context and
 * the allocator's rounding, too little for any training process to start on it.
 */
export const FULL_RATIO = 0.95;
/**
 * A card is far above its siblings (the other cards of the same run) when its used memory passes their
 * median by more than 20 % of the card or 2 GiB, whichever is larger. Ranks of one data-parallel job
 * hold the same states; rank 0's usual extras (gathered outputs, logging, the checkpoint writer) stay
 * within a few GiB, which the floor covers on small cards and the fraction on large ones.
 */
export const SIBLING_RATIO = 0.2;
export const SIBLING_FLOOR_BYTES = 2 * GIB;
/**
 * Used memory is unaccounted for when it passes what our processes on the card hold (per rank the
 * larger of nvidia-smi's per-process figure and torch's peak reserved) by more than 10 % of the card
 * or 1 GiB. The floor covers a CUDA context per process, which torch's reserved does not count
 * (about 500 MiB: the estimator's CUDA_CONTEXT_BYTES); peaks at or above the current figure only
 * lower the difference, so what passes it is memory of another process.
 */
export const UNACCOUNTED_RATIO = 0.1;
export const UNACCOUNTED_FLOOR_BYTES = GIB;

export type FleetSeverity = 'error' | 'warn' | 'info';

/** Where a card is: its host as dcgm-exporter names it, its index and UUID. */
export interface CardRef {
  readonly host: string | null;
  readonly gpu: number | null;
  readonly uuid: string | null;
}

/** The params of each fleet finding: raw bytes and ratios, plus the card and the run they are about. */
export interface FleetFindingParams {
  readonly 'full-no-run': CardRef & { readonly usedBytes: number; readonly totalBytes: number };
  readonly 'above-siblings': CardRef & {
    readonly run: string;
    readonly name: string | null;
    readonly usedBytes: number;
    readonly medianBytes: number;
    readonly thresholdBytes: number;
    readonly cards: number;
  };
  readonly unaccounted: CardRef & {
    readonly usedBytes: number;
    readonly accountedBytes: number;
    readonly unaccountedBytes: number;
    readonly totalBytes: number;
  };
}

export type FleetFinding = MessageOf<FleetFindingParams> & { readonly severity: FleetSeverity };

/** How bad each finding is: each keeps a card (or a job's balance) from being used as planned. */
export const FLEET_SEVERITY: Readonly<Record<keyof FleetFindingParams, FleetSeverity>> = {
  'full-no-run': 'warn',
  'above-siblings': 'warn',
  unaccounted: 'warn',
};

/** One rank of a Headroom run on a card, from our series. */
export interface FleetRank {
  /** The exporter that reported it (Prometheus' `instance`), which tells two ledgers' run 7 apart. */
  readonly instance: string | null;
  readonly run: string;
  readonly name: string | null;
  readonly rank: string | null;
  readonly allocatedBytes: number | null;
  readonly reservedBytes: number | null;
  readonly deviceBytes: number | null;
}

export interface FleetGpu extends CardRef {
  readonly modelName: string | null;
  readonly usedBytes: number | null;
  readonly freeBytes: number | null;
  /** used + free + reserved (NVML's total is the three together). */
  readonly totalBytes: number | null;
  readonly reservedBytes: number | null;
  /** The running Headroom runs on the card. */
  readonly runs: readonly FleetRank[];
}

export interface FleetReport {
  readonly gpus: readonly FleetGpu[];
  readonly findings: readonly FleetFinding[];
}

/** What `headroom fleet --json` prints and GET /api/fleet answers: the report, and where it came from. */
export interface FleetReading extends FleetReport {
  /** The Prometheus asked (its base URL, never with credentials). */
  readonly prometheus: string;
  /** Prometheus' own warnings on the answers (a partial answer, say). */
  readonly warnings: readonly string[];
}

/** The instant vectors the fleet reads. */
export interface FleetInput {
  /** DCGM_FI_DEV_FB_USED, _FREE, _RESERVED (MiB). */
  readonly used: readonly VectorSample[];
  readonly free: readonly VectorSample[];
  readonly reserved: readonly VectorSample[];
  /** headroom_run_peak_bytes. */
  readonly peaks: readonly VectorSample[];
  /** headroom_run_running. */
  readonly running: readonly VectorSample[];
}

const label = (m: Readonly<Record<string, string>>, name: string): string | null => {
  const v = m[name];
  return v === undefined || v === '' ? null : v;
};
const hostOf = (m: Readonly<Record<string, string>>) =>
  label(m, DCGM_LABELS.hostname) ?? label(m, DCGM_LABELS.hostnameLater);
const indexOf = (m: Readonly<Record<string, string>>): number | null => {
  const v = label(m, DCGM_LABELS.gpu);
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
};

/** A card's identity: its UUID (and MIG instance), else its host and index. */
function cardKey(m: Readonly<Record<string, string>>): string {
  const uuid = label(m, DCGM_LABELS.uuid);
  const mig = label(m, DCGM_LABELS.migInstance);
  if (uuid !== null) return `uuid:${uuid}${mig === null ? '' : `/${mig}`}`;
  return `host:${hostOf(m) ?? ''}/${label(m, DCGM_LABELS.gpu) ?? ''}${mig === null ? '' : `/${mig}`}`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const runKey = (m: Readonly<Record<string, string>>) =>
  `${m.job ?? ''}\u0000${m.instance ?? ''}\u0000${m.run ?? ''}`;

/** Our ranks per card, of the runs still running. */
function ranksByCard(input: FleetInput): {
  byUuid: Map<string, FleetRank[]>;
  byHostGpu: Map<string, FleetRank[]>;
} {
  const running = new Set(input.running.filter((s) => s.value === 1).map((s) => runKey(s.metric)));
  const ranks = new Map<string, { card: Readonly<Record<string, string>>; rank: FleetRank }>();
  for (const s of input.peaks) {
    const m = s.metric;
    if (m.run === undefined || !running.has(runKey(m))) continue;
    const key = `${runKey(m)}\u0000${m.rank ?? ''}\u0000${cardKey(m)}`;
    const seen = ranks.get(key)?.rank ?? {
      instance: label(m, 'instance'),
      run: m.run,
      name: label(m, 'name'),
      rank: label(m, 'rank'),
      allocatedBytes: null,
      reservedBytes: null,
      deviceBytes: null,
    };
    const level = m.level;
    const next =
      level === 'allocated'
        ? { ...seen, allocatedBytes: s.value }
        : level === 'reserved'
          ? { ...seen, reservedBytes: s.value }
          : level === 'device'
            ? { ...seen, deviceBytes: s.value }
            : seen;
    ranks.set(key, { card: m, rank: next });
  }
  const byUuid = new Map<string, FleetRank[]>();
  const byHostGpu = new Map<string, FleetRank[]>();
  for (const { card, rank } of ranks.values()) {
    const uuid = label(card, DCGM_LABELS.uuid);
    const host = hostOf(card);
    const gpu = indexOf(card);
    if (uuid !== null) byUuid.set(uuid, [...(byUuid.get(uuid) ?? []), rank]);
    else if (host !== null && gpu !== null) {
      const key = `${host}\u0000${gpu}`;
      byHostGpu.set(key, [...(byHostGpu.get(key) ?? []), rank]);
    }
  }
  return { byUuid, byHostGpu };
}

/** The cards, their runs and the findings. */
export function analyzeFleet(input: FleetInput): FleetReport {
  const cards = new Map<
    string,
    {
      metric: Readonly<Record<string, string>>;
      used: number | null;
      free: number | null;
      reserved: number | null;
    }
  >();
  const take = (samples: readonly VectorSample[], field: 'used' | 'free' | 'reserved') => {
    for (const s of samples) {
      const key = cardKey(s.metric);
      const card = cards.get(key) ?? { metric: s.metric, used: null, free: null, reserved: null };
      // A card scraped twice (two jobs on one exporter) keeps its first series.
      if (card[field] === null) card[field] = Math.round(s.value * MIB);
      cards.set(key, card);
    }
  };
  take(input.used, 'used');
  take(input.free, 'free');
  take(input.reserved, 'reserved');

  const { byUuid, byHostGpu } = ranksByCard(input);
  const gpus: FleetGpu[] = [...cards.values()].map(({ metric, used, free, reserved }) => {
    const host = hostOf(metric);
    const gpu = indexOf(metric);
    const uuid = label(metric, DCGM_LABELS.uuid);
    const runs = [
      ...(uuid === null ? [] : (byUuid.get(uuid) ?? [])),
      ...(host === null || gpu === null ? [] : (byHostGpu.get(`${host}\u0000${gpu}`) ?? [])),
    ];
    return {
      host,
      gpu,
      uuid,
      modelName: label(metric, DCGM_LABELS.modelName),
      usedBytes: used,
      freeBytes: free,
      totalBytes: used === null || free === null ? null : used + free + (reserved ?? 0),
      reservedBytes: reserved,
      runs,
    };
  });
  gpus.sort(
    (a, b) =>
      (a.host ?? '').localeCompare(b.host ?? '') ||
      (a.gpu ?? Number.MAX_SAFE_INTEGER) - (b.gpu ?? Number.MAX_SAFE_INTEGER) ||
      (a.uuid ?? '').localeCompare(b.uuid ?? ''),
  );
  return { gpus, findings: findingsOf(gpus) };
}

function findingsOf(gpus: readonly FleetGpu[]): FleetFinding[] {
  const findings: FleetFinding[] = [];
  const ref = (g: FleetGpu): CardRef => ({ host: g.host, gpu: g.gpu, uuid: g.uuid });
  for (const g of gpus) {
    if (g.usedBytes === null || g.totalBytes === null || g.totalBytes <= 0) continue;
    if (g.runs.length === 0 && g.usedBytes >= FULL_RATIO * g.totalBytes) {
      findings.push({
        code: 'full-no-run',
        severity: FLEET_SEVERITY['full-no-run'],
        params: { ...ref(g), usedBytes: g.usedBytes, totalBytes: g.totalBytes },
      });
    }
    if (g.runs.length > 0) {
      const accounted = g.runs.reduce(
        (sum, r) => sum + Math.max(r.deviceBytes ?? 0, r.reservedBytes ?? 0),
        0,
      );
      const unaccounted = g.usedBytes - accounted;
      if (unaccounted > Math.max(UNACCOUNTED_FLOOR_BYTES, UNACCOUNTED_RATIO * g.totalBytes)) {
        findings.push({
          code: 'unaccounted',
          severity: FLEET_SEVERITY.unaccounted,
          params: {
            ...ref(g),
            usedBytes: g.usedBytes,
            accountedBytes: accounted,
            unaccountedBytes: unaccounted,
            totalBytes: g.totalBytes,
          },
        });
      }
    }
  }
  // A job's cards: the cards where one run (of one exporter) has a rank.
  const jobs = new Map<string, { run: FleetRank; cards: FleetGpu[] }>();
  for (const g of gpus) {
    for (const r of g.runs) {
      const key = `${r.instance ?? ''}\u0000${r.run}`;
      const job = jobs.get(key) ?? { run: r, cards: [] };
      if (!job.cards.includes(g)) job.cards.push(g);
      jobs.set(key, job);
    }
  }
  for (const { run, cards } of jobs.values()) {
    const measured = cards.filter(
      (g): g is FleetGpu & { usedBytes: number; totalBytes: number } =>
        g.usedBytes !== null && g.totalBytes !== null,
    );
    if (measured.length < 2) continue;
    const mid = Math.round(median(measured.map((g) => g.usedBytes)));
    for (const g of measured) {
      const threshold = Math.round(Math.max(SIBLING_FLOOR_BYTES, SIBLING_RATIO * g.totalBytes));
      if (g.usedBytes > mid + threshold) {
        findings.push({
          code: 'above-siblings',
          severity: FLEET_SEVERITY['above-siblings'],
          params: {
            ...ref(g),
            run: run.run,
            name: run.name,
            usedBytes: g.usedBytes,
            medianBytes: mid,
            thresholdBytes: threshold,
            cards: measured.length,
          },
        });
      }
    }
  }
  // In the cards' order, and on one card in the order of the codes.
  const order = (f: FleetFinding) =>
    gpus.findIndex((g) => g.host === f.params.host && g.gpu === f.params.gpu && g.uuid === f.params.uuid);
  const codes = Object.keys(FLEET_SEVERITY);
  return findings.sort((a, b) => order(a) - order(b) || codes.indexOf(a.code) - codes.indexOf(b.code));
}

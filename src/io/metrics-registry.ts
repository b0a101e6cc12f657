/**
 * The Prometheus exposition of Headroom's runs, written by prom-client from a MetricsSource: a fresh
 * Registry per scrape (never prom-client's global one), so two servers in one process, or two tests,
 * never share series, and a run deleted from the ledger leaves the next scrape at once.
 */
import { Gauge, Registry } from 'prom-client';
import type { LevelBytes, MetricsSource, RankMetrics, RunMetrics } from '../core/fleet/metrics-source.js';
import { HEADROOM_METRICS, type HeadroomMetric, MEMORY_LEVELS } from '../core/fleet/names.js';

export interface Exposition {
  readonly contentType: string;
  readonly body: string;
}

type Labels = Record<string, string>;

const LEVEL_FIELD = {
  allocated: 'allocatedBytes',
  reserved: 'reservedBytes',
  device: 'deviceBytes',
} as const satisfies Readonly<Record<(typeof MEMORY_LEVELS)[number], keyof LevelBytes>>;

const RANK_FIELD = {
  allocated: 'peakAllocatedBytes',
  reserved: 'peakReservedBytes',
  device: 'peakDeviceBytes',
} as const;

/** Labels with a value: an unknown one is left out (Prometheus reads an absent and an empty label alike). */
function known(labels: Readonly<Record<string, string | number | null>>): Labels {
  const out: Labels = {};
  for (const [k, v] of Object.entries(labels)) if (v !== null && v !== '') out[k] = String(v);
  return out;
}

interface Series {
  readonly labels: Labels;
  readonly value: number;
}

/**
 * A gauge whose series are given whole: prom-client writes them (names, escaping, the text format),
 * without hashing each label set into its own map first, which is most of a large scrape's time.
 */
class SeriesGauge extends Gauge<string> {
  private readonly series: readonly Series[];

  constructor(metric: HeadroomMetric, registry: Registry, series: readonly Series[]) {
    super({ name: metric.name, help: metric.help, labelNames: metric.labels, registers: [registry] });
    this.series = series;
  }

  override async get() {
    return { ...(await super.get()), values: [...this.series] };
  }
}

/** A run's per-rank series, kept while the source hands back the same ranks (a finished run's). */
const rankSeries = new WeakMap<
  readonly RankMetrics[],
  { readonly key: string; readonly peaks: readonly Series[]; readonly steps: readonly Series[] }
>();

function seriesOfRanks(run: RunMetrics): { peaks: readonly Series[]; steps: readonly Series[] } {
  const id = String(run.id);
  const key = `${id}\u0000${run.name}\u0000${run.host ?? ''}`;
  const cached = rankSeries.get(run.ranks);
  if (cached?.key === key) return cached;
  const peaks: Series[] = [];
  const steps: Series[] = [];
  for (const r of run.ranks) {
    const card = known({
      run: id,
      name: run.name,
      rank: r.rank,
      Hostname: r.host ?? run.host,
      gpu: r.gpu,
      UUID: r.uuid,
    });
    for (const level of MEMORY_LEVELS) {
      const bytes = r[RANK_FIELD[level]];
      if (bytes !== null) peaks.push({ labels: { ...card, level }, value: bytes });
    }
    if (r.lastStep !== null) steps.push({ labels: { run: id, rank: String(r.rank) }, value: r.lastStep });
  }
  const entry = { key, peaks, steps };
  rankSeries.set(run.ranks, entry);
  return entry;
}

/** Fills a fresh registry with the series of the runs. */
export function registryOf(runs: readonly RunMetrics[]): Registry {
  const peaks: Series[] = [];
  const steps: Series[] = [];
  const running: Series[] = [];
  const estimate: Series[] = [];
  const upper: Series[] = [];
  const findings: Series[] = [];
  for (const run of runs) {
    const id = String(run.id);
    running.push({
      labels: known({ run: id, name: run.name, Hostname: run.host }),
      value: run.running ? 1 : 0,
    });
    const ranks = seriesOfRanks(run);
    for (const s of ranks.peaks) peaks.push(s);
    for (const s of ranks.steps) steps.push(s);
    for (const [figure, series] of [
      [run.estimate, estimate],
      [run.upper, upper],
    ] as const) {
      if (figure === null) continue;
      for (const level of MEMORY_LEVELS) {
        const bytes = figure[LEVEL_FIELD[level]];
        if (bytes !== null) series.push({ labels: { run: id, level }, value: bytes });
      }
    }
    for (const f of run.findings)
      findings.push({ labels: { run: id, code: f.code, severity: f.severity }, value: f.count });
  }
  const registry = new Registry();
  new SeriesGauge(HEADROOM_METRICS.peakBytes, registry, peaks);
  new SeriesGauge(HEADROOM_METRICS.step, registry, steps);
  new SeriesGauge(HEADROOM_METRICS.running, registry, running);
  new SeriesGauge(HEADROOM_METRICS.estimateBytes, registry, estimate);
  new SeriesGauge(HEADROOM_METRICS.upperBytes, registry, upper);
  new SeriesGauge(HEADROOM_METRICS.findings, registry, findings);
  return registry;
}

/** The exposition of a source's runs, in Prometheus' text format (version 0.0.4). */
export async function exposition(source: MetricsSource): Promise<Exposition> {
  const registry = registryOf(await source.runs());
  return { contentType: registry.contentType, body: await registry.metrics() };
}

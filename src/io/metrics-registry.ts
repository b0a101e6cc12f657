/**
 * The Prometheus exposition of Headroom's runs, written by prom-client from a MetricsSource: a fresh
 * Registry per scrape (never prom-client's global one), so two servers in one process, or two tests,
 * never share series, and a run deleted from the ledger leaves the next scrape at once.
 */
import { Gauge, Registry } from 'prom-client';
import type { LevelBytes, MetricsSource, RunMetrics } from '../core/fleet/metrics-source.js';
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

/** Fills a registry with the series of the runs. */
export function registryOf(runs: readonly RunMetrics[]): Registry {
  const registry = new Registry();
  const gauge = (m: HeadroomMetric) =>
    new Gauge({ name: m.name, help: m.help, labelNames: m.labels, registers: [registry] });
  const peak = gauge(HEADROOM_METRICS.peakBytes);
  const step = gauge(HEADROOM_METRICS.step);
  const running = gauge(HEADROOM_METRICS.running);
  const estimate = gauge(HEADROOM_METRICS.estimateBytes);
  const upper = gauge(HEADROOM_METRICS.upperBytes);
  const findings = gauge(HEADROOM_METRICS.findings);
  for (const run of runs) {
    const id = String(run.id);
    running.set(known({ run: id, name: run.name, Hostname: run.host }), run.running ? 1 : 0);
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
        if (bytes !== null) peak.set({ ...card, level }, bytes);
      }
      if (r.lastStep !== null) step.set({ run: id, rank: String(r.rank) }, r.lastStep);
    }
    for (const [figure, series] of [
      [run.estimate, estimate],
      [run.upper, upper],
    ] as const) {
      if (figure === null) continue;
      for (const level of MEMORY_LEVELS) {
        const bytes = figure[LEVEL_FIELD[level]];
        if (bytes !== null) series.set({ run: id, level }, bytes);
      }
    }
    for (const f of run.findings) findings.set({ run: id, code: f.code, severity: f.severity }, f.count);
  }
  return registry;
}

/** The exposition of a source's runs, in Prometheus' text format (version 0.0.4). */
export async function exposition(source: MetricsSource): Promise<Exposition> {
  const registry = registryOf(await source.runs());
  return { contentType: registry.contentType, body: await registry.metrics() };
}

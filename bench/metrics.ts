/**
 * Scrape benchmark: how long `GET /metrics` of `headroom serve` takes with 1,000 runs × 8 ranks in
 * the ledger. Run: npm run bench:metrics. Writes bench/results/metrics.md; the figures go in the docs.
 *
 * The ledger: 1,000 runs of 8 ranks, 20 steps each (160,000 step rows), one of them still running. Cases: the first scrape of a fresh
 * server (every run's ranks read, the first DIAGNOSES_PER_SCRAPE diagnoses); the scrapes after it
 * while the diagnoses catch up; and the steady scrape, where only the running run is read again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ledger } from '../src/io/ledger.js';
import { DIAGNOSES_PER_SCRAPE, ledgerMetricsSource } from '../src/io/metrics-ledger.js';
import { exposition, registryOf } from '../src/io/metrics-registry.js';
import { createDashboardApp } from '../src/server/dashboard.js';
import { recordRun } from '../test/fleet-fixture.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 1000;
const RANKS = 8;
const STEPS = 20;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t: number) => `${t.toFixed(1)}`;

const home = mkdtempSync(join(tmpdir(), 'headroom-bench-metrics-'));
const ledger = Ledger.open(home);
const built = performance.now();
for (let i = 0; i < RUNS; i++) {
  recordRun(ledger, {
    name: `run-${i}`,
    host: `node-${i % 16}`,
    status: i === RUNS - 1 ? 'running' : 'ok',
    estimate: { allocatedBytes: 30e9, reservedBytes: 32e9, deviceBytes: 33e9 },
    ranks: Array.from({ length: RANKS }, (_, rank) => ({
      rank,
      uuid: `a0a0a0a0-0000-4000-8000-${String(i * RANKS + rank).padStart(12, '0')}`,
      allocatedMiB: 30_000 + rank,
      reservedMiB: 32_000 + rank * 20,
      steps: STEPS,
    })),
    startMs: 1_767_225_600_000 + i * 3_600_000,
  });
}
ledger.close();
const buildS = (performance.now() - built) / 1000;

// A fresh server's source: the first scrape, then the ones while the diagnoses catch up.
const source = ledgerMetricsSource(home);
const timed = async () => {
  const t0 = performance.now();
  const runs = await source.runs();
  const t1 = performance.now();
  const registry = registryOf(runs);
  const body = await registry.metrics();
  const t2 = performance.now();
  return { read: t1 - t0, write: t2 - t1, total: t2 - t0, body };
};
const first = await timed();
const catchUp: number[] = [];
for (let i = 1; i < Math.ceil(RUNS / DIAGNOSES_PER_SCRAPE); i++) catchUp.push((await timed()).total);
const steady = Array.from({ length: 15 }, () => 0);
const steadyParts = { read: [] as number[], write: [] as number[] };
let body = '';
for (let i = 0; i < steady.length; i++) {
  const t = await timed();
  steady[i] = t.total;
  steadyParts.read.push(t.read);
  steadyParts.write.push(t.write);
  body = t.body;
}
const series = body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;

// The same through the server: GET /metrics of the dashboard app (Hono), warm.
const app = await createDashboardApp({
  webRoot: join(root, 'dist', 'web'),
  env: { HEADROOM_HOME: home },
  demo: false,
});
for (let i = 0; i < Math.ceil(RUNS / DIAGNOSES_PER_SCRAPE); i++) await (await app.request('/metrics')).text();
const http: number[] = [];
for (let i = 0; i < 15; i++) {
  const t0 = performance.now();
  await (await app.request('/metrics')).text();
  http.push(performance.now() - t0);
}
// And a source without findings (the exposition's own cost, diagnoses aside), cold.
const bare = await (async () => {
  const { LedgerMetricsSource } = await import('../src/io/metrics-ledger.js');
  const s = new LedgerMetricsSource({ home });
  const t0 = performance.now();
  await exposition(s);
  return performance.now() - t0;
})();

const cpu = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const date = new Date().toISOString().slice(0, 10);
const report = `# Scrape time of /metrics

\`npm run bench:metrics\` (${date}, ${cpus().length} × ${cpu}, Node ${process.version}): \`GET /metrics\` of
\`headroom serve\` with ${RUNS.toLocaleString('en-US')} runs × ${RANKS} ranks in the ledger (${STEPS} steps per rank:
${(RUNS * RANKS * STEPS).toLocaleString('en-US')} step rows; one run still running), built in ${buildS.toFixed(1)} s.
The exposition holds ${series.toLocaleString('en-US')} series (${(body.length / 2 ** 20).toFixed(1)} MiB of text).

| scrape | ms |
| --- | ---: |
| first scrape of a fresh server: every run's ranks read, ${DIAGNOSES_PER_SCRAPE} diagnoses | ${ms(first.total)} |
| first scrape without findings (ranks and exposition alone) | ${ms(bare)} |
| the ${catchUp.length} scrapes while the diagnoses catch up (${DIAGNOSES_PER_SCRAPE} each), median | ${ms(median(catchUp))} |
| steady scrape (finished runs cached, the running one read again), median of ${steady.length} | ${ms(median(steady))} |
| of which: reading the ledger | ${ms(median(steadyParts.read))} |
| of which: prom-client registry and text | ${ms(median(steadyParts.write))} |
| steady, through the server (Hono app.request('/metrics')), median of ${http.length} | ${ms(median(http))} |

A scrape reads the \`runs\` table once (with each run's sum of rank steps); a run's ranks (its rows in \`run_ranks\`)
are read when it is new or changed and kept once it has ended, so a steady scrape costs O(runs · ranks)
plus the rows of the runs still recording. The diagnoses behind \`headroom_findings\` are the costly part
of a first reading: at most ${DIAGNOSES_PER_SCRAPE} per scrape, so a fresh server's findings are complete after
${Math.ceil(RUNS / DIAGNOSES_PER_SCRAPE)} scrapes (about ${Math.ceil(((RUNS / DIAGNOSES_PER_SCRAPE) * 15) / 60)} minutes at Prometheus' default 15 s interval).
`;
writeFileSync(join(root, 'bench', 'results', 'metrics.md'), report);
console.log(report);

/**
 * Allocator benchmark: PyTorch's caching allocator replayed (src/core/allocator) over training runs of
 * padded batches against the same runs at one fixed length. Prints how the reserve climbs with the
 * steps and, over the whole sweep, the term src/core/estimate/allocator.ts adds for padding "longest".
 * Writes bench/results/allocator.md and the runs, bench/results/allocator-runs.json (which
 * src/core/estimate/allocator.test.ts reads the term's constants back from).
 * Run: npm run bench:allocator
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fixedReserveTerm,
  quantile,
  REPORTED_STEPS,
  reserveGrowthTerm,
  SWEEP_STEPS,
  type SweepCase,
  type SweepRow,
  sweepCases,
} from '../src/core/allocator/sweep.js';
import { FIXED_RESERVE, RESERVE_GROWTH } from '../src/core/estimate/allocator.js';

interface Level {
  readonly churnBytes: number;
  readonly fixedShare: number;
  readonly allocatedDifferenceBytes: number;
  readonly extraAt: readonly number[];
  /** The least the padded run needs above the fixed reserve, under a limit, over the churn. */
  readonly pressureExtraShare: number;
}
export interface StoredRun {
  readonly index: number;
  readonly case: SweepCase;
  readonly lossBytes: number;
  readonly plain: Level;
  readonly expandable: Level;
}

const here = dirname(fileURLToPath(import.meta.url));
const cases = sweepCases();
const workers = Math.max(1, Math.min(availableParallelism(), 16));

function runSlice(indices: number[]): Promise<StoredRun[]> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', join(here, 'allocator-worker.ts'), ...indices.map(String)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench:allocator: a worker exited with ${code}`));
      else
        resolve(
          out
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as StoredRun),
        );
    });
  });
}

const started = performance.now();
const slices: number[][] = Array.from({ length: workers }, () => []);
for (let i = 0; i < cases.length; i++) slices[i % workers]!.push(i);
const runs = (await Promise.all(slices.filter((s) => s.length > 0).map(runSlice)))
  .flat()
  .sort((a, b) => a.index - b.index);

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
const label = (c: SweepCase): string =>
  `${c.model} b${c.batch}×≤${c.cap} ${c.loss}${c.checkpointing ? ' ckpt' : ''} ${c.skew === 1 ? 'uniform' : 'short'}`;
const last = (l: Level): number => l.extraAt[REPORTED_STEPS.indexOf(SWEEP_STEPS)]!;
const lines: string[] = [];
const say = (line = ''): void => {
  lines.push(line);
};

say(
  `# Allocator replay: reserve under padded batches (${cases.length} runs × 2 allocators, ${SWEEP_STEPS} steps)`,
);
say();
say('The reserve a padded run (each batch padded to its longest sample) holds above the same run at one');
say('fixed length (its longest batch), as a share of the churn (allocated peak less the weights), by step.');
say();
say(`| run | allocator | fixed: reserve/churn | ${REPORTED_STEPS.map((s) => `+ after ${s}`).join(' | ')} |`);
say(`|---|---|---|${REPORTED_STEPS.map(() => '---').join('|')}|`);
for (const r of runs) {
  const c = r.case;
  if (c.skew !== 1 || c.checkpointing || c.loss === 'fused' || c.model !== 'llama-3.2-3b') continue;
  for (const [name, x] of [
    ['default', r.plain],
    ['expandable', r.expandable],
  ] as const)
    say(`| ${label(c)} | ${name} | ${pct(x.fixedShare)} | ${x.extraAt.map(pct).join(' | ')} |`);
}
say();
say(`Over the whole sweep, the added reserve after ${SWEEP_STEPS} steps, as a share of the churn:`);
say();
say('| loss | allocator | n | median | p90 | max |');
say('|---|---|---|---|---|---|');
for (const loss of ['standard', 'chunked', 'fused'] as const) {
  const of = runs.filter((r) => r.case.loss === loss);
  for (const [name, pick] of [
    ['default', (r: StoredRun) => last(r.plain)],
    ['expandable', (r: StoredRun) => last(r.expandable)],
  ] as const) {
    const xs = of.map(pick);
    say(
      `| ${loss} | ${name} | ${xs.length} | ${pct(quantile(xs, 0.5))} | ${pct(quantile(xs, 0.9))} | ${pct(Math.max(...xs))} |`,
    );
  }
}
const rows: SweepRow[] = runs.map((r) => ({
  churnBytes: r.plain.churnBytes,
  lossBytes: r.lossBytes,
  fixedShare: r.plain.fixedShare,
  extraShare: last(r.plain),
  expandableExtraShare: last(r.expandable),
  pressureExtraShare: r.plain.pressureExtraShare,
  expandablePressureShare: r.expandable.pressureExtraShare,
}));
const term = reserveGrowthTerm(rows);
const fixed = fixedReserveTerm(rows);
/** A table of fitted factors beside the constants the estimator holds: [label, fitted, constant]. */
const factorTable = (rowsOf: readonly (readonly [string, number, number])[]): void => {
  say();
  say('| | from this sweep | in src/core/estimate/allocator.ts |');
  say('|---|---|---|');
  for (const [label, fitted, constant] of rowsOf) say(`| ${label} | ${fitted.toFixed(3)} | ${constant} |`);
};
say();
say('The term, read off these runs (least squares through the origin; expandable: the 90th percentile):');
factorTable([
  ["× the loss's tensors", term.lossFactor, RESERVE_GROWTH.lossFactor],
  ['× the rest of the churn', term.layerFactor, RESERVE_GROWTH.layerFactor],
  ['expandable segments, × the churn', term.expandableShare, RESERVE_GROWTH.expandableShare],
  ["under a memory limit, × the loss's tensors", term.pressureLossFactor, RESERVE_GROWTH.pressureLossFactor],
  [
    'under a memory limit, × the rest of the churn',
    term.pressureLayerFactor,
    RESERVE_GROWTH.pressureLayerFactor,
  ],
  [
    'under a memory limit, expandable segments, × the churn',
    term.expandablePressureShare,
    RESERVE_GROWTH.expandablePressureShare,
  ],
]);
say();
say('At one fixed length, the reserve above the allocated peak (the same runs at their longest length),');
say('read off the same way; the estimator holds the larger of this and its measured share of the churn:');
factorTable([
  ["× the loss's tensors", fixed.lossFactor, FIXED_RESERVE.lossFactor],
  ['× the rest of the churn', fixed.layerFactor, FIXED_RESERVE.layerFactor],
]);
say();
say('Under a memory limit (a card without room for the climb) the allocator gives its unsplit cached');
say('segments back and retries before it fails; the least limit each padded run completes under, above');
say("the fixed run's reserve, as a share of the churn:");
say();
say('| loss | allocator | n | median | p90 | max | climb with room, median |');
say('|---|---|---|---|---|---|---|');
for (const loss of ['standard', 'chunked', 'fused'] as const) {
  const of = rows.filter((_, i) => runs[i]!.case.loss === loss);
  for (const [name, need, climb] of [
    ['default', (r: SweepRow) => r.pressureExtraShare, (r: SweepRow) => r.extraShare],
    ['expandable', (r: SweepRow) => r.expandablePressureShare, (r: SweepRow) => r.expandableExtraShare],
  ] as const) {
    const xs = of.map(need);
    const most = xs.reduce((a, b) => Math.max(a, b), 0);
    const withRoom = quantile(of.map(climb), 0.5);
    say(
      `| ${loss} | ${name} | ${xs.length} | ${pct(quantile(xs, 0.5))} | ${pct(quantile(xs, 0.9))} | ${pct(most)} | ${pct(withRoom)} |`,
    );
  }
}
// The pressure fit is a mean: how far the runs it under-reads need more than it says.
const shortBy = rows
  .map((r) => {
    const loss = Math.min(r.lossBytes, r.churnBytes);
    const fit = term.pressureLossFactor * loss + term.pressureLayerFactor * (r.churnBytes - loss);
    return r.pressureExtraShare - fit / r.churnBytes;
  })
  .filter((x) => x > 0);
say();
say(
  `The fit under a limit is a mean: ${shortBy.length} of ${rows.length} runs need more than it says, by ${pct(quantile(shortBy, 0.9))} of the churn at their 90th percentile (at most ${pct(shortBy.reduce((a, b) => Math.max(a, b), 0))}).`,
);
say();
const drift = Math.max(...runs.map((r) => Math.abs(r.plain.allocatedDifferenceBytes))) / 2 ** 20;
say(
  `Allocated high-water, padded less fixed: at most ${drift.toFixed(0)} MiB (unsplit rests of up to 1 MiB each, which memory_allocated counts).`,
);
say(`(${((performance.now() - started) / 1000).toFixed(0)} s on ${workers} processes)`);

const report = lines.join('\n');
console.log(report);
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'allocator-runs.json'), `${JSON.stringify(runs)}\n`);
writeFileSync(join(here, 'results', 'allocator.md'), `${report}\n`);
console.log('\nwrote bench/results/allocator.md and bench/results/allocator-runs.json');

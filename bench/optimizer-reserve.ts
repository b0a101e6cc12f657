/**
 * What the optimizer does to the reserve of a full fine-tune. First the two terms the estimator takes
 * from the replay (estimate/allocator.ts OPTIMIZER_STEP_RESERVE at an optimizer-step peak,
 * OPTIMIZER_STATES_RESERVE at a training-step peak), refit over optimizer-sweep.ts's simulated full
 * fine-tunes; then Headroom's H200 rows: each full fine-tuning row with AdamW measured
 * at both torch levels (allocated and reserved) is replayed in src/core/allocator (decoderStepPattern,
 * three steps at its length) with and without AdamW's states created at the first step() (replay.ts
 * adamwStep), and its reserve above the allocated peak is set beside the measured one and the
 * estimator's. It prints figures and changes nothing.
 * Run: npm run bench:optimizer-reserve
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  atOptimizerStep,
  inTrainingStep,
  optimizerStatesFactor,
  optimizerStepFactor,
  optimizerSweep,
} from '../src/core/allocator/optimizer-sweep.js';
import { replayRun } from '../src/core/allocator/replay.js';
import { decoderStepPattern } from '../src/core/allocator/step-pattern.js';
import { shapeFromConfig } from '../src/core/architecture.js';
import { findGpu, findModel } from '../src/core/catalog/index.js';
import { estimate, OPTIMIZER_STATES_RESERVE, OPTIMIZER_STEP_RESERVE } from '../src/core/estimate.js';
import { parseScenario } from '../src/core/scenario.js';
import type { AccuracyRow } from './accuracy-lib.js';
import { measurementSources, ROOT, readRows } from './rows.js';
import { median } from './upper-lib.js';

const GIB = 2 ** 30;
const harness = measurementSources().filter((p) => p.includes(join('bench', 'data', 'h200')));
const rows = harness.flatMap(readRows);
const byRun = new Map<string, Partial<Record<string, AccuracyRow>>>();
for (const r of rows) {
  const run = r.id.replace(/[ard]$/, '');
  byRun.set(run, { ...byRun.get(run), [r.measured.metric]: r });
}

function replayGap(
  model: string,
  precision: string,
  tokens: number,
  loss: 'standard' | 'chunked' | 'fused',
  checkpointing: boolean,
  optimizer?: 'foreach' | 'fused',
): number {
  const pattern = decoderStepPattern(shapeFromConfig(findModel(model)!), {
    // fp32 trains in fp32 throughout; -mixed keeps fp32 weights and computes in 16 bits under autocast.
    e: precision === 'fp32' ? 4 : 2,
    weightElementBytes: precision.endsWith('-true') ? 2 : 4,
    loss,
    checkpointing,
    fullGradients: true,
    loraRank: 0,
  });
  const run = replayRun(pattern, [tokens, tokens, tokens], {}, optimizer ? { optimizer } : {});
  return run.reservedHighWater[2]! - run.allocatedHighWater[2]!;
}

const all = optimizerSweep();
type SweepRow = (typeof all)[number];
const sweep = atOptimizerStep(all);
const training = inTrainingStep(all);
const factorOf = (precision: string) => optimizerStepFactor(all.filter((r) => r.precision === precision));
const factors = { sixteenBit: factorOf('bf16-true'), fp32: factorOf('bf16-mixed') };
const factorFor = (r: SweepRow) => (r.precision === 'bf16-mixed' ? factors.fp32 : factors.sixteenBit);
const statesFactor = optimizerStatesFactor(all);
const sweepMiss = (rows: readonly SweepRow[], gap: (r: SweepRow) => number) =>
  median(rows.map((r) => Math.abs(gap(r) - r.gapBytes))) / GIB;

const lines: string[] = [
  '| run | model | precision | tokens | ckpt | loss | replay, no optimizer | replay, AdamW states at step 1 | estimate | measured |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
const diffs = {
  none: [] as number[],
  adamw: [] as number[],
  estimate: [] as number[],
  atStep: [] as number[],
};
for (const [run, levels] of [...byRun].sort(([a], [b]) => a.localeCompare(b))) {
  const a = levels.allocated;
  const r = levels.reserved;
  if (!a || !r || a.measured.peakBytes === null || r.measured.peakBytes === null) continue;
  const scenario = parseScenario(a.scenario);
  if (scenario.method !== 'full' || scenario.optimizer !== 'adamw' || scenario.parallelism.gpus !== 1)
    continue;
  const model = scenario.model as string;
  if (!findModel(model)) continue;
  const tokens = scenario.microBatchSize * scenario.seqLen;
  const ckpt = scenario.gradientCheckpointing !== 'none';
  const kind = scenario.fusedOptimizer ? 'fused' : 'foreach';
  const none = replayGap(model, scenario.precision, tokens, scenario.loss, ckpt);
  const adamw = replayGap(model, scenario.precision, tokens, scenario.loss, ckpt, kind);
  const e = estimate({ scenario, shape: shapeFromConfig(findModel(model)!), gpu: findGpu('h200-sxm')! });
  const est = e.peak.reservedBytes - e.peak.allocatedBytes;
  const measured = r.measured.peakBytes - a.measured.peakBytes;
  diffs.none.push(Math.abs(none - measured));
  diffs.adamw.push(Math.abs(adamw - measured));
  diffs.estimate.push(Math.abs(est - measured));
  if (e.peakPhase === 'optimizer-step') diffs.atStep.push(Math.abs(est - measured));
  const g = (x: number) => (x / GIB).toFixed(2);
  lines.push(
    `| ${run} | ${model} | ${scenario.precision} | ${tokens} | ${ckpt ? 'yes' : 'no'} | ${scenario.loss} | ${g(none)} | ${g(adamw)} | ${g(est)} | ${g(measured)} |`,
  );
}
const report = [
  "# The optimizer's states and the reserve of a full fine-tune",
  '',
  `## The terms: ${all.length} simulated full fine-tunes`,
  '',
  `src/core/allocator/optimizer-sweep.ts: ${all.length} setups (13 decoders of 0.5B–8B with small and large vocabularies, tied and untied heads; bf16-true and bf16-mixed, the latter with fp32 weights, gradients and states and autocast's 16-bit weight copies; one sequence of 512–8,192 tokens, standard and chunked loss, with and without full checkpointing, bf16 AdamW foreach, the head's and embedding's gradients included), each replayed for three steps with the states made at the first.`,
  '',
  `- **${sweep.length} whose estimate peaks at the optimizer step.** Their reserve above the allocated peak against k × min(the step's temporaries, the cache backward left), least squares through the origin, by the temporaries' element size: k = ${factors.sixteenBit.toFixed(3)} over the bf16-true runs (bf16 states; estimate/allocator.ts OPTIMIZER_STEP_RESERVE.sixteenBit = ${OPTIMIZER_STEP_RESERVE.sixteenBit}), ${factors.fp32.toFixed(3)} over the bf16-mixed ones (fp32 states; .fp32 = ${OPTIMIZER_STEP_RESERVE.fp32}). Median distance to the replay: ${sweepMiss(sweep, (r) => factorFor(r) * r.reuseBytes).toFixed(2)} GiB for the term alone, ${sweepMiss(sweep, (r) => r.estimateGapBytes).toFixed(2)} GiB for the estimator with it.`,
  `- **${training.length} whose estimate peaks in forward or backward.** Their reserve less the loss-block term (FIXED_RESERVE) against γ × min(the states, the cache backward left), through the origin: γ = ${statesFactor.toFixed(3)} (OPTIMIZER_STATES_RESERVE = ${OPTIMIZER_STATES_RESERVE}). Median distance to the replay: ${sweepMiss(training, (r) => r.lossBlockBytes).toFixed(2)} GiB for the loss block alone, ${sweepMiss(training, (r) => r.lossBlockBytes + statesFactor * r.statesReuseBytes).toFixed(2)} GiB with the states' term, ${sweepMiss(training, (r) => r.estimateGapBytes).toFixed(2)} GiB for the estimator.`,
  '',
  '## The H200 rows',
  '',
  `Generated by \`npm run bench:optimizer-reserve\`. Reserved above the allocated peak, GiB: ${diffs.adamw.length} H200 full fine-tunes with AdamW on one GPU (${harness.map((p) => p.replace(`${ROOT}/`, '')).join(', ')}). The replay's step pattern is a Llama-style layer in the row's precision (fp32 weights, gradients and states and autocast's copies for -mixed, fp32 throughout for fp32); the real kernels' temporaries are not in it.`,
  '',
  ...lines,
  '',
  `Median |replay − measured|: no optimizer ${(median(diffs.none) / GIB).toFixed(2)} GiB, AdamW states at step 1 ${(median(diffs.adamw) / GIB).toFixed(2)} GiB; median |estimate − measured| ${(median(diffs.estimate) / GIB).toFixed(2)} GiB (the estimator of today, with the term; ${diffs.atStep.length} of the rows peak at the optimizer step, where it is ${(median(diffs.atStep) / GIB).toFixed(2)} GiB).`,
  '',
].join('\n');
console.log(report);
const out = join(ROOT, 'bench', 'results', 'optimizer-reserve.md');
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(out, report);
console.log(`wrote ${out.replace(`${ROOT}/`, '')}`);

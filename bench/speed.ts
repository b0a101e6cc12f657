/**
 * Speed benchmark: estimates per second in process, a whole plan (the climb, its pruning and the
 * alternatives) in process, and the cold start of `headroom estimate` against `node -e 0`. Run: npm run
 * bench:speed (builds first). Figures go in the README and docs/plan-fit-move.md.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The built core in dist/, which `headroom` runs: tsx's on-the-fly transpile of src/ runs the same
// code about a third slower, which would measure the loader rather than the estimator.
const built = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(root, 'dist', 'core', path)).href)) as T;
const { shapeFromConfig } = await built<typeof import('../src/core/architecture.js')>('architecture.js');
const { findGpu, findModel } = await built<typeof import('../src/core/catalog/index.js')>('catalog/index.js');
const { estimate } = await built<typeof import('../src/core/estimate.js')>('estimate.js');
const { parseScenario } = await built<typeof import('../src/core/scenario.js')>('scenario.js');
const { makePlan } = await built<typeof import('../src/core/plan.js')>('plan.js');

function throughput(): { median: number; min: number; max: number } {
  // A mix of setups, parsed once (as a planner would): the figure is the estimator itself.
  const scenarios = [
    {
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
    },
    {
      model: 'qwen2.5-7b',
      method: 'lora',
      lora: { rank: 16, targets: 'all-linear', dropout: 0.05 },
      seqLen: 4096,
    },
    {
      model: 'llama-3.1-70b',
      method: 'full',
      parallelism: { strategy: 'zero3', gpus: 8 },
      offload: { optimizer: 'cpu', params: 'none' },
    },
    { model: 'qwen3-30b-a3b', method: 'lora', precision: 'bf16-true', attention: 'eager', seqLen: 2048 },
  ].map((s) => {
    const scenario = parseScenario(s);
    return {
      scenario,
      shape: shapeFromConfig(findModel(scenario.model as string)!),
      gpu: findGpu('h100-sxm')!,
    };
  });
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += estimate(scenarios[i % scenarios.length]!).peak.deviceBytes; // warm-up
  // Several timed rounds: on a shared VM one round can land on a busy moment, so the median is the
  // figure and the range shows the noise.
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS_PER_ROUND; i++)
      sink += estimate(scenarios[i % scenarios.length]!).peak.deviceBytes;
    rounds.push(CALLS_PER_ROUND / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  if (sink === 0) console.log('(unreachable)');
  return { median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds) };
}

/** Milliseconds per makePlan call, median of ROUNDS rounds, and the plan's rungs shown and dropped. */
function planMs(raw: Record<string, unknown>, gpuId: string): { ms: number; shown: number; dropped: number } {
  const scenario = parseScenario(raw);
  const input = {
    scenario,
    shape: shapeFromConfig(findModel(scenario.model as string)!),
    gpu: findGpu(gpuId)!,
  };
  const plan = makePlan(input);
  for (let i = 0; i < 50; i++) makePlan(input); // warm-up
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PLANS_PER_ROUND; i++) makePlan(input);
    rounds.push(Number(process.hrtime.bigint() - start) / 1e6 / PLANS_PER_ROUND);
  }
  return { ms: median(rounds), shown: plan.rungs.length, dropped: plan.dropped.length };
}

const ROUNDS = 7;
const PLANS_PER_ROUND = 200;
const CALLS_PER_ROUND = 200_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function coldStartMs(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  }
  return median(times);
}

const t = throughput();
const perSecond = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(
  `estimates per second (in process): ${perSecond(t.median)}, median of ${ROUNDS} rounds of ${CALLS_PER_ROUND.toLocaleString('en-US')} calls (range ${perSecond(t.min)}–${perSecond(t.max)}; target ≥ 1,000,000)`,
);
for (const [raw, gpu] of [
  [{ model: 'llama-3.1-8b', method: 'full' }, 'rtx-4090'],
  [{ model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 }, 'rtx-4090'],
] as const) {
  const p = planMs(raw, gpu);
  console.log(
    `makePlan ${JSON.stringify(raw)} on ${gpu} (in process): ${p.ms.toFixed(2)} ms per plan, median of ${ROUNDS} rounds of ${PLANS_PER_ROUND} (${p.shown} rungs shown of ${p.shown + p.dropped} climbed)`,
  );
}
const runs = 15;
const bare = coldStartMs(['-e', '0'], runs);
const cli = coldStartMs(
  [
    join(root, 'dist', 'cli', 'bin.js'),
    'estimate',
    'llama-3.1-8b',
    '--method',
    'qlora',
    '--quantization',
    'nf4',
    '--gpu',
    'rtx-4090',
  ],
  runs,
);
const json = coldStartMs([join(root, 'dist', 'cli', 'bin.js'), 'estimate', 'llama-3.1-8b', '--json'], runs);
console.log(
  `cold start, median of ${runs}: node -e 0 ${bare.toFixed(0)} ms; headroom estimate ${cli.toFixed(0)} ms (+${(cli - bare).toFixed(0)} ms); with --json ${json.toFixed(0)} ms (+${(json - bare).toFixed(0)} ms; target ≤ +150 ms)`,
);

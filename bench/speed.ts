/**
 * Speed benchmark: estimates per second in process, and the cold start of `headroom estimate`
 * against `node -e 0`. Run: npm run bench:speed (builds first). Figures go in the README.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shapeFromConfig } from '../src/core/architecture.js';
import { findGpu, findModel } from '../src/core/catalog/index.js';
import { estimate } from '../src/core/estimate.js';
import { parseScenario } from '../src/core/scenario.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function throughput(): { perSecond: number; calls: number; seconds: number } {
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
  const calls = 400_000;
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += estimate(scenarios[i % scenarios.length]!).peak.deviceBytes;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink === 0) console.log('(unreachable)');
  return { perSecond: calls / seconds, calls, seconds };
}

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
console.log(
  `estimates per second (in process): ${Math.round(t.perSecond).toLocaleString('en-US')}  (${t.calls.toLocaleString('en-US')} calls in ${t.seconds.toFixed(2)} s; target ≥ 200,000)`,
);
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

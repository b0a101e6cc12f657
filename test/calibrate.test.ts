/**
 * "Estimate first, then calibrate with a short trial run", end to end with the built binary: a stand-in
 * training script (test/fixtures/train_plan.py) whose memory is k = 1.3 times the estimator's activations
 * and f = 1.5 times its allocator cache — numbers computed here from the estimator's terms and passed in
 * as a plan — is recorded under `headroom run` at micro-batch 2 (the trial) and at micro-batch 8 (the
 * truth). `headroom calibrate` reads the trial; `plan --calibrated` predicts micro-batch 8 from it, and the
 * prediction must land within 2 % of what the stand-in really used at micro-batch 8, on all three levels.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOCATOR_BASE_RESERVE_BYTES, ALLOCATOR_FRAGMENTATION, estimate } from '../src/core/estimate.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_plan.py');

/** The stand-in's own factors: activations and the allocator's cache against the estimator's model. */
const K = 1.3;
const F = 1.5;
const SETUP = [
  '--model',
  'llama-3.2-1b',
  '--method',
  'lora',
  '--precision',
  'bf16-true',
  '--seq-len',
  '1024',
];

/**
 * The stand-in's plan at a micro-batch, from the estimator's reported terms (written independently of
 * src/core/calibrate.ts): activations at the start of backward × K, the cache model × F.
 */
function standInPlan(microBatchSize: number) {
  const scenario = parseScenario({
    model: 'llama-3.2-1b',
    method: 'lora',
    precision: 'bf16-true',
    seqLen: 1024,
    microBatchSize,
  });
  const e = estimate({ scenario, shape: resolveModelRef('llama-3.2-1b')!.shape });
  const b = e.breakdown;
  const activations = b.activationsSavedBytes! + b.lossResidentBytes! + b.backwardTransientBytes!;
  const base = e.phases.backward - activations;
  const allocated = base + Math.round(K * activations);
  const churn =
    (e.peak.reservedBytes - e.peak.allocatedBytes - ALLOCATOR_BASE_RESERVE_BYTES) / ALLOCATOR_FRAGMENTATION +
    (allocated - e.peak.allocatedBytes);
  return {
    baseBytes: base,
    activationBytes: Math.round(K * activations),
    cacheBytes: Math.round(F * (ALLOCATOR_BASE_RESERVE_BYTES + ALLOCATOR_FRAGMENTATION * churn)),
    batchSize: microBatchSize,
    seqLen: 1024,
  };
}

function home(): { dir: string; env: NodeJS.ProcessEnv } {
  return standinHome('headroom-calibrate-', { idleGpu: true });
}

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = headroom(env, ...args, '--json');
  if (r.code !== 0) throw new Error(`headroom ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

interface Peaks {
  allocatedBytes: number;
  reservedBytes: number;
  deviceBytes: number;
}

describe('estimate, then calibrate with a short trial run', () => {
  const { dir, env } = home();
  let trial: { peakAllocatedBytes: number; peakReservedBytes: number; peakDeviceBytes: number };
  let truth: Peaks;

  beforeAll(() => {
    for (const mb of [2, 8]) {
      const plan = join(dir, `plan${mb}.json`);
      writeFileSync(plan, JSON.stringify(standInPlan(mb)));
      const r = headroom(
        env,
        'run',
        '--name',
        mb === 2 ? 'trial' : 'truth',
        '--interval-ms',
        '50',
        ...SETUP,
        '--micro-batch',
        String(mb),
        '--',
        'python3',
        TRAIN,
        '--plan',
        plan,
      );
      if (r.code !== 0) throw new Error(`headroom run failed: ${r.stderr}`);
    }
    const [a, b] = json(env, 'runs');
    trial = a;
    truth = {
      allocatedBytes: b.peakAllocatedBytes,
      reservedBytes: b.peakReservedBytes,
      deviceBytes: b.peakDeviceBytes,
    };
  }, 60_000);

  it('calibrate: the error per level against the recorded peaks, and the run’s own factors', () => {
    const cal = json(env, 'calibrate', 'trial');
    const scenario = parseScenario({
      model: 'llama-3.2-1b',
      method: 'lora',
      precision: 'bf16-true',
      seqLen: 1024,
      microBatchSize: 2,
    });
    const est = estimate({ scenario, shape: resolveModelRef('llama-3.2-1b')!.shape }).peak;
    expect(cal.runId).toBe(1);
    expect(cal.estimate).toEqual(est);
    // The trial's peaks are flat after step 1, so the steps measured peak where the whole run did.
    expect(cal.calibration.measured).toEqual({
      allocatedBytes: trial.peakAllocatedBytes,
      reservedBytes: trial.peakReservedBytes,
      deviceBytes: trial.peakDeviceBytes,
      // Flat steps: a calibrated upper bound is its point.
      spread: { steps: 7, allocated: 1, reserved: 1, device: 1 },
    });
    const rel = (e: number, m: number) => (e - m) / m;
    expect(cal.calibration.errors).toEqual({
      allocated: rel(est.allocatedBytes, trial.peakAllocatedBytes),
      reserved: rel(est.reservedBytes, trial.peakReservedBytes),
      device: rel(est.deviceBytes, trial.peakDeviceBytes),
    });
    expect(cal.calibration.activationFactor).toBeCloseTo(K, 6);
    // The stand-in's allocator rounds its cache and its allocated total up to whole 20 MiB segments, so
    // the cache it measures is F times the model's plus at most two segments.
    const modelledCache = standInPlan(2).cacheBytes / F;
    const extra = (cal.calibration.allocatorFactor - F) * modelledCache;
    expect(extra).toBeGreaterThanOrEqual(-1);
    expect(extra).toBeLessThan(2 * 20 * 2 ** 20);
    expect(cal.calibration.nonTorchBytes).toBe(500 * 2 ** 20); // the stand-in's CUDA context
    expect(cal.steps).toEqual({ used: 7, first: 2, last: 8, warmup: 1 });
    expect(cal.notes).toEqual([]);
    // Inside its physical range: no bound acted, nothing refused.
    expect(cal.calibration.bounds).toEqual([]);
    expect(cal.calibration.activationRange.min).toBeLessThan(K);
    expect(cal.calibration.activationRange.max).toBeGreaterThan(K);
    const { refusals, ...stored } = cal;
    expect(refusals).toEqual([]);
    const events = json(env, 'runs', 'show', 'trial').events.filter(
      (e: { kind: string }) => e.kind === 'calibration',
    );
    expect(events.at(-1).data).toEqual(stored);
  });

  it('plan --calibrated: micro-batch 8 predicted from the trial within 2 % of the truth, on all three levels', () => {
    const plan = json(env, 'plan', '--calibrated', 'trial', '--micro-batch', '8', '--gpu', 'h200-sxm');
    const predicted: Peaks = plan.calibration.predicted;
    for (const level of ['allocatedBytes', 'reservedBytes', 'deviceBytes'] as const)
      expect(Math.abs(predicted[level] - truth[level]) / truth[level]).toBeLessThan(0.02);
    // The estimate alone is off by far more: calibration moved the prediction.
    const estimated: Peaks = plan.calibration.estimated;
    expect((truth.deviceBytes - estimated.deviceBytes) / truth.deviceBytes).toBeGreaterThan(0.2);
    expect(plan.calibration.movedBytes).toBe(predicted.deviceBytes - estimated.deviceBytes);
    expect(plan.target.startPeakBytes).toBe(predicted.deviceBytes);
    expect(plan.scenario).toMatchObject({
      model: 'llama-3.2-1b',
      method: 'lora',
      microBatchSize: 8,
      seqLen: 1024,
    });
    expect(plan.calibration.run).toEqual({ id: 1, name: 'trial' });
  });

  it('fit --calibrated: the limits from the measured baseline, beside the estimator’s own', () => {
    const fit = json(env, 'fit', '--calibrated', 'trial', '--gpu', 'a10g');
    // The estimator's own limits judge its upper bound (the table's ratios); the calibrated ones the
    // run's flat steps, i.e. the calibrated point.
    expect(fit.calibration.uncalibrated).toEqual({ microBatch: 4, seqLen: 2364 });
    expect([fit.microBatch.value, fit.seqLen.value]).toEqual([3, 1934]);
    expect(fit.microBatch.estimate.peak.deviceBytes).toBeLessThanOrEqual(fit.target.budgetBytes);
    expect(fit.microBatch.next.deviceBytes).toBeGreaterThan(fit.target.budgetBytes);
    const text = headroom(env, 'fit', '--calibrated', 'trial', '--gpu', 'a10g').stdout;
    expect(text).toContain('  the estimate alone → calibrated: micro-batch 4 → 3, sequence 2364 → 1934\n');
    expect(text).toMatch(
      /calibrated on run 1 "trial" \(activations 1\.30×, allocator 1\.5\d×, 500 MiB outside torch\)/,
    );
  });

  it('calibrate prints the three levels side by side, the factors, and what uses them', () => {
    const out = headroom(env, 'calibrate', '1').stdout.split('\n');
    expect(out.slice(0, 4)).toEqual([
      'run 1 "trial" · ok · 8 steps',
      'llama-3.2-1b · lora r16 (q_proj,v_proj) · bf16-true · adamw · b2×1024 · no ckpt · sdpa · standard loss · 1 GPU',
      'measured over steps 2–8 (7 steps; the first step is left out: optimizer states, allocator warm-up)',
      '',
    ]);
    // The trial kept 1.3 × the activations estimated: the estimate was low, on every level.
    expect(out.slice(6, 9).map((l) => l.trim().split(/ {2,}/))).toEqual([
      ['allocated', '8.30 GiB', '10.08 GiB', 'estimate 17.7 % under the measured peak'],
      ['reserved', '9.07 GiB', '11.60 GiB', 'estimate 21.8 % under the measured peak'],
      ['nvidia-smi', '9.56 GiB', '12.09 GiB', 'estimate 20.9 % under the measured peak'],
    ]);
    expect(out).toContain(
      "  activations    1.30 × the estimate's (7.75 GiB at the peak where 5.96 GiB were estimated)",
    );
  });

  it('calibrate --lang zh: the same view in Chinese, its figures as in English', () => {
    const out = headroom(env, 'calibrate', '1', '--lang', 'zh').stdout.split('\n');
    expect(out[0]).toBe('运行 1“trial” · ok · 8 步');
    expect(out[2]).toBe('测量范围为第 2–8 步（7 步；第一步不计入：优化器状态、分配器预热）');
    expect(out.slice(6, 9).map((l) => l.trim().split(/ {2,}/))).toEqual([
      ['已分配', '8.30 GiB', '10.08 GiB', '估算比实测峰值低 17.7 %'],
      ['已预留', '9.07 GiB', '11.60 GiB', '估算比实测峰值低 21.8 %'],
      ['nvidia-smi', '9.56 GiB', '12.09 GiB', '估算比实测峰值低 20.9 %'],
    ]);
    expect(out).toContain('这次运行自身的系数（峰值在反向传播）：');
    expect(out).toContain('  激活值         估算的 1.30 倍（峰值处估算 5.96 GiB，实测 7.75 GiB）');
    // The locale speaks when --lang does not.
    expect(headroom({ ...env, LC_ALL: 'zh_CN.UTF-8' }, 'calibrate', '1').stdout).toContain(
      '测量范围为第 2–8 步',
    );
  });

  it('a run recorded without a scenario is calibrated with its setup given as flags', () => {
    const { dir: d2, env: e2 } = home();
    const plan = join(d2, 'plan.json');
    writeFileSync(plan, JSON.stringify(standInPlan(2)));
    headroom(e2, 'run', '--interval-ms', '50', '--', 'python3', TRAIN, '--plan', plan);
    const bare = headroom(e2, 'calibrate', '1');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      'error: run 1 was recorded without a scenario, so there is no estimate to compare with\nTry: give its setup: headroom calibrate 1 --model ID --method … --micro-batch N --seq-len N\n',
    );
    const notYet = headroom(e2, 'fit', '--calibrated', '1', '--gpu', 'a10g');
    expect(notYet.stderr).toBe(
      'error: run 1 was recorded without a scenario and has not been calibrated\nTry: calibrate it with its setup first: headroom calibrate 1 --model ID --method … --micro-batch N\n',
    );
    const cal = json(e2, 'calibrate', '1', ...SETUP, '--micro-batch', '2');
    expect(cal.calibration.activationFactor).toBeCloseTo(K, 6);
    // Stored with the scenario it was given: fit --calibrated now has a base.
    expect(json(e2, 'fit', '--calibrated', '1', '--gpu', 'a10g').microBatch.value).toBe(3);
  });

  it('a run recorded without a scenario keeps its allocator setting for the calibration', () => {
    const { dir: d4, env: e4 } = home();
    const plan = join(d4, 'plan.json');
    writeFileSync(plan, JSON.stringify(standInPlan(2)));
    const expandable = { ...e4, PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' };
    headroom(expandable, 'run', '--interval-ms', '50', '--', 'python3', TRAIN, '--plan', plan);
    const cal = json(e4, 'calibrate', '1', ...SETUP, '--micro-batch', '2');
    expect(cal.scenario.expandableSegments).toBe(true);
    const declined = json(e4, 'calibrate', '1', ...SETUP, '--micro-batch', '2', '--no-expandable-segments');
    expect(declined.scenario.expandableSegments).toBeUndefined();
    // The same measured run: the model's smaller reserve leaves more for the allocator factor to explain.
    expect(cal.calibration.allocatorFactor).toBeGreaterThan(declined.calibration.allocatorFactor);
  });

  it('mistakes: a message and a Try line, never a stack trace', () => {
    const { env: e3 } = home();
    for (const [args, stderr] of [
      [
        ['calibrate'],
        'error: calibrate needs a recorded run\nTry: headroom calibrate last (headroom runs lists them)\n',
      ],
      [
        ['calibrate', 'nope'],
        /^error: no run "nope" in .*ledger\.db\nTry: record one with headroom run -- python train\.py\n$/,
      ],
      [
        ['plan', '--calibrated', '7', '--gpu', 'a10g'],
        /^error: no run "7" in .*\nTry: record one with headroom run/,
      ],
    ] as const) {
      const r = headroom(e3, ...args);
      expect(r.code).toBe(1);
      if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
      else expect(r.stderr).toMatch(stderr);
    }
    expect(headroom(e3, '--help').stdout).toContain('calibrate RUN');
    expect(headroom(e3, 'calibrate', '--help').stdout).toContain(
      'headroom fit --calibrated trial --gpu a10g',
    );
  });
});

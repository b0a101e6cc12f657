/**
 * Calibration that cannot go wrong silently, end to end with the built binary: runs recorded under
 * `headroom run` by the stand-in training script (test/fixtures/train_plan.py), whose memory is computed
 * here from the estimator's own terms, then `calibrate`, `fit --calibrated` and `plan --calibrated` as a
 * user types them. A run that cannot be calibrated from is refused with the reason and a Try line; a
 * factor outside its physical range is held at its bound, and the bound is said.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activationLimitScenarios, activationTerms } from '../src/core/calibrate.js';
import { estimate } from '../src/core/estimate.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_plan.py');
const SHAPE = resolveModelRef('llama-3.2-1b')!.shape;

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Records `headroom run --name NAME FLAGS -- python3 train_plan.py --plan … --steps N` in `env`'s home.
 * The plan: `base` bytes from the start, `activations` alive at each step's peak, the optimizer
 * states (`states`) created by the first optimizer step, after step 1 was recorded.
 */
function record(
  dir: string,
  env: NodeJS.ProcessEnv,
  name: string,
  flags: readonly string[],
  plan: { base: number; activations: number; states?: number; batch: number; seq: number },
  steps: number,
) {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      baseBytes: Math.round(plan.base),
      activationBytes: Math.round(plan.activations),
      cacheBytes: 600 * 2 ** 20,
      stateBytes: Math.round(plan.states ?? 0),
      batchSize: plan.batch,
      seqLen: plan.seq,
    }),
  );
  const r = headroom(
    env,
    'run',
    '--name',
    name,
    '--interval-ms',
    '50',
    ...flags,
    '--',
    'python3',
    TRAIN,
    '--plan',
    file,
    '--steps',
    String(steps),
  );
  if (r.code !== 0) throw new Error(`headroom run failed: ${r.stderr}`);
}

describe('a one-step full fine-tune recorded before its first optimizer step', () => {
  // Llama-3.2-1B, full fine-tune in bf16 with the fused AdamW, b1×1024: the estimate peaks at the
  // start of backward with the weights, the AdamW states and the activations. The stand-in keeps
  // exactly the estimate's activations, but records step 1 before its optimizer step creates the states.
  const FLAGS = [
    '--model',
    'llama-3.2-1b',
    '--method',
    'full',
    '--precision',
    'bf16-true',
    '--fused-optimizer',
    '--seq-len',
    '1024',
    '--micro-batch',
    '1',
  ];
  const scenario = parseScenario({
    model: 'llama-3.2-1b',
    method: 'full',
    precision: 'bf16-true',
    fusedOptimizer: true,
    seqLen: 1024,
    microBatchSize: 1,
  });
  const e = estimate({ scenario, shape: SHAPE });
  const activations = activationTerms(e, 'backward');
  const states = e.breakdown.optimizerBytes!;
  const plan = { base: e.phases.backward - activations - states, activations, states, batch: 1, seq: 1024 };
  const { dir, env } = standinHome('headroom-calibrate-short-', { idleGpu: true });
  record(dir, env, 'short', FLAGS, plan, 1);
  record(dir, env, 'longer', FLAGS, plan, 4);

  it('is refused: one step cannot show the peak (it gave an activation factor of −0.42×)', () => {
    // What the factor would have been: the peak less the states it never held, over the activations.
    expect(1 - states / activations).toBeCloseTo(-0.42, 2);
    const r = headroom(env, 'calibrate', 'short');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "error: run 1 recorded 1 training step; a calibration needs at least 2: the first step creates the optimizer states and warms the allocator up, so only the steps after it show the run's peak\n" +
        'Try: record a run of at least 2 steps (4 or more give a steadier peak): headroom run --name short … -- python train.py --max-steps 8\n',
    );
    const json = headroom(env, 'calibrate', 'short', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      runId: 1,
      runName: 'short',
      estimate: null,
      measured: null,
      steps: 1,
      refusals: [{ code: 'too-few-steps', params: { steps: 1, needed: 2 } }],
    });
    // Nothing was stored.
    const events = JSON.parse(headroom(env, 'runs', 'show', 'short', '--json').stdout).events;
    expect(events.filter((x: { kind: string }) => x.kind === 'calibration')).toEqual([]);
  });

  it('is refused in Chinese with --lang zh, the reason and what to do', () => {
    const r = headroom(env, 'calibrate', 'short', '--lang', 'zh');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      '错误：运行 1 只记录了 1 个训练步；校准至少需要 2 个：第一步会创建优化器状态并让分配器预热，只有之后的步才显示运行的峰值\n' +
        '建议：记录至少 2 步的运行（4 步或更多可以得到更稳定的峰值）：headroom run --name short … -- python train.py --max-steps 8\n',
    );
  });

  it('fit --calibrated refuses it too, instead of micro-batch 4096 in 10.31 GiB', () => {
    const r = headroom(env, 'fit', '--calibrated', 'short', '--gpu', 'a10g');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: run 1 recorded 1 training step; a calibration needs at least 2/);
  });

  it('the same loop run for 4 steps calibrates: the states are there from step 2, the factor is 1.00×', () => {
    const cal = JSON.parse(headroom(env, 'calibrate', 'longer', '--json').stdout);
    expect(cal.refusals).toEqual([]);
    expect(cal.steps).toEqual({ used: 3, first: 2, last: 4, warmup: 1 });
    expect(cal.calibration.activationFactor).toBeCloseTo(1, 6);
    expect(cal.calibration.bounds).toEqual([]);
    const fit = JSON.parse(headroom(env, 'fit', '--calibrated', 'longer', '--gpu', 'a10g', '--json').stdout);
    expect([fit.microBatch.value, fit.microBatch.limit]).toEqual([3, 'memory']);
  });
});

describe('runs that are not the scenario, and setups a calibration is not carried to', () => {
  // The LoRA trial of test/calibrate.test.ts: b2×1024, 1.3 × the activations the estimator predicts.
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
  const scenario = parseScenario({
    model: 'llama-3.2-1b',
    method: 'lora',
    precision: 'bf16-true',
    seqLen: 1024,
    microBatchSize: 2,
  });
  const e = estimate({ scenario, shape: SHAPE });
  const activations = activationTerms(e, 'backward');
  const base = e.phases.backward - activations;
  const { dir, env } = standinHome('headroom-calibrate-refusals-', { idleGpu: true });
  record(
    dir,
    env,
    'trial',
    [...SETUP, '--micro-batch', '2'],
    { base, activations: 1.3 * activations, batch: 2, seq: 1024 },
    6,
  );
  // The same loop, keeping 0.5 % of the estimated activations: less than every layer's input.
  record(
    dir,
    env,
    'lean',
    [...SETUP, '--micro-batch', '2'],
    { base, activations: 0.005 * activations, batch: 2, seq: 1024 },
    6,
  );

  it('another model given to calibrate: the run peaked below its weights alone', () => {
    const r = headroom(env, 'calibrate', 'trial', '--model', 'llama-3.1-8b');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: run 1 peaked at 10\.\d\d GiB allocated, below the 15\.03 GiB that the scenario's weights \(14\.98 GiB\) and optimizer states \(52\.0 MiB\) take on their own: the run is not this scenario, or it never reached its peak \(no optimizer step yet\)\nTry: check the scenario against the run \(headroom runs show trial\); give the setup it ran with: headroom calibrate trial --model ID --method … --quantization …, or record steps after the first optimizer step\n$/,
    );
    const refused = JSON.parse(
      headroom(env, 'calibrate', 'trial', '--model', 'llama-3.1-8b', '--json').stdout,
    );
    const [r0] = refused.refusals;
    expect(r0.code).toBe('below-model-states');
    expect(r0.params.measuredBytes).toBe(refused.measured.allocatedBytes);
    expect(r0.params.measuredBytes).toBeLessThan(r0.params.stateBytes);
    expect(r0.params.stateBytes).toBe(r0.params.weightsBytes + r0.params.optimizerBytes);
  });

  it('a sequence length the run did not use: more activations than the setup can keep', () => {
    const r = headroom(env, 'calibrate', 'trial', '--seq-len', '128');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: run 1 kept \d+\.\d\d GiB of activations at its peak \(\d+\.\d\d× the estimate's\), more than this model keeps at this micro-batch and sequence in its most memory-hungry form \(\d+\.\d\d GiB, \d+\.\d\d×: fp32, eager attention, no checkpointing, the standard loss\): the run used more tokens or another model than the scenario says\nTry: give the micro-batch and sequence length the run really used: headroom calibrate trial --micro-batch N --seq-len N\n$/,
    );
    const { refusals } = JSON.parse(headroom(env, 'calibrate', 'trial', '--seq-len', '128', '--json').stdout);
    const short = parseScenario({ ...scenario, seqLen: 128 });
    const ceiling = estimate({ scenario: activationLimitScenarios(short).ceiling, shape: SHAPE });
    expect(refusals).toHaveLength(1);
    expect(refusals[0].code).toBe('activations-beyond-setup');
    expect(refusals[0].params.ceilingBytes).toBe(activationTerms(ceiling, 'backward'));
    expect(refusals[0].params.factor).toBeGreaterThan(refusals[0].params.maxFactor);
  });

  it('a run that kept less than every layer’s input: the factor is held at that floor, and says so', () => {
    const cal = JSON.parse(headroom(env, 'calibrate', 'lean', '--json').stdout);
    const floor = estimate({ scenario: activationLimitScenarios(scenario).floor, shape: SHAPE });
    const floorBytes = floor.breakdown.activationsSavedBytes!;
    expect(cal.calibration.bounds).toHaveLength(1);
    const [b] = cal.calibration.bounds;
    expect(b.code).toBe('activation-floor');
    expect(b.params.to).toBeCloseTo(floorBytes / activations, 9);
    expect(b.params.from).toBeCloseTo(0.005, 3);
    expect(cal.calibration.activationFactor).toBe(b.params.to);
    const text = headroom(env, 'calibrate', 'lean').stdout;
    expect(text).toMatch(
      /\n {2}! activations held at 0\.0\d×, not the 0\.0\d× measured: no run of this setup keeps less than every layer's input \(\d+ MiB, what full checkpointing keeps\)\n/,
    );
    // Held at the floor, the activations still grow with the batch; and fit claims nothing past the
    // 16× the trial's 2048 tokens it is carried to: micro-batch 32 at 1024, 16384 tokens at 2.
    const fit = JSON.parse(headroom(env, 'fit', '--calibrated', 'lean', '--gpu', 'a10g', '--json').stdout);
    expect([fit.microBatch.value, fit.microBatch.limit, fit.microBatch.next]).toEqual([
      32,
      'calibration',
      null,
    ]);
    expect([fit.seqLen.value, fit.seqLen.limit]).toEqual([16384, 'calibration']);
    const grown = fit.microBatch.estimate.peak.allocatedBytes - cal.calibration.measured.allocatedBytes;
    expect(grown).toBeGreaterThanOrEqual(15 * floorBytes - 1);
    expect(headroom(env, 'fit', '--calibrated', 'lean', '--gpu', 'a10g').stdout).toContain(
      '  micro-batch       32 × 1024  ',
    );
    expect(headroom(env, 'fit', '--calibrated', 'lean', '--gpu', 'a10g').stdout).toContain(
      "stopped where the calibration ends (16× the run's tokens per micro-batch), not at memory",
    );
  });

  it('plan --calibrated refuses another method and quantization, and a micro-batch past 16× the tokens', () => {
    const qlora = headroom(
      env,
      'plan',
      '--calibrated',
      'trial',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--gpu',
      'a10g',
    );
    expect(qlora.code).toBe(1);
    expect(qlora.stderr).toBe(
      'error: the calibration of run 1 is for method lora, not qlora: a factor measured on one method says nothing about the tensors of another; also, the calibration of run 1 is for quantization none, not nf4: a factor measured on one quantization says nothing about the tensors of another\n' +
        "Try: drop --method to predict the run's own method, or record and calibrate a short run of the setup you want\n",
    );
    const big = headroom(env, 'plan', '--calibrated', 'trial', '--micro-batch', '33', '--gpu', 'h200-sxm');
    expect(big.code).toBe(1);
    expect(big.stderr).toBe(
      'error: the calibration of run 1 was measured at 2048 tokens per micro-batch; 33792 tokens is beyond the 16× either way it is carried across\n' +
        'Try: record and calibrate a short run nearer the size you want, or drop --calibrated for the estimate alone\n',
    );
    // 32 × 1024 is 16× the trial's 2048 tokens: still carried.
    expect(
      headroom(env, 'plan', '--calibrated', 'trial', '--micro-batch', '32', '--gpu', 'h200-sxm').code,
    ).toBe(0);
  });

  it('one sign for an estimate’s error: under when the run needed more, over when it needed less', () => {
    // trial kept 1.3 × the estimated activations (the estimate was low); lean 0.005 × (it was high).
    const low = headroom(env, 'runs', 'show', 'trial').stdout;
    expect(low).toMatch(/\n {4}allocated {3}8\.30 GiB {2}estimate 17\.7 % under the measured peak\n/);
    const high = headroom(env, 'runs', 'show', 'lean').stdout;
    expect(high).toMatch(/\n {4}allocated {3}8\.30 GiB {2}estimate 250\.\d % over the measured peak\n/);
    // calibrate says it in the same words, and its JSON in the same sign: (estimate − measured) / measured.
    const errors = (run: string) => JSON.parse(headroom(env, 'calibrate', run, '--json').stdout).calibration;
    const t = errors('trial');
    expect(t.errors.allocated).toBeCloseTo(
      (e.peak.allocatedBytes - t.measured.allocatedBytes) / t.measured.allocatedBytes,
      12,
    );
    expect(t.errors.allocated).toBeLessThan(0);
    expect(errors('lean').errors.allocated).toBeGreaterThan(0);
    expect(headroom(env, 'calibrate', 'lean').stdout).toMatch(
      /\n {2}allocated +8\.30 GiB +2\.\d\d GiB +estimate 2\d\d\.\d % over the measured peak\n/,
    );
    // The HTML report too.
    const html = join(dir, 'trial.html');
    expect(headroom(env, 'report', 'trial', '-o', html).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<td>estimate 17.7 % under the measured peak</td>');
  });

  it('a run whose probe recorded no step: nothing to calibrate against', () => {
    const r = headroom(env, 'run', '--name', 'silent', ...SETUP, '--', 'python3', '-c', 'print("no probe")');
    expect(r.code).toBe(0);
    const cal = headroom(env, 'calibrate', 'silent');
    expect(cal.code).toBe(1);
    expect(cal.stderr).toBe(
      'error: run 3 recorded no training step with memory figures, so there is nothing to calibrate against\n' +
        'Try: call headroom_probe.step(step, ...) after each training step (or use HeadroomCallback), then record a short run with headroom run\n',
    );
    expect(JSON.parse(headroom(env, 'calibrate', 'silent', '--json').stdout).refusals).toEqual([
      { code: 'no-measured-peak', params: { steps: 0 } },
    ]);
  });
});

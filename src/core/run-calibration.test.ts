import { describe, expect, it } from 'vitest';
import { activationLimitScenarios, activationLimits, activationTerms, calibrate } from './calibrate.js';
import { type Estimate, estimate } from './estimate.js';
import { resolveModelRef } from './model-ref.js';
import {
  CALIBRATION_MAX_TOKEN_RATIO,
  type CalibrationOutcome,
  calibratedTokenRange,
  calibrateRun,
  calibrationCarries,
  predictCalibrated,
  readRunCalibration,
  recordedStepPeaks,
} from './run-calibration.js';
import type { ProcessSampleRecord, RunRecord, StepRecord } from './run-record.js';
import { parseScenario, type Scenario } from './scenario.js';
import { GIB, MIB } from './units.js';

function step(
  n: number,
  tMs: number,
  allocated: number,
  reserved: number,
  over: Partial<StepRecord> = {},
): StepRecord {
  return {
    tMs,
    pid: 7,
    rank: 0,
    localRank: 0,
    device: 0,
    step: n,
    phase: 'train',
    loss: 1,
    lossText: null,
    lr: null,
    batchSize: 2,
    seqLen: 1024,
    durationS: null,
    allocatedBytes: allocated,
    reservedBytes: reserved,
    peakAllocatedBytes: allocated,
    peakReservedBytes: reserved,
    inactiveSplitBytes: 0,
    numAllocRetries: 0,
    numOoms: 0,
    ...over,
  };
}

const ours = (tMs: number, bytes: number, gpu = 0, pid = 7): ProcessSampleRecord => ({
  tMs,
  gpu,
  gpuUuid: `GPU-${gpu}`,
  pid,
  name: 'python3',
  usedBytes: bytes,
  ours: true,
});

describe('recordedStepPeaks', () => {
  it('takes each step’s highest rank, leaves evaluation out, and reads nvidia-smi within the step', () => {
    const peaks = recordedStepPeaks(
      [
        step(1, 1000, 5 * GIB, 6 * GIB),
        step(1, 1010, 4 * GIB, 7 * GIB, { rank: 1, device: 1 }),
        step(2, 2000, 8 * GIB, 9 * GIB),
        step(3, 3000, 20 * GIB, 21 * GIB, { phase: 'eval' }),
        step(4, 4000, 8 * GIB, 9 * GIB, { peakAllocatedBytes: null }),
        step(5, 5000, 8 * GIB, 9 * GIB),
      ],
      [
        ours(500, 6.5 * GIB),
        ours(1500, 9 * GIB),
        ours(1500, 1 * GIB, 0, 8), // a second process of the run on the same GPU: summed
        ours(1500, 9.2 * GIB, 1),
        ours(2500, 21.5 * GIB), // during the evaluation step
        { ...ours(4500, 99 * GIB), ours: false },
      ],
    );
    expect(peaks).toEqual([
      { step: 1, peakAllocatedBytes: 5 * GIB, peakReservedBytes: 7 * GIB, deviceBytes: 6.5 * GIB },
      { step: 2, peakAllocatedBytes: 8 * GIB, peakReservedBytes: 9 * GIB, deviceBytes: 10 * GIB },
      { step: 5, peakAllocatedBytes: 8 * GIB, peakReservedBytes: 9 * GIB, deviceBytes: null },
    ]);
  });
});

const SCENARIO = parseScenario({
  model: 'llama-3.2-1b',
  method: 'lora',
  precision: 'bf16-true',
  seqLen: 1024,
  microBatchSize: 2,
});
const SHAPE = resolveModelRef('llama-3.2-1b')!.shape;
const estimateOf = (scenario: Scenario): Estimate => estimate({ scenario, shape: SHAPE });
const EST: Estimate = estimateOf(SCENARIO);

/** The calibration of an outcome that must be accepted. */
function accepted(outcome: CalibrationOutcome) {
  if (outcome.refused) throw new Error(`refused: ${JSON.stringify(outcome.refusal.refusals)}`);
  return outcome.calibration;
}
/** The refusals of an outcome that must be refused. */
function refusals(outcome: CalibrationOutcome) {
  if (!outcome.refused) throw new Error('accepted');
  return outcome.refusal.refusals;
}

const RUN: RunRecord = {
  id: 3,
  name: 'trial',
  status: 'ok',
  exitCode: 0,
  signal: null,
  command: ['python3', 'train.py'],
  cwd: null,
  host: null,
  scenario: SCENARIO as unknown as Record<string, unknown>,
  estimate: null,
  env: {},
  logPath: null,
  stderrPath: null,
  startedAtMs: 0,
  endedAtMs: 1,
  monitorPid: null,
  childPid: null,
  steps: 5,
  lastStep: 5,
  batchSize: 2,
  seqLen: 1024,
  peakAllocated: null,
  peakReserved: null,
  peakDevice: null,
  peakGpuUsed: null,
  snapshots: [],
  versions: null,
  ranks: [],
  peakRank: null,
};

describe('calibrateRun', () => {
  const alloc = 10 * GIB;
  const steps = [1, 2, 3, 4, 5].map((n) => step(n, 1000 * n, n === 1 ? 12 * GIB : alloc, alloc + 512 * MIB));
  const processes = [1, 2, 3, 4, 5].map((n) => ours(1000 * n - 500, alloc + 1012 * MIB));

  it('compares the steps after the first with the estimate and keeps what it measured', () => {
    const c = accepted(calibrateRun(RUN, steps, processes, SCENARIO, estimateOf));
    const variants = activationLimitScenarios(SCENARIO);
    expect(c.calibration).toEqual(
      calibrate(
        EST,
        {
          allocatedBytes: alloc,
          reservedBytes: alloc + 512 * MIB,
          deviceBytes: alloc + 1012 * MIB,
          // The four steps after the warm-up peaked alike: a calibrated upper bound is its point.
          spread: { steps: 4, allocated: 1, reserved: 1, device: 1 },
        },
        activationLimits(estimateOf(variants.floor), estimateOf(variants.ceiling), 'backward'),
      ),
    );
    expect(c.calibration.bounds).toEqual([]);
    expect(c.steps).toEqual({ used: 4, first: 2, last: 5, warmup: 1 });
    expect(c.estimate).toEqual(EST.peak);
    expect(c.notes).toEqual([]);
    expect(c.calibration.nonTorchBytes).toBe(500 * MIB);
    expect(c.activationBytes!.measured / c.activationBytes!.estimated).toBeCloseTo(
      c.calibration.activationFactor!,
      9,
    );
  });

  it('notes what bears on it: another batch in the probe, an OOM, no nvidia-smi, few steps', () => {
    const c = accepted(
      calibrateRun(
        { ...RUN, status: 'oom', batchSize: 4, seqLen: 2048 },
        steps.slice(0, 3),
        [],
        SCENARIO,
        estimateOf,
      ),
    );
    expect(c.notes).toEqual([
      { code: 'batch-differs', params: { recorded: 4, scenario: 2 } },
      { code: 'seq-len-differs', params: { recorded: 2048, scenario: 1024 } },
      { code: 'ended-in-oom', params: {} },
      { code: 'no-device-samples', params: {} },
      { code: 'few-steps', params: { steps: 2 } },
    ]);
    // A calibration stored before notes carried params reads back in the new shape.
    const stored = {
      ...c,
      notes: [
        { code: 'batch-differs', recorded: 4, scenario: 2 },
        { code: 'ended-in-oom' },
        { code: 'other' },
      ],
    };
    expect(readRunCalibration(stored)?.notes).toEqual([
      { code: 'batch-differs', params: { recorded: 4, scenario: 2 } },
      { code: 'ended-in-oom', params: {} },
    ]);
  });

  it('refuses a run with no step, one step, or a peak below what the scenario’s states hold', () => {
    expect(refusals(calibrateRun(RUN, [], [], SCENARIO, estimateOf))).toEqual([
      { code: 'no-measured-peak', params: { steps: 0 } },
    ]);
    expect(refusals(calibrateRun(RUN, steps.slice(0, 1), [], SCENARIO, estimateOf))).toEqual([
      { code: 'too-few-steps', params: { steps: 1, needed: 2 } },
    ]);
    // 1 GiB allocated: below the 2.3 GiB of bf16 weights a Llama-3.2-1B must hold.
    const low = [1, 2, 3].map((n) => step(n, 1000 * n, 1 * GIB, 1.2 * GIB));
    expect(refusals(calibrateRun(RUN, low, [], SCENARIO, estimateOf))).toEqual([
      {
        code: 'below-model-states',
        params: {
          measuredBytes: GIB,
          stateBytes: EST.breakdown.weightsBytes! + EST.breakdown.optimizerBytes!,
          weightsBytes: EST.breakdown.weightsBytes,
          optimizerBytes: EST.breakdown.optimizerBytes,
          gradientBytes: 0,
        },
      },
    ]);
    // reserved below allocated: not what a caching allocator can report.
    const odd = [1, 2, 3].map((n) => step(n, 1000 * n, 10 * GIB, 9 * GIB));
    expect(refusals(calibrateRun(RUN, odd, [], SCENARIO, estimateOf))).toEqual([
      { code: 'reserved-below-allocated', params: { allocatedBytes: 10 * GIB, reservedBytes: 9 * GIB } },
    ]);
  });

  it('refuses more activations than the setup keeps in its most memory-hungry form', () => {
    const ceiling = estimateOf(activationLimitScenarios(SCENARIO).ceiling);
    const most = activationTerms(ceiling, 'backward');
    const terms = activationTerms(EST, 'backward');
    // The run kept 1 GiB more than even fp32, eager attention and no checkpointing keep at b2×1024.
    const over = EST.peak.allocatedBytes - terms + most + GIB;
    const heavy = [1, 2, 3].map((n) => step(n, 1000 * n, over, over + GIB));
    const [r] = refusals(calibrateRun(RUN, heavy, [], SCENARIO, estimateOf));
    expect(r!.code).toBe('activations-beyond-setup');
    if (r!.code !== 'activations-beyond-setup') return;
    expect(r!.params.ceilingBytes).toBe(most);
    expect(r!.params.maxFactor).toBeCloseTo(most / terms, 9);
    expect(r!.params.factor).toBeCloseTo((most + GIB) / terms, 9);
  });

  it('survives the ledger: what is stored reads back the same, and other data reads as null', () => {
    const c = accepted(calibrateRun(RUN, steps, processes, SCENARIO, estimateOf));
    expect(readRunCalibration(JSON.parse(JSON.stringify(c)))).toEqual(c);
    // Stored before the bounds existed (no bounds), or with a factor below zero: measured again instead.
    const { bounds: _bounds, ...unbounded } = c.calibration;
    expect(readRunCalibration({ ...c, calibration: unbounded })).toBeNull();
    expect(
      readRunCalibration({ ...c, calibration: { ...c.calibration, activationFactor: -0.42 } }),
    ).toBeNull();
    expect(readRunCalibration({})).toBeNull();
    expect(
      readRunCalibration({ ...c, calibration: { ...c.calibration, allocatorFactor: 'big' } }),
    ).toBeNull();
    expect(readRunCalibration(null)).toBeNull();
    const { notes: _notes, ...old } = c;
    expect(readRunCalibration(old)?.notes).toEqual([]);
  });
});

describe('predictCalibrated', () => {
  it('gives the estimate alone, the calibrated peaks, and how far the device level moved', () => {
    const c = accepted(
      calibrateRun(
        RUN,
        [1, 2, 3].map((n) => step(n, n, 10 * GIB, 10.5 * GIB)),
        [],
        SCENARIO,
        estimateOf,
      ),
    );
    const big = estimate({
      scenario: { ...SCENARIO, microBatchSize: 8 },
      shape: resolveModelRef('llama-3.2-1b')!.shape,
    });
    const p = predictCalibrated(big, c.calibration);
    expect(p.estimated).toEqual(big.peak);
    expect(p.movedBytes).toBe(p.predicted.deviceBytes - big.peak.deviceBytes);
    expect(p.predicted.allocatedBytes).toBeGreaterThan(big.peak.allocatedBytes);
  });
});

describe('calibrationCarries', () => {
  it('carries a calibration to another size of the same setup, within the token ratio', () => {
    expect(calibrationCarries(SCENARIO, { ...SCENARIO, microBatchSize: 8 })).toEqual([]);
    expect(calibrationCarries(SCENARIO, { ...SCENARIO, gradientCheckpointing: 'full' })).toEqual([]);
    // b2×1024 = 2048 tokens: 16× is 32768 (b32×1024) and 1/16 is 128.
    expect(calibratedTokenRange(SCENARIO)).toEqual({
      minTokens: 128,
      maxTokens: 2048 * CALIBRATION_MAX_TOKEN_RATIO,
    });
    expect(calibrationCarries(SCENARIO, { ...SCENARIO, microBatchSize: 32 })).toEqual([]);
    expect(calibrationCarries(SCENARIO, { ...SCENARIO, microBatchSize: 33 })).toEqual([
      { code: 'tokens-beyond-range', params: { runTokens: 2048, targetTokens: 33 * 1024, maxRatio: 16 } },
    ]);
    expect(calibrationCarries(SCENARIO, { ...SCENARIO, microBatchSize: 1, seqLen: 127 })).toEqual([
      { code: 'tokens-beyond-range', params: { runTokens: 2048, targetTokens: 127, maxRatio: 16 } },
    ]);
  });

  it('never across the model, the method, the quantization or the strategy', () => {
    const qlora = parseScenario({ ...SCENARIO, method: 'qlora', quantization: 'nf4' });
    expect(calibrationCarries(SCENARIO, qlora)).toEqual([
      { code: 'setup-differs', params: { field: 'method', run: 'lora', target: 'qlora' } },
      { code: 'setup-differs', params: { field: 'quantization', run: 'none', target: 'nf4' } },
    ]);
    expect(
      calibrationCarries(SCENARIO, {
        ...SCENARIO,
        model: 'qwen2.5-0.5b',
        parallelism: { strategy: 'ddp', gpus: 2 },
      }),
    ).toEqual([
      { code: 'setup-differs', params: { field: 'model', run: 'llama-3.2-1b', target: 'qwen2.5-0.5b' } },
      { code: 'setup-differs', params: { field: 'strategy', run: 'single', target: 'ddp' } },
    ]);
  });
});

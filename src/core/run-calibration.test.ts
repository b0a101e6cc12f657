import { describe, expect, it } from 'vitest';
import { calibrate } from './calibrate.js';
import { type Estimate, estimate } from './estimate.js';
import { resolveModelRef } from './model-ref.js';
import { calibrateRun, predictCalibrated, readRunCalibration, recordedStepPeaks } from './run-calibration.js';
import type { ProcessSampleRecord, RunRecord, StepRecord } from './run-record.js';
import { parseScenario } from './scenario.js';
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
const EST: Estimate = estimate({ scenario: SCENARIO, shape: resolveModelRef('llama-3.2-1b')!.shape });

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
};

describe('calibrateRun', () => {
  const alloc = 10 * GIB;
  const steps = [1, 2, 3, 4, 5].map((n) => step(n, 1000 * n, n === 1 ? 12 * GIB : alloc, alloc + 512 * MIB));
  const processes = [1, 2, 3, 4, 5].map((n) => ours(1000 * n - 500, alloc + 1012 * MIB));

  it('compares the steps after the first with the estimate and keeps what it measured', () => {
    const c = calibrateRun(RUN, steps, processes, SCENARIO, EST)!;
    expect(c.calibration).toEqual(
      calibrate(EST, {
        allocatedBytes: alloc,
        reservedBytes: alloc + 512 * MIB,
        deviceBytes: alloc + 1012 * MIB,
      }),
    );
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
    const c = calibrateRun(
      { ...RUN, status: 'oom', batchSize: 4, seqLen: 2048 },
      steps.slice(0, 3),
      [],
      SCENARIO,
      EST,
    )!;
    expect(c.notes).toEqual([
      { code: 'batch-differs', recorded: 4, scenario: 2 },
      { code: 'seq-len-differs', recorded: 2048, scenario: 1024 },
      { code: 'ended-in-oom' },
      { code: 'no-device-samples' },
      { code: 'few-steps', steps: 2 },
    ]);
    expect(calibrateRun(RUN, [], [], SCENARIO, EST)).toBeNull();
  });

  it('survives the ledger: what is stored reads back the same, and other data reads as null', () => {
    const c = calibrateRun(RUN, steps, processes, SCENARIO, EST)!;
    expect(readRunCalibration(JSON.parse(JSON.stringify(c)))).toEqual(c);
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
    const c = calibrateRun(
      RUN,
      [1, 2, 3].map((n) => step(n, n, 10 * GIB, 10.5 * GIB)),
      [],
      SCENARIO,
      EST,
    )!;
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

import { describe, expect, it } from 'vitest';
import type { RunEvent, StepRecord } from './run-record.js';
import { detectGrowth, layerGaps, perStepPeaks, runOutcome, type StepPeak } from './run-summary.js';
import { runRecord } from './test-helpers/run-record.js';
import { GIB, MIB } from './units.js';

const step = (over: Partial<StepRecord>): StepRecord => ({
  tMs: 0,
  pid: 1,
  rank: 0,
  localRank: 0,
  device: 0,
  step: 1,
  phase: 'train',
  loss: null,
  lossText: null,
  lr: null,
  batchSize: null,
  seqLen: null,
  durationS: null,
  allocatedBytes: null,
  reservedBytes: null,
  peakAllocatedBytes: null,
  peakReservedBytes: null,
  inactiveSplitBytes: null,
  numAllocRetries: null,
  numOoms: null,
  ...over,
});

const peaks = (allocatedMiB: readonly number[], reservedMiB?: readonly number[]): StepPeak[] =>
  allocatedMiB.map((a, i) => ({
    step: i + 1,
    tMs: i,
    phase: 'train',
    loss: null,
    peakAllocatedBytes: a * MIB,
    peakReservedBytes: (reservedMiB?.[i] ?? a) * MIB,
  }));

describe('perStepPeaks', () => {
  it('takes the highest device of every rank per step, in step order, with rank 0’s loss', () => {
    const out = perStepPeaks([
      step({ step: 2, rank: 1, peakAllocatedBytes: 300, peakReservedBytes: 400, loss: 9 }),
      step({ step: 1, rank: 0, peakAllocatedBytes: 100, peakReservedBytes: 150, loss: 2 }),
      step({ step: 1, rank: 1, device: 1, peakAllocatedBytes: 120, peakReservedBytes: 140, loss: 7 }),
      step({ step: 2, rank: 0, peakAllocatedBytes: 200, peakReservedBytes: 500, loss: 1 }),
    ]);
    expect(out.map((p) => [p.step, p.peakAllocatedBytes, p.peakReservedBytes, p.loss])).toEqual([
      [1, 120, 150, 2],
      [2, 300, 500, 1],
    ]);
  });
});

describe('detectGrowth', () => {
  it('needs 8 steps', () => {
    expect(detectGrowth(peaks([1, 2, 3, 4, 5, 6, 7]))).toEqual({ kind: 'too-few-steps', steps: 7 });
  });

  it('flat: noise and one long batch are not growth', () => {
    const series = [900, 2000, 1000, 1010, 995, 3000, 1005, 1000, 998, 1002, 1001, 999];
    expect(detectGrowth(peaks(series))).toEqual({ kind: 'flat', steps: 12, levelBytes: 1001 * MIB });
  });

  it('allocated growing 100 MiB a step is a leak-like growth, from the first third to the last', () => {
    const series = Array.from({ length: 14 }, (_, i) => 1000 + 100 * i);
    // After 2 warm-up steps: 12 steps, thirds of 4: medians 1350 (steps 3-6) and 2150 (steps 11-14).
    expect(detectGrowth(peaks(series))).toEqual({
      kind: 'grew',
      layer: 'allocated',
      fromBytes: 1350 * MIB,
      toBytes: 2150 * MIB,
      fromStep: 5,
      toStep: 13,
      bytesPerStep: 100 * MIB,
    });
  });

  it('reserved growing while allocated is flat is the cache (fragmentation)', () => {
    const allocated = Array(12).fill(4000);
    const reserved = Array.from({ length: 12 }, (_, i) => 4200 + 50 * i);
    const growth = detectGrowth(peaks(allocated, reserved));
    expect(growth.kind === 'grew' && [growth.layer, growth.fromBytes / MIB, growth.toBytes / MIB]).toEqual([
      'reserved',
      4350,
      4700,
    ]);
  });

  it('growth under max(64 MiB, 2 %) is not reported', () => {
    const series = Array.from({ length: 12 }, (_, i) => 10 * 1024 + 5 * i);
    expect(detectGrowth(peaks(series)).kind).toBe('flat');
  });
});

describe('layerGaps and runOutcome', () => {
  it('gaps between the peaks', () => {
    const run = runRecord({
      peakAllocated: { bytes: 10 * GIB, atMs: 0, step: 1, gpu: 0 },
      peakReserved: { bytes: 11 * GIB, atMs: 0, step: 1, gpu: 0 },
      peakDevice: { bytes: 11.5 * GIB, atMs: 0, step: null, gpu: 0 },
    });
    expect(layerGaps(run)).toEqual({ cacheBytes: GIB, nonTorchBytes: 0.5 * GIB });
    expect(layerGaps(runRecord())).toEqual({ cacheBytes: null, nonTorchBytes: null });
  });

  const event = (over: Partial<RunEvent>): RunEvent => ({
    id: 1,
    tMs: 0,
    kind: 'note',
    source: 'probe',
    pid: null,
    rank: null,
    step: null,
    phase: null,
    message: null,
    data: {},
    ...over,
  });

  it('the probe’s OOM record first, else the OOM text of stderr', () => {
    const run = runRecord({ status: 'oom', lastStep: 40 });
    expect(
      runOutcome(run, [
        event({
          kind: 'oom',
          message: 'CUDA out of memory. Tried…',
          step: 40,
          phase: 'eval',
          rank: 1,
          data: { type: 'torch.OutOfMemoryError' },
        }),
        event({ kind: 'oom-text', message: 'other' }),
      ]),
    ).toEqual({
      status: 'oom',
      error: {
        kind: 'oom',
        type: 'torch.OutOfMemoryError',
        message: 'CUDA out of memory. Tried…',
        step: 40,
        phase: 'eval',
        rank: 1,
      },
    });
    expect(
      runOutcome(run, [
        event({ kind: 'oom-text', source: 'stderr', message: 'RuntimeError: CUDA error: out of memory' }),
      ]),
    ).toEqual({
      status: 'oom',
      error: {
        kind: 'oom',
        type: null,
        message: 'RuntimeError: CUDA error: out of memory',
        step: 40,
        phase: null,
        rank: null,
      },
    });
    expect(runOutcome(runRecord(), [])).toEqual({ status: 'ok', error: null });
  });
});

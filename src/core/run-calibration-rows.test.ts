/**
 * The calibration's reading of a run's rows, one step at a time (what a run of millions of steps is
 * read with), against the reading it replaced: every step's device peak found by filtering every
 * sample, and measuredPeaks over the whole list. Same figures, on rows in any order.
 */
import { describe, expect, it } from 'vitest';
import { CALIBRATION_WARMUP_STEPS, measuredPeaks } from './calibrate.js';
import { timelinePhase } from './diagnose/run-timeline.js';
import { maxOf } from './extremes.js';
import { type RecordedStepPeak, recordedStepPeaks, summarizeRecordedPeaks } from './run-calibration.js';
import type { ProcessSampleRecord, StepRecord } from './run-record.js';

/** recordedStepPeaks as it was: a map of the steps, and for each step a filter over every sample. */
function referencePeaks(
  steps: readonly StepRecord[],
  processes: readonly ProcessSampleRecord[],
): RecordedStepPeak[] {
  const own = new Map<number, Map<string, number>>();
  for (const p of processes) {
    if (!p.ours || p.usedBytes === null) continue;
    const at = own.get(p.tMs) ?? new Map<string, number>();
    const gpu = p.gpuUuid ?? String(p.gpu);
    at.set(gpu, (at.get(gpu) ?? 0) + p.usedBytes);
    own.set(p.tMs, at);
  }
  const samples = [...own.entries()]
    .map(([tMs, byGpu]) => ({ tMs, bytes: maxOf(byGpu.values()) }))
    .sort((a, b) => a.tMs - b.tMs);
  const byStep = new Map<number, { tMs: number; allocated: number; reserved: number; train: boolean }>();
  for (const s of steps) {
    if (s.peakAllocatedBytes === null || s.peakReservedBytes === null) continue;
    const seen = byStep.get(s.step);
    byStep.set(s.step, {
      tMs: Math.max(seen?.tMs ?? s.tMs, s.tMs),
      allocated: Math.max(seen?.allocated ?? 0, s.peakAllocatedBytes),
      reserved: Math.max(seen?.reserved ?? 0, s.peakReservedBytes),
      train: (seen?.train ?? true) && timelinePhase(s.phase) === 'train',
    });
  }
  const out: RecordedStepPeak[] = [];
  let since = Number.NEGATIVE_INFINITY;
  for (const [step, s] of [...byStep.entries()].sort((a, b) => a[0] - b[0])) {
    const during = samples.filter((x) => x.tMs > since && x.tMs <= s.tMs).map((x) => x.bytes);
    since = s.tMs;
    if (!s.train) continue;
    out.push({
      step,
      peakAllocatedBytes: s.allocated,
      peakReservedBytes: s.reserved,
      deviceBytes: during.length > 0 ? maxOf(during) : null,
    });
  }
  return out;
}

function rows(seed: number, steps: number, samples: number) {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const stepRows: StepRecord[] = [];
  for (let i = 0; i < steps * 2; i++) {
    const step = 1 + Math.floor(random() * steps);
    const peak = random() < 0.03 ? null : Math.round(random() * 1e9);
    stepRows.push({
      // Times mostly follow the steps, some out of order (a slow rank, a clock step).
      tMs: step * 100 + Math.round((random() - 0.3) * 400),
      pid: 1,
      rank: Math.floor(random() * 3),
      localRank: 0,
      device: 0,
      step,
      phase: random() < 0.1 ? 'eval' : 'train',
      loss: null,
      lossText: null,
      lr: null,
      batchSize: null,
      seqLen: null,
      durationS: null,
      allocatedBytes: peak,
      reservedBytes: peak,
      peakAllocatedBytes: peak,
      peakReservedBytes: peak === null ? null : peak + Math.round(random() * 1e8),
      inactiveSplitBytes: null,
      numAllocRetries: null,
      numOoms: null,
    });
  }
  const processRows: ProcessSampleRecord[] = Array.from({ length: samples }, () => ({
    tMs: Math.round(random() * steps * 100),
    gpu: Math.floor(random() * 2),
    gpuUuid: null,
    pid: 1,
    name: 'python',
    usedBytes: random() < 0.02 ? null : Math.round(random() * 2e9),
    ours: random() < 0.9,
  }));
  return { stepRows, processRows };
}

describe('recordedStepPeaks read one step at a time', () => {
  it('gives the figures the filter over every sample gave, steps and samples in any order', () => {
    for (const [seed, steps, samples] of [
      [1, 50, 0],
      [2, 400, 1500],
      [3, 3000, 900],
    ] as const) {
      const { stepRows, processRows } = rows(seed, steps, samples);
      expect(recordedStepPeaks(stepRows, processRows)).toEqual(referencePeaks(stepRows, processRows));
    }
  });

  it('summarizes the peaks as measuredPeaks does over the whole list', () => {
    const { stepRows, processRows } = rows(4, 2000, 3000);
    const peaks = recordedStepPeaks(stepRows, processRows);
    const summary = summarizeRecordedPeaks(peaks);
    expect(summary.count).toBe(peaks.length);
    expect(summary.used).toBe(peaks.length - CALIBRATION_WARMUP_STEPS);
    expect(summary.measured).toEqual(measuredPeaks(peaks));
    expect(summary.first).toBe(peaks[CALIBRATION_WARMUP_STEPS]!.step);
    expect(summary.last).toBe(peaks.at(-1)!.step);
    expect(summarizeRecordedPeaks(peaks.slice(0, 1)).measured).toEqual(measuredPeaks(peaks.slice(0, 1)));
    expect(summarizeRecordedPeaks([]).measured).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { perRankStepPeaks, rankStepPeaksByStep } from './ranks.js';
import type { StepRecord } from './run-record.js';

const row = (step: number, rank: number, peak: number | null, phase = 'train'): StepRecord => ({
  tMs: step * 100 + rank,
  pid: 10 + rank,
  rank,
  localRank: rank,
  device: rank,
  step,
  phase,
  loss: null,
  lossText: null,
  lr: null,
  batchSize: null,
  seqLen: null,
  durationS: null,
  allocatedBytes: peak,
  reservedBytes: peak,
  peakAllocatedBytes: peak,
  peakReservedBytes: peak === null ? null : peak + 1,
  inactiveSplitBytes: null,
  numAllocRetries: null,
  numOoms: null,
});

describe('rankStepPeaksByStep', () => {
  const rows = [
    row(1, 0, 5),
    row(1, 1, 7),
    row(1, 1, 9),
    row(2, 1, 3, 'eval'),
    row(2, 0, null, 'eval'),
    row(3, 2, 4),
    row(3, 0, 6),
  ];

  it('gives perRankStepPeaks step by step from rows ordered by step', () => {
    const whole = perRankStepPeaks(rows);
    const read = [...rankStepPeaksByStep(rows, whole.ranks)].map(({ index: _, ...s }) => s);
    expect(read).toEqual(whole.steps);
  });

  it('makes only the steps asked for, numbered from 0', () => {
    const whole = perRankStepPeaks(rows);
    const picked = [...rankStepPeaksByStep(rows, whole.ranks, (i) => i !== 1)];
    expect(picked.map((s) => s.index)).toEqual([0, 2]);
    expect(picked.map(({ index: _, ...s }) => s)).toEqual([whole.steps[0], whole.steps[2]]);
  });
});

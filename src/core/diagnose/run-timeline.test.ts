import { describe, expect, it } from 'vitest';
import type { RunEvent, StepRecord } from '../run-record.js';
import { MIB } from '../units.js';
import { probeCapacityBytes, timelineFromSteps, timelinePhase } from './run-timeline.js';
import { timelineColumns, timelineStepAt } from './timeline.js';

function step(over: Partial<StepRecord>): StepRecord {
  return {
    tMs: 1000,
    pid: 7,
    rank: 0,
    localRank: 0,
    device: 0,
    step: 1,
    phase: 'train',
    loss: 1,
    lossText: null,
    lr: 1e-4,
    batchSize: 4,
    seqLen: 512,
    durationS: 0.1,
    allocatedBytes: 100 * MIB,
    reservedBytes: 120 * MIB,
    peakAllocatedBytes: 150 * MIB,
    peakReservedBytes: 160 * MIB,
    inactiveSplitBytes: 20 * MIB,
    numAllocRetries: 0,
    numOoms: 0,
    ...over,
  };
}

describe('timelinePhase', () => {
  it.each([
    ['train', 'train'],
    ['training', 'train'],
    ['eval', 'eval'],
    ['Evaluation', 'eval'],
    ['validation', 'eval'],
    ['predict', 'eval'],
    ['generate', 'eval'],
    ['save', 'save'],
    ['checkpoint', 'save'],
    ['load', 'load'],
    ['warmup', 'other'],
  ])('%s → %s', (name, phase) => expect(timelinePhase(name)).toBe(phase));
});

describe('timelineFromSteps', () => {
  it('keeps each rank and device with the allocator figures, and leaves out steps without them', () => {
    const timeline = timelineFromSteps(
      [
        step({ step: 1 }),
        step({ step: 1, rank: 1, localRank: 1, device: 1, allocatedBytes: 90 * MIB }),
        step({ step: 2, device: null, allocatedBytes: null, reservedBytes: null }),
        step({
          step: 3,
          phase: 'eval',
          peakAllocatedBytes: null,
          inactiveSplitBytes: null,
          numAllocRetries: null,
        }),
      ],
      80 * 1024 * MIB,
    );
    const columns = timelineColumns(timeline);
    // Columns (typed arrays), not an object per step: a run of millions of steps stays small.
    expect(columns.allocatedBytes).toBeInstanceOf(Float64Array);
    expect(timeline.capacityBytes).toBe(80 * 1024 * MIB);
    expect({
      capacityBytes: timeline.capacityBytes,
      steps: Array.from({ length: columns.length }, (_, i) => timelineStepAt(columns, i)),
    }).toEqual({
      capacityBytes: 80 * 1024 * MIB,
      steps: [
        {
          step: 1,
          phase: 'train',
          allocatedBytes: 100 * MIB,
          reservedBytes: 120 * MIB,
          peakAllocatedBytes: 150 * MIB,
          peakReservedBytes: 160 * MIB,
          inactiveSplitBytes: 20 * MIB,
          numAllocRetries: 0,
          rank: 0,
          device: 0,
        },
        {
          step: 1,
          phase: 'train',
          allocatedBytes: 90 * MIB,
          reservedBytes: 120 * MIB,
          peakAllocatedBytes: 150 * MIB,
          peakReservedBytes: 160 * MIB,
          inactiveSplitBytes: 20 * MIB,
          numAllocRetries: 0,
          rank: 1,
          device: 1,
        },
        {
          step: 3,
          phase: 'eval',
          allocatedBytes: 100 * MIB,
          reservedBytes: 120 * MIB,
          peakAllocatedBytes: 100 * MIB,
          peakReservedBytes: 160 * MIB,
          inactiveSplitBytes: 0,
          numAllocRetries: 0,
          rank: 0,
          device: 0,
        },
      ],
    });
  });
});

describe('probeCapacityBytes', () => {
  const device = (totalBytes: unknown, kind = 'device'): RunEvent => ({
    id: 1,
    tMs: 0,
    kind,
    source: 'probe',
    pid: 1,
    rank: 0,
    step: null,
    phase: null,
    message: null,
    data: { totalBytes },
  });
  it('is the smallest card the probe described, or null', () => {
    expect(probeCapacityBytes([device(80 * MIB), device(40 * MIB), device(10 * MIB, 'step')])).toBe(40 * MIB);
    expect(probeCapacityBytes([device(null), device('big')])).toBeNull();
    expect(probeCapacityBytes([])).toBeNull();
  });
});

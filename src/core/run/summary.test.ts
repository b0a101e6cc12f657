import { describe, expect, it } from 'vitest';
import type { RunEvent, StepRecord } from '../run-record.js';
import { runRecord } from '../test-helpers/run-record.js';
import { GIB, MIB } from '../units.js';
import { summarizeRun } from './summary.js';

const event = (over: Partial<RunEvent>): RunEvent => ({
  id: 1,
  tMs: 0,
  kind: 'note',
  source: 'headroom',
  pid: null,
  rank: null,
  step: null,
  phase: null,
  message: null,
  data: {},
  ...over,
});

const step = (n: number, peakMiB: number): StepRecord => ({
  tMs: n * 1000,
  pid: 1,
  rank: 0,
  localRank: 0,
  device: 0,
  step: n,
  phase: 'train',
  loss: 1,
  lossText: null,
  lr: null,
  batchSize: null,
  seqLen: null,
  durationS: null,
  allocatedBytes: null,
  reservedBytes: null,
  peakAllocatedBytes: peakMiB * MIB,
  peakReservedBytes: (peakMiB + 16) * MIB,
  inactiveSplitBytes: null,
  numAllocRetries: null,
  numOoms: null,
});

const START = 1_767_225_600_000;

describe('summarizeRun', () => {
  const run = runRecord({
    id: 3,
    name: 'oom',
    status: 'oom',
    exitCode: 1,
    command: ['python3', 'train.py'],
    startedAtMs: START,
    endedAtMs: START + 4200,
    steps: 2,
    lastStep: 2,
    estimate: { allocatedBytes: 3 * GIB, reservedBytes: 3.2 * GIB, deviceBytes: 3.7 * GIB },
    peakAllocated: { bytes: 3328 * MIB, atMs: START + 2100, step: 2, gpu: 0 },
    peakReserved: { bytes: 3344 * MIB, atMs: START + 2100, step: 2, gpu: 0 },
    peakDevice: { bytes: 3844 * MIB, atMs: START + 2500, step: 2, gpu: 0 },
  });
  const events = [
    event({ id: 1, kind: 'prelaunch', message: 'GPU 0 has 1.00 GiB in use but lists no process' }),
    event({
      id: 2,
      kind: 'oom',
      source: 'probe',
      step: 2,
      phase: 'train',
      rank: 0,
      message: 'CUDA out of memory. Tried to allocate 2.00 GiB.',
      data: { type: 'torch.OutOfMemoryError' },
    }),
    event({ id: 3, kind: 'probe-bad-line', message: 'probe.jsonl at byte 9: truncated line' }),
  ];

  it('is the run’s peaks per layer and when, since its start; only torch’s layers name a step', () => {
    const summary = summarizeRun(run, [step(1, 3000), step(2, 3328)], events, START + 9999);
    expect(summary).toMatchObject({
      id: 3,
      name: 'oom',
      status: 'oom',
      exitCode: 1,
      durationMs: 4200,
      steps: 2,
    });
    expect(summary.peaks).toEqual([
      { layer: 'allocated', bytes: 3328 * MIB, sinceStartMs: 2100, step: 2, gpu: 0 },
      { layer: 'reserved', bytes: 3344 * MIB, sinceStartMs: 2100, step: 2, gpu: 0 },
      { layer: 'device', bytes: 3844 * MIB, sinceStartMs: 2500, step: null, gpu: 0 },
    ]);
    expect(summary.gaps).toEqual({ cacheBytes: 16 * MIB, nonTorchBytes: 500 * MIB });
    expect(summary.probeSilent).toBe(false);
  });

  it('holds each level of the estimate to the measured peak', () => {
    const summary = summarizeRun(run, [], events, 0);
    expect(summary.estimate).toEqual([
      { level: 'allocated', estimatedBytes: 3 * GIB, measuredBytes: 3328 * MIB, error: (3072 - 3328) / 3328 },
      {
        level: 'reserved',
        estimatedBytes: 3.2 * GIB,
        measuredBytes: 3344 * MIB,
        error: (3.2 * 1024 - 3344) / 3344,
      },
      {
        level: 'device',
        estimatedBytes: 3.7 * GIB,
        measuredBytes: 3844 * MIB,
        error: (3.7 * 1024 - 3844) / 3844,
      },
    ]);
    expect(summarizeRun({ ...run, peakDevice: null }, [], events, 0).estimate![2]!.error).toBeNull();
  });

  it('ends in the OOM the probe saw, where it saw it; keeps the warnings and counts the bad lines', () => {
    const summary = summarizeRun(run, [], events, 0);
    expect(summary.end).toEqual({
      code: 'oom',
      params: {
        step: 2,
        phase: 'train',
        rank: 0,
        message: 'CUDA out of memory. Tried to allocate 2.00 GiB.',
      },
    });
    expect(summary.warnings.map((e) => e.id)).toEqual([1]);
    expect(summary.badLines).toBe(1);
    expect(summary.growth).toEqual({ kind: 'too-few-steps', steps: 0 });
  });

  it.each([
    ['ok', {}, { code: 'finished', params: {} }],
    ['running', {}, { code: 'running', params: {} }],
    ['killed', { signal: 'SIGINT' }, { code: 'killed', params: { signal: 'SIGINT' } }],
    ['failed', {}, { code: 'failed', params: { type: null, message: null } }],
  ] as const)('a run that is %s', (status, over, end) => {
    expect(summarizeRun(runRecord({ status, ...over }), [], [], 0).end).toEqual(end);
  });

  it('a failed run with an exception names it; one that never started points at the spawn error', () => {
    const exception = event({
      kind: 'exception',
      source: 'probe',
      message: 'bad batch\nmore',
      data: { type: 'ValueError' },
    });
    expect(summarizeRun(runRecord({ status: 'failed' }), [], [exception], 0).end).toEqual({
      code: 'failed',
      params: { type: 'ValueError', message: 'bad batch' },
    });
    const spawn = event({
      kind: 'spawn-error',
      message: 'cannot start x: not found (not on PATH, or no such file)',
    });
    expect(summarizeRun(runRecord({ status: 'failed' }), [], [spawn], 0).end).toEqual({
      code: 'not-started',
      params: { event: spawn },
    });
  });

  it('a run attached with watch shows its log; with no probe peak and no step, the probe was silent', () => {
    const watched = summarizeRun(runRecord({ logPath: '/tmp/p.jsonl' }), [], [], 0);
    expect([watched.watchedLog, watched.probeSilent, watched.peaks, watched.estimate]).toEqual([
      '/tmp/p.jsonl',
      true,
      [],
      null,
    ]);
  });
});

/**
 * The timeline rules on synthetic runs built in code (test/diagnose-run.test.ts feeds them recorded
 * runs): each pattern — a leak, fragmentation, growth during evaluation, a rank imbalance, a
 * stable-but-full card, rising allocator retries — yields its finding and no other.
 */
import { describe, expect, it } from 'vitest';
import { findingWords } from '../../words/diagnosis.js';
import type { Lang } from '../../words/lang.js';
import { GIB, MIB } from '../units.js';
import { type DiagnoseInput, diagnose as diagnoseData } from './diagnose.js';
import type { Timeline, TimelinePhase, TimelineStep } from './timeline.js';

interface Shape {
  readonly steps: number;
  readonly rank?: number;
  readonly phase?: (i: number) => TimelinePhase;
  readonly alloc: (i: number) => number;
  readonly peakAlloc?: (i: number) => number;
  readonly reserved?: (i: number) => number;
  readonly peakReserved?: (i: number) => number;
  readonly split?: (i: number) => number;
  readonly retries?: (i: number) => number;
}

/** A run of `steps` steps; every field a function of the step number (1-based). */
function series(s: Shape): TimelineStep[] {
  return Array.from({ length: s.steps }, (_, k) => {
    const i = k + 1;
    const allocated = s.alloc(i);
    const peakAllocated = s.peakAlloc?.(i) ?? allocated + 10 * GIB;
    const peakReserved = s.peakReserved?.(i) ?? peakAllocated + GIB;
    return {
      step: i,
      phase: s.phase?.(i) ?? 'train',
      allocatedBytes: allocated,
      reservedBytes: s.reserved?.(i) ?? peakReserved,
      peakAllocatedBytes: peakAllocated,
      peakReservedBytes: peakReserved,
      inactiveSplitBytes: s.split?.(i) ?? 64 * MIB,
      numAllocRetries: s.retries?.(i) ?? 0,
      rank: s.rank ?? 0,
      device: s.rank ?? 0,
    };
  });
}

const CARD = 80 * GIB;
/** The diagnosis with its findings in words (the catalog renders what these tests read). */
const diagnose = (input: DiagnoseInput, lang: Lang = 'en') => {
  const d = diagnoseData(input);
  return { ...d, findings: d.findings.map((f) => findingWords(f, lang)) };
};

const findings = (timeline: Timeline) => diagnose({ timeline }).findings;
const codesOf = (timeline: Timeline) => findings(timeline).map((f) => f.code);
const flat = (bytes: number) => () => bytes;

describe('timeline rules', () => {
  it('a steady run well inside the card: nothing to report', () => {
    expect(codesOf({ steps: series({ steps: 60, alloc: flat(20 * GIB) }), capacityBytes: CARD })).toEqual([]);
  });

  it('a leak: allocated grows step after step', () => {
    const steps = series({ steps: 60, alloc: (i) => 20 * GIB + i * 50 * MIB });
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => x.code)).toEqual(['leak']);
    expect(f[0]!.title).toBe('Allocated memory grows step after step (rank 0, GPU 0)');
    expect(f[0]!.evidence.map((e) => e.value)).toEqual([
      '20.20 GiB at step 4 → 22.93 GiB at step 60',
      '50.0 MiB',
      '56 of 56',
      // (80 GiB − peak reserved at step 60, 33.93 GiB) / 50 MiB per step, after step 60
      String(Math.round(60 + (CARD - (20 * GIB + 60 * 50 * MIB + 11 * GIB)) / (50 * MIB))),
    ]);
  });

  it('fragmentation: reserved climbs while allocated stays flat', () => {
    const steps = series({
      steps: 60,
      alloc: flat(20 * GIB),
      peakReserved: (i) => 31 * GIB + i * 40 * MIB,
      split: (i) => i * 30 * MIB,
    });
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => x.code)).toEqual(['fragmentation']);
    expect(f[0]!.title).toBe('Reserved memory climbs while allocated memory stays flat: fragmentation');
    expect(f[0]!.evidence.map((e) => e.value)).toEqual([
      '31.16 GiB at step 4 → 33.34 GiB at step 60',
      '30.00 GiB at step 4 → 30.00 GiB at step 60',
      '1.76 GiB (5 % of reserved)',
    ]);
  });

  it('fragmentation: large inactive split blocks alone', () => {
    const steps = series({ steps: 30, alloc: flat(20 * GIB), split: flat(8 * GIB) });
    expect(codesOf({ steps, capacityBytes: CARD })).toEqual(['fragmentation']);
  });

  it('growth across evaluation batches', () => {
    const steps = series({
      steps: 30,
      phase: (i) => (i > 20 ? 'eval' : 'train'),
      alloc: (i) => (i > 20 ? 20 * GIB + (i - 20) * 200 * MIB : 20 * GIB),
    });
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => x.code)).toEqual(['eval-growth']);
    expect(f[0]!.evidence[0]!.value).toBe('20.20 GiB at step 21 → 21.95 GiB at step 30');
  });

  it('a rank imbalance: rank 0 holds more than the others', () => {
    const steps = [0, 1, 2, 3].flatMap((rank) =>
      series({
        steps: 20,
        rank,
        alloc: flat(20 * GIB),
        peakReserved: flat(rank === 0 ? 70 * GIB : 60 * GIB),
      }),
    );
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => x.code)).toEqual(['rank-imbalance']);
    expect(f[0]!.evidence.map((e) => e.value)).toEqual([
      '70.00 GiB (+10.00 GiB) on rank 0',
      '60.00 GiB on rank 1',
      '60.00 GiB on rank 2',
      '60.00 GiB on rank 3',
    ]);
  });

  it('a stable card that looks full: the allocator’s cache, a note', () => {
    const steps = series({ steps: 40, alloc: flat(40 * GIB), peakReserved: flat(75 * GIB) });
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => [x.code, x.severity])).toEqual([['stable-full', 'info']]);
    expect(f[0]!.action).toContain('Do not call torch.cuda.empty_cache()');
  });

  it('num_alloc_retries rising: an early warning, not "stable"', () => {
    const steps = series({
      steps: 40,
      alloc: flat(40 * GIB),
      peakReserved: flat(76 * GIB),
      retries: (i) => Math.max(0, i - 30),
    });
    const f = findings({ steps, capacityBytes: CARD });
    expect(f.map((x) => [x.code, x.severity])).toEqual([['alloc-retries', 'warn']]);
    expect(f[0]!.title).toBe('The allocator had to flush its cache and retry 10 times (num_alloc_retries)');
  });

  it('too few steps to read a trend: nothing', () => {
    expect(
      codesOf({ steps: series({ steps: 6, alloc: (i) => 20 * GIB + i * GIB }), capacityBytes: CARD }),
    ).toEqual([]);
  });

  it('joins the message’s fragmentation and the timeline’s into one finding', () => {
    const text =
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacty of 23.65 GiB of which 1.66 GiB is free. Including non-PyTorch memory, this process has 20.81 GiB memory in use. Of the allocated memory 12.09 GiB is allocated by PyTorch, and 4.84 GiB is reserved by PyTorch but unallocated.';
    const steps = series({
      steps: 40,
      alloc: flat(8 * GIB),
      peakAlloc: flat(12 * GIB),
      peakReserved: (i) => 13 * GIB + i * 60 * MIB,
    });
    const d = diagnose({ text, timeline: { steps } });
    const frag = d.findings.filter((f) => f.code === 'fragmentation');
    expect(frag).toHaveLength(1);
    expect(frag[0]!.evidence.map((e) => e.label)).toEqual([
      'reserved by PyTorch, unallocated',
      'requested',
      'free + reserved-unallocated',
      'reserved',
      'peak allocated',
      'inactive split blocks (cached, unusable)',
    ]);
  });

  it('a recorded run that trained for many steps before an OOM the text does not place failed mid-run', () => {
    // The allocator's figures alone (tensors fill the card) would say forward.
    const text =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 12.00 GiB of which 8.00 MiB is free. Including non-PyTorch memory, this process has 11.99 GiB memory in use. Of the allocated memory 11.50 GiB is allocated by PyTorch, and 4.00 MiB is reserved by PyTorch but unallocated.';
    const steps = (n: number) => series({ steps: n, alloc: flat(6 * GIB), peakReserved: flat(7 * GIB) });
    expect(diagnose({ text }).reading.phase).toMatchObject({ phase: 'forward', basis: 'numbers' });
    const d = diagnose({ text, timeline: { steps: steps(8) } });
    expect(d.reading.phase).toEqual({
      phase: 'mid-run',
      basis: 'steps',
      quote: null,
      line: null,
      reason: 'steps-before-failure',
    });
    expect(d.findings.map((f) => f.code)).toEqual(['mid-run']);
    expect(diagnose({ text, timeline: { steps: steps(7) } }).phase).toBe('forward');
    // A frame that places it wins over the step count.
    const traced = `Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    loss.backward()\n${text}`;
    expect(diagnose({ text: traced, timeline: { steps: steps(20) } }).reading.phase).toMatchObject({
      phase: 'backward',
      basis: 'traceback',
    });
  });
});

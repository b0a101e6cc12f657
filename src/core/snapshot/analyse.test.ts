/**
 * The analysis on a snapshot whose every byte is known: the peak, what was live then by part and site,
 * the OOM, the timeline; then on the real snapshots.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { CUBLAS_WORKSPACE_BYTES } from '../estimate.js';
import { cpp, type EventSpec, py, snapshotBytes } from '../test-helpers/snapshot-builder.js';
import { analyseSnapshot, mainPeak } from './analyse.js';

const MIB = 2 ** 20;
const A = 2 ** 30; // the segment that lives through the trace
const B = 2 ** 31; // a segment the trace allocates and frees

const malloc = cpp(
  'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int, unsigned long, CUstream_st*)',
);
const engine = cpp(
  'torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)',
);
const forward = [
  malloc,
  py('forward', '/site-packages/m.py', 10),
  py('_call_impl', '/site-packages/torch/nn/modules/module.py', 1527),
];
const mulBackward = [
  malloc,
  cpp('torch::autograd::generated::MulBackward0::apply(std::vector<at::Tensor>&&)'),
  engine,
];
const mmBackward = [
  malloc,
  cpp('torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)'),
  engine,
];
const freeInBackward = [cpp('c10::cuda::CUDACachingAllocator::Native::local_raw_delete(void*)'), engine];
const zeroGrad = [
  cpp('c10::cuda::CUDACachingAllocator::Native::local_raw_delete(void*)'),
  py('zero_grad', '/site-packages/torch/optim/optimizer.py', 800),
];
const adamInit = [
  malloc,
  py('_init_group', '/site-packages/torch/optim/adam.py', 100),
  py('step', '/site-packages/torch/optim/adam.py', 150),
];
const fromPretrained = [malloc, py('from_pretrained', '/site-packages/transformers/modeling_utils.py', 3000)];

/** Every byte known: see the comments for the live bytes after each event. */
const events: EventSpec[] = [
  { action: 'segment_alloc', addr: B, size: 16 * MIB, time: 1000 },
  { action: 'alloc', addr: B, size: MIB, frames: forward, time: 1001 }, // act1: 5+1 = 6
  { action: 'alloc', addr: B + MIB, size: 3 * MIB, frames: forward, time: 1002 }, // act2: 9
  { action: 'alloc', addr: A + 4 * MIB, size: 2 * MIB, frames: mulBackward, time: 1003 }, // a gradient: 11
  { action: 'alloc', addr: B + 4 * MIB, size: 5 * MIB, frames: mmBackward, time: 1004 }, // a transient: 16 (peak)
  { action: 'free_completed', addr: B + MIB, size: 3 * MIB, frames: freeInBackward, time: 1005 }, // 13
  { action: 'free_completed', addr: B + 4 * MIB, size: 5 * MIB, frames: freeInBackward, time: 1006 }, // 8
  { action: 'free_completed', addr: 3 * A, size: MIB, frames: zeroGrad, time: 1007 }, // pre-trace: 7
  { action: 'alloc', addr: A + 6 * MIB, size: 8 * MIB, frames: adamInit, time: 1008 }, // optimizer: 15
  { action: 'oom', size: 2 ** 30, deviceFree: 10 * MIB, time: 1009 },
  { action: 'free_completed', addr: B, size: MIB, frames: freeInBackward, time: 1010 }, // 14
  { action: 'segment_free', addr: B, size: 16 * MIB, time: 1011 },
];
const SPEC = {
  segments: [
    {
      address: A,
      blocks: [
        { size: 4 * MIB, frames: fromPretrained }, // weights, from before the trace
        { size: 2 * MIB, frames: mulBackward }, // the gradient
        { size: 8 * MIB, frames: adamInit }, // the optimizer state
        { size: 2 * MIB, state: 'inactive' as const },
      ],
    },
  ],
  traces: [events],
};

describe('analyseSnapshot on a snapshot whose every byte is known', () => {
  const report = analyseSnapshot(snapshotBytes(SPEC), { source: 'known.pickle', top: 10 });
  const peak = mainPeak(report)!;

  it('has the allocator facts', () => {
    expect(report).toMatchObject({
      segments: 1,
      reservedBytes: 16 * MIB,
      allocatedBytes: 14 * MIB,
      requestedBytes: 14 * MIB,
      inactiveBytes: 2 * MIB,
      largestInactiveBlockBytes: 2 * MIB,
      activeBlocks: 3,
      traceEvents: [12],
      tracePeakActiveBytes: [16 * MIB],
    });
  });

  it('finds the peak, its moment, and the reserved bytes then', () => {
    expect(peak).toMatchObject({ device: 0, activeBytes: 16 * MIB, eventIndex: 4, timeUs: 1004, events: 12 });
    expect(peak.reservedBytes).toBe(32 * MIB);
  });

  it('attributes every live byte at the peak: by stack, by the stack that freed it, before the trace', () => {
    expect(peak.live.liveBytes).toBe(16 * MIB);
    expect(peak.live.parts).toEqual({
      weights: 4 * MIB,
      gradients: 3 * MIB,
      optimizer: 0,
      activations: 9 * MIB,
      runtime: 0,
    });
    expect(peak.live.unattributedBytes).toBe(0);
    expect(Object.fromEntries(peak.live.rules.map((r) => [r.rule, r.bytes / MIB]))).toEqual({
      forward: 4,
      'backward-transient': 5,
      'weights-load': 4,
      'backward-kept': 2,
      'freed-by-zero-grad': 1,
    });
  });

  it('lists the sites, largest first, C++-only backward under its autograd node', () => {
    expect(
      peak.live.sites.map((s) => [s.kind, s.frame?.name ?? null, s.bytes / MIB, s.count, s.part]),
    ).toEqual([
      ['autograd', 'MmBackward0', 5, 1, 'activations'],
      ['python', 'forward', 4, 2, 'activations'],
      ['python', 'from_pretrained', 4, 1, 'weights'],
      ['autograd', 'MulBackward0', 2, 1, 'gradients'],
      ['none', null, 1, 1, 'gradients'],
    ]);
  });

  it('reports the OOM with what was live at it', () => {
    expect(report.ooms).toHaveLength(1);
    const oom = report.ooms[0]!;
    expect(oom).toMatchObject({
      eventIndex: 9,
      requestedBytes: 2 ** 30,
      deviceFreeBytes: 10 * MIB,
      activeBytes: 15 * MIB,
      reservedBytes: 32 * MIB,
      timeUs: 1009,
    });
    expect(oom.live.parts).toEqual({
      weights: 4 * MIB,
      gradients: 2 * MIB,
      optimizer: 8 * MIB,
      activations: MIB,
      runtime: 0,
    });
    expect(report.findings).toContainEqual({
      code: 'oom-in-trace',
      params: {
        device: 0,
        eventIndex: 9,
        requestedBytes: 2 ** 30,
        deviceFreeBytes: 10 * MIB,
        activeBytes: 15 * MIB,
        reservedBytes: 32 * MIB,
      },
    });
  });

  it('attributes the state at the snapshot too (the end), gradients kept', () => {
    expect(report.end.parts).toEqual({
      weights: 4 * MIB,
      gradients: 2 * MIB,
      optimizer: 8 * MIB,
      activations: 0,
      runtime: 0,
    });
  });

  it('draws the timeline with every peak kept', () => {
    const t = report.timelines[0]!;
    expect(t.activeMax.length).toBe(12);
    expect(Math.max(...t.activeMax)).toBe(16 * MIB);
    expect(t.reservedMax[4]).toBe(32 * MIB);
    const few = analyseSnapshot(snapshotBytes(SPEC), { buckets: 3 }).timelines[0]!;
    // Events 0–3, 4–7, 8–11: the spike to 16 MiB at event 4 survives as its bucket's max.
    expect(few.activeMax).toEqual([11 * MIB, 16 * MIB, 15 * MIB]);
    expect(few.activeMin).toEqual([5 * MIB, 7 * MIB, 14 * MIB]);
    expect(few.start).toEqual([0, 4, 8]);
  });
});

describe('rules that need the size or the trace', () => {
  it("gives a frameless block of cuBLAS's default workspace size to runtime", () => {
    const report = analyseSnapshot(
      snapshotBytes({
        segments: [{ address: A, blocks: [{ size: CUBLAS_WORKSPACE_BYTES }, { size: 3 * MIB }] }],
      }),
    );
    expect(report.end.parts.runtime).toBe(CUBLAS_WORKSPACE_BYTES);
    expect(report.end.unattributedBytes).toBe(3 * MIB);
    // No trace: the frameless block has no stack, rather than being "before recording".
    expect(report.end.rules.map((r) => r.rule).sort()).toEqual(['cublas-workspace-size', 'no-stack']);
    expect(report.findings.map((f) => f.code)).toEqual(['no-trace', 'unattributed-large']);
  });
});

describe('analyseSnapshot on the real snapshots', () => {
  const read = (name: string) =>
    analyseSnapshot(readFileSync(join(REPO_ROOT, 'data', 'fixtures', 'snapshots', name)), { source: name });

  it('ftcourse (QLoRA, Python stacks): the peak is in forward, the 4-bit weights predate recording', () => {
    const r = read('ftcourse_memory_snapshot.pickle');
    const peak = mainPeak(r)!;
    expect(peak.eventIndex).toBe(3697);
    expect(peak.activeBytes).toBe(5_888_007_460);
    // Live bytes found: the peak less the rounding of blocks (their size over the requested size).
    expect(peak.live.liveBytes).toBe(5_884_074_792);
    expect(peak.live.parts.activations).toBe(4_780_407_592);
    expect(peak.live.parts.runtime).toBe(2 * CUBLAS_WORKSPACE_BYTES);
    expect(peak.live.beforeRecordingBytes).toBe(1_086_627_840);
    expect(peak.live.sites[0]).toMatchObject({ kind: 'none', bytes: 1_103_667_200 });
    expect(peak.live.sites[1]).toMatchObject({
      kind: 'python',
      frame: { name: 'forward', line: 509 },
      part: 'activations',
    });
    expect(r.findings.map((f) => f.code)).toEqual(['fragmentation-high', 'unattributed-large']);
  });

  it('eor_nn (C++ stacks): cuBLAS workspaces are runtime, Adam states are the optimizer', () => {
    const r = read('eor_nn_snapshot.pickle');
    const rules = new Set(r.end.rules.map((x) => x.rule));
    expect(rules.has('optimizer-step')).toBe(true);
    expect(r.end.parts.optimizer).toBeGreaterThan(0);
    expect(mainPeak(r)!.live.rules.some((x) => x.rule === 'library-workspace')).toBe(true);
  });

  it('docubox (state only): no trace, no peak', () => {
    const r = read('docubox_dump_snapshot.pickle');
    expect(r.peaks).toEqual([]);
    expect(r.findings.map((f) => f.code)).toContain('no-trace');
  });
});

/** The typed snapshot: real snapshots' facts, and the trace streamed from every layout to the same columns. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { writePickle } from '../test-helpers/pickle-writer.js';
import { cpp, type EventSpec, py, snapshotBytes, snapshotValue } from '../test-helpers/snapshot-builder.js';
import { userErrorOf } from '../test-helpers/user-error.js';
import { analyseSnapshot } from './analyse.js';
import { ACTION, OTHER_ACTION, readSnapshot, type Snapshot } from './snapshot.js';

const DIR = join(REPO_ROOT, 'data', 'fixtures', 'snapshots');
const EXPECTED = readFileSync(join(DIR, 'expected.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown> & { file: string });

describe('the real snapshots reproduce expected.jsonl', () => {
  it('has the three fixtures', () => expect(EXPECTED.map((e) => e.file).sort()).toHaveLength(3));
  it.each(EXPECTED.map((e) => [e.file, e] as const))('%s: every fact, exactly', (file, expected) => {
    const report = analyseSnapshot(readFileSync(join(DIR, file)), { source: file });
    const { file: _file, ...facts } = expected;
    for (const [key, value] of Object.entries(facts)) {
      expect({ key, value: (report as unknown as Record<string, unknown>)[key] }).toEqual({ key, value });
    }
  });
});

describe('readSnapshot', () => {
  const alloc = [
    cpp('c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc'),
    py('forward', 'm.py', 3),
  ];
  const freeStack = [
    cpp('c10::cuda::CUDACachingAllocator::Native::local_raw_delete'),
    py('step', 'loop.py', 9),
  ];
  /** 2,600 events on device 1 (past a batch of 1,000), a free_requested and its free_completed sharing a stack. */
  const events: EventSpec[] = [{ action: 'segment_alloc', addr: 4096, size: 1 << 24 }];
  for (let i = 0; i < 1300; i++) {
    events.push({
      action: 'alloc',
      addr: 4096 + (i % 7) * 512,
      size: 512,
      frames: alloc,
      time: 1_700_000_000_000_000 + i,
    });
    events.push({
      action: i % 2 ? 'free_requested' : 'free_completed',
      addr: 4096,
      size: 512,
      frames: freeStack,
    });
  }
  events.push({ action: 'oom', size: 1 << 30, deviceFree: 123_456 });
  events.push({ action: 'checkpoint', size: 0 });
  const spec = {
    segments: [
      {
        address: 4096,
        blocks: [
          { size: 1024, frames: alloc },
          { size: 2048, state: 'inactive' as const },
        ],
      },
    ],
    traces: [[], events],
  };

  const columnsOf = (s: Snapshot) =>
    s.traces.map((t) => ({
      length: t.length,
      action: [...t.action],
      addr: [...t.addr],
      size: [...t.size],
      time: [...t.time].map((x) => (Number.isNaN(x) ? null : x)),
      stacks: [...t.stack].map((id) =>
        id < 0 ? null : [...s.stacks.framesOf(id)].map((f) => s.stacks.frames[f]),
      ),
    }));
  const python = readSnapshot(snapshotBytes(spec, { protocol: 4 }), 'p4.pickle');

  it('reads the columns of every device', () => {
    expect(python.traces.map((t) => t.length)).toEqual([0, 2603]);
    const t = python.traces[1]!;
    expect(t.action[0]).toBe(ACTION.segment_alloc);
    expect(t.action[1]).toBe(ACTION.alloc);
    expect(t.addr[3]).toBe(4096 + 512);
    expect(t.time[1]).toBe(1_700_000_000_000_000);
    expect(Number.isNaN(t.time[2]!)).toBe(true);
    expect(t.action[2601]).toBe(ACTION.oom);
    expect(t.addr[2601]).toBe(123_456);
    expect(t.action[2602]).toBe(OTHER_ACTION);
    expect(python.actionCounts).toEqual({
      segment_alloc: 1,
      alloc: 1300,
      free_completed: 650,
      free_requested: 650,
      oom: 1,
      checkpoint: 1,
    });
    // Two stacks, each stored once however many events share it.
    expect(python.stacks.count).toBe(2);
    expect(python.stacks.frames.map((f) => f.name)).toEqual([
      'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc',
      'forward',
      'c10::cuda::CUDACachingAllocator::Native::local_raw_delete',
      'step',
    ]);
    expect(python.segments[0]!.blocks.map((b) => [b.address, b.size, b.state])).toEqual([
      [4096, 1024, 'active_allocated'],
      [5120, 2048, 'inactive'],
    ]);
  });

  it.each([
    ['protocol 2', { protocol: 2 }],
    ['protocol 5', { protocol: 5 }],
    ["torch's C++ pickler (all events after one MARK)", { style: 'jit' as const }],
  ])('reads %s to the same columns', (_name, options) => {
    expect(columnsOf(readSnapshot(snapshotBytes(spec, options), 'x.pickle'))).toEqual(columnsOf(python));
  });

  it('refuses a trace event read again after it streamed out (its memo slot was released)', () => {
    const value = snapshotValue({ segments: [], traces: [[{ action: 'alloc', addr: 1, size: 2 }], []] }) as {
      device_traces: unknown[][];
    };
    value.device_traces[1]!.push(value.device_traces[0]![0]);
    const error = userErrorOf(() => readSnapshot(writePickle(value as never), 'twice.pickle'));
    expect(error.message).toBe(
      'twice.pickle: device_traces[1][0] repeats an earlier trace event by reference: not a PyTorch memory snapshot',
    );
  });

  it('reads one event listed three times in one batch three times, as Python would', () => {
    const value = snapshotValue({ segments: [], traces: [[{ action: 'alloc', addr: 1, size: 2 }]] }) as {
      device_traces: unknown[][];
    };
    const event = value.device_traces[0]![0];
    value.device_traces[0]!.push(event, event);
    expect(readSnapshot(writePickle(value as never), 'thrice.pickle').traces[0]!.length).toBe(3);
  });

  it('reads the legacy layout (torch 2.0: frames and requested size in history)', () => {
    const legacy = {
      segments: [
        {
          device: 0,
          address: 0,
          total_size: 1024,
          stream: 0,
          blocks: [
            {
              size: 1024,
              state: 'active_allocated',
              history: [{ addr: 0, real_size: 1000, frames: [{ name: 'f', filename: 'a.py', line: 2 }] }],
            },
          ],
        },
      ],
    };
    const s = readSnapshot(writePickle(legacy), 'legacy.pickle');
    expect(s.segments[0]!.blocks[0]!.requestedSize).toBe(1000);
    expect(s.stacks.frames[s.stacks.framesOf(s.segments[0]!.blocks[0]!.stack)[0]!]).toEqual({
      name: 'f',
      filename: 'a.py',
      line: 2,
    });
    expect(s.traces).toEqual([]);
  });

  it('names the field of a snapshot that is not one', () => {
    const bad = (value: unknown) =>
      userErrorOf(() => readSnapshot(writePickle(value as never), 'bad.pickle')).message;
    expect(bad([1, 2])).toBe('bad.pickle: the top is a list, not a dict: not a PyTorch memory snapshot');
    expect(bad({ a: 1 })).toContain('the top has no "segments"');
    expect(bad({ segments: [{ address: 0, total_size: 'x', blocks: [] }] })).toContain(
      'segments[0].total_size is a str, not an int',
    );
    expect(bad({ segments: [], device_traces: [[{ addr: 1 }]] })).toContain(
      'device_traces[0][0].action is missing',
    );
    expect(bad({ segments: [{ address: 2n ** 60n, total_size: 0, blocks: [] }] })).toContain(
      `segments[0].address is ${2n ** 60n}, past the 2^53`,
    );
    expect(bad({ segments: [], device_traces: [[{ action: 'alloc', frames: [3] }]] })).toContain(
      'device_traces[0][0].frames[0] is a int, not a frame dict',
    );
  });

  it('refuses a snapshot whose segments hold themselves (a memo loop) with a clear error', () => {
    const loop: unknown[] = [];
    loop.push(loop);
    const error = userErrorOf(() => readSnapshot(writePickle({ segments: loop } as never), 'loop.pickle'));
    expect(error.message).toContain('segments[0] is a list, not a dict');
  });

  it('reads the allocator settings when the snapshot has them', () => {
    const s = readSnapshot(
      snapshotBytes({ segments: [], settings: { conf: 'expandable_segments:True', expandable: true } }),
      's.pickle',
    );
    expect(s.allocatorSettings).toEqual({ conf: 'expandable_segments:True', expandableSegments: true });
  });
});

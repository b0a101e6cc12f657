import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../run-record.js';
import { eventData, eventKind, type HeadroomEvent, headroomEvent } from './events.js';

/** An event as the ledger gives it back, of one written with `kind` and `data`. */
const stored = (
  kind: string,
  data: Record<string, unknown>,
  source: RunEvent['source'] = 'headroom',
): RunEvent => ({
  id: 1,
  tMs: 0,
  kind,
  source,
  pid: null,
  rank: null,
  step: null,
  phase: null,
  message: 'the English words',
  data,
});

describe('headroom’s events in the ledger', () => {
  const events: readonly HeadroomEvent[] = [
    {
      code: 'prelaunch',
      params: {
        warning: { code: 'unlisted-use', params: { gpu: 0, gpuName: 'NVIDIA H200', usedBytes: 2 ** 31 } },
      },
    },
    { code: 'spawn-error', params: { program: 'trainer', reason: 'not-found', detail: 'ENOENT' } },
    { code: 'interrupted', params: { interrupts: 2 } },
    { code: 'resumed', params: { pid: 4242 } },
    {
      code: 'probe-bad-line',
      params: {
        path: '/tmp/p.jsonl',
        offset: 12,
        problem: 'not-json',
        detail: 'Unexpected token S',
        chars: 32,
      },
    },
  ];

  it.each(events.map((e) => [e.code, e]))('%s reads back as it was written', (_code, e) => {
    expect(headroomEvent(stored(eventKind(e), eventData(e)))).toEqual(e);
  });

  it('keeps the fields older readers know: a warning’s stored code, a bad line’s problem code', () => {
    expect(eventData(events[0]!)).toMatchObject({ code: 'unlisted-use', check: 'unlisted-use' });
    expect(eventKind(events[3]!)).toBe('note');
    expect(eventData(events[4]!)).toMatchObject({ code: 'not-json', offset: 12 });
    const smi: HeadroomEvent = {
      code: 'prelaunch',
      params: { warning: { code: 'nvidia-smi', params: { problem: 'timeout', detail: 'd', hint: 'h' } } },
    };
    expect(eventData(smi).code).toBe('nvidia-smi-timeout');
  });

  it('an event written before its data carried its figures, or not by headroom, has no code', () => {
    expect(
      headroomEvent(stored('prelaunch', { code: 'foreign-processes', message: 'm', hint: 'h' })),
    ).toBeNull();
    expect(headroomEvent(stored('spawn-error', { code: 'ENOENT', command: ['x'] }))).toBeNull();
    expect(headroomEvent(stored('note', { offsets: {} }))).toBeNull();
    expect(headroomEvent(stored('interrupted', { interrupts: 1 }, 'probe'))).toBeNull();
    expect(headroomEvent(stored('oom', { message: 'x' }))).toBeNull();
  });

  it('reads a bad line the ledger stored from the probe-log parser', () => {
    // As src/io/ledger.ts writes it: the path and offset, then the parser's problem.
    const data = {
      path: '/l/probe.jsonl',
      offset: 300,
      code: 'truncated',
      message: 'truncated line (the writer stopped in the middle of it)',
      excerpt: '{"v":1,"ev',
      chars: 10,
      detail: null,
    };
    expect(headroomEvent(stored('probe-bad-line', data))).toEqual({
      code: 'probe-bad-line',
      params: { path: '/l/probe.jsonl', offset: 300, problem: 'truncated', detail: null, chars: 10 },
    });
  });
});

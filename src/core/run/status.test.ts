import { describe, expect, it } from 'vitest';
import { findOomInStderr } from '../stderr-oom.js';
import {
  endEvents,
  exitCodeOf,
  runStatus,
  STDERR_TAIL_EVENT_CHARS,
  spawnFailure,
  watchedStatus,
} from './status.js';

// POSIX numbers as os.constants.signals gives them on Linux.
const SIGNALS: Readonly<Record<string, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
const number = (s: string) => SIGNALS[s];

describe('exitCodeOf', () => {
  it('passes the command’s code on; a signal becomes 128 + its number, as a shell reports it', () => {
    expect(exitCodeOf({ code: 3, signal: null }, number)).toBe(3);
    expect(exitCodeOf({ code: null, signal: 'SIGINT' }, number)).toBe(130);
    expect(exitCodeOf({ code: null, signal: 'SIGKILL' }, number)).toBe(137);
    expect(exitCodeOf({ code: null, signal: 'SIGWHAT' }, number)).toBe(128);
    expect(exitCodeOf({ code: null, signal: null }, number)).toBe(1);
  });
});

describe('runStatus', () => {
  const ended = { signal: null, interrupts: 0, oomSeen: false };
  it.each([
    ['exit 0', { ...ended, exitCode: 0, oomSeen: true }, 'ok'],
    [
      'Ctrl-C, even with an OOM while stopping',
      { ...ended, exitCode: 130, interrupts: 1, oomSeen: true },
      'killed',
    ],
    ['an OOM', { ...ended, exitCode: 1, oomSeen: true }, 'oom'],
    ['a signal from elsewhere', { ...ended, exitCode: 137, signal: 'SIGKILL' }, 'killed'],
    ['any other exit', { ...ended, exitCode: 2 }, 'failed'],
  ] as const)('%s', (_name, seen, status) => expect(runStatus(seen)).toBe(status));
});

describe('watchedStatus', () => {
  it.each([
    ['every writer ended', { oomSeen: false, endReasons: ['exit', 'exit'], allWritersEnded: true }, 'ok'],
    ['a writer vanished', { oomSeen: false, endReasons: ['exit'], allWritersEnded: false }, 'killed'],
    ['no end record at all', { oomSeen: false, endReasons: [], allWritersEnded: true }, 'killed'],
    ['one ended by an OOM', { oomSeen: false, endReasons: ['exit', 'oom'], allWritersEnded: true }, 'oom'],
    ['an OOM seen on the way', { oomSeen: true, endReasons: ['exit'], allWritersEnded: true }, 'oom'],
    [
      'one ended by an exception',
      { oomSeen: false, endReasons: ['exception'], allWritersEnded: true },
      'failed',
    ],
  ] as const)('%s', (_name, seen, status) => expect(watchedStatus(seen)).toBe(status));
});

describe('spawnFailure', () => {
  it('reads the spawn error’s code', () => {
    expect([
      spawnFailure('ENOENT'),
      spawnFailure('EACCES'),
      spawnFailure('E2BIG'),
      spawnFailure(undefined),
    ]).toEqual(['not-found', 'not-executable', 'other', 'other']);
  });
});

describe('endEvents', () => {
  const stderr = `step 1\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n`;
  it('an OOM in stderr, the tail of a failed command, and an interruption', () => {
    const oomText = findOomInStderr(stderr);
    const events = endEvents({ endedAtMs: 5, stderrTail: stderr, oomText, exitCode: 1, interrupts: 2 });
    expect(events.map((e) => [e.kind, e.source, e.message])).toEqual([
      ['oom-text', 'stderr', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'],
      ['stderr-tail', 'stderr', null],
      ['interrupted', 'headroom', null],
    ]);
    expect(events[1]!.data).toEqual({ text: stderr });
    expect(events[2]!.data).toEqual({ interrupts: 2 });
  });

  it('nothing for a clean exit; the tail is kept to its last characters', () => {
    expect(
      endEvents({ endedAtMs: 5, stderrTail: 'warning: x\n', oomText: null, exitCode: 0, interrupts: 0 }),
    ).toEqual([]);
    const long = `${'a'.repeat(STDERR_TAIL_EVENT_CHARS)}END`;
    const [tail] = endEvents({ endedAtMs: 5, stderrTail: long, oomText: null, exitCode: 2, interrupts: 0 });
    expect((tail!.data.text as string).length).toBe(STDERR_TAIL_EVENT_CHARS);
    expect((tail!.data.text as string).endsWith('END')).toBe(true);
  });
});

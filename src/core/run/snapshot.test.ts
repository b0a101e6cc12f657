import { describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../run-record.js';
import { userErrorOf } from '../test-helpers/user-error.js';
import { chooseSnapshot, MAX_SNAPSHOT_ENTRIES, snapshotRecording } from './snapshot.js';

describe('snapshotRecording', () => {
  it('is off without the flags, the probe default with --snapshot, the bound with --snapshot-entries', () => {
    expect(snapshotRecording({ snapshot: false, entries: null })).toBeNull();
    expect(snapshotRecording({ snapshot: true, entries: null })).toEqual({ env: '1', entries: 100_000 });
    expect(snapshotRecording({ snapshot: false, entries: 5000 })).toEqual({ env: '5000', entries: 5000 });
    expect(snapshotRecording({ snapshot: true, entries: MAX_SNAPSHOT_ENTRIES })?.env).toBe('10000000');
  });

  it('refuses a bound past what the probe keeps, naming the flag', () => {
    const error = userErrorOf(() => snapshotRecording({ snapshot: true, entries: MAX_SNAPSHOT_ENTRIES + 1 }));
    expect([error.where, error.message]).toEqual([
      '--snapshot-entries',
      '--snapshot-entries 10000001: not a whole number from 1 to 10000000',
    ]);
  });
});

describe('chooseSnapshot', () => {
  const snap = (rank: number, reason: RunSnapshot['reason'], tMs: number): RunSnapshot => ({
    tMs,
    pid: 1,
    rank,
    path: `/r/memory-snapshot.rank${rank}.pickle`,
    bytes: 1,
    reason,
    entries: null,
    step: null,
  });

  it("takes the OOM's over one asked for or written at exit, the latest of a kind, of a rank when asked", () => {
    const list = [snap(0, 'manual', 1), snap(1, 'oom', 2), snap(0, 'exit', 3), snap(0, 'manual', 4)];
    expect(chooseSnapshot(list)).toBe(list[1]);
    expect(chooseSnapshot(list, 0)).toBe(list[3]);
    expect(chooseSnapshot(list, 1)).toBe(list[1]);
    expect(chooseSnapshot(list, 2)).toBeNull();
    expect(chooseSnapshot([])).toBeNull();
  });
});

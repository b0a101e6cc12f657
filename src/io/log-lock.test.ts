import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimLogLock, logLockPath } from './log-lock.js';

describe('the watch lock of a log', () => {
  it('lets one process in and names it to the next; released, it is free again', () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-lock-'));
    const first = claimLogLock(home, '/runs/probe.jsonl');
    expect('release' in first).toBe(true);
    // Another live process holds it: what a second watch started at the same moment sees.
    writeFileSync(
      logLockPath(home, '/runs/b.jsonl'),
      JSON.stringify({ pid: process.ppid, host: hostname() }),
    );
    const second = claimLogLock(home, '/runs/b.jsonl');
    expect(second).toEqual({ heldBy: { pid: process.ppid, host: hostname() } });
    if ('release' in first) first.release();
    expect(existsSync(logLockPath(home, '/runs/probe.jsonl'))).toBe(false);
    expect('release' in claimLogLock(home, '/runs/probe.jsonl')).toBe(true);
  });

  it('takes over the lock of a watcher that died (kill -9)', () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-lock-'));
    const dead = spawnSync('true').pid!;
    const path = logLockPath(home, 'probe.jsonl');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ pid: dead, host: hostname() }));
    expect('release' in claimLogLock(home, 'probe.jsonl')).toBe(true);
  });
});

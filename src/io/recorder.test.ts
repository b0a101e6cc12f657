/**
 * Nothing recorded is lost, and a recording that fails never takes the training with it (issue 22): a
 * backlog is stored in bounded batches, and a full ledger is told once, not thrown.
 */
import { appendFileSync, copyFileSync, mkdtempSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIB } from '../core/units.js';
import { FOLLOW_BATCH_BYTES, ProbeLogFollower } from './follow-log.js';
import { Ledger } from './ledger.js';
import { type RecordingError, RunRecorder } from './recorder.js';

const device = (mib: number) => ({
  index: 0,
  allocatedBytes: mib * MIB,
  reservedBytes: (mib + 10) * MIB,
  peakAllocatedBytes: mib * MIB,
  peakReservedBytes: (mib + 10) * MIB,
  inactiveSplitBytes: 0,
  numAllocRetries: 0,
  numOoms: 0,
});
const line = (record: Record<string, unknown>) =>
  `${JSON.stringify({ v: 1, pid: 4242, rank: 0, localRank: 0, worldSize: 1, ...record })}\n`;

/** A probe log of `steps` steps whose peak is step × 1 MiB, padded so the file is large. */
function writeLog(path: string, steps: number, padBytes = 0): void {
  const pad = 'x'.repeat(padBytes);
  const parts = [line({ event: 'start', t: 0, argv: ['train.py'] })];
  for (let step = 1; step <= steps; step++) {
    parts.push(line({ event: 'step', t: step, step, loss: 1, devices: [device(step)], note: pad }));
  }
  writeFileSync(path, parts.join(''));
}

const ledgers: Ledger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
});

function newRun(home: string, logPath: string) {
  const ledger = Ledger.open(home);
  ledgers.push(ledger);
  const run = ledger.createRun({
    name: null,
    command: ['python', 'train.py'],
    cwd: home,
    host: 'gpu1',
    scenario: null,
    estimate: null,
    env: {},
    startedAtMs: 0,
    monitorPid: process.pid,
  });
  return { ledger, runId: run.id, logPath };
}

describe('the follower', () => {
  it('reads a backlog larger than one batch in pieces, each under the budget, losing no line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-follow-'));
    const path = join(dir, 'probe.jsonl');
    writeLog(path, 12_000, 1000); // about 13 MB
    const follower = new ProbeLogFollower(path);
    const budget = 4 * MIB; // one read chunk
    let lines = 0;
    let calls = 0;
    for (;;) {
      const files = follower.read(false, budget);
      calls++;
      lines += files.reduce((n, f) => n + f.lines.length, 0);
      if (!files.some((f) => f.more)) break;
    }
    expect(lines).toBe(12_001);
    expect(calls).toBeGreaterThanOrEqual(3); // each call: the budget, plus at most one longest line
    expect(FOLLOW_BATCH_BYTES).toBe(16 * MIB);
  });
});

describe('the recorder', () => {
  it('stores a backlog in batches: every step, the peak of the last one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-rec-'));
    const log = join(home, 'probe.jsonl');
    writeLog(log, 20_000, 900); // about 20 MB: two batches or more
    const { ledger, runId } = newRun(home, log);
    const recorder = new RunRecorder({
      ledger,
      runId,
      logPath: log,
      sample: false,
      intervalMs: 1000,
      env: {},
      visibleGpus: null,
    });
    await recorder.finish(true);
    expect(ledger.steps(runId)).toHaveLength(20_000);
    expect(ledger.getRun(String(runId))!.peakAllocated!.bytes).toBe(20_000 * MIB);
    expect(recorder.live.recordingError).toBeNull();
  });

  it('tells a full ledger once and goes on without throwing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-full-'));
    const log = join(home, 'probe.jsonl');
    writeLog(log, 5000, 2000);
    const { ledger, runId } = newRun(home, log);
    // The disk "fills": SQLite may not grow the file past its current pages (SQLITE_FULL, as on ENOSPC).
    const pages = (ledger as unknown as { db: { pragma(s: string, o?: object): unknown } }).db.pragma(
      'page_count',
      { simple: true },
    );
    (ledger as unknown as { db: { pragma(s: string): unknown } }).db.pragma(`max_page_count = ${pages}`);
    const told: RecordingError[] = [];
    const recorder = new RunRecorder({
      ledger,
      runId,
      logPath: log,
      sample: false,
      intervalMs: 1000,
      env: {},
      visibleGpus: null,
      onRecordingError: (e) => told.push(e),
    });
    await expect(recorder.finish(true)).resolves.toBeUndefined();
    appendFileSync(log, line({ event: 'step', t: 9999, step: 9999, loss: 1, devices: [device(1)] }));
    await recorder.finish(true);
    expect(told).toHaveLength(1);
    expect(told[0]!.code).toBe('SQLITE_FULL');
    expect(recorder.live.recordingError?.code).toBe('SQLITE_FULL');
  });
});

describe('log rotation under watch', () => {
  /** Writes `count` numbered lines in bursts, rotating once in the middle, reading between bursts. */
  function follow(rotate: (path: string) => void): number[] {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-rotate-'));
    const path = join(dir, 'probe.jsonl');
    writeFileSync(path, '');
    const follower = new ProbeLogFollower(path);
    const seen: number[] = [];
    const take = () => {
      for (const file of follower.read(false))
        for (const l of file.lines) seen.push((JSON.parse(l.text) as { n: number }).n);
    };
    let n = 0;
    for (let burst = 0; burst < 12; burst++) {
      for (let i = 0; i < 50; i++) appendFileSync(path, `${JSON.stringify({ n: n++ })}\n`);
      if (burst === 6) rotate(path); // lines written since the last read are in the rotated file only
      take();
    }
    take();
    return seen;
  }
  const all = Array.from({ length: 600 }, (_, i) => i);

  it('follows a rename rotation without losing the lines the old file got last', () => {
    const seen = follow((path) => {
      renameSync(path, `${path}.1`);
      writeFileSync(path, '');
    });
    expect(seen).toEqual(all);
  });

  it('follows copytruncate: the lines since the last read come from the copy, then the file again', () => {
    const seen = follow((path) => {
      copyFileSync(path, `${path}.1`);
      truncateSync(path, 0);
    });
    expect(seen).toEqual(all);
  });

  it('sees a truncation the file has already outgrown before the next look', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-outgrown-'));
    const path = join(dir, 'probe.jsonl');
    const lines = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `${JSON.stringify({ n: from + i })}\n`).join('');
    writeFileSync(path, lines(0, 300));
    const follower = new ProbeLogFollower(path);
    const numbers = () => follower.read(false).flatMap((f) => f.lines.map((l) => JSON.parse(l.text).n));
    expect(numbers()).toHaveLength(300);
    appendFileSync(path, lines(300, 320));
    copyFileSync(path, `${path}.1`);
    truncateSync(path, 0);
    // More bytes than were read before, so the size alone does not show the truncation.
    appendFileSync(path, lines(320, 700));
    expect(numbers()).toEqual(Array.from({ length: 400 }, (_, i) => 300 + i));
  });
});

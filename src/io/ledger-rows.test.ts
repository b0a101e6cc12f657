/**
 * The column readers of Ledger.rows (timeline, sampleColumns, rankStepRows) against the record readers
 * they replace on the diagnoser's and the report's paths: the same values, row for row, on a small run
 * whose rows have every kind of gap (steps without device figures, peaks not recorded, samples without
 * a UUID, a name or a figure), several ranks and devices, and phases of every kind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timelineFromSteps } from '../core/diagnose/run-timeline.js';
import { sampleColumns } from '../core/diagnose/samples.js';
import type { TimelineColumns } from '../core/diagnose/timeline.js';
import { rankStepPeaksByStep } from '../core/ranks.js';
import { Ledger } from './ledger.js';

const GIB = 2 ** 30;
const START_MS = 1_767_225_600_000;
const PHASES = ['train', 'eval', 'validation', 'save', 'checkpoint', 'load', 'warmup', 'Train', 'predict'];

/** A small deterministic generator (mulberry32), so that the run is the same on every machine. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let home: string;
let ledger: Ledger;
let runId: number;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'headroom-ledger-rows-'));
  ledger = Ledger.open(home);
  runId = ledger.createRun({
    name: 'gaps',
    command: ['python', 'train.py'],
    cwd: '/work',
    host: 'test',
    scenario: null,
    estimate: null,
    env: {},
    startedAtMs: START_MS,
    monitorPid: null,
  }).id;
  const db = new Database(ledger.path);
  const rnd = random(22);
  const maybe = <T>(v: T, share = 0.15): T | null => (rnd() < share ? null : v);
  const bytes = () => Math.floor(rnd() * 40 * GIB) + 1;
  const step = db.prepare(
    `INSERT INTO steps (run_id, t_ms, pid, rank, local_rank, device, step, phase, allocated_bytes, reserved_bytes,
       peak_allocated_bytes, peak_reserved_bytes, inactive_split_bytes, num_alloc_retries)
     VALUES (?, ?, 4242, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const gpu = db.prepare(
    `INSERT INTO gpu_samples (run_id, t_ms, gpu, uuid, name, total_bytes, used_bytes, own_bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const proc = db.prepare(
    `INSERT INTO process_samples (run_id, t_ms, gpu, gpu_uuid, pid, name, used_bytes, ours)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) {
      // Steps mostly in order, some written late (a rank behind the others).
      const s = Math.max(0, Math.floor(i / 3) - (rnd() < 0.05 ? 7 : 0));
      step.run(
        runId,
        START_MS + i * 10,
        Math.floor(rnd() * 3),
        maybe(Math.floor(rnd() * 2), 0.05),
        s,
        PHASES[Math.floor(rnd() * PHASES.length)]!,
        maybe(bytes(), 0.05),
        maybe(bytes(), 0.05),
        maybe(bytes()),
        maybe(bytes()),
        maybe(Math.floor(rnd() * GIB)),
        maybe(Math.floor(rnd() * 5)),
      );
    }
    for (let i = 0; i < 800; i++) {
      const t = START_MS + Math.floor(i / 2) * 75;
      const card = Math.floor(rnd() * 2);
      gpu.run(
        runId,
        t,
        card,
        maybe(`GPU-${card}`, 0.2),
        maybe('NVIDIA H100 80GB HBM3', 0.3),
        maybe(80 * GIB),
        maybe(bytes()),
        maybe(bytes()),
      );
      proc.run(
        runId,
        t,
        maybe(card),
        maybe(`GPU-${card}`, 0.3),
        maybe(4000 + Math.floor(rnd() * 4)),
        maybe(rnd() < 0.5 ? 'python' : 'other'),
        maybe(bytes()),
        rnd() < 0.5 ? 1 : 0,
      );
    }
  })();
  db.close();
});

afterAll(() => ledger.close());

/** Columns as plain arrays, so that a difference shows as the rows that differ. */
const plain = (c: object) =>
  Object.fromEntries(
    Object.entries(c).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v]),
  );

describe('Ledger.rows column readers', () => {
  it('timeline: the columns timelineFromSteps makes of the step records', () => {
    const old = timelineFromSteps(ledger.rows.steps(runId), null, ledger.rows.count('steps', runId));
    const cols = ledger.rows.timeline(runId);
    // Some steps have no device figures and are left out by both; the rest are all there.
    expect(cols.length).toBeGreaterThan(2500);
    expect(cols.length).toBeLessThan(3000);
    expect(new Set(cols.phase).size).toBe(5);
    expect(plain(cols)).toEqual(plain(old.steps as TimelineColumns));
  });

  it('sampleColumns: the columns of the per-GPU and per-process records', () => {
    const records = { gpus: ledger.gpuSamples(runId), processes: ledger.processSamples(runId) };
    const cols = ledger.rows.sampleColumns(runId);
    expect(cols.gpus.length).toBe(800);
    expect(cols.processes.length).toBe(800);
    const old = sampleColumns(records);
    expect(cols.texts).toEqual(old.texts);
    expect(plain(cols.gpus)).toEqual(plain(old.gpus));
    expect(plain(cols.processes)).toEqual(plain(old.processes));
    // Every kind of gap is there: samples without a UUID, a name, a figure.
    expect(records.gpus.some((g) => g.uuid === null && g.totalBytes === null)).toBe(true);
    expect(records.processes.some((p) => p.pid === null && p.gpu === null)).toBe(true);
  });

  it('rankStepRows: the per-rank peaks of every step are those of the whole step records', () => {
    const ranks = ledger.rows.stepRanks(runId);
    expect(ranks).toEqual([0, 1, 2]);
    const old = [...rankStepPeaksByStep(ledger.rows.steps(runId, 'step'), ranks)];
    const read = [...rankStepPeaksByStep(ledger.rows.rankStepRows(runId), ranks)];
    expect(read.length).toBeGreaterThan(900);
    expect(read).toEqual(old);
  });
});

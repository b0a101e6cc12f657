import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadroomUserError } from '../core/errors.js';
import { type ProbeEvent, parseProbeLine } from '../core/probe-log.js';
import { MIB } from '../core/units.js';
import { headroomHome, LEDGER_SCHEMA_VERSION, Ledger, type NewRun, type ProbeBatch } from './ledger.js';

const NEW_RUN: NewRun = {
  name: 'bs4',
  command: ['python', 'train.py', '--batch-size', '4'],
  cwd: '/work',
  host: 'gpu1',
  scenario: { model: 'llama-3.2-1b', method: 'lora', microBatchSize: 4, seqLen: 1024 },
  estimate: { allocatedBytes: 1000, reservedBytes: 1100, deviceBytes: 1600 },
  env: { gpus: [{ index: 0, name: 'NVIDIA H200' }] },
  startedAtMs: 1_767_225_600_000,
  monitorPid: 123,
};

const event = (line: Record<string, unknown>): ProbeEvent => {
  const parsed = parseProbeLine(
    JSON.stringify({ v: 1, pid: 42, rank: 0, localRank: 0, worldSize: 1, ...line }),
  );
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.event;
};
const dev = (index: number, peakAllocatedMiB: number, peakReservedMiB: number) => ({
  index,
  allocatedBytes: 100 * MIB,
  reservedBytes: peakReservedMiB * MIB,
  peakAllocatedBytes: peakAllocatedMiB * MIB,
  peakReservedBytes: peakReservedMiB * MIB,
  inactiveSplitBytes: 0,
  numAllocRetries: 0,
  numOoms: 0,
});

let home: string;
let ledger: Ledger;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'headroom-ledger-'));
  ledger = Ledger.open(home);
});
afterEach(() => {
  try {
    ledger.close();
  } catch {
    // already closed by the test
  }
});

describe('Ledger', () => {
  it('lives in HEADROOM_HOME (else ~/.headroom), in WAL mode, with its schema version', () => {
    expect(headroomHome({ HEADROOM_HOME: '/x/y' })).toBe('/x/y');
    expect(headroomHome({})).toMatch(/\.headroom$/);
    expect(ledger.path).toBe(join(home, 'ledger.db'));
    const db = new Database(ledger.path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    db.close();
  });

  it('stores a run and reads it back by id, name and "last"', () => {
    const run = ledger.createRun(NEW_RUN);
    expect(run).toEqual({
      id: 1,
      name: 'bs4',
      status: 'running',
      exitCode: null,
      signal: null,
      command: ['python', 'train.py', '--batch-size', '4'],
      cwd: '/work',
      host: 'gpu1',
      scenario: NEW_RUN.scenario,
      estimate: NEW_RUN.estimate,
      env: NEW_RUN.env,
      logPath: null,
      stderrPath: null,
      startedAtMs: 1_767_225_600_000,
      endedAtMs: null,
      monitorPid: 123,
      childPid: null,
      steps: 0,
      lastStep: null,
      batchSize: 4,
      seqLen: 1024,
      peakAllocated: null,
      peakReserved: null,
      peakDevice: null,
      peakGpuUsed: null,
      snapshots: [],
      versions: null,
      ranks: [],
      peakRank: null,
    });
    ledger.updateRun(1, {
      status: 'oom',
      exitCode: 1,
      endedAtMs: 1_767_225_660_000,
      logPath: '/l/probe.jsonl',
    });
    expect(ledger.getRun('bs4')).toMatchObject({
      id: 1,
      status: 'oom',
      exitCode: 1,
      endedAtMs: 1_767_225_660_000,
    });
    ledger.createRun({ ...NEW_RUN, name: null });
    expect(ledger.getRun('last')?.id).toBe(2);
    expect(ledger.getRun(2)?.id).toBe(2);
    expect(ledger.getRun('nope')).toBeUndefined();
    expect(ledger.findRunByLog('/l/probe.jsonl')?.id).toBe(1);
    expect(ledger.listRuns().map((r) => r.id)).toEqual([1, 2]);
  });

  it('ingests probe lines exactly: a row per device per step, events, the run’s peaks, the offset', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const batch: ProbeBatch = {
      path: '/l/probe.jsonl',
      endOffset: 999,
      lines: [
        {
          offset: 0,
          event: event({
            event: 'start',
            t: 1.0,
            argv: ['train.py'],
            torch: '2.5.1+cu121',
            packages: { transformers: '4.46.0', 'flash-attn': '2.6.3', numpy: '2.1.0', peft: null },
          }),
        },
        {
          offset: 100,
          event: event({
            event: 'step',
            t: 2.5,
            step: 1,
            loss: 2,
            lr: 1e-4,
            batchSize: 8,
            seqLen: 512,
            devices: [dev(0, 300, 320), dev(1, 310, 400)],
          }),
        },
        {
          offset: 300,
          problem: {
            code: 'truncated',
            message: 'truncated line (the writer stopped in the middle of it)',
            excerpt: '{"v":1,"ev',
            chars: 10,
            detail: null,
          },
        },
        {
          offset: 320,
          event: event({ event: 'step', t: 3.5, step: 2, loss: 1, devices: [dev(0, 350, 380)] }),
        },
        {
          offset: 500,
          event: event({
            event: 'oom',
            t: 4.0,
            type: 'torch.OutOfMemoryError',
            message: 'CUDA out of memory.\nmore',
            traceback: 'Traceback…',
            phase: 'eval',
            step: 2,
            devices: [dev(0, 390, 410)],
          }),
        },
      ],
    };
    ledger.ingestProbe(id, [batch]);
    const steps = ledger.steps(id);
    expect(
      steps.map((s) => [
        s.step,
        s.device,
        s.tMs,
        s.peakAllocatedBytes! / MIB,
        s.peakReservedBytes! / MIB,
        s.loss,
      ]),
    ).toEqual([
      [1, 0, 2500, 300, 320, 2],
      [1, 1, 2500, 310, 400, 2],
      [2, 0, 3500, 350, 380, 1],
    ]);
    const run = ledger.getRun(id)!;
    // The interval between step 2 and the OOM holds both peaks (390 and 410 MiB).
    expect(run.peakAllocated).toEqual({ bytes: 390 * MIB, atMs: 4000, step: 2, gpu: 0 });
    expect(run.peakReserved).toEqual({ bytes: 410 * MIB, atMs: 4000, step: 2, gpu: 0 });
    expect([run.steps, run.lastStep, run.batchSize, run.seqLen]).toEqual([2, 2, 8, 512]);
    // The start record's versions, by the scenario's names; a package it does not know is left out.
    expect(run.versions).toEqual({ torch: '2.5.1+cu121', transformers: '4.46.0', flashAttn: '2.6.3' });
    expect(ledger.logOffsets(id)).toEqual(new Map([['/l/probe.jsonl', 999]]));
    const events = ledger.events(id);
    expect(events.map((e) => [e.kind, e.source, e.step, e.phase, e.message])).toEqual([
      ['start', 'probe', null, null, null],
      [
        'probe-bad-line',
        'headroom',
        null,
        null,
        '/l/probe.jsonl at byte 300: truncated line (the writer stopped in the middle of it)',
      ],
      ['oom', 'probe', 2, 'eval', 'CUDA out of memory.'],
    ]);
    expect(ledger.events(id, ['oom'])[0]!.data.traceback).toBe('Traceback…');
    expect(ledger.oomText(id)).toBe('Traceback…');
  });

  it('a batch is stored whole or not at all: a failing row leaves neither rows nor offset behind', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const good = event({ event: 'step', t: 1, step: 1, devices: [] });
    const bad = {
      ...event({ event: 'step', t: 2, step: 2, devices: [] }),
      phase: null,
    } as unknown as ProbeEvent;
    expect(() =>
      ledger.ingestProbe(id, [
        {
          path: '/p',
          endOffset: 50,
          lines: [
            { offset: 0, event: good },
            { offset: 20, event: bad },
          ],
        },
      ]),
    ).toThrow(/NOT NULL/);
    expect(ledger.steps(id)).toEqual([]);
    expect(ledger.logOffsets(id)).toEqual(new Map());
  });

  it('nvidia-smi samples: the device peak sums the run’s processes per GPU; memory.used feeds the whole-GPU peak', () => {
    const { id } = ledger.createRun(NEW_RUN);
    ledger.addProcessSamples(id, 1000, [
      { gpu: 0, gpuUuid: 'GPU-a', pid: 10, name: 'python', usedBytes: 3000 * MIB, ours: true },
      { gpu: 0, gpuUuid: 'GPU-a', pid: 11, name: 'python', usedBytes: 500 * MIB, ours: true },
      { gpu: 1, gpuUuid: 'GPU-b', pid: 12, name: 'python', usedBytes: 3200 * MIB, ours: true },
      { gpu: 0, gpuUuid: 'GPU-a', pid: 99, name: 'memhog', usedBytes: 9000 * MIB, ours: false },
      { gpu: 0, gpuUuid: 'GPU-a', pid: 98, name: 'wddm.exe', usedBytes: null, ours: true },
    ]);
    ledger.addProcessSamples(id, 2000, [
      { gpu: 0, gpuUuid: 'GPU-a', pid: 10, name: 'python', usedBytes: 3400 * MIB, ours: true },
    ]);
    ledger.addGpuSamples(id, 1500, [
      {
        gpu: 0,
        uuid: 'GPU-a',
        name: 'H200',
        totalBytes: 143771 * MIB,
        reservedBytes: 614 * MIB,
        usedBytes: 12500 * MIB,
        freeBytes: 130657 * MIB,
        utilizationPercent: 99,
        ownBytes: 3500 * MIB,
      },
    ]);
    const run = ledger.getRun(id)!;
    expect(run.peakDevice).toEqual({ bytes: 3500 * MIB, atMs: 1000, step: null, gpu: 0 });
    expect(run.peakGpuUsed).toEqual({ bytes: 12500 * MIB, atMs: 1500, step: null, gpu: 0 });
    expect(
      ledger
        .processSamples(id)
        .filter((p) => p.ours)
        .map((p) => p.pid),
    ).toEqual([10, 11, 12, 98, 10]);
    expect(ledger.gpuSamples(id)).toEqual([
      {
        tMs: 1500,
        gpu: 0,
        uuid: 'GPU-a',
        name: 'H200',
        totalBytes: 143771 * MIB,
        reservedBytes: 614 * MIB,
        usedBytes: 12500 * MIB,
        freeBytes: 130657 * MIB,
        utilizationPercent: 99,
        ownBytes: 3500 * MIB,
      },
    ]);
  });

  it('keeps the snapshots the probe wrote, per rank, on the run and as events', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const snap = (t: number, rank: number, reason: string, step: number | null) =>
      event({
        event: 'snapshot',
        t,
        rank,
        path: `/l/memory-snapshot.rank${rank}.pickle`,
        bytes: 1000 + rank,
        reason,
        entries: 5000,
        step,
      });
    ledger.ingestProbe(id, [
      {
        path: '/l/probe.rank0.jsonl',
        endOffset: 10,
        lines: [
          { offset: 0, event: snap(2, 0, 'request', 4) },
          { offset: 5, event: snap(3, 1, 'oom', null) },
        ],
      },
    ]);
    const expected = [
      {
        tMs: 2000,
        pid: 42,
        rank: 0,
        path: '/l/memory-snapshot.rank0.pickle',
        bytes: 1000,
        reason: 'manual',
        entries: 5000,
        step: 4,
      },
      {
        tMs: 3000,
        pid: 42,
        rank: 1,
        path: '/l/memory-snapshot.rank1.pickle',
        bytes: 1001,
        reason: 'oom',
        entries: 5000,
        step: null,
      },
    ];
    expect(ledger.snapshots(id)).toEqual(expected);
    expect(ledger.getRun(id)!.snapshots).toEqual(expected);
    const other = ledger.createRun(NEW_RUN);
    expect(ledger.listRuns().map((r) => r.snapshots.length)).toEqual([2, 0]);
    expect(ledger.getRun(other.id)!.snapshots).toEqual([]);
    expect(ledger.events(id, ['snapshot']).map((e) => [e.rank, e.step, e.message])).toEqual([
      [0, 4, '/l/memory-snapshot.rank0.pickle'],
      [1, null, '/l/memory-snapshot.rank1.pickle'],
    ]);
  });

  it('a second connection reads what the first committed (a dashboard while a run records)', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const reader = Ledger.open(home);
    ledger.ingestProbe(id, [
      {
        path: '/p',
        endOffset: 10,
        lines: [{ offset: 0, event: event({ event: 'step', t: 1, step: 7, devices: [] }) }],
      },
    ]);
    expect(reader.steps(id).map((s) => s.step)).toEqual([7]);
    reader.close();
  });

  it("reads a run's rows as columns: the stored values, in the order written, only its own, after a row", () => {
    const a = ledger.createRun(NEW_RUN).id;
    const b = ledger.createRun(NEW_RUN).id;
    // Doubles that 15 significant digits would not give back, and an exponent.
    const losses = [2 * Math.exp(-12_345 / 30_000) + 0.5, 1 / 3, Math.PI, 1e-300, 0.1];
    const step = (n: number, loss: number | null) => ({
      offset: n,
      event: event({ event: 'step', t: n, step: n, phase: n === 2 ? 'eval' : 'train', loss, devices: [] }),
    });
    // The two runs' rows interleaved, as two runs recording at once write them.
    losses.forEach((loss, i) => {
      ledger.ingestProbe(a, [{ path: '/a', endOffset: i + 1, lines: [step(i + 1, loss)] }]);
      ledger.ingestProbe(b, [{ path: '/b', endOffset: i + 1, lines: [step(i + 10, null)] }]);
    });
    const all = ledger.columns('steps', a, ['step', 'phase', 'loss']);
    expect(all.values.loss).toEqual(losses);
    expect(all.values.step).toEqual([1, 2, 3, 4, 5]);
    expect(all.values.phase).toEqual(['train', 'eval', 'train', 'train', 'train']);
    expect(all.rows).toBe(5);
    expect(all.last).toBe(ledger.rowMark('steps', a).last);
    expect(ledger.columns('steps', b, ['loss']).values.loss).toEqual([null, null, null, null, null]);
    // After the third row: the last two; after the last: none, and where it ended stays.
    const db = new Database(ledger.path, { readonly: true });
    const rowid3 = db.prepare('SELECT rowid FROM steps WHERE run_id = ? AND step = 3').pluck().get(a);
    db.close();
    expect(ledger.columns('steps', a, ['step'], rowid3 as number).values.step).toEqual([4, 5]);
    expect(ledger.columns('steps', a, ['step'], all.last)).toEqual({
      values: { step: [] },
      rows: 0,
      last: all.last,
    });
    expect(ledger.columns('gpuSamples', a, ['tMs'])).toEqual({ values: { tMs: [] }, rows: 0, last: 0 });
  });

  it('deleting a run removes its rows and its folder', () => {
    const { id } = ledger.createRun(NEW_RUN);
    mkdirSync(ledger.runDir(id), { recursive: true });
    writeFileSync(join(ledger.runDir(id), 'probe.jsonl'), '{}\n');
    ledger.ingestProbe(id, [
      {
        path: '/p',
        endOffset: 10,
        lines: [{ offset: 0, event: event({ event: 'step', t: 1, step: 1, devices: [] }) }],
      },
    ]);
    ledger.deleteRun(id);
    expect(ledger.getRun(id)).toBeUndefined();
    expect(ledger.steps(id)).toEqual([]);
    expect(existsSync(ledger.runDir(id))).toBe(false);
  });
});

describe('Ledger.open refuses what is not its ledger, and leaves it untouched', () => {
  it('a file that is not a database', () => {
    ledger.close();
    const dir = mkdtempSync(join(tmpdir(), 'headroom-ledger-'));
    const path = join(dir, 'ledger.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    const before = readFileSync(path);
    let error: unknown;
    try {
      Ledger.open(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HeadroomUserError);
    expect((error as HeadroomUserError).message).toBe(
      `the ledger ${path} is not a SQLite database (file is not a database); no run was read or written`,
    );
    expect((error as HeadroomUserError).hint).toBe(
      `move it aside (mv ${path} ${path}.bad) so headroom starts a new ledger, or set HEADROOM_HOME to another folder`,
    );
    expect(readFileSync(path)).toEqual(before);
  });

  it('another application’s SQLite database', () => {
    ledger.close();
    const dir = mkdtempSync(join(tmpdir(), 'headroom-ledger-'));
    const other = new Database(join(dir, 'ledger.db'));
    other.exec('CREATE TABLE photos (id INTEGER)');
    other.close();
    expect(() => Ledger.open(dir)).toThrow(
      /is a SQLite database but not a headroom ledger \(it has 1 tables of its own\); it was left untouched/,
    );
  });

  it('a ledger from a newer headroom', () => {
    ledger.close();
    const db = new Database(join(home, 'ledger.db'));
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => Ledger.open(home)).toThrow(
      `was written by a newer headroom (schema ${LEDGER_SCHEMA_VERSION + 1}; this one reads ${LEDGER_SCHEMA_VERSION})`,
    );
  });

  it('a HEADROOM_HOME that is a file', () => {
    ledger.close();
    const file = join(mkdtempSync(join(tmpdir(), 'headroom-ledger-')), 'plain-file');
    writeFileSync(file, 'x');
    expect(() => Ledger.open(file)).toThrow(HeadroomUserError);
    expect(() => Ledger.open(file)).toThrow(
      `cannot open the ledger ${join(file, 'ledger.db')} for writing (EEXIST: file already exists, mkdir '${file}')`,
    );
  });
});

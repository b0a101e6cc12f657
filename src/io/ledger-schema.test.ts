/**
 * The ledger's declared tables against the ledger headroom wrote before they were declared
 * (test/fixtures/ledger-v1.sql, dumped from a ledger made by the schema-1 code): the same schema
 * statement for statement, its rows read back, and a made-up later version migrating it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { MIB } from '../core/units.js';
import { Ledger } from './ledger.js';
import {
  type AnyTable,
  applySql,
  codec,
  columnName,
  createSql,
  defineTable,
  flag,
  integer,
  json,
  jsonOrNull,
  LEDGER_SCHEMA_VERSION,
  migrationSql,
  millis,
  nullable,
  runRef,
  SNAPSHOTS,
  STEPS,
  since,
  TABLES,
  text,
} from './ledger-schema.js';

const V1_DUMP = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'ledger-v1.sql'), 'utf8');

/** A ledger file as the schema-1 code left it, in a fresh folder. */
function v1Home(): string {
  const home = mkdtempSync(join(tmpdir(), 'headroom-ledger-v1-'));
  const db = new Database(join(home, 'ledger.db'));
  db.pragma('journal_mode = WAL');
  db.exec(V1_DUMP);
  db.close();
  return home;
}

/** Each table's and index's SQL as SQLite stored it, whitespace aside. */
function storedSchema(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true });
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string; sql: string }[];
  db.close();
  return Object.fromEntries(rows.map((r) => [r.name, r.sql.replace(/\s+/g, '')]));
}

function tableInfo(path: string, table: string): unknown[] {
  const db = new Database(path, { readonly: true });
  const info = db.pragma(`table_xinfo(${table})`) as unknown[];
  db.close();
  return info;
}

describe('the declared ledger tables', () => {
  it('create the schema-1 ledger, statement for statement, plus what schema 2 added', () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-ledger-new-'));
    Ledger.open(home).close();
    const fresh = storedSchema(join(home, 'ledger.db'));
    const old = storedSchema(join(v1Home(), 'ledger.db'));
    // Schema 2 added the snapshots and the rank rows (tables and their indexes) and runs.versions.
    expect(Object.keys(fresh).sort()).toEqual(
      [...Object.keys(old), 'snapshots', 'snapshots_run', 'run_ranks', 'run_ranks_run'].sort(),
    );
    const v2: Record<string, string> = { ...old, runs: old.runs!.replace(/\)$/, ',versionsTEXT)') };
    for (const name of Object.keys(old)) expect([name, fresh[name]]).toEqual([name, v2[name]]);
    expect(LEDGER_SCHEMA_VERSION).toBe(2);
    expect(migrationSql(TABLES, 1)).toEqual(
      expect.arrayContaining(['ALTER TABLE runs ADD COLUMN versions TEXT;', createSql(SNAPSHOTS)]),
    );
  });

  it('bring a schema-1 ledger to schema 2 when it is opened: the tables and columns a fresh one has', () => {
    const home = v1Home();
    Ledger.open(home).close();
    const path = join(home, 'ledger.db');
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.close();
    const fresh = mkdtempSync(join(tmpdir(), 'headroom-ledger-new-'));
    Ledger.open(fresh).close();
    expect(tableInfo(path, 'snapshots')).toEqual(tableInfo(join(fresh, 'ledger.db'), 'snapshots'));
    expect(tableInfo(path, 'runs')).toEqual(tableInfo(join(fresh, 'ledger.db'), 'runs'));
    const ledger = Ledger.open(home);
    expect(ledger.getRun(1)!.snapshots).toEqual([]);
    expect(ledger.getRun(1)!.versions).toBeNull();
    ledger.close();
  });

  it('name each column after its field in snake_case', () => {
    expect(columnName('peakAllocatedBytes')).toBe('peak_allocated_bytes');
    expect(columnName('tMs')).toBe('t_ms');
    expect(columnName('id')).toBe('id');
  });

  it('read every row of a ledger the schema-1 code wrote', () => {
    const ledger = Ledger.open(v1Home());
    try {
      const run = ledger.getRun('bs4')!;
      expect(run).toMatchObject({
        id: 1,
        status: 'oom',
        exitCode: 1,
        signal: null,
        command: ['python', 'train.py', '--batch-size', '4'],
        scenario: { model: 'llama-3.2-1b', method: 'lora', microBatchSize: 4, seqLen: 1024 },
        estimate: { allocatedBytes: 3000 * MIB, reservedBytes: 3100 * MIB, deviceBytes: 3600 * MIB },
        logPath: '/work/probe.jsonl',
        startedAtMs: 1_767_225_600_000,
        endedAtMs: 1_767_225_606_201,
        monitorPid: 100,
        childPid: 101,
        // Step 2's line is not a probe event (its loss is a string), so the run has steps 1 and 3.
        steps: 2,
        lastStep: 3,
        batchSize: 4,
        seqLen: 1024,
        peakAllocated: { bytes: 3328 * MIB, atMs: 1_767_225_605_000, step: 3, gpu: 0 },
        peakReserved: { bytes: 3400 * MIB, atMs: 1_767_225_605_000, step: 3, gpu: 0 },
        peakDevice: { bytes: 3460 * MIB, atMs: 1_767_225_601_500, step: null, gpu: 0 },
        peakGpuUsed: { bytes: 35_000 * MIB, atMs: 1_767_225_601_500, step: null, gpu: 0 },
      });
      expect(ledger.getRun(2)).toMatchObject({
        name: null,
        scenario: null,
        estimate: null,
        env: {},
        steps: 0,
      });
      const steps = ledger.steps(1);
      expect(steps.map((s) => [s.step, s.phase, s.loss, s.device, s.peakAllocatedBytes])).toEqual([
        [1, 'train', 2.5, 0, 2900 * MIB],
        [3, 'eval', null, null, null],
      ]);
      expect(Object.keys(steps[0]!)).not.toContain('runId');
      expect(ledger.events(1).map((e) => e.kind)).toEqual([
        'prelaunch',
        'start',
        'probe-bad-line',
        'probe-bad-line',
        'phase',
        'oom',
        'end',
        'oom-text',
      ]);
      expect(ledger.events(1, ['phase'])[0]).toMatchObject({
        id: 5,
        step: 2,
        phase: 'eval',
        message: 'train → eval',
      });
      expect(ledger.processSamples(1).map((p) => [p.pid, p.usedBytes, p.ours])).toEqual([
        [101, 3460 * MIB, true],
        [7, 1024 * MIB, false],
        [8, null, false],
      ]);
      expect(ledger.gpuSamples(1)[0]).toMatchObject({ tMs: 1_767_225_601_500, utilizationPercent: 87.5 });
      expect(ledger.logOffsets(1)).toEqual(new Map([['/work/probe.jsonl', 1911]]));
      expect(ledger.oomText(1)).toContain('Tried to allocate 2.00 GiB');
      // And it is written as before: the next run takes the next id.
      const next = ledger.createRun({
        name: 'after',
        command: ['python'],
        cwd: null,
        host: null,
        scenario: null,
        estimate: null,
        env: {},
        startedAtMs: 1.5,
        monitorPid: null,
      });
      expect([next.id, next.startedAtMs, next.status]).toEqual([3, 2, 'running']);
    } finally {
      ledger.close();
    }
  });
});

describe('a later schema version', () => {
  // Made up: the next version adds a column to steps and a table of per-rank samples.
  const NEXT = LEDGER_SCHEMA_VERSION + 1;
  const STEPS_NEXT = defineTable({
    ...STEPS,
    columns: { ...STEPS.columns, gradNormBytes: since(NEXT, nullable(integer())) },
  });
  const RANK_SAMPLES = defineTable({
    name: 'rank_samples',
    since: NEXT,
    columns: { runId: runRef(), tMs: millis(), rank: integer(), host: nullable(text()) },
    indexes: [{ name: 'rank_samples_run', on: ['runId', 'rank'] }],
  });
  const LATER: readonly AnyTable[] = [
    ...TABLES.map((t) => (t.name === 'steps' ? STEPS_NEXT : t)),
    RANK_SAMPLES,
  ];

  it('is reached from a schema-1 ledger by the statements derived from the declarations', () => {
    expect(migrationSql(LATER, LEDGER_SCHEMA_VERSION)).toEqual([
      'ALTER TABLE steps ADD COLUMN grad_norm_bytes INTEGER;',
      createSql(RANK_SAMPLES),
    ]);
    expect(migrationSql(LATER, NEXT)).toEqual([]);
    const path = join(v1Home(), 'ledger.db');
    const db = new Database(path);
    applySql(db, migrationSql(LATER, 1));
    db.close();
    // The migrated ledger has the columns a fresh ledger of the next version has.
    const fresh = join(mkdtempSync(join(tmpdir(), 'headroom-ledger-v2-')), 'ledger.db');
    const created = new Database(fresh);
    applySql(created, LATER.map(createSql));
    created.close();
    for (const t of ['steps', 'run_ranks', 'rank_samples'])
      expect(tableInfo(path, t)).toEqual(tableInfo(fresh, t));
    // Rows written before the column read it as null.
    const read = new Database(path, { readonly: true });
    const rows = read.prepare(`SELECT ${codec(STEPS_NEXT).select} FROM steps`).all() as Record<
      string,
      unknown
    >[];
    read.close();
    expect(rows.map((r) => codec(STEPS_NEXT).read(r).gradNormBytes)).toEqual([null, null]);
  });

  it('cannot add a NOT NULL column to rows that exist', () => {
    const bad = defineTable({ ...STEPS, columns: { ...STEPS.columns, ranks: since(2, integer()) } });
    expect(() => migrationSql([bad], 1)).toThrow(/steps\.ranks is added by a migration: it must be nullable/);
  });
});

describe('a column', () => {
  const T = defineTable({
    name: 't',
    columns: {
      at: millis(),
      ours: flag(),
      doc: json<{ a: number }>({ a: 0 }),
      maybe: jsonOrNull<{ b: string }>(),
      note: nullable(text()),
    },
  });
  const c = codec(T);

  it('writes each value the way its kind stores it', () => {
    const insert = c.insert();
    expect(insert.sql).toBe('INSERT INTO t (at, ours, doc, maybe, note) VALUES (?, ?, ?, ?, ?)');
    expect(insert.values({ at: 1.6, ours: true, doc: { a: 1 }, maybe: null, note: null })).toEqual([
      2,
      1,
      '{"a":1}',
      null,
      null,
    ]);
    expect(c.assignments({ note: 'x', at: undefined })).toEqual({ sql: 'note = ?', values: ['x'] });
  });

  it('reads it back, and text that is not JSON as the fallback', () => {
    expect(c.read({ at: 2, ours: 0, doc: '{"a":1}', maybe: '{"b":"x"}', note: 'n' })).toEqual({
      at: 2,
      ours: false,
      doc: { a: 1 },
      maybe: { b: 'x' },
      note: 'n',
    });
    expect(c.read({ at: 2, ours: 1, doc: 'not json', maybe: 'nor this', note: null })).toMatchObject({
      ours: true,
      doc: { a: 0 },
      maybe: null,
      note: null,
    });
  });
});

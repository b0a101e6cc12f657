/**
 * The ledger's tables, declared once: each column's JS field, SQL type, nullability, constraint,
 * the schema version that added it, and how a value goes into and out of SQLite. The CREATE TABLE
 * statements, the INSERT and SELECT column lists, the row mappers, the CSV columns of `runs export`
 * and the migrations of an older ledger are all derived from these declarations.
 *
 * Adding a column: one line in its table below (`nullable(...)`, `since: N` with N the new
 * LEDGER_SCHEMA_VERSION); a ledger written before it gets it by `ALTER TABLE ... ADD COLUMN` when it
 * is opened. Adding a table: one `defineTable` here and its name in TABLES (with `since: N`).
 * Column names are the JS field in snake_case (`peakAllocatedBytes` → `peak_allocated_bytes`).
 */
import type Database from 'better-sqlite3';
import type { EstimatedPeak, RunEventSource, RunStatus, SnapshotReason } from '../core/run-record.js';
import { RUN_STATUSES } from '../core/run-record.js';

/** Schema version of the ledger file (SQLite `user_version`); 2 added the snapshots table and runs.versions. */
export const LEDGER_SCHEMA_VERSION = 2;

/** What better-sqlite3 binds and returns. */
export type SqlValue = number | bigint | string | null;

/** One column: how it is declared in SQL and how a value of its field is written and read. */
export interface Column<V> {
  readonly sql: 'INTEGER' | 'REAL' | 'TEXT';
  readonly notNull: boolean;
  /** The rest of its definition (PRIMARY KEY, CHECK, REFERENCES), given the column's name. */
  readonly constraint: (column: string) => string;
  /** The schema version that added it; 1 for the first ledger's columns. */
  readonly since: number;
  readonly write: (value: V) => SqlValue;
  readonly read: (raw: unknown) => V;
  /** Whether the value is stored as it is (write is the identity): the hot INSERTs skip the call. */
  readonly plain: boolean;
}

/** Any column, for lists of them (the field's type is erased). */
export interface AnyColumn {
  readonly sql: Column<unknown>['sql'];
  readonly notNull: boolean;
  readonly constraint: (column: string) => string;
  readonly since: number;
  readonly write: (value: never) => SqlValue;
  readonly read: (raw: unknown) => unknown;
  readonly plain: boolean;
}

const none = () => '';

function column<V>(
  sql: Column<V>['sql'],
  write: (value: V) => SqlValue,
  read: (raw: unknown) => V,
  constraint: (column: string) => string = none,
): Column<V> {
  return { sql, notNull: true, constraint, since: 1, write, read, plain: false };
}

function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A whole number (counts, bytes, ids, pids). */
export const integer = (): Column<number> => ({ ...column('INTEGER', (v) => v, Number), plain: true });
/** A number with a fraction (loss, learning rate, seconds). */
export const real = (): Column<number> => ({ ...column('REAL', (v) => v, Number), plain: true });
export const text = (): Column<string> => ({ ...column('TEXT', (v) => v, String), plain: true });
/** A time in milliseconds since the epoch, stored whole. */
export const millis = (): Column<number> => column('INTEGER', (v) => Math.round(v), Number);
/** A boolean, stored 1 or 0. */
export const flag = (): Column<boolean> =>
  column(
    'INTEGER',
    (v) => (v ? 1 : 0),
    (raw) => Number(raw) === 1,
  );
/** A JSON document; `fallback` is what text that does not parse reads as. */
export const json = <T>(fallback: T): Column<T> =>
  column(
    'TEXT',
    (v) => JSON.stringify(v),
    (raw) => parseJson(raw, fallback),
  );
/** A JSON document or NULL (an empty one is stored as NULL; text that does not parse reads as null). */
export const jsonOrNull = <T>(): Column<T | null> => ({
  ...column<T | null>(
    'TEXT',
    (v) => (v ? JSON.stringify(v) : null),
    (raw) => parseJson<T | null>(raw, null),
  ),
  notNull: false,
});
/** A word from a known set the database does not check (an event's source). */
export const word = <T extends string>(): Column<T> =>
  column(
    'TEXT',
    (v) => v,
    (raw) => String(raw) as T,
  );
/** One of a fixed list of words, held to it by a CHECK. */
export const oneOf = <T extends string>(values: readonly T[]): Column<T> =>
  column(
    'TEXT',
    (v) => v,
    (raw) => String(raw) as T,
    (name) => `CHECK (${name} IN (${values.map((v) => `'${v}'`).join(',')}))`,
  );

/** The same column, NULL allowed (written and read as null). */
export function nullable<V>(c: Column<V>): Column<V | null> {
  return {
    ...c,
    notNull: false,
    write: (v) => (v === null || v === undefined ? null : c.write(v)),
    read: (raw) => (raw === null || raw === undefined ? null : c.read(raw)),
  };
}

/** The table's own id: INTEGER PRIMARY KEY AUTOINCREMENT. */
export function rowId(): Column<number> {
  return { ...integer(), notNull: false, constraint: () => 'PRIMARY KEY AUTOINCREMENT' };
}

/** The run a row belongs to; deleting the run deletes the row. */
export function runRef(): Column<number> {
  return { ...integer(), constraint: () => 'REFERENCES runs (id) ON DELETE CASCADE' };
}

/** A column added by schema version `version` (it must allow NULL: older rows have none). */
export function since<V>(version: number, c: Column<V>): Column<V> {
  return { ...c, since: version };
}

export type Columns = Readonly<Record<string, AnyColumn>>;

/** Any table, for lists of them and for what reads any table. */
export interface AnyTable {
  readonly name: string;
  readonly columns: Columns;
  readonly since: number;
  readonly primaryKey?: readonly string[];
  readonly indexes?: readonly { readonly name: string; readonly on: readonly string[] }[];
}

export interface Table<C extends Columns> extends AnyTable {
  readonly name: string;
  readonly columns: C;
  /** The schema version that added the table. */
  readonly since: number;
  /** A primary key over several columns (fields), when it has one. */
  readonly primaryKey?: readonly (keyof C & string)[];
  readonly indexes?: readonly { readonly name: string; readonly on: readonly (keyof C & string)[] }[];
}

/** The row of a table as its fields' values. */
export type RowOf<T extends AnyTable> = {
  readonly [K in keyof T['columns']]: T['columns'][K] extends Column<infer V> ? V : never;
};

export function defineTable<C extends Columns>(
  table: Omit<Table<C>, 'since'> & { since?: number },
): Table<C> {
  return { since: 1, ...table };
}

/** The SQL name of a field: `peakAllocatedBytes` → `peak_allocated_bytes`. */
export function columnName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function definition(field: string, c: AnyColumn): string {
  const name = columnName(field);
  return [name, c.sql, c.notNull ? 'NOT NULL' : '', c.constraint(name)].filter((p) => p !== '').join(' ');
}

/** CREATE TABLE and CREATE INDEX for a table, as it stands at the current version. */
export function createSql(table: AnyTable): string {
  const lines = Object.entries(table.columns).map(([field, c]) => `  ${definition(field, c)}`);
  if (table.primaryKey) lines.push(`  PRIMARY KEY (${table.primaryKey.map(columnName).join(', ')})`);
  return [
    `CREATE TABLE ${table.name} (\n${lines.join(',\n')}\n);`,
    ...(table.indexes ?? []).map(
      (i) => `CREATE INDEX ${i.name} ON ${table.name} (${i.on.map(columnName).join(', ')});`,
    ),
  ].join('\n');
}

/**
 * What brings a ledger of version `from` to the current declarations: the tables added since, then
 * the columns added since to the tables it has.
 */
export function migrationSql(tables: readonly AnyTable[], from: number): string[] {
  const statements: string[] = [];
  for (const table of tables) {
    if (table.since > from) {
      statements.push(createSql(table));
      continue;
    }
    for (const [field, c] of Object.entries(table.columns)) {
      if (c.since <= from) continue;
      if (c.notNull)
        throw new Error(`ledger column ${table.name}.${field} is added by a migration: it must be nullable`);
      statements.push(`ALTER TABLE ${table.name} ADD COLUMN ${definition(field, c)};`);
    }
  }
  return statements;
}

/** A row as read by better-sqlite3: column name → value. */
export type SqlRow = Readonly<Record<string, unknown>>;

/** A compiled mapping of a table's fields to its columns: INSERT statements and row readers. */
export interface TableCodec<T extends AnyTable> {
  readonly table: T;
  /** `SELECT` list of every column. */
  readonly select: string;
  /** The INSERT of these fields (all by default) and the values of a row in that order. */
  insert<F extends keyof T['columns'] & string>(
    fields?: readonly F[],
  ): {
    readonly sql: string;
    readonly values: (row: Pick<RowOf<T>, F>) => SqlValue[];
    /** The insert of a row through `statement` (prepared from `sql`), without an array between. */
    readonly bind: (statement: Database.Statement) => (row: Pick<RowOf<T>, F>) => Database.RunResult;
  };
  /** The SET assignments of an UPDATE for the fields a patch has (undefined ones left out). */
  assignments(patch: { readonly [K in keyof RowOf<T>]?: RowOf<T>[K] | undefined }): {
    readonly sql: string;
    readonly values: SqlValue[];
  };
  /** A stored row as the table's fields. */
  read(row: SqlRow): RowOf<T>;
  /** The SELECT list and a reader of some fields only, in the table's order (a record without its run id). */
  reader<F extends keyof T['columns'] & string>(
    fields: readonly F[],
  ): { readonly select: string; readonly read: (row: SqlRow) => Pick<RowOf<T>, F> };
}

/**
 * The values of a row in column order, as one function compiled from the columns: a row is read field
 * by field with static property names (what V8 reads fastest), and a column stored as it is skips its
 * write call. `call` names what gets them: an array (`[…]`), or a statement's run (`st.run(…)`, which
 * spares the array). Every step of every rank goes through here, on ingest's hot path (npm run
 * bench:ingest): a loop over the field names and a spread array cost about 20 % of the backlog rate.
 */
function compileRow<R>(
  columns: readonly (readonly [string, AnyColumn])[],
  call: (args: string) => string,
): (st: Database.Statement | null, row: object) => R {
  const writes = columns.map(([, c]) => c.write as (v: unknown) => SqlValue);
  const items = columns.map(([field, c], i) => {
    // The fields are the declarations' own keys, never input: held to identifiers all the same.
    if (!/^[A-Za-z_$][\w$]*$/.test(field)) throw new Error(`ledger field ${field} is not an identifier`);
    return c.plain ? `row.${field} ?? null` : `w[${i}](row.${field})`;
  });
  // The code is built from the declarations alone (field names checked above), never from input.
  const make = new Function('w', `return (st, row) => ${call(items.join(', '))};`) as (
    w: readonly ((v: unknown) => SqlValue)[],
  ) => (st: Database.Statement | null, row: object) => R;
  return make(writes);
}

export function codec<T extends AnyTable>(table: T): TableCodec<T> {
  const inserts = new Map<
    string,
    {
      readonly sql: string;
      readonly values: (st: null, row: object) => SqlValue[];
      readonly run: (st: Database.Statement, row: object) => Database.RunResult;
    }
  >();
  const entries = Object.entries(table.columns).map(([field, c]) => [field, columnName(field), c] as const);
  return {
    table,
    select: entries.map(([, name]) => name).join(', '),
    insert(fields) {
      const chosen = fields ?? (Object.keys(table.columns) as (keyof T['columns'] & string)[]);
      // Compiled once per list of fields, so a poll of a few lines runs code V8 has already optimized.
      const key = chosen.join(',');
      let compiled = inserts.get(key);
      if (!compiled) {
        const columns = chosen.map((f) => [f, table.columns[f]!] as const);
        compiled = {
          sql: `INSERT INTO ${table.name} (${chosen.map(columnName).join(', ')}) VALUES (${chosen.map(() => '?').join(', ')})`,
          values: compileRow<SqlValue[]>(columns, (args) => `[${args}]`),
          run: compileRow<Database.RunResult>(columns, (args) => `st.run(${args})`),
        };
        inserts.set(key, compiled);
      }
      const { sql, values, run } = compiled;
      return {
        sql,
        values: (row) => values(null, row),
        bind: (statement) => (row) => run(statement, row),
      };
    },
    assignments(patch) {
      const set = Object.entries(patch).filter(([, v]) => v !== undefined);
      return {
        sql: set.map(([f]) => `${columnName(f)} = ?`).join(', '),
        values: set.map(([f, v]) => (table.columns[f]!.write as (v: unknown) => SqlValue)(v)),
      };
    },
    read(row) {
      const out: Record<string, unknown> = {};
      for (const [field, name, c] of entries) out[field] = c.read(row[name]);
      return out as RowOf<T>;
    },
    reader(fields) {
      const chosen = entries.filter(([field]) => (fields as readonly string[]).includes(field));
      return {
        select: chosen.map(([, name]) => name).join(', '),
        read: (row) => {
          const out: Record<string, unknown> = {};
          for (const [field, name, c] of chosen) out[field] = c.read(row[name]);
          return out as Pick<RowOf<T>, (typeof fields)[number]>;
        },
      };
    },
  };
}

/** Applies `statements` (from createSql / migrationSql) to a database. */
export function applySql(db: Database.Database, statements: readonly string[]): void {
  for (const s of statements) db.exec(s);
}

// ── the tables ─────────────────────────────────────────────────────────────────────────────────

export const META = defineTable({
  name: 'meta',
  columns: {
    key: { ...text(), notNull: false, constraint: () => 'PRIMARY KEY' },
    value: text(),
  },
});

/** One layer's peak: its bytes, when, the step it belongs to (probe layers only) and the GPU. */
const peakAt = () => nullable(millis());
const count = () => nullable(integer());

export const RUNS = defineTable({
  name: 'runs',
  columns: {
    id: rowId(),
    name: nullable(text()),
    status: oneOf<RunStatus>(RUN_STATUSES),
    exitCode: count(),
    signal: nullable(text()),
    command: json<readonly string[]>([]),
    cwd: nullable(text()),
    host: nullable(text()),
    scenario: jsonOrNull<Readonly<Record<string, unknown>>>(),
    estimate: jsonOrNull<EstimatedPeak>(),
    env: json<Readonly<Record<string, unknown>>>({}),
    logPath: nullable(text()),
    stderrPath: nullable(text()),
    startedAtMs: millis(),
    endedAtMs: peakAt(),
    monitorPid: count(),
    childPid: count(),
    batchSize: count(),
    seqLen: count(),
    lastStep: count(),
    peakAllocatedBytes: count(),
    peakAllocatedAtMs: peakAt(),
    peakAllocatedStep: count(),
    peakAllocatedGpu: count(),
    peakReservedBytes: count(),
    peakReservedAtMs: peakAt(),
    peakReservedStep: count(),
    peakReservedGpu: count(),
    peakDeviceBytes: count(),
    peakDeviceAtMs: peakAt(),
    peakDeviceGpu: count(),
    peakGpuUsedBytes: count(),
    peakGpuUsedAtMs: peakAt(),
    peakGpuUsedGpu: count(),
    /** The package versions the probe found installed when the run started, by the scenario's names (issue #19). */
    versions: since(2, jsonOrNull<Readonly<Record<string, string>>>()),
  },
  indexes: [{ name: 'runs_log_path', on: ['logPath'] }],
});

/** The layers whose peak a run keeps, and whether it is tied to a step (the probe's are). */
export const PEAK_LAYERS = {
  peakAllocated: { step: true },
  peakReserved: { step: true },
  peakDevice: { step: false },
  peakGpuUsed: { step: false },
} as const;
export type PeakLayerField = keyof typeof PEAK_LAYERS;

export const STEPS = defineTable({
  name: 'steps',
  columns: {
    runId: runRef(),
    tMs: millis(),
    pid: integer(),
    rank: integer(),
    localRank: integer(),
    device: count(),
    step: integer(),
    phase: text(),
    loss: nullable(real()),
    lossText: nullable(text()),
    lr: nullable(real()),
    batchSize: count(),
    seqLen: count(),
    durationS: nullable(real()),
    allocatedBytes: count(),
    reservedBytes: count(),
    peakAllocatedBytes: count(),
    peakReservedBytes: count(),
    inactiveSplitBytes: count(),
    numAllocRetries: count(),
    numOoms: count(),
  },
  indexes: [{ name: 'steps_run', on: ['runId', 'step'] }],
});

export const GPU_SAMPLES = defineTable({
  name: 'gpu_samples',
  columns: {
    runId: runRef(),
    tMs: millis(),
    gpu: integer(),
    uuid: nullable(text()),
    name: nullable(text()),
    totalBytes: count(),
    reservedBytes: count(),
    usedBytes: count(),
    freeBytes: count(),
    utilizationPercent: nullable(real()),
    ownBytes: count(),
  },
  indexes: [{ name: 'gpu_samples_run', on: ['runId', 'tMs'] }],
});

export const PROCESS_SAMPLES = defineTable({
  name: 'process_samples',
  columns: {
    runId: runRef(),
    tMs: millis(),
    gpu: count(),
    gpuUuid: nullable(text()),
    pid: count(),
    name: nullable(text()),
    usedBytes: count(),
    ours: flag(),
  },
  indexes: [{ name: 'process_samples_run', on: ['runId', 'tMs'] }],
});

export const EVENTS = defineTable({
  name: 'events',
  columns: {
    id: rowId(),
    runId: runRef(),
    tMs: millis(),
    kind: text(),
    source: word<RunEventSource>(),
    pid: count(),
    rank: count(),
    step: count(),
    phase: nullable(text()),
    message: nullable(text()),
    data: json<Readonly<Record<string, unknown>>>({}),
  },
  indexes: [{ name: 'events_run', on: ['runId', 'kind'] }],
});

/** The allocator snapshots a run's probe wrote (its `snapshot` events): where, whose, how large, why. */
export const SNAPSHOTS = defineTable({
  name: 'snapshots',
  since: 2,
  columns: {
    runId: runRef(),
    tMs: millis(),
    pid: integer(),
    rank: integer(),
    path: text(),
    bytes: integer(),
    reason: word<SnapshotReason>(),
    entries: count(),
    step: count(),
  },
  indexes: [{ name: 'snapshots_run', on: ['runId'] }],
});

/** How far each probe file of a run has been read (its byte offset), committed with the rows. */
export const LOG_FILES = defineTable({
  name: 'log_files',
  columns: {
    runId: runRef(),
    path: text(),
    offset: integer(),
  },
  primaryKey: ['runId', 'path'],
});

/**
 * One rank of a run (one process of torchrun, accelerate, deepspeed or srun), keyed by run, rank and
 * host: a multi-node run merges the probe files each node writes. Its peaks are the highest over the
 * rank's devices, raised as its probe lines and nvidia-smi's per-process samples arrive; `gpu` is the
 * CUDA ordinal (as the process saw it) of the device that held its allocated peak, `gpuUuid` that
 * device's UUID in NVML's spelling (`GPU-…`), and `peakDeviceBytes` what nvidia-smi showed for the
 * run's processes on that card (the rank's own process when the card is not known).
 */
export const RANKS = defineTable({
  name: 'run_ranks',
  since: 2,
  columns: {
    runId: runRef(),
    rank: integer(),
    localRank: integer(),
    worldSize: count(),
    host: nullable(text()),
    pid: count(),
    gpu: count(),
    gpuUuid: nullable(text()),
    cudaVisibleDevices: nullable(text()),
    peakAllocatedBytes: count(),
    peakAllocatedStep: count(),
    peakAllocatedPhase: nullable(text()),
    peakReservedBytes: count(),
    peakDeviceBytes: count(),
    steps: integer(),
    lastStep: count(),
  },
  indexes: [{ name: 'run_ranks_run', on: ['runId', 'rank'] }],
});

/** Every table, in the order they are created. */
export const TABLES: readonly AnyTable[] = [
  META,
  RUNS,
  STEPS,
  GPU_SAMPLES,
  PROCESS_SAMPLES,
  EVENTS,
  LOG_FILES,
  SNAPSHOTS,
  RANKS,
];

/** The tables a run's rows can be exported from (`runs export --table`), by their flag name. */
export const EXPORT_TABLES = {
  steps: STEPS,
  'gpu-samples': GPU_SAMPLES,
  'process-samples': PROCESS_SAMPLES,
  events: EVENTS,
  ranks: RANKS,
} as const;

/** A table's fields as `runs export` writes them: every column but the run it belongs to. */
export function exportFields(table: AnyTable): string[] {
  return Object.keys(table.columns).filter((f) => f !== 'runId');
}

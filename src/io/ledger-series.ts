/**
 * A run's rows as columns: chosen fields of its step records or nvidia-smi samples, one array per field,
 * read with better-sqlite3's raw rows (no object per row, no per-field mapping). A 100,000-step run is
 * read this way by the dashboard's run page in a fraction of the time `Ledger.steps` takes to build its
 * records; the values are the stored ones (every field read here is stored as it is).
 */
import type Database from 'better-sqlite3';
import { type AnyTable, columnName, GPU_SAMPLES, STEPS } from './ledger-schema.js';

/** The tables a run's series come from. */
export const SERIES_TABLES = { steps: STEPS, gpuSamples: GPU_SAMPLES } as const;
export type SeriesTable = keyof typeof SERIES_TABLES;

/** The fields of a series table (its declared columns). */
export type SeriesField<T extends SeriesTable> = keyof (typeof SERIES_TABLES)[T]['columns'] & string;

/** A run's rows of one table as columns, and where they end. */
export interface RunColumns<F extends string> {
  /** One array per field, each with a value per row, in the order written. */
  readonly values: { readonly [K in F]: unknown[] };
  /** Rows read. */
  readonly rows: number;
  /** The rowid of the last row read (`afterRow` when none): where a live view picks up. */
  readonly last: number;
}

/** The SELECT that reads `fields` of a run's rows after a rowid, raw (arrays, not objects). */
export function columnsSql(table: AnyTable, fields: readonly string[]): string {
  for (const f of fields) {
    // Fields come from the declarations (typed), never from input: held to them all the same.
    if (!(f in table.columns)) throw new Error(`${table.name} has no field ${f}`);
  }
  const list = fields.map(columnName).join(', ');
  return `SELECT rowid, ${list} FROM ${table.name} WHERE run_id = ? AND rowid > ? ORDER BY rowid`;
}

/** Reads the columns with a statement prepared from columnsSql (raw mode is set here). */
export function readColumns<F extends string>(
  statement: Database.Statement,
  fields: readonly F[],
  runId: number,
  afterRow: number,
): RunColumns<F> {
  const arrays = fields.map(() => [] as unknown[]);
  let rows = 0;
  let last = afterRow;
  for (const row of statement.raw(true).iterate(runId, afterRow) as Iterable<unknown[]>) {
    last = row[0] as number;
    for (let i = 0; i < arrays.length; i++) arrays[i]!.push(row[i + 1]);
    rows += 1;
  }
  const values = Object.fromEntries(fields.map((f, i) => [f, arrays[i]!])) as { [K in F]: unknown[] };
  return { values, rows, last };
}

/** The last rowid and the number of a run's rows in a table: whether what was read of it still holds. */
export function rowMarkSql(table: AnyTable): string {
  return `SELECT count(*) AS n, coalesce(max(rowid), 0) AS last FROM ${table.name} WHERE run_id = ?`;
}

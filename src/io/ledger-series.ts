/**
 * A run's rows as columns: chosen fields of its step records or nvidia-smi samples, one array per field,
 * read as one JSON array per field (no object per row, no per-field mapping). A 100,000-step run is
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

/**
 * The SELECT that reads `fields` of a run's rows after a rowid: one JSON array per field, built by
 * SQLite (json_group_array, sqlite.org/json1.html#jgrouparray) and parsed by JSON.parse. That is about
 * three times faster than reading raw rows one at a time (npm run bench:dashboard, a 100,000-step run:
 * about 150 ms against 450 ms for 12 fields): better-sqlite3 makes a JS value per field and row
 * (github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md, "Iterating"), JSON.parse builds the
 * arrays natively. SQLite writes a REAL with as many digits as it takes to read back the same double
 * (ledger.test.ts holds this for awkward values), so the values are the stored ones.
 *
 * The rows are scanned by rowid between the run's first and last (`NOT INDEXED`: the index on
 * (run_id, step) would fetch them by step and sort them back into rowid order; a run's rows are close
 * together in rowid, since they are written while it runs). Parameters: after, first − 1, last, run id.
 */
export function columnsSql(table: AnyTable, fields: readonly string[]): string {
  for (const f of fields) {
    // Fields come from the declarations (typed), never from input: held to them all the same.
    if (!(f in table.columns)) throw new Error(`${table.name} has no field ${f}`);
  }
  const list = fields.map(columnName).join(', ');
  const arrays = fields.map((f) => `json_group_array(${columnName(f)})`).join(', ');
  return `SELECT count(*), coalesce(max(rowid), 0), ${arrays} FROM (
    SELECT rowid, ${list} FROM ${table.name} NOT INDEXED
     WHERE rowid > max(?, ?) AND rowid <= ? AND run_id = ? ORDER BY rowid)`;
}

/** The first and last rowid of a run's rows in a table (0, 0 when it has none). */
export function rowBoundsSql(table: AnyTable): string {
  return `SELECT coalesce(min(rowid), 0) AS first, coalesce(max(rowid), 0) AS last FROM ${table.name} WHERE run_id = ?`;
}

/** Reads the columns with statements prepared from rowBoundsSql and columnsSql (raw mode is set here). */
export function readColumns<F extends string>(
  bounds: Database.Statement,
  statement: Database.Statement,
  fields: readonly F[],
  runId: number,
  afterRow: number,
): RunColumns<F> {
  const { first, last } = bounds.get(runId) as { first: number; last: number };
  const row = statement.raw(true).get(afterRow, first - 1, last, runId) as unknown[];
  const rows = Number(row[0]);
  const values = Object.fromEntries(
    fields.map((f, i) => [f, rows === 0 ? [] : (JSON.parse(row[i + 2] as string) as unknown[])]),
  ) as { [K in F]: unknown[] };
  return { values, rows, last: rows === 0 ? afterRow : Number(row[1]) };
}

/** The last rowid and the number of a run's rows in a table: whether what was read of it still holds. */
export function rowMarkSql(table: AnyTable): string {
  return `SELECT count(*) AS n, coalesce(max(rowid), 0) AS last FROM ${table.name} WHERE run_id = ?`;
}

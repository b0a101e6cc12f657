/**
 * Opening the ledger where it cannot be written: the user error of a ledger that cannot be opened, and
 * the read-only ledger the read commands fall back to (Ledger.open(home, 'read')).
 */
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { LEDGER_SCHEMA_VERSION } from './ledger-schema.js';

/** How long a writer waits for another one holding the lock. */
export const LEDGER_BUSY_TIMEOUT_MS = 5000;

/** The errors of opening a ledger where this process may not write: its readers then read it as it is. */
export const CANNOT_WRITE = /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_PERM|EACCES|EPERM|EROFS)/;

/** The disk (or quota) is full: SQLite's SQLITE_FULL, the system's ENOSPC and EDQUOT. */
const DISK_FULL = /^(SQLITE_FULL|ENOSPC|EDQUOT)/;

/**
 * The user error of a ledger that cannot be opened or written: not SQLite, locked by another process
 * past the busy timeout, on a full disk, where this process may not write; null for anything else.
 */
export function ledgerError(path: string, error: unknown): HeadroomUserError | null {
  const code = (error as { code?: string }).code ?? '';
  const detail = (error as Error).message;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return fileError('ledger-not-sqlite', { path, detail }, path);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return fileError('ledger-busy', { path, seconds: LEDGER_BUSY_TIMEOUT_MS / 1000 }, path);
  }
  if (DISK_FULL.test(code)) return fileError('ledger-full', { path, detail }, path);
  if (CANNOT_WRITE.test(code) || code === 'ENOTDIR' || code === 'EEXIST') {
    return fileError('ledger-cannot-open', { path, detail }, path);
  }
  return null;
}

/** The largest ledger a reader copies into memory when the home is read-only (readOnlyLedger). */
export const READ_ONLY_COPY_LIMIT_BYTES = 2 * 1024 ** 3;

/**
 * The ledger of a home this process may not write, opened read-only. SQLite opens a WAL database
 * read-only only when its -shm file exists or can be made (sqlite.org/wal.html, "Read-Only Databases"),
 * so where a read-only open fails the file's bytes are read into memory instead: a WAL database whose
 * -wal was checkpointed away at its last close is, page for page, a rollback-journal database but for
 * the two format bytes at offsets 18 and 19 of the header (sqlite.org/fileformat2.html, "1.3.3 File
 * format version numbers": 1 legacy, 2 WAL), which are set to 1. A ledger of another schema is refused:
 * bringing it up to this one needs a write.
 */
export function readOnlyLedger(path: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${LEDGER_BUSY_TIMEOUT_MS}`);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch {
    const size = statSync(path).size;
    if (size > READ_ONLY_COPY_LIMIT_BYTES) {
      throw fileError('ledger-too-large-to-copy', { path, mib: Math.round(size / 1024 ** 2) }, path);
    }
    const bytes = readFileSync(path);
    if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
      bytes[18] = 1;
      bytes[19] = 1;
    }
    try {
      db = new Database(bytes, { readonly: true });
    } catch (error) {
      throw ledgerError(path, error) ?? error;
    }
  }
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version !== LEDGER_SCHEMA_VERSION) {
    db.close();
    throw fileError('ledger-schema-read-only', { path, version, reads: LEDGER_SCHEMA_VERSION }, path);
  }
  return db;
}

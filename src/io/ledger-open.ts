/**
 * Opening the ledger where it cannot be written: the user error of a ledger that cannot be opened, and
 * the read-only ledger the read commands fall back to (Ledger.open(home, 'read')).
 */
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { HeadroomUserError } from '../core/errors.js';
import { LEDGER_SCHEMA_VERSION } from './ledger-schema.js';

/** How long a writer waits for another one holding the lock. */
export const LEDGER_BUSY_TIMEOUT_MS = 5000;

/** The errors of opening a ledger where this process may not write: its readers then read it as it is. */
export const CANNOT_WRITE = /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_PERM|EACCES|EPERM|EROFS)/;

export function ledgerError(path: string, error: unknown): HeadroomUserError | null {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new HeadroomUserError({
      code: 'bad-file',
      where: path,
      message: `the ledger ${path} is not a SQLite database (${(error as Error).message}); no run was read or written`,
      hint: `move it aside (mv ${path} ${path}.bad) so headroom starts a new ledger, or set HEADROOM_HOME to another folder`,
    });
  }
  if (CANNOT_WRITE.test(code) || code === 'ENOTDIR' || code === 'EEXIST') {
    return new HeadroomUserError({
      code: 'bad-file',
      where: path,
      message: `cannot open the ledger ${path} for writing (${(error as Error).message})`,
      hint: 'set HEADROOM_HOME to a folder you can write (it must be a folder, not a file)',
    });
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
      throw new HeadroomUserError({
        code: 'bad-file',
        where: path,
        message: `cannot write in the folder of the ledger ${path}, and at ${Math.round(size / 1024 ** 2)} MiB it is too large to read into memory instead`,
        hint: 'copy the folder somewhere you can write and set HEADROOM_HOME to the copy',
      });
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
    throw new HeadroomUserError({
      code: 'bad-file',
      where: path,
      message: `the ledger ${path} has schema ${version} and this headroom reads ${LEDGER_SCHEMA_VERSION}; its folder is read-only, so it cannot be brought up to date`,
      hint: 'run headroom once where the folder is writable, or copy it somewhere writable and set HEADROOM_HOME to the copy',
    });
  }
  return db;
}

/**
 * Reads a memory snapshot file for `headroom snapshot` and the dashboard: bounded in size, with clear
 * errors for a missing file, a folder, an empty file and one too large. Whether the bytes are a
 * snapshot is the core reader's business (src/core/snapshot).
 */
import { realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { chooseSnapshot, SNAPSHOT_FILE_NAME } from '../core/run/snapshot.js';
import type { RunRecord, RunSnapshot } from '../core/run-record.js';

/**
 * Largest snapshot read: Node reads a file of at most 2 GiB in one piece (fs.readFile's limit), far
 * above torch's default trace of 100,000 events (tens of MB).
 */
export const MAX_SNAPSHOT_BYTES = 2 ** 31 - 1;

/** The name a recorded run's snapshot has in its folder (Ledger.runDir), where the probe writes it. */
export const RUN_SNAPSHOT_FILE = 'memory-snapshot.pickle';

/** The bytes of a snapshot file; a user error naming the path for anything that is not a readable file. */
export async function readSnapshotFile(path: string, maxBytes = MAX_SNAPSHOT_BYTES): Promise<Uint8Array> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw fileError('snapshot-is-folder', { path }, path);
    }
    size = info.size;
  } catch (error) {
    if (error instanceof HeadroomUserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'ENOENT'
      ? fileError('snapshot-missing', { path }, path)
      : fileError('snapshot-unreadable', { path, errno: code ?? (error as Error).message }, path);
  }
  if (size === 0) {
    throw fileError('snapshot-empty', { path }, path);
  }
  if (size > maxBytes) {
    throw fileError('snapshot-too-large', { path, bytes: size, maxBytes }, path);
  }
  const buffer = await readFile(path);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** The path of a recorded run's snapshot, in its run folder. */
export function runSnapshotPath(runDir: string): string {
  return join(runDir, RUN_SNAPSHOT_FILE);
}

/** Where a file really is (links followed); the path itself when it does not exist. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The snapshot of a recorded run that may be read, or why not. */
export type RunSnapshotFile =
  | { readonly ok: true; readonly path: string; readonly snapshot: RunSnapshot | null }
  | { readonly ok: false; readonly reason: 'none' | 'outside'; readonly path: string | null };

/**
 * The snapshot file of a recorded run, for the server and `diagnose RUN`: the one the ledger records
 * (chooseSnapshot: the OOM's first; of `rank` when given), read only where the probe writes one — in
 * the run's folder or its probe log's, named memory-snapshot[.rankN].pickle, links followed — so a
 * ledger row (written from a probe log the training could write anything into) never opens another
 * file. A run with none recorded may have one put in its folder by hand (memory-snapshot.pickle).
 */
export function runSnapshotFile(run: RunRecord, runDir: string, rank?: number): RunSnapshotFile {
  const chosen = chooseSnapshot(run.snapshots, rank);
  if (chosen === null) {
    if (run.snapshots.length > 0 || (rank !== undefined && rank !== 0))
      return { ok: false, reason: 'none', path: null };
    return { ok: true, path: runSnapshotPath(runDir), snapshot: null };
  }
  const folders = [runDir, ...(run.logPath ? [dirname(run.logPath)] : [])].map(real);
  const file = real(chosen.path);
  const inside = folders.includes(dirname(file));
  if (!inside || !SNAPSHOT_FILE_NAME.test(basename(file)))
    return { ok: false, reason: 'outside', path: chosen.path };
  return { ok: true, path: file, snapshot: chosen };
}

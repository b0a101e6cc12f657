/**
 * One watcher per probe log. Two `headroom watch` of the same log started at once would both find no
 * run for it and record it twice; a lock file, created exclusively, lets the first one in and tells the
 * second who holds it. A lock left by a watcher that died (kill -9) is taken over.
 */
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export interface LogLockHolder {
  readonly pid: number;
  readonly host: string;
}

/** Where the lock of a log lives: the ledger's home, by a hash of the log's absolute path. */
export function logLockPath(home: string, logPath: string): string {
  const key = createHash('sha256').update(resolve(logPath)).digest('hex').slice(0, 24);
  return join(home, 'locks', `watch-${key}.lock`);
}

function holderOf(path: string): LogLockHolder | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LogLockHolder>;
    return typeof value.pid === 'number' && typeof value.host === 'string'
      ? { pid: value.pid, host: value.host }
      : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the log's lock for this process; returns a release function, or the holder when another live
 * process on this host has it. A holder on another host (a shared home) is trusted as alive.
 */
export function claimLogLock(
  home: string,
  logPath: string,
): { readonly release: () => void } | { readonly heldBy: LogLockHolder } {
  const path = logLockPath(home, logPath);
  mkdirSync(join(home, 'locks'), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    // Written whole under another name, then linked into place: link fails if the lock exists, and a
    // lock that exists is never half-written (a reader seeing it empty would take it over).
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ pid: process.pid, host: hostname() }));
    try {
      linkSync(temp, path);
      rmSync(temp, { force: true });
      return {
        release: () => {
          if (holderOf(path)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      rmSync(temp, { force: true });
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = holderOf(path);
      const live = holder !== null && (holder.host !== hostname() || alive(holder.pid));
      if (live && holder.pid !== process.pid) return { heldBy: holder };
      // Stale (its watcher died) or unreadable: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

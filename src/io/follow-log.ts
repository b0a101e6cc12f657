/**
 * Follows a probe log as it grows: the file HEADROOM_LOG names and its per-rank siblings
 * (`probe.jsonl` → `probe.rank0.jsonl`, `probe.rank1.jsonl`, ...). Each call returns the complete
 * lines appended since the last one, with their byte offsets; a line still being written waits for
 * its newline, except on the final read, where it is returned as it is (and reported truncated by
 * the parser). Start from stored offsets to resume after a restart.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { MAX_PROBE_LINE_BYTES } from '../core/probe-log.js';

/** Bytes read from a file at a time. */
export const FOLLOW_READ_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Most bytes one call reads over all files: a backlog of hundreds of MB is read (and stored, one
 * transaction per call) in batches of this, in bounded memory, not in one piece.
 */
export const FOLLOW_BATCH_BYTES = 16 * 1024 * 1024;

export interface FollowedLine {
  /** The line without its newline (UTF-8 decoded). */
  readonly text: string;
  /** Byte offset of the line's start in its file. */
  readonly offset: number;
}

export interface FollowedFile {
  readonly path: string;
  readonly lines: readonly FollowedLine[];
  /** Offset after the last line returned: where the next read starts. */
  readonly endOffset: number;
  /** Set when the file is now shorter than what was read (replaced or truncated): reading restarts at 0. */
  readonly restarted?: boolean;
  /** Set when the call's byte budget ran out before the file's end: call again for the rest. */
  readonly more?: boolean;
}

/** The files of a probe log: the base path and its `stem.rankN.ext` siblings that exist. */
export function probeLogFiles(basePath: string): string[] {
  const dir = dirname(basePath);
  const ext = extname(basePath);
  const stem = basename(basePath, ext);
  const rank = new RegExp(
    `^${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.rank\\d+${ext.replace('.', '\\.')}$`,
  );
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rankNumber = (name: string) => Number(/\.rank(\d+)/.exec(name)?.[1] ?? -1);
  return names
    .filter((name) => name === basename(basePath) || rank.test(name))
    .sort((a, b) => rankNumber(a) - rankNumber(b))
    .map((name) => join(dir, name));
}

/** How often waitForProbeLog looks for the log. */
export const WAIT_POLL_MS = 200;

/**
 * Waits until some file of the probe log at `basePath` exists (the base file or a rank sibling); true
 * when one appeared within `timeoutMs`, false when none did.
 */
export async function waitForProbeLog(
  basePath: string,
  timeoutMs: number,
  pollMs: number = WAIT_POLL_MS,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (probeLogFiles(basePath).length > 0) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)));
  }
}

/** Reads a probe log incrementally. */
export class ProbeLogFollower {
  readonly basePath: string;
  private readonly offsets: Map<string, number>;
  /** The file each path was last time (device and inode): a new one there means a rename rotation. */
  private readonly identities = new Map<string, { readonly ino: number; readonly dev: number }>();
  /** The last bytes read of each path: a file that no longer ends so there was truncated and regrew. */
  private readonly tails = new Map<string, Buffer>();

  constructor(basePath: string, offsets: ReadonlyMap<string, number> = new Map()) {
    this.basePath = basePath;
    this.offsets = new Map(offsets);
  }

  /** Current offset per file. */
  positions(): ReadonlyMap<string, number> {
    return this.offsets;
  }

  /**
   * Lines appended since the last call, per file that has any, up to `budgetBytes` in all (a file cut
   * short says `more`). A final read is never cut short by the budget where it matters: call it until no
   * file says `more`.
   */
  read(final = false, budgetBytes: number = FOLLOW_BATCH_BYTES): FollowedFile[] {
    const out: (FollowedFile & { readonly bytes: number })[] = [];
    let left = budgetBytes;
    for (const path of probeLogFiles(this.basePath)) {
      if (left <= 0) break;
      const got = this.readFile(path, final, left);
      if (!got) continue;
      out.push(got);
      left -= got.bytes;
    }
    return out.map(({ bytes: _, ...file }) => file);
  }

  private readFile(
    path: string,
    final: boolean,
    budget: number,
  ): (FollowedFile & { readonly bytes: number }) | null {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null;
    }
    try {
      const stat = fstatSync(fd);
      let start = this.offsets.get(path) ?? 0;
      const known = this.identities.get(path);
      const tail = this.tails.get(path);
      let restarted = false;
      let carried: FollowedLine[] = [];
      if (known !== undefined && (known.ino !== stat.ino || known.dev !== stat.dev) && start > 0) {
        // Rotated by rename: the file we were reading has another name now; what it got since our last
        // look is read from it, then the new file from its start.
        const moved = findSibling(path, (other) => other.ino === known.ino && other.dev === known.dev);
        if (moved !== null) carried = readWhole(moved, start);
        start = 0;
        restarted = true;
      } else if (start > 0 && (stat.size < start || (tail !== undefined && !bytesAt(fd, start, tail)))) {
        // Truncated in place (logrotate's copytruncate): the lines written between our last look and the
        // copy are in the copy, which still ends where we stopped with the bytes we read last.
        const copy = findSibling(
          path,
          (other, name) => other.size >= start && tail !== undefined && bytesAtPath(name, start, tail),
        );
        if (copy !== null) carried = readWhole(copy, start);
        start = 0;
        restarted = true;
      }
      this.identities.set(path, { ino: stat.ino, dev: stat.dev });
      const read = readLines(fd, start, stat.size, final, budget);
      if (read.end === start && !restarted) return null;
      this.offsets.set(path, read.end);
      if (read.tail.length > 0) this.tails.set(path, read.tail);
      else if (restarted) this.tails.delete(path);
      return {
        path,
        lines: carried.length > 0 ? [...carried, ...read.lines] : read.lines,
        endOffset: read.end,
        bytes: read.end - start,
        ...(restarted ? { restarted } : {}),
        ...(read.more ? { more: true } : {}),
      };
    } finally {
      closeSync(fd);
    }
  }
}

/** Bytes kept of the end of what was read last, to recognise the file (or its rotated copy) again. */
const TAIL_BYTES = 64;

interface Lines {
  readonly lines: FollowedLine[];
  /** Offset after the last complete line. */
  readonly end: number;
  readonly more: boolean;
  /** The last bytes before `end` (up to TAIL_BYTES). */
  readonly tail: Buffer;
}

/** Complete lines of `fd` from `start` up to `size`, within the budget (plus at most one longest line). */
function readLines(fd: number, start: number, size: number, final: boolean, budget: number): Lines {
  const lines: FollowedLine[] = [];
  let offset = start;
  let more = false;
  let tail = Buffer.alloc(0);
  while (offset < size) {
    if (offset - start >= budget) {
      more = true;
      break;
    }
    // Within the budget, but never less than a longest line, so a line always completes.
    const room = Math.max(budget - (offset - start), MAX_PROBE_LINE_BYTES + 1);
    const length = Math.min(FOLLOW_READ_CHUNK_BYTES, room, size - offset);
    const buffer = Buffer.allocUnsafe(length);
    const got = readSync(fd, buffer, 0, length, offset);
    if (got <= 0) break;
    let lineStart = 0;
    for (let i = 0; i < got; i++) {
      if (buffer[i] !== 0x0a) continue;
      lines.push({ text: buffer.toString('utf8', lineStart, i), offset: offset + lineStart });
      lineStart = i + 1;
    }
    const rest = got - lineStart;
    const atEnd = offset + got >= size;
    if (rest > 0 && (rest > MAX_PROBE_LINE_BYTES || (final && atEnd))) {
      // No newline: a line too long to be a record, or the last line of a finished writer.
      lines.push({ text: buffer.toString('utf8', lineStart, got), offset: offset + lineStart });
      lineStart = got;
    }
    if (lineStart > 0) tail = Buffer.from(buffer.subarray(Math.max(0, lineStart - TAIL_BYTES), lineStart));
    offset += lineStart;
    if (lineStart === 0 || atEnd) break; // a partial line waits for more bytes
  }
  return { lines, end: offset, more, tail };
}

/** Whether `fd` holds `expected` just before `offset`. */
function bytesAt(fd: number, offset: number, expected: Buffer): boolean {
  if (offset < expected.length) return false;
  const buffer = Buffer.alloc(expected.length);
  const got = readSync(fd, buffer, 0, expected.length, offset - expected.length);
  return got === expected.length && buffer.equals(expected);
}

function bytesAtPath(path: string, offset: number, expected: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    return bytesAt(fd, offset, expected);
  } finally {
    closeSync(fd);
  }
}

/** Every line of a file from `start` to its end (a rotated file: its writer has moved on). */
function readWhole(path: string, start: number): FollowedLine[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    return readLines(fd, start, fstatSync(fd).size, true, Number.POSITIVE_INFINITY).lines;
  } finally {
    closeSync(fd);
  }
}

/** Most names looked at for a rotated copy: a log folder holds a handful; a huge one is not searched whole. */
const MAX_ROTATION_CANDIDATES = 256;

/**
 * A rotated file of `path` in its folder (`probe.jsonl.1`, `probe.jsonl-20261201`, …) that `matches`;
 * null when none does.
 */
function findSibling(
  path: string,
  matches: (
    stat: { readonly ino: number; readonly dev: number; readonly size: number },
    name: string,
  ) => boolean,
): string | null {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  for (const name of names
    .filter((n) => n !== base && n.startsWith(base))
    .slice(0, MAX_ROTATION_CANDIDATES)) {
    const candidate = join(dir, name);
    try {
      const stat = statSync(candidate);
      if (stat.isFile() && matches(stat, candidate)) return candidate;
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

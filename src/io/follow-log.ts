/**
 * Follows a probe log as it grows: the file HEADROOM_LOG names and its per-rank siblings
 * (`probe.jsonl` → `probe.rank0.jsonl`, `probe.rank1.jsonl`, ...). Each call returns the complete
 * lines appended since the last one, with their byte offsets; a line still being written waits for
 * its newline, except on the final read, where it is returned as it is (and reported truncated by
 * the parser). Start from stored offsets to resume after a restart.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
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
      let start = this.offsets.get(path) ?? 0;
      const size = fstatSync(fd).size;
      let restarted = false;
      if (size < start) {
        start = 0;
        restarted = true;
      }
      const lines: FollowedLine[] = [];
      let offset = start;
      let more = false;
      // Keep reading while whole chunks come back, up to the budget.
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
        offset += lineStart;
        if (lineStart === 0 || atEnd) break; // a partial line waits for more bytes
      }
      if (offset === start && !restarted) return null;
      this.offsets.set(path, offset);
      return {
        path,
        lines,
        endOffset: offset,
        bytes: offset - start,
        ...(restarted ? { restarted } : {}),
        ...(more ? { more } : {}),
      };
    } finally {
      closeSync(fd);
    }
  }
}

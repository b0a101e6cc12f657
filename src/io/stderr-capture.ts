/**
 * The command's stderr, captured to a file and relayed to ours byte for byte. The command writes to
 * the file directly (not to a pipe), so it never gets EPIPE if headroom is killed, and its text
 * survives for the record; this relay copies what it appends to our stderr within a few tens of
 * milliseconds.
 */
import { closeSync, fstatSync, openSync, readSync, type WatchListener, watch } from 'node:fs';

/** Polling period of the relay (fs.watch wakes it sooner where it works). */
export const STDERR_POLL_MS = 50;
/** How much of the end of stderr is kept in memory for OOM detection. */
export const STDERR_TAIL_BYTES = 256 * 1024;

/** Reads the last `bytes` of a file as text ('' when it cannot be read). */
export function readFileTail(path: string, bytes: number = STDERR_TAIL_BYTES): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Copies what is appended to `path` to `out`, keeping the recent tail. */
export class StderrRelay {
  private readonly path: string;
  private readonly out: NodeJS.WritableStream;
  private offset = 0;
  private tailText = '';
  private timer: NodeJS.Timeout | null = null;
  private watcher: ReturnType<typeof watch> | null = null;
  /** True when the last byte relayed was a newline (or nothing was relayed): a line of ours would not split one of the command's. */
  atLineStart = true;
  /** Called with each relayed piece of text, after it was written. */
  onText: ((text: string) => void) | null = null;
  /** Called before each relayed piece is written (the status line clears itself). */
  beforeWrite: (() => void) | null = null;

  constructor(path: string, out: NodeJS.WritableStream) {
    this.path = path;
    this.out = out;
  }

  start(): void {
    this.timer = setInterval(() => this.pump(), STDERR_POLL_MS);
    try {
      const listener: WatchListener<string> = () => this.pump();
      this.watcher = watch(this.path, listener);
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.watcher = null; // polling alone
    }
  }

  /** Relays what was appended since the last call. */
  pump(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      while (this.offset < size) {
        const length = Math.min(1024 * 1024, size - this.offset);
        const buffer = Buffer.allocUnsafe(length);
        const got = readSync(fd, buffer, 0, length, this.offset);
        if (got <= 0) break;
        const chunk = got === length ? buffer : buffer.subarray(0, got);
        this.offset += got;
        this.beforeWrite?.();
        this.out.write(chunk);
        this.atLineStart = chunk[chunk.length - 1] === 0x0a;
        const text = chunk.toString('utf8');
        this.tailText = (this.tailText + text).slice(-STDERR_TAIL_BYTES);
        this.onText?.(text);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The last STDERR_TAIL_BYTES of what was relayed. */
  tail(): string {
    return this.tailText;
  }

  /** Relays the rest and stops. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watcher?.close();
    this.watcher = null;
    this.pump();
  }
}

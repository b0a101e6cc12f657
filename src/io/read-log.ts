/**
 * Reads the text `headroom diagnose` works on: a log file (its last MAX_LOG_BYTES when larger — an
 * out-of-memory error ends a log) or standard input (a pasted traceback).
 */
import { open } from 'node:fs/promises';
import type { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { type UserFileKind, userFileError, userFileSize } from './user-file.js';

/** Bytes of a log read at most; a longer log is read from its end. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

export interface LogText {
  readonly text: string;
  /** Bytes skipped at the start of a log longer than MAX_LOG_BYTES. */
  readonly skippedBytes: number;
}

function emptyError(where: string): HeadroomUserError {
  return fileError('log-empty', { file: where }, where);
}

/** A training log, for the messages about the file itself. */
const LOG_FILE: UserFileKind = {
  role: 'log-file',
  advice: 'log-file',
  example: 'train.log',
  extensions: ['.log', '.txt', '.out', '.err'],
};

/** Reads a log file; a missing or unreadable file is a user error naming the path. */
export async function readLogFile(path: string): Promise<LogText> {
  const size = await userFileSize(path, LOG_FILE);
  const skipped = Math.max(0, size - MAX_LOG_BYTES);
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw userFileError(path, error, LOG_FILE);
  });
  try {
    const buffer = Buffer.alloc(size - skipped);
    await handle.read(buffer, 0, buffer.length, skipped);
    const text = buffer.toString('utf8');
    if (text.trim() === '') throw emptyError(path);
    return { text, skippedBytes: skipped };
  } finally {
    await handle.close();
  }
}

/** Reads standard input to the end (the last MAX_LOG_BYTES of it). */
export async function readLogStream(
  stream: NodeJS.ReadableStream,
  where = 'standard input',
): Promise<LogText> {
  const chunks: Buffer[] = [];
  let total = 0;
  let skipped = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    total += buffer.length;
    while (total - (chunks[0]?.length ?? 0) >= MAX_LOG_BYTES && chunks.length > 1) {
      const dropped = chunks.shift()!;
      total -= dropped.length;
      skipped += dropped.length;
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw emptyError(where);
  return { text, skippedBytes: skipped };
}

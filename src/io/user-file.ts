/**
 * The one place a file the user named is read or written: a folder where a file was expected, a path
 * that does not exist, one that cannot be read, a symbolic link that loops, a named pipe (which would
 * block forever) all become a HeadroomUserError naming the path and what to give instead — never a
 * stack trace. (A model folder is not read here: `estimate ./my-model/` takes a folder on purpose; see
 * model-files.ts.)
 */
import { readdirSync, statSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HeadroomUserError } from '../core/errors.js';
import {
  type FileAdvice,
  type FileErrorParams,
  type FileRole,
  fileError,
  type PathErrorParams,
} from '../core/file-errors.js';

/** What kind of file a command expects, for its messages (their words: src/words/path-errors.ts). */
export interface UserFileKind {
  /** What the file is: a trainer config, a scenario file, a log file. */
  readonly role: FileRole;
  /** Where the path was given, for what to do about a bad one (the Try line). */
  readonly advice: FileAdvice;
  /** A name such a file often has, for the example when a folder was given: "config.yaml". */
  readonly example: string;
  /** The endings such a file has, to name the real ones in a folder given instead: [".yaml", ".yml"]. */
  readonly extensions?: readonly string[];
}

/** The problems a path can have, as data (the error's params.problem). */
export type UserFileProblem = PathErrorParams[PathReason]['problem'];

/** The reasons of a path the user named (the rest of the family is a log's or a snapshot's). */
type PathReason = Exclude<keyof PathErrorParams, 'log-empty' | `snapshot-${string}`>;

/** How many files of the right kind a folder-instead-of-file message names. */
const CANDIDATES_SHOWN = 3;

/**
 * Paths the shell hands out for `<(command)` and standard input: pipes that are meant to be read once,
 * unlike a named pipe made with mkfifo, which blocks a reader until some writer comes.
 */
const SHELL_STREAM = /^\/(?:dev\/fd|proc\/self\/fd)\/\d+$|^\/dev\/stdin$/;

/** A path error: the path, what it was meant to be and where it was given, and the reason's own figures. */
function fail<R extends PathReason>(
  reason: R,
  path: string,
  kind: UserFileKind,
  use: 'read' | 'write',
  extra: Omit<PathErrorParams[R], 'path' | 'role' | 'advice' | 'use'>,
): HeadroomUserError {
  const params = { path, role: kind.role, advice: kind.advice, use, ...extra };
  return fileError(reason, params as unknown as FileErrorParams[R], path);
}

/** The files in `folder` with one of the kind's endings, sorted; empty when it cannot be listed. */
function filesOfKind(folder: string, kind: UserFileKind): string[] {
  const endings = kind.extensions ?? [];
  if (endings.length === 0) return [];
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((e) => e.isFile() && endings.some((x) => e.name.toLowerCase().endsWith(x)))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * "DIR is a folder; give the X inside it": for a file to read, with the files of that kind it holds (or
 * an example name); for a file to write, a name inside it.
 */
export function folderGivenError(
  path: string,
  kind: UserFileKind,
  use: 'read' | 'write' = 'read',
): HeadroomUserError {
  const example = join(path, kind.example);
  const found = use === 'write' ? [] : filesOfKind(path, kind);
  const shown = found.slice(0, CANDIDATES_SHOWN).map((name) => join(path, name));
  return fail('path-is-folder', path, kind, use, {
    problem: 'is-folder',
    example,
    found: shown,
    total: found.length,
  });
}

/** The first folder on the way to `path` that is a file (what ENOTDIR is about), or null. */
function fileOnTheWay(path: string): string | null {
  let folder = dirname(path);
  for (;;) {
    try {
      if (!statSync(folder).isDirectory()) return folder;
    } catch {
      // not there (or not readable): look further up
    }
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/** The user error for a failed read of `path` (an fs error with a code), or the error itself when not an fs one. */
export function userFileError(path: string, error: unknown, kind: UserFileKind): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return error;
  switch (code) {
    case 'EISDIR':
      return folderGivenError(path, kind);
    case 'ENOENT':
      return fail('path-missing', path, kind, 'read', { problem: 'missing' });
    case 'ENOTDIR':
      return fail('path-through-file', path, kind, 'read', {
        problem: 'not-a-folder-on-the-way',
        file: fileOnTheWay(path) ?? '',
      });
    case 'EACCES':
    case 'EPERM':
      return fail('path-permission', path, kind, 'read', {
        problem: 'permission',
        readOnly: false,
        example: '',
      });
    case 'ELOOP':
      return fail('path-link-loop', path, kind, 'read', { problem: 'link-loop' });
    default:
      return fail('path-unreadable', path, kind, 'read', { problem: 'unreadable', errno: code });
  }
}

/**
 * Checks that `path` is a file that can be read to its end; returns its size in bytes. A folder, a
 * missing path, a named pipe, a socket or a device is a user error naming the path.
 */
export async function userFileSize(path: string, kind: UserFileKind): Promise<number> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw userFileError(path, error, kind);
  }
  if (info.isDirectory()) throw folderGivenError(path, kind);
  if (!info.isFile() && !SHELL_STREAM.test(path)) {
    const special = info.isFIFO() ? 'fifo' : info.isSocket() ? 'socket' : 'device';
    throw fail('path-special-file', path, kind, 'read', { problem: 'special-file', special });
  }
  return info.size;
}

/**
 * Reads a user's file as UTF-8 text; every way it can fail is a user error naming the path. With
 * `maxBytes`, a larger file is refused unread (a data or weights file given by mistake).
 */
export async function readUserFile(
  path: string,
  kind: UserFileKind,
  options: { readonly maxBytes?: number } = {},
): Promise<string> {
  const size = await userFileSize(path, kind);
  if (options.maxBytes !== undefined && size > options.maxBytes) {
    throw fail('path-too-large', path, kind, 'read', {
      problem: 'too-large',
      bytes: size,
      maxBytes: options.maxBytes,
    });
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw userFileError(path, error, kind);
  }
}

/**
 * A path the user gave for a file that is written or followed later (a probe log, -o FILE): refused when
 * it is a folder, with a file inside it to give instead. A path that does not exist yet is fine.
 */
export function refuseFolder(path: string, kind: UserFileKind, use: 'read' | 'write' = 'write'): void {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    return;
  }
  if (folder) throw folderGivenError(path, kind, use);
}

/** Writes a file the user named (-o FILE); a folder, a missing folder or no permission is a user error. */
export async function writeUserFile(path: string, data: string, kind: UserFileKind): Promise<void> {
  refuseFolder(path, kind);
  try {
    await writeFile(path, data);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw fail('path-folder-missing', path, kind, 'write', { problem: 'missing', folder: dirname(path) });
    }
    if (code === 'EISDIR') throw folderGivenError(path, kind, 'write');
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw fail('path-permission', path, kind, 'write', {
        problem: 'permission',
        readOnly: code === 'EROFS',
        example: join('/tmp', kind.example),
      });
    }
    if (code === 'ENOTDIR') {
      throw fail('path-through-file', path, kind, 'write', {
        problem: 'not-a-folder-on-the-way',
        file: fileOnTheWay(path) ?? '',
      });
    }
    throw typeof code === 'string'
      ? fail('path-unreadable', path, kind, 'write', { problem: 'unreadable', errno: code })
      : error;
  }
}

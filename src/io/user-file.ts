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
import { HeadroomUserError } from '../core/errors.js';

/** What kind of file a command expects, for its messages. */
export interface UserFileKind {
  /** What the file is, as the message names it: "trainer config", "scenario file", "log file". */
  readonly what: string;
  /** A name such a file often has, for the example when a folder was given: "config.yaml". */
  readonly example: string;
  /** The endings such a file has, to name the real ones in a folder given instead: [".yaml", ".yml"]. */
  readonly extensions?: readonly string[];
  /** What to do about it (the Try line). */
  readonly hint: string;
}

/** The problems a path can have, as data (the error's params.problem). */
export type UserFileProblem =
  | 'is-folder'
  | 'missing'
  | 'not-a-folder-on-the-way'
  | 'permission'
  | 'link-loop'
  | 'special-file'
  | 'too-large'
  | 'unreadable';

/** How many files of the right kind a folder-instead-of-file message names. */
const CANDIDATES_SHOWN = 3;

/**
 * Paths the shell hands out for `<(command)` and standard input: pipes that are meant to be read once,
 * unlike a named pipe made with mkfifo, which blocks a reader until some writer comes.
 */
const SHELL_STREAM = /^\/(?:dev\/fd|proc\/self\/fd)\/\d+$|^\/dev\/stdin$/;

function fail(
  path: string,
  problem: UserFileProblem,
  message: string,
  hint: string,
  extra: Readonly<Record<string, number | string>> = {},
): HeadroomUserError {
  return new HeadroomUserError({
    code: 'bad-file',
    where: path,
    message,
    hint,
    params: { path, problem, ...extra },
  });
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
  if (use === 'write') {
    return fail(
      path,
      'is-folder',
      `${path} is a folder; name a file inside it for the ${kind.what}, e.g. ${example}`,
      kind.hint,
    );
  }
  const found = filesOfKind(path, kind);
  const shown = found.slice(0, CANDIDATES_SHOWN).map((name) => join(path, name));
  const more = found.length > CANDIDATES_SHOWN ? `, … (${found.length} in all)` : '';
  return fail(
    path,
    'is-folder',
    found.length > 0
      ? `${path} is a folder; give the ${kind.what} inside it: ${shown.join(', ')}${more}`
      : `${path} is a folder; give the ${kind.what} inside it, e.g. ${example}`,
    kind.hint,
  );
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
  const cannot = `cannot read ${kind.what} ${path}`;
  switch (code) {
    case 'EISDIR':
      return folderGivenError(path, kind);
    case 'ENOENT':
      return fail(path, 'missing', `${kind.what} ${path} does not exist`, kind.hint);
    case 'ENOTDIR': {
      const file = fileOnTheWay(path);
      return fail(
        path,
        'not-a-folder-on-the-way',
        `${kind.what} ${path} does not exist: ${file ?? 'a part of the path'} is a file, not a folder`,
        kind.hint,
      );
    }
    case 'EACCES':
    case 'EPERM':
      return fail(path, 'permission', `${cannot}: permission denied`, `check who may read it: ls -l ${path}`);
    case 'ELOOP':
      return fail(
        path,
        'link-loop',
        `${cannot}: its symbolic links point at each other in a loop`,
        `see where the link goes: ls -l ${path}`,
      );
    default:
      return fail(path, 'unreadable', `${cannot}: ${code}`, kind.hint, { errno: code });
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
    const what = info.isFIFO() ? 'a named pipe' : info.isSocket() ? 'a socket' : 'a device';
    throw fail(
      path,
      'special-file',
      `${path} is ${what}, not a file: reading it could wait forever`,
      `save the ${kind.what} to a file and give that`,
    );
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
    throw fail(
      path,
      'too-large',
      `${path} is ${size} bytes: larger than any ${kind.what} (limit ${options.maxBytes})`,
      `give the ${kind.what} itself, not a data or weights file`,
      { bytes: size, maxBytes: options.maxBytes },
    );
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
    const cannot = `cannot write ${kind.what} ${path}`;
    if (code === 'ENOENT') {
      throw fail(
        path,
        'missing',
        `${cannot}: the folder ${dirname(path)} does not exist`,
        `create it first (mkdir -p ${dirname(path)}), or write elsewhere`,
      );
    }
    if (code === 'EISDIR') throw folderGivenError(path, kind, 'write');
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw fail(
        path,
        'permission',
        `${cannot}: ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}`,
        `write it somewhere you may, e.g. ${join('/tmp', kind.example)}`,
      );
    }
    if (code === 'ENOTDIR') {
      throw fail(
        path,
        'not-a-folder-on-the-way',
        `${cannot}: ${fileOnTheWay(path) ?? 'a part of the path'} is a file, not a folder`,
        'check the path',
      );
    }
    throw typeof code === 'string'
      ? fail(path, 'unreadable', `${cannot}: ${code}`, 'check the path', { errno: code })
      : error;
  }
}

/**
 * Checks of a parsed file's shape, at the one place it is read: each returns the value typed, or throws
 * a user error naming the file and the field (`env.json: gpus.value[0].name must be a string, not a
 * number`), so nothing downstream re-checks a type. A schema is a function of the value and its path;
 * the combinators below build them. The error is data (src/core/file-errors.ts): what was expected and
 * the value found; its words are in src/words/file-errors.ts.
 */
import type { HeadroomUserError } from './errors.js';
import { type FileKind, fileError, type ShapeExpected } from './file-errors.js';

/** Reads one value at a path; throws ShapeError when it is not the expected shape. */
export type Shape<T> = (value: unknown, path: string) => T;

/** The figures an expectation names: a number's lower bound, a choice's values, a list's most items. */
export interface ShapeFigures {
  readonly min?: number;
  readonly values?: readonly string[];
  readonly maxItems?: number;
}

/** A value of the wrong shape, before the file's name is known (its words: src/words/file-errors.ts). */
export class ShapeError extends Error {
  constructor(
    readonly path: string,
    readonly expected: ShapeExpected,
    readonly actual: unknown,
    readonly figures: ShapeFigures = {},
  ) {
    super(`${path || 'the file'}: ${expected}`);
  }
}

/** A value as a message names it: its JSON for a short scalar, else its kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length <= 40 ? JSON.stringify(value) : 'a long string';
  return String(value);
}

const at = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export const str: Shape<string> = (v, p) => {
  if (typeof v !== 'string') throw new ShapeError(p, 'string', v);
  return v;
};

export const bool: Shape<boolean> = (v, p) => {
  if (typeof v !== 'boolean') throw new ShapeError(p, 'boolean', v);
  return v;
};

/** A finite number at least `min` (and at most `max`), whole when `integer`. */
export function num(options: { min?: number; max?: number; integer?: boolean } = {}): Shape<number> {
  const { min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY, integer = false } = options;
  const what: ShapeExpected = integer ? 'whole-number' : 'number';
  const figures = min > Number.NEGATIVE_INFINITY ? { min } : {};
  return (v, p) => {
    if (
      typeof v !== 'number' ||
      !Number.isFinite(v) ||
      v < min ||
      v > max ||
      (integer && !Number.isInteger(v))
    )
      throw new ShapeError(p, what, v, figures);
    return v;
  };
}

export function literal<const T extends string | number>(...values: readonly T[]): Shape<T> {
  return (v, p) => {
    if (!values.includes(v as T))
      throw new ShapeError(p, 'one-of', v, { values: values.map((x) => JSON.stringify(x)) });
    return v as T;
  };
}

export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (v, p) => (v === null ? null : shape(v, p));
}

/** A value that older files may lack: `fallback` when absent or null. */
export function withDefault<T>(shape: Shape<T>, fallback: T): Shape<T> {
  return (v, p) => (v === undefined || v === null ? fallback : shape(v, p));
}

export function list<T>(item: Shape<T>, maxItems = 1_000_000): Shape<T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) throw new ShapeError(p, 'list', v);
    if (v.length > maxItems) throw new ShapeError(p, 'short-list', v, { maxItems });
    return v.map((x, i) => item(x, at(p, i)));
  };
}

/** A plain object (not null, not a list). */
export function isPlainObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An object with these fields (others are ignored and dropped). */
export function object<T extends object>(fields: { readonly [K in keyof T]-?: Shape<T[K]> }): Shape<T> {
  return (v, p) => {
    if (!isPlainObject(v)) throw new ShapeError(p, 'object', v);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(fields)) {
      const value = (fields as Record<string, Shape<unknown>>)[key]!(
        Object.hasOwn(v, key) ? v[key] : undefined,
        at(p, key),
      );
      if (value !== undefined) out[key] = value;
    }
    return out as T;
  };
}

/** An object used as a map: every value of one shape. */
export function record<T>(value: Shape<T>): Shape<Record<string, T>> {
  return (v, p) => {
    if (!isPlainObject(v)) throw new ShapeError(p, 'object', v);
    const out: Record<string, T> = {};
    for (const [key, x] of Object.entries(v)) out[key] = value(x, at(p, key));
    return out;
  };
}

/** Anything, kept as it is (a field read by its own checks later). */
export const unknownValue: Shape<unknown> = (v) => v;

/** An optional field: absent stays absent, anything else must have the shape. */
export function optional<T>(shape: Shape<T>): Shape<T | undefined> {
  return (v, p) => (v === undefined ? undefined : shape(v, p));
}

/** Reads `value` as `shape`; a wrong shape becomes a user error naming the file and the field. */
export function readShape<T>(
  shape: Shape<T>,
  value: unknown,
  fileName: string,
  kind: FileKind,
  path = '',
): T {
  try {
    return shape(value, path);
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw fileError(
      'wrong-shape',
      {
        file: fileName,
        field: error.path,
        expected: error.expected,
        ...error.figures,
        value: describeValue(error.actual),
        kind,
      },
      error.path ? `${fileName}: ${error.path}` : fileName,
    );
  }
}

/** Nesting a JSON or YAML input may have; real configs and records stay under 20 levels. */
export const MAX_INPUT_DEPTH = 64;

/**
 * How deep a parsed value nests (objects and lists), counted without recursion, up to `limit + 1`
 * (a deeper value is not walked further).
 */
export function depthOf(value: unknown, limit = MAX_INPUT_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (seen.has(v)) continue;
    seen.add(v);
    const d = depth + 1;
    if (d > deepest) deepest = d;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d]);
  }
  return deepest;
}

/** The error for an input nested deeper than MAX_INPUT_DEPTH. */
export function tooDeep(fileName: string, kind: FileKind, limit = MAX_INPUT_DEPTH): HeadroomUserError {
  return fileError('too-deep', { file: fileName, maxDepth: limit, kind }, fileName);
}

/** Leading spaces and `- ` indicators a YAML line may open with before it is nested too deep to be a config. */
export const MAX_YAML_INDENT = 512;

/**
 * Whether YAML text nests deeper than `limit`, read in one pass before any parser sees it (the yaml
 * package recurses on flow collections and, on an unclosed one a hundred thousand deep, exhausts the
 * process): flow brackets outside quotes and comments are counted, and a line indented (spaces and
 * `- `) more than MAX_YAML_INDENT characters is too deep.
 */
export function yamlNestsTooDeep(text: string, limit = MAX_INPUT_DEPTH): boolean {
  let flow = 0;
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (c === 32 || c === 9 || (c === 45 && text.charCodeAt(i + 1) === 32)) {
        if (++indent > MAX_YAML_INDENT) return true;
        continue;
      }
      lineStart = false;
    }
    if (
      c === 35 &&
      (i === 0 ||
        text.charCodeAt(i - 1) === 32 ||
        text.charCodeAt(i - 1) === 9 ||
        text.charCodeAt(i - 1) === 10)
    ) {
      // a comment: to the end of the line
      while (i + 1 < text.length && text.charCodeAt(i + 1) !== 10) i++;
    } else if (c === 34 || c === 39) {
      // a quoted scalar: to its closing quote (a backslash escapes in double quotes)
      for (i++; i < text.length && text.charCodeAt(i) !== c; i++)
        if (c === 34 && text.charCodeAt(i) === 92) i++;
    } else if (c === 91 || c === 123) {
      if (++flow > limit) return true;
    } else if ((c === 93 || c === 125) && flow > 0) flow--;
  }
  return false;
}

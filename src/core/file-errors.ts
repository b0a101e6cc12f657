/**
 * The errors a file the user gave raises when its content is wrong (a config.json dimension, an
 * environment file, a trainer config, a scenario file), as data: a reason (the catalog's code,
 * src/words/file-errors.ts) and raw params (the file's name, the key, the value as given, the limit).
 * The core holds no words: its English `message` and `hint` (logs, the server, JSON results) come
 * from the catalog registered with `speakFileErrorsWith`, the same words the CLI shows in every language.
 */
import { type ErrorParam, HeadroomUserError, type UserErrorCode } from './errors.js';

/** A file whose generic errors (nested too deep, a field of the wrong shape) have a hint of their own. */
export type FileKind = 'env' | 'trainer-config';

/** The figures of a config.json a model's shape needs, as `requireNumber` names them. */
export type ConfigFigure = 'hidden' | 'layers' | 'heads' | 'vocab';

/** What a field of a parsed file must be (src/core/input-shape.ts), with the figures the words need. */
export type ShapeExpected =
  | 'string'
  | 'boolean'
  | 'number'
  | 'whole-number'
  | 'one-of'
  | 'list'
  | 'short-list'
  | 'object'
  /** A captured part of an environment file: `{"status": "ok", …}` or `{"status": "missing", …}`. */
  | 'part';

export interface FileErrorParams {
  /** A config.json key that must be a whole number in [min, max]; `value` as a message shows it. */
  'config-dimension': { file: string; field: string; min: number; max: number; value: string };
  /** A figure of the model none of its keys gives. */
  'config-missing-figure': { file: string; figure: ConfigFigure; keys: readonly string[] };
  /** A JSON or YAML input nested deeper than any real one. */
  'too-deep': { file: string; maxDepth: number; kind: FileKind };
  /** A field of the wrong type (`gpus[0].name must be a string, not 3`); `field` '' for the file itself. */
  'wrong-shape': {
    file: string;
    field: string;
    expected: ShapeExpected;
    /** The lower bound of a number, the accepted values of a choice, the most items of a list. */
    min?: number;
    values?: readonly string[];
    maxItems?: number;
    /** The value as a message shows it: its JSON for a short scalar, else `missing`, `a list`, …. */
    value: string;
    kind: FileKind;
  };
  /** An environment file that is not JSON; `detail` is the parser's own words. */
  'env-not-json': { file: string; detail: string };
  'env-not-object': { file: string };
  'env-not-headroom': { file: string };
  'env-version': { file: string; version: string };
  /** A trainer config that is not JSON or YAML; `line` where the YAML parser says (0 when it does not). */
  'config-not-json': { file: string; detail: string };
  'config-not-yaml': { file: string; line: number; detail: string };
  'config-yaml-too-large': { path: string; problem: 'too-large'; bytes: number; maxBytes: number };
  /** A trainer config whose top is not a mapping; `found` is `a list`, `null`, `a string`, …. */
  'config-not-mapping': { file: string; found: string };
  'config-unknown-format': { file: string; formats: readonly string[] };
  /** A scenario file (`--scenario`, `estimate --batch`). */
  'scenario-empty': { file: string };
  /** Not one JSON document nor JSON Lines; `place` is `line L, column C` where the parser says, else ''. */
  'scenario-not-json': { file: string; place: string; detail: string };
  'scenario-line-not-json': { file: string; line: number; detail: string };
  /** A scenario entry that is not an object; `found` is `null`, `an array`, `a number`, …. */
  'scenario-not-object': { file: string; line: number; found: string };
  /** A safetensors file whose first bytes are not a header: shorter than the 8-byte length, a Git LFS pointer. */
  'safetensors-too-short': { file: string; bytes: number };
  'safetensors-lfs-pointer': { file: string };
  /** The header's length (bytes): 0, above the most accepted, or past the end of a file of `fileBytes`. */
  'safetensors-empty-header': { file: string };
  'safetensors-header-too-large': { file: string; headerBytes: number; maxBytes: number };
  'safetensors-header-past-end': { file: string; headerBytes: number; fileBytes: number };
  /** A header that is not JSON text: no opening brace, not UTF-8, or JSON.parse's `detail` ('' when none). */
  'safetensors-no-brace': { file: string };
  'safetensors-not-utf8': { file: string };
  'safetensors-not-json': { file: string; detail: string };
}

export type FileErrorReason = keyof FileErrorParams;

/** Every file reason, so an edge can tell one from a field reason. */
export const FILE_ERROR_REASONS: readonly FileErrorReason[] = [
  'config-dimension',
  'config-missing-figure',
  'too-deep',
  'wrong-shape',
  'env-not-json',
  'env-not-object',
  'env-not-headroom',
  'env-version',
  'config-not-json',
  'config-not-yaml',
  'config-yaml-too-large',
  'config-not-mapping',
  'config-unknown-format',
  'scenario-empty',
  'scenario-not-json',
  'scenario-line-not-json',
  'scenario-not-object',
  'safetensors-too-short',
  'safetensors-lfs-pointer',
  'safetensors-empty-header',
  'safetensors-header-too-large',
  'safetensors-header-past-end',
  'safetensors-no-brace',
  'safetensors-not-utf8',
  'safetensors-not-json',
];

export function isFileReason(reason: string | undefined): reason is FileErrorReason {
  return reason !== undefined && (FILE_ERROR_REASONS as readonly string[]).includes(reason);
}

type FileErrorSpeaker = (
  reason: FileErrorReason,
  params: Readonly<Record<string, ErrorParam>>,
) => { readonly message: string; readonly hint?: string };

let fileErrorSpeaker: FileErrorSpeaker | null = null;

/** Registers the words of file errors (src/words/file-errors.ts calls this once, when it is loaded). */
export function speakFileErrorsWith(speaker: FileErrorSpeaker): void {
  fileErrorSpeaker = speaker;
}

/**
 * A file error: its reason and params, `where` (the file, or `file: field`), and its English message
 * and hint from the registered catalog (without one, the file's name and the reason's code).
 */
export function fileError<R extends FileErrorReason>(
  reason: R,
  params: FileErrorParams[R],
  where: string,
  code: UserErrorCode = 'bad-file',
): HeadroomUserError {
  const raw = params as unknown as Readonly<Record<string, ErrorParam>>;
  const words = fileErrorSpeaker?.(reason, raw) ?? { message: `${where}: ${reason}` };
  return new HeadroomUserError({
    code,
    where,
    message: words.message,
    ...(words.hint === undefined ? {} : { hint: words.hint }),
    params: raw,
    reason,
  });
}

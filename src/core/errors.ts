/**
 * Errors a user can cause, as data. Everything the CLI (and later the server) shows for bad input
 * comes from one of these; anything else is a bug and keeps its stack trace.
 */
export type UserErrorCode =
  | 'invalid-field'
  | 'unknown-model'
  | 'unknown-gpu'
  | 'bad-file'
  | 'bad-flag'
  | 'unsupported'
  | 'network'
  /** A number outside what the field or flag accepts (below 1, above its limit, beyond the model's shape). */
  | 'out-of-range'
  /** A probe log that did not appear in time (`watch --log`). */
  | 'timeout'
  /** A calibration that cannot be made from a run, or carried to a setup (run-calibration.ts). */
  | 'calibration-refused';

/** A raw figure or name an error is about: a number, a word as given, a list of accepted values. */
export type ErrorParam = number | string | boolean | readonly string[];

/**
 * Where the user set the field an error is about, so the words can name it the way they set it:
 * a flag as typed (`--micro-batch -2`), a scenario file (`run.json: microBatchSize`), or a key of an
 * imported trainer config (`config.yaml (per_device_train_batch_size)`).
 */
export type FieldSource =
  | {
      readonly kind: 'flag';
      /** The flag without its dashes (`micro-batch`). */
      readonly flag: string;
      /** The value as typed; absent for a boolean flag. */
      readonly typed?: string;
      /** A good value of the flag, for the hint of a bad one (`4096 (or 4k)`). */
      readonly example?: string;
    }
  | { readonly kind: 'file'; readonly file: string }
  | {
      readonly kind: 'import';
      readonly file: string;
      /** The config key that set the field (dotted), when the importer knows it. */
      readonly key?: string;
      /** That key's value as the file has it. */
      readonly value?: unknown;
    };

export interface UserErrorInit {
  readonly code: UserErrorCode;
  /** What is wrong, naming the file, field or flag (in English: logs, the server, stack traces). */
  readonly message: string;
  /** The field, flag or file at fault (e.g. `lora.rank`, `--seq-len`, `config.json`). */
  readonly where?: string;
  /** What the user can do next (shown as "Try: ..."). */
  readonly hint?: string;
  /** The raw figures the message is about (the value given, the limit, the accepted values). */
  readonly params?: Readonly<Record<string, ErrorParam>>;
  /** The scenario field the error is about, by path (`['lora', 'rank']`); `[]` for the scenario itself. */
  readonly path?: readonly string[];
  /** The catalog's code for the words (src/words/errors.ts), finer than `code`: `not-one-of`, `above-limit`. */
  readonly reason?: string;
  /** Names the words need beside the figures (the model a limit comes from). */
  readonly context?: Readonly<Record<string, string>>;
  /** Where the user set the field, once the CLI knows it. */
  readonly source?: FieldSource;
}

/** A field error's English words: its message and, where there is one, its hint. */
export type FieldErrorText = { readonly message: string; readonly hint?: string };

/**
 * How a field error is worded in English for its `message` (logs, the server, stack traces). The core
 * holds no words: src/words/errors.ts registers its catalog here when it loads, and every edge that
 * shows an error loads it. Without it a message names the field and the reason's code.
 */
type FieldErrorSpeaker = (
  reason: string,
  path: readonly string[],
  params: Readonly<Record<string, ErrorParam>>,
  context?: Readonly<Record<string, string>>,
) => FieldErrorText;

let fieldErrorSpeaker: FieldErrorSpeaker | null = null;

/** Registers the words of field errors (src/words/errors.ts calls this once, when it is loaded). */
export function speakFieldErrorsWith(speaker: FieldErrorSpeaker): void {
  fieldErrorSpeaker = speaker;
}

/** A field error's English words, from the registered catalog; its path and reason code without one. */
export function fieldErrorText(
  reason: string,
  path: readonly string[],
  params: Readonly<Record<string, ErrorParam>>,
  context?: Readonly<Record<string, string>>,
): FieldErrorText {
  return (
    fieldErrorSpeaker?.(reason, path, params, context) ?? {
      message: `${path.length === 0 ? 'scenario' : path.join('.')}: ${reason}`,
    }
  );
}

/** A mistake in the user's input: shown as a message and a hint, never as a stack trace. */
export class HeadroomUserError extends Error {
  readonly code: UserErrorCode;
  readonly where: string | undefined;
  readonly hint: string | undefined;
  readonly params: Readonly<Record<string, ErrorParam>> | undefined;
  readonly path: readonly string[] | undefined;
  readonly reason: string | undefined;
  readonly context: Readonly<Record<string, string>> | undefined;
  readonly source: FieldSource | undefined;

  constructor(init: UserErrorInit) {
    super(init.message);
    this.name = 'HeadroomUserError';
    this.code = init.code;
    this.where = init.where;
    this.hint = init.hint;
    this.params = init.params;
    this.path = init.path;
    this.reason = init.reason;
    this.context = init.context;
    this.source = init.source;
  }

  /** The error as its fields, to build another from (`{ ...error.init(), source }`). */
  init(): UserErrorInit {
    return {
      code: this.code,
      message: this.message,
      ...(this.where === undefined ? {} : { where: this.where }),
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      ...(this.params === undefined ? {} : { params: this.params }),
      ...(this.path === undefined ? {} : { path: this.path }),
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      ...(this.context === undefined ? {} : { context: this.context }),
      ...(this.source === undefined ? {} : { source: this.source }),
    };
  }
}

/** True for errors the user caused (and can fix), as opposed to bugs. */
export function isUserError(error: unknown): error is HeadroomUserError {
  return error instanceof HeadroomUserError;
}

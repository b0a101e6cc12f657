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

export interface UserErrorInit {
  readonly code: UserErrorCode;
  /** What is wrong, naming the file, field or flag. */
  readonly message: string;
  /** The field, flag or file at fault (e.g. `lora.rank`, `--seq-len`, `config.json`). */
  readonly where?: string;
  /** What the user can do next (shown as "Try: ..."). */
  readonly hint?: string;
  /** The raw figures the message is about (the value given, the limit), for a catalog to render. */
  readonly params?: Readonly<Record<string, number | string>>;
}

/** A mistake in the user's input: shown as a message and a hint, never as a stack trace. */
export class HeadroomUserError extends Error {
  readonly code: UserErrorCode;
  readonly where: string | undefined;
  readonly hint: string | undefined;
  readonly params: Readonly<Record<string, number | string>> | undefined;

  constructor(init: UserErrorInit) {
    super(init.message);
    this.name = 'HeadroomUserError';
    this.code = init.code;
    this.where = init.where;
    this.hint = init.hint;
    this.params = init.params;
  }
}

/** True for errors the user caused (and can fix), as opposed to bugs. */
export function isUserError(error: unknown): error is HeadroomUserError {
  return error instanceof HeadroomUserError;
}

/** What every command gets, and flag parsing that turns parseArgs' errors into user errors. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { HeadroomUserError } from '../core/errors.js';

export interface CommandContext {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed value of each flag: booleans for boolean flags, strings otherwise. */
export type FlagValues<T extends Options> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string;
};

/** Parses flags strictly; an unknown flag or a missing value is a user error naming the flag. */
export function parseFlags<T extends Options>(
  args: readonly string[],
  options: T,
  command: string,
  maxPositionals: number,
) {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/, '');
    throw new HeadroomUserError({
      code: 'bad-flag',
      message: `${command}: ${message}`,
      hint: `headroom ${command} --help`,
    });
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      message: `${command}: unexpected argument "${parsed.positionals[maxPositionals]}"`,
      hint: `headroom ${command} --help`,
    });
  }
  return { values: parsed.values as FlagValues<T>, positionals: parsed.positionals };
}

/** What every command gets, and flag parsing that turns parseArgs' errors into user errors. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { fileError } from '../core/file-errors.js';

export interface CommandContext {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed value of each flag: booleans for boolean flags, strings otherwise. */
export type FlagValues<T extends Options> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string;
};

/** What a negative number looks like on a command line: -2, -0.5, -.5, -5%, -1e3. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/**
 * The arguments with a negative number after a flag that takes a value joined to it (`--gpus -8` →
 * `--gpus=-8`). parseArgs reads a value that starts with a dash as a forgotten value ("argument is
 * ambiguous"); a number is a value, and its range is for the flag's own check to judge. Nothing after
 * `--` is touched.
 */
export function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const takesValue = (arg: string): boolean => {
    if (arg.startsWith('--')) return options[arg.slice(2)]?.type === 'string';
    if (!/^-[A-Za-z]$/.test(arg)) return false;
    return Object.values(options).some((o) => o.short === arg.slice(1) && o.type === 'string');
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    if (next !== undefined && NEGATIVE_NUMBER.test(next) && takesValue(arg)) {
      // `-o-5` is parseArgs' spelling of a short option's value; `--flag=-5` a long one's.
      out.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

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
    parsed = parseArgs({
      args: joinNegativeValues(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const detail = (error as Error).message.replace(/\. To specify a positional argument.*$/, '');
    const nodeCode = (error as { code?: string }).code ?? '';
    const option = /'(-[^']*)'/.exec(detail)?.[1]?.split(' ')[0] ?? '';
    throw fileError('flag-parse', { command, detail, nodeCode, option }, command, 'bad-flag');
  }
  if (parsed.positionals.length > maxPositionals) {
    const arg = parsed.positionals[maxPositionals]!;
    throw fileError('extra-argument', { command, arg }, command, 'bad-flag');
  }
  return { values: parsed.values as FlagValues<T>, positionals: parsed.positionals };
}

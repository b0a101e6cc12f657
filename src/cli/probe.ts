import { fileError } from '../core/file-errors.js';
import { probeDir, probeFile, probeInstalled } from '../io/probe-path.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';

export const help = `headroom probe path — where the Python probe (headroom_probe.py) is

Usage:
  headroom probe path [--json]

Prints the folder to put on PYTHONPATH. headroom run does this for you; for a run started
elsewhere (then recorded with headroom watch --log FILE):
  HEADROOM_LOG=/tmp/probe.jsonl PYTHONPATH="$(headroom probe path)" python train.py

The probe is one dependency-free file; copying it next to your script works too.

Options:
  --json                    print { dir, file }
${LANG_HELP}`;

const OPTIONS = { ...LANG_OPTIONS, json: { type: 'boolean' } } as const;

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'probe', 1);
  // Its output is a path: --lang is taken (and checked) like every command's, and has no words to change.
  langFromFlag(values.lang, ctx.env);
  if (positionals[0] !== 'path') {
    throw fileError(
      'unknown-subcommand',
      { command: 'probe', sub: positionals[0] ?? '' },
      positionals[0] ?? 'probe',
      'bad-flag',
    );
  }
  if (!probeInstalled()) {
    throw fileError('probe-missing', { file: probeFile() }, probeFile());
  }
  ctx.stdout.write(
    values.json ? `${JSON.stringify({ dir: probeDir(), file: probeFile() })}\n` : `${probeDir()}\n`,
  );
  return 0;
}

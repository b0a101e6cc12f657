/** `headroom probe path`: where the Python probe is, to put on PYTHONPATH. */
import { HeadroomUserError } from '../core/errors.js';
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
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: positionals[0] ?? 'probe',
      message:
        positionals[0] === undefined
          ? 'probe needs a subcommand'
          : `probe: unknown subcommand "${positionals[0]}"`,
      hint: 'headroom probe path',
    });
  }
  if (!probeInstalled()) {
    throw new HeadroomUserError({
      code: 'bad-file',
      where: probeFile(),
      message: `the probe is missing from this installation (${probeFile()})`,
      hint: 'reinstall headroom (npm install -g headroom)',
    });
  }
  ctx.stdout.write(
    values.json ? `${JSON.stringify({ dir: probeDir(), file: probeFile() })}\n` : `${probeDir()}\n`,
  );
  return 0;
}

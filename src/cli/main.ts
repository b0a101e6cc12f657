/** The `headroom` command: dispatch, and the one place user errors become messages and exit codes. */
import { type HeadroomUserError, isUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { COLON, isLangValue, type Lang, langOf } from '../words/lang.js';
import type { CommandContext } from './_command.js';
import { clearScenarioSources, lastScenarioSources } from './_last-sources.js';
import { styleFor } from './_output.js';

const VERSION = '0.1.0';

const USAGE = `headroom — GPU memory for LLM fine-tuning

Usage: headroom <command> [options]

Before a run — will it fit, and what is the cheapest change?
  estimate MODEL [flags]    per-GPU memory by part, peak at three levels, fit and headroom
  plan MODEL --gpu ID       the cheapest changes, in order, that make a run fit
  fit MODEL --gpu ID        the largest micro-batch and longest sequence that fit
  import FILE               the scenario a trainer config (Axolotl, LLaMA-Factory, …) maps to
  models [QUERY]            the embedded model catalog
  gpus [QUERY]              the embedded GPU catalog; --for MODEL: the fewest of each that run it

During a run — where is the memory going?
  run [flags] -- COMMAND    run training and record its memory: probe, nvidia-smi, stderr OOM text
  watch --log FILE          record (or resume) a run started elsewhere from its probe log
  runs [show|diff|export]   the recorded runs: peaks per layer, per-step chart, diff, export, rm
  probe path                where the Python probe is (for PYTHONPATH)
  serve                     the dashboard in your browser (estimate, runs, migrate), on 127.0.0.1
  fleet --prometheus URL    every GPU Prometheus sees (dcgm-exporter), our runs on them, what is wrong

After an OOM — why did it run out?
  diagnose [RUN|FILE|-]     findings in the troubleshooting order, with the estimator's figures
  snapshot FILE [B]         which tensors filled the card: a PyTorch memory snapshot by part and site
  calibrate RUN             a short recorded run against the estimate; fit/plan --calibrated RUN use it
  report RUN -o FILE.html   a self-contained HTML report of a run, to attach or send

Before a move — will it still fit there?
  env capture|show          record a machine's GPUs, drivers, frameworks, links and disk
  migrate --to-env B.json   what breaks when a run moves to other hardware, and how to move it

Run headroom <command> --help for its options. Every command takes --json.`;

type Runner = (args: readonly string[], ctx: CommandContext) => Promise<number>;

/** What a command module exports: its runner and its --help text (in a language, where it has one). */
export interface CommandModule {
  readonly run: Runner;
  readonly help: string;
  readonly helpFor?: (lang: 'en' | 'zh') => string;
}

// One line per command. Commands load on demand, so `headroom gpus` does not pay for the estimator
// or the Hub client.
const COMMANDS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  estimate: () => import('./estimate.js'),
  models: () => import('./models.js'),
  gpus: () => import('./gpus.js'),
  import: () => import('./import.js'),
  plan: () => import('./plan.js'),
  fit: () => import('./fit.js'),
  env: () => import('./env.js'),
  migrate: () => import('./migrate.js'),
  serve: () => import('./serve.js'),
  report: () => import('./report.js'),
  run: () => import('./run.js'),
  watch: () => import('./watch.js'),
  runs: () => import('./runs.js'),
  probe: () => import('./probe.js'),
  diagnose: () => import('./diagnose.js'),
  snapshot: () => import('./snapshot.js'),
  calibrate: () => import('./calibrate.js'),
  fleet: () => import('./fleet.js'),
};

/** Runs the CLI with `argv` (without node and the script); returns the exit code. */
export async function main(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    ctx.stdout.write(`${USAGE}\n`);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    ctx.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load) {
    const unknown = fileError('unknown-command', { command }, command, 'bad-flag');
    await writeUserError(unknown, command, ctx, langOfArgs(rest, ctx.env));
    return 1;
  }
  const module = await load();
  // Only flags before `--` are ours: `headroom run -- train.py --help` passes --help to the script.
  const separator = rest.indexOf('--');
  const own = separator === -1 ? rest : rest.slice(0, separator);
  const lang = langOfArgs(own, ctx.env);
  if (own.includes('--help') || own.includes('-h')) {
    ctx.stdout.write(`${await helpIn(module.helpFor ? module.helpFor(lang) : module.help, lang)}\n`);
    return 0;
  }
  return runCommand(module, command, rest, ctx, lang);
}

/** The language a command line asks for: a valid --lang, else the locale (LC_ALL, LC_MESSAGES, LANG). */
function langOfArgs(args: readonly string[], env: NodeJS.ProcessEnv): Lang {
  const at = args.findIndex((a) => a === '--lang' || a.startsWith('--lang='));
  const flag = at === -1 ? undefined : args[at]!.startsWith('--lang=') ? args[at]!.slice(7) : args[at + 1];
  if (flag !== undefined && isLangValue(flag)) return langOf(flag);
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v.trim() !== '');
  return langOf(locale);
}

/** A command's help in a language: its scenario section in Chinese for zh (the rest is the command's own). */
async function helpIn(help: string, lang: Lang): Promise<string> {
  if (lang === 'en') return help;
  const { SCENARIO_FLAGS_HELP, scenarioFlagsHelp } = await import('./_scenario-flags.js');
  return help.includes(SCENARIO_FLAGS_HELP)
    ? help.replace(SCENARIO_FLAGS_HELP, scenarioFlagsHelp(lang))
    : help;
}

/**
 * Runs a loaded command: the one place a user error becomes its words (in the command's language,
 * naming a field the way the user set it) and exit 1. Anything else is a bug and goes on, to bin.ts.
 */
export async function runCommand(
  module: CommandModule,
  command: string,
  args: readonly string[],
  ctx: CommandContext,
  lang: Lang = 'en',
): Promise<number> {
  clearScenarioSources();
  try {
    return await module.run(args, ctx);
  } catch (error) {
    if (!isUserError(error)) throw error;
    const { named } = await import('./_scenario-flags.js');
    const shown = named(error, lastScenarioSources(), command);
    await writeUserError(isUserError(shown) ? shown : error, command, ctx, lang);
    return 1;
  }
}

/** A user error in the command's language: its message (in red) and what to try, on stderr. */
async function writeUserError(
  error: HeadroomUserError,
  command: string,
  ctx: CommandContext,
  lang: Lang,
): Promise<void> {
  const { errorLabels, userErrorWords } = await import('../words/errors.js');
  const words = userErrorWords(error, lang, { command });
  const labels = errorLabels(lang);
  const style = styleFor(ctx.stderr);
  const sep = COLON[lang];
  ctx.stderr.write(
    `${style.red(`${labels.error}${sep}${words.message}`)}\n${words.hint ? `${labels.try}${sep}${words.hint}\n` : ''}`,
  );
}

/** The `headroom` command: dispatch, and the one place user errors become messages and exit codes. */
import { isUserError } from '../core/errors.js';
import type { CommandContext } from './_command.js';
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

/** The language of --help: --lang as given (en when it names none Headroom speaks), else the locale. */
async function helpLang(args: readonly string[], env: NodeJS.ProcessEnv): Promise<'en' | 'zh'> {
  const { isLangValue, langOf } = await import('../words/lang.js');
  const at = args.findIndex((a) => a === '--lang' || a.startsWith('--lang='));
  const flag = at < 0 ? undefined : args[at]!.startsWith('--lang=') ? args[at]!.slice(7) : args[at + 1];
  if (flag !== undefined) return isLangValue(flag) ? langOf(flag) : 'en';
  const { localeOf } = await import('./_lang.js');
  return langOf(localeOf(env));
}

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
  const style = styleFor(ctx.stderr);
  if (!load) {
    ctx.stderr.write(`${style.red(`error: unknown command "${command}"`)}\nTry: headroom --help\n`);
    return 1;
  }
  const { run, help, helpFor } = await load();
  // Only flags before `--` are ours: `headroom run -- train.py --help` passes --help to the script.
  const separator = rest.indexOf('--');
  const own = separator === -1 ? rest : rest.slice(0, separator);
  if (own.includes('--help') || own.includes('-h')) {
    ctx.stdout.write(`${helpFor ? helpFor(await helpLang(own, ctx.env)) : help}\n`);
    return 0;
  }
  try {
    return await run(rest, ctx);
  } catch (error) {
    if (!isUserError(error)) throw error;
    // A field that a flag set is the flag's mistake: say it in the flag's words.
    const { namedByFlag } = await import('./_scenario-flags.js');
    const shown = namedByFlag(error, rest, command);
    ctx.stderr.write(`${style.red(`error: ${shown.message}`)}\n${shown.hint ? `Try: ${shown.hint}\n` : ''}`);
    return 1;
  }
}

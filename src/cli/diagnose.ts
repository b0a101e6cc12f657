/** `headroom diagnose`: why a run ran out of memory, in the order to check things, with numbers. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type DiagnosisResult, diagnose, type ScenarioContext } from '../core/diagnose/index.js';
import { isUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import type { RunRecord } from '../core/run-record.js';
import { diagnoseRun, type RunSnapshotDiagnosis } from '../io/diagnose-run.js';
import { headroomHome, LEDGER_FILE, Ledger } from '../io/ledger.js';
import { readLogFile, readLogStream } from '../io/read-log.js';
import { requireRun, runScenarioContext } from '../io/run-context.js';
import { say } from '../words/catalog.js';
import { DIAGNOSIS } from '../words/diagnosis.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP, SCENARIO_OPTIONS } from './_scenario-flags.js';
import { catalogGpu, loadScenario } from './_scenario-input.js';
import { renderSnapshotSection, snapshotJson } from './render-diagnose-snapshot.js';
import { diagnosisJson, renderDiagnosis } from './render-diagnosis.js';

export const help = `headroom diagnose — why did it run out of memory, and what to change?

Usage:
  headroom diagnose RUN [flags]           a run headroom recorded: its id, its --name, or last
  headroom diagnose FILE [flags]          a log file of the failed run
  headroom diagnose - [flags] < error.txt  a pasted traceback on standard input (also without -)

Reads every out-of-memory message (PyTorch's allocator in all its layouts, CUDA, NCCL, JAX/XLA,
TensorFlow, bitsandbytes, host-memory kills), the phase it failed in, and lists findings in the
order to check them: environment, configuration, code. With a scenario, each change carries the
estimator's figure against the card the error reports (or --gpu).

For a recorded run (headroom run, headroom watch) it also reads the steps the probe recorded — memory
growing step after step, during evaluation, reserved climbing over flat allocated, one rank above the
others, a card full but stable — and the nvidia-smi samples (other processes, leftovers of earlier runs,
memory no process accounts for). The run's scenario prices the changes; flags replace it.
A run recorded with headroom run --snapshot is also explained from its allocator snapshot: what was
live when the allocation failed, in five parts (weights, gradients, optimizer states, activations,
runtime), the largest allocation sites, and, with a scenario, which part the estimate got wrong.

${SCENARIO_FLAGS_HELP.replace('MODEL | --model ID', '--model ID        ')}

Output:
  --json                    { oom, phase, findings[, snapshot] } (oom in oom_corpus.jsonl's field names, bytes;
                            each finding: code, severity, group, params, evidence and remedies as
                            data, and words: its title, action, evidence and changes in --lang)
${LANG_HELP}

Examples:
  headroom diagnose last
  headroom diagnose train.log
  headroom diagnose train.log --model llama-3.1-8b --method lora --micro-batch 4 --seq-len 2048
  pbpaste | headroom diagnose - --scenario run.json --json --lang zh`;

const OPTIONS = { ...SCENARIO_OPTIONS, ...LANG_OPTIONS, json: { type: 'boolean' } } as const;

/** A run reference: an id or `last` (a name is any other word that names a run in the ledger). */
const RUN_ID = /^(?:\d+|last)$/;

/**
 * The recorded run SOURCE names, or null when SOURCE is a file (or names no run and is not an id).
 * An existing file wins over a run of the same name.
 */
function recordedRun(source: string, env: NodeJS.ProcessEnv): { ledger: Ledger; run: RunRecord } | null {
  if (existsSync(source)) return null;
  const home = headroomHome(env);
  if (!existsSync(join(home, LEDGER_FILE))) {
    if (!RUN_ID.test(source)) return null;
    throw fileError('no-run-no-file', { ref: source, home }, 'RUN', 'bad-flag');
  }
  const ledger = Ledger.open(home, 'read');
  try {
    const run = ledger.getRun(source);
    if (run) return { ledger, run };
    if (RUN_ID.test(source)) requireRun(ledger, source);
  } catch (error) {
    ledger.close();
    throw error;
  }
  ledger.close();
  return null;
}

/** The scenario from --scenario and the flags, resolved to a shape; null when none was given. */
async function scenarioFrom(
  values: Readonly<Record<string, string | boolean | undefined>>,
): Promise<ScenarioContext | null> {
  const flagged = Object.keys(SCENARIO_OPTIONS).filter(
    (k) => k !== 'gpu' && k !== 'scenario' && k !== 'model' && values[k] !== undefined,
  );
  if (typeof values.scenario !== 'string' && values.model === undefined) {
    if (flagged.length === 0) return null;
    throw fileError(
      'setup-without-model',
      { command: 'diagnose', flag: `--${flagged[0]}` },
      '--model',
      'bad-flag',
    );
  }
  const loaded = await loadScenario(values, undefined, 'diagnose');
  return {
    scenario: loaded.scenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    gpu: loaded.gpu,
  };
}

/** The recorded run's own scenario, resolved; null (with a note) when its model cannot be resolved now. */
async function storedScenario(run: RunRecord, ctx: CommandContext): Promise<ScenarioContext | null> {
  try {
    return await runScenarioContext(run);
  } catch (error) {
    if (!isUserError(error)) throw error;
    ctx.stderr.write(
      `note: the run's model could not be resolved (${error.message}); changes are not priced\n`,
    );
    return null;
  }
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'diagnose', 1);
  const lang = langFromFlag(values.lang, ctx.env, 'findings');
  const source = positionals[0];
  const stdin = process.stdin;
  if (source === undefined && stdin.isTTY) {
    throw fileError(
      'missing-argument',
      { command: 'diagnose', needs: 'log-source', ref: '' },
      'FILE',
      'bad-flag',
    );
  }
  const flagged = await scenarioFrom(values);
  const recorded = source === undefined || source === '-' ? null : recordedRun(source, ctx.env);
  let result: DiagnosisResult;
  let runLine: string | undefined;
  let skippedBytes = 0;
  let snapshot: RunSnapshotDiagnosis | null = null;
  if (recorded) {
    const { ledger, run } = recorded;
    try {
      const scenario = flagged ?? (await storedScenario(run, ctx));
      const diagnosis = diagnoseRun(ledger, run, { scenario, snapshot: true });
      result = diagnosis;
      snapshot = diagnosis.snapshot;
      runLine = say(DIAGNOSIS, lang, {
        code: 'run-head',
        params: { id: run.id, name: run.name, status: run.status, steps: run.steps },
      });
    } finally {
      ledger.close();
    }
  } else {
    const gpu = flagged?.gpu ?? (values.gpu === undefined ? null : catalogGpu(values.gpu, '--gpu'));
    const log =
      source === undefined || source === '-' ? await readLogStream(stdin) : await readLogFile(source);
    skippedBytes = log.skippedBytes;
    result = diagnose({ text: log.text, scenario: flagged, gpu });
  }
  if (values.json) {
    const json = {
      ...diagnosisJson(result, lang),
      ...(snapshot ? { snapshot: snapshotJson(snapshot, lang) } : {}),
    };
    ctx.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const width = Math.max(60, Math.min(ctx.stdout.columns ?? 100, 110));
  ctx.stdout.write(
    `${renderDiagnosis({ diagnosis: result, lang, style, width, ...(runLine ? { runLine } : {}) })}${
      snapshot ? renderSnapshotSection(snapshot, lang, style) : ''
    }\n`,
  );
  if (skippedBytes > 0)
    ctx.stderr.write(`note: the log is long; its first ${skippedBytes} bytes were not read\n`);
  return 0;
}

/** `headroom diagnose`: why a run ran out of memory, in the order to check things, with numbers. */

import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { findGpu, GPUS, suggestIds } from '../core/catalog/index.js';
import { diagnose, EN, type ScenarioContext } from '../core/diagnose/index.js';
import { HeadroomUserError } from '../core/errors.js';
import { parseScenario } from '../core/scenario.js';
import { readLogFile, readLogStream } from '../io/read-log.js';
import { readScenarioFile } from '../io/read-scenarios.js';
import { resolveModel } from '../io/resolve-model.js';
import { type CommandContext, parseFlags } from './_command.js';
import { styleFor } from './_output.js';
import { applyScenarioFlags, SCENARIO_FLAGS_HELP, SCENARIO_OPTIONS } from './_scenario-flags.js';
import { renderDiagnosis } from './render-diagnosis.js';

export const help = `headroom diagnose — why did it run out of memory, and what to change?

Usage:
  headroom diagnose FILE [flags]          a log file of the failed run
  headroom diagnose - [flags] < error.txt  a pasted traceback on standard input (also without -)

Reads every out-of-memory message (PyTorch's allocator in all its layouts, CUDA, NCCL, JAX/XLA,
TensorFlow, bitsandbytes, host-memory kills), the phase it failed in, and lists findings in the
order to check them: environment, configuration, code. With a scenario, each change carries the
estimator's figure against the card the error reports (or --gpu).

${SCENARIO_FLAGS_HELP.replace('MODEL | --model ID', '--model ID        ')}

Output:
  --json                    { oom, phase, findings } (oom in oom_corpus.jsonl's field names, bytes)

Examples:
  headroom diagnose train.log
  headroom diagnose train.log --model llama-3.1-8b --method lora --micro-batch 4 --seq-len 2048
  pbpaste | headroom diagnose - --scenario run.json --json`;

const OPTIONS = { ...SCENARIO_OPTIONS, json: { type: 'boolean' } } as const;

function resolveGpu(id: string | undefined): GpuSpec | null {
  if (id === undefined) return null;
  const gpu = findGpu(id);
  if (gpu) return gpu;
  throw new HeadroomUserError({
    code: 'unknown-gpu',
    where: '--gpu',
    message: `gpu "${id}" is not in the catalog`,
    hint: `did you mean ${suggestIds(
      id,
      GPUS.map((g) => g.id),
    ).join(', ')}? headroom gpus lists them all`,
  });
}

/** The scenario from --scenario and the flags, resolved to a shape; null when none was given. */
async function scenarioFrom(
  values: Readonly<Record<string, string | boolean | undefined>>,
): Promise<ScenarioContext | null> {
  const flagged = Object.keys(SCENARIO_OPTIONS).filter(
    (k) => k !== 'gpu' && k !== 'scenario' && k !== 'model' && values[k] !== undefined,
  );
  let base: Record<string, unknown> = {};
  if (typeof values.scenario === 'string') {
    const entries = await readScenarioFile(values.scenario);
    if (entries.length !== 1) {
      throw new HeadroomUserError({
        code: 'bad-file',
        where: values.scenario,
        message: `${values.scenario} holds ${entries.length} scenarios; diagnose takes the one of the failed run`,
        hint: 'write that one scenario to its own file, or give it as flags',
      });
    }
    const entry = entries[0]!;
    if (entry.error) throw entry.error;
    base = entry.value as Record<string, unknown>;
  } else if (values.model === undefined) {
    if (flagged.length === 0) return null;
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: '--model',
      message: `--${flagged[0]} describes a setup, but no model was given`,
      hint: 'add --model ID (headroom models lists them) or --scenario FILE',
    });
  }
  const parsed = parseScenario(applyScenarioFlags(base, values));
  const model = await resolveModel(parsed.model);
  return {
    scenario: { ...parsed, model: typeof parsed.model === 'string' ? model.id : parsed.model },
    shape: model.shape,
    exactParams: model.exactParams,
    gpu: resolveGpu(parsed.gpu),
  };
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'diagnose', 1);
  const source = positionals[0];
  const stdin = process.stdin;
  if (source === undefined && stdin.isTTY) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: 'FILE',
      message: 'diagnose needs a log file, or a traceback on standard input',
      hint: 'headroom diagnose train.log   or   headroom diagnose - < error.txt',
    });
  }
  const scenario = await scenarioFrom(values);
  const gpu = scenario?.gpu ?? resolveGpu(values.gpu);
  const log = source === undefined || source === '-' ? await readLogStream(stdin) : await readLogFile(source);
  const result = diagnose({ text: log.text, scenario, gpu, catalog: EN });
  if (values.json) {
    const { oom, phase, findings } = result;
    ctx.stdout.write(`${JSON.stringify({ oom, phase, findings }, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const width = Math.max(60, Math.min(ctx.stdout.columns ?? 100, 110));
  ctx.stdout.write(`${renderDiagnosis({ diagnosis: result, catalog: EN, style, width })}\n`);
  if (log.skippedBytes > 0)
    ctx.stderr.write(`note: the log is long; its first ${log.skippedBytes} bytes were not read\n`);
  return 0;
}

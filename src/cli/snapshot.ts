/** `headroom snapshot`: which tensors filled the card, from a PyTorch memory snapshot. */

import { estimate } from '../core/estimate.js';
import { fileError } from '../core/file-errors.js';
import { analyseSnapshot, DEFAULT_TOP } from '../core/snapshot/analyse.js';
import { compareWithEstimate, type SnapshotComparison } from '../core/snapshot/compare.js';
import { diffSnapshots } from '../core/snapshot/diff.js';
import { readSnapshotFile } from '../io/read-snapshot.js';
import { describeScenario } from '../words/scenario-line.js';
import { snapshotWords } from '../words/snapshot.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_OPTIONS, langFromFlag } from './_lang.js';
import { styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import { countFlag, FROM_HELP, loadScenario, SCENARIO_INPUT_OPTIONS } from './_scenario-input.js';
import { renderSnapshot, renderSnapshotDiff } from './render-snapshot.js';

export const help = `headroom snapshot — which tensors filled the card?

Usage:
  headroom snapshot FILE [flags]          a snapshot torch.cuda.memory._dump_snapshot() wrote
  headroom snapshot FILE --model ID …     the same, beside the estimate of that scenario
  headroom snapshot A B                   what grew from snapshot A to snapshot B

Reads the pickle without running anything from it (protocols 2–5; any opcode that would import or
call is refused). Shows the allocator's segments, reserved, allocated and requested bytes, the cached
(inactive) bytes and the largest free block; the trace's peak of live memory and when it happens;
every live byte at the peak in one of the five parts — weights, gradients, optimizer states,
activations, runtime — by the stack that made it (and, in backward, the one that freed it), with what
cannot be attributed left as such; the largest allocation sites by Python frame (C++ frames folded);
and the out-of-memory events the trace recorded, with what was live then.

Record one before the step that fails:
  torch.cuda.memory._record_memory_history(max_entries=100000)
  ...  # the training step
  torch.cuda.memory._dump_snapshot("snapshot.pickle")

With a scenario (the flags below, --scenario or --from), each part of the estimate is set beside the
snapshot's: error = (estimate − measured) / measured, negative when the estimate is too low.

${SCENARIO_FLAGS_HELP.replace('MODEL | --model ID', '--model ID        ')}
${FROM_HELP}

Output:
  --top N                   allocation sites listed                                   [${DEFAULT_TOP}]
  --json                    the report: the facts (segments, reservedBytes, allocatedBytes, …,
                            tracePeakActiveBytes), end, peaks, ooms, timelines, findings; and
                            comparison with a scenario, or { a, b, diff } for two files
  --lang en|zh              the language of the words (English, 简体中文)        [from LC_ALL / LANG]

Examples:
  headroom snapshot snapshot.pickle
  headroom snapshot snapshot.pickle --model llama-3.1-8b --method qlora --quantization nf4 --micro-batch 4
  headroom snapshot step1.pickle step2.pickle --lang zh`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...LANG_OPTIONS,
  json: { type: 'boolean' },
  top: { type: 'string' },
} as const;

/** Sites kept per snapshot when two are compared, so the diff can match more than the top few. */
const DIFF_SITES = 1000;

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** True when the flags describe a scenario (a model, a file, or a setup flag that needs one). */
function scenarioGiven(values: Values): boolean {
  const setup = Object.keys(SCENARIO_INPUT_OPTIONS).filter(
    (k) => !['gpu', 'scenario', 'model', 'from'].includes(k) && values[k] !== undefined,
  );
  if (typeof values.scenario === 'string' || typeof values.from === 'string' || values.model !== undefined) {
    return true;
  }
  if (setup.length === 0) return false;
  throw fileError(
    'setup-without-model',
    { command: 'snapshot', flag: `--${setup[0]}` },
    '--model',
    'bad-flag',
  );
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'snapshot', 2);
  const words = snapshotWords(langFromFlag(values.lang, ctx.env));
  const top = countFlag(values, 'top') ?? DEFAULT_TOP;
  const style = styleFor(ctx.stdout);
  const [first, second] = positionals;
  if (first === undefined) {
    throw fileError(
      'missing-argument',
      { command: 'snapshot', needs: 'snapshot-file', ref: '' },
      'FILE',
      'bad-flag',
    );
  }

  if (second !== undefined) {
    if (scenarioGiven(values)) {
      throw fileError('snapshot-pair-scenario', { second }, '--model', 'bad-flag');
    }
    const a = analyseSnapshot(await readSnapshotFile(first), { source: first, top: DIFF_SITES });
    const b = analyseSnapshot(await readSnapshotFile(second), { source: second, top: DIFF_SITES });
    const diff = diffSnapshots(a, b, top);
    if (values.json) ctx.stdout.write(`${JSON.stringify({ a: first, b: second, diff }, null, 2)}\n`);
    else ctx.stdout.write(`${renderSnapshotDiff({ a: first, b: second, diff, words, style })}\n`);
    return 0;
  }

  // The scenario first: a mistake in a flag shows before a large file is read.
  const loaded = scenarioGiven(values) ? await loadScenario(values, undefined, 'snapshot') : null;
  const report = analyseSnapshot(await readSnapshotFile(first), { source: first, top });
  let comparison: SnapshotComparison | null = null;
  if (loaded) {
    const e = estimate({
      scenario: loaded.scenario,
      shape: loaded.model.shape,
      exactParams: loaded.model.exactParams,
      gpu: loaded.gpu,
    });
    comparison = compareWithEstimate(report, e);
  }
  if (values.json) {
    ctx.stdout.write(
      `${JSON.stringify({ file: first, ...report, ...(comparison ? { comparison } : {}) })}\n`,
    );
    return 0;
  }
  ctx.stdout.write(
    `${renderSnapshot({
      file: first,
      report,
      comparison,
      scenarioLine: loaded ? describeScenario(loaded.scenario, loaded.model.id) : null,
      words,
      style,
    })}\n`,
  );
  return 0;
}

/** `headroom estimate`: the per-GPU memory of a fine-tuning setup. */
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { parseEnvSnapshot } from '../core/env.js';
import { versionsFromEnv, withEnvVersions } from '../core/env-versions.js';
import { isUserError } from '../core/errors.js';
import { type Estimate, estimate } from '../core/estimate.js';
import { fileError } from '../core/file-errors.js';
import { DEFAULT_MARGIN_FRACTION, parseMarginFraction } from '../core/margin.js';
import type { ResolvedModel } from '../core/model-ref.js';
import { parseScenario, type Scenario, type Versions } from '../core/scenario.js';
import { checkScenarioAgainstModel } from '../core/scenario-limits.js';
import type { HubOptions } from '../io/hub.js';
import { readScenarioFile } from '../io/read-scenarios.js';
import { resolveModel } from '../io/resolve-model.js';
import { errorLabels, errorRecord, userErrorWords } from '../words/errors.js';
import { COLON } from '../words/lang.js';
import { type CommandContext, parseFlags } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { styleFor } from './_output.js';
import { mergeScenarioFlags, named, SCENARIO_FLAGS_HELP, type ScenarioSources } from './_scenario-flags.js';
import {
  catalogGpu,
  FROM_HELP,
  HEADROOM_HELP,
  importSummary,
  SCENARIO_INPUT_OPTIONS,
  scenarioBase,
  sourceOfBase,
} from './_scenario-input.js';
import { readEnvFile } from './env.js';
import { renderEstimate } from './render-estimate.js';

export const help = `headroom estimate — will it fit, and where does the memory go?

Usage:
  headroom estimate MODEL [flags]
  headroom estimate --scenario FILE [--json]
  headroom estimate --from CONFIG [flags] [--json]

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${HEADROOM_HELP}
  --env FILE                an environment file (headroom env capture): its package versions fill
                            the scenario's versions it does not state (--versions and the scenario win)

Output:
  --explain                 how the peak adds up: each term of the peak phase, then the allocator's
                            reserve and what the process holds outside torch
  --json                    the estimate as JSON (one line per scenario for JSON Lines input);
                            peakTerms and phaseTerms carry the same terms
${LANG_HELP}

Examples:
  headroom estimate llama-3.1-8b --method qlora --quantization nf4 --gpu rtx-4090
  headroom estimate Qwen/Qwen2.5-7B --method lora --lora-targets all-linear --seq-len 4096 --gpu a100-sxm-80gb
  headroom estimate ./my-model/ --method full --strategy zero3 --gpus 8 --gpu h100-sxm --json`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  json: { type: 'boolean' },
  explain: { type: 'boolean' },
  headroom: { type: 'string' },
  env: { type: 'string' },
  ...LANG_OPTIONS,
} as const;

/**
 * The JSON an estimate prints: SCENARIO.md's fields plus the resolved scenario and model; a model named
 * other than by its catalog id says how it was resolved (resolvedFrom, variant, release, mirror,
 * prequantized, contextLength).
 */
export function estimateJson(
  result: Estimate,
  scenario: Scenario,
  model: ResolvedModel,
): Record<string, unknown> {
  return { ...result, scenario, model: { id: scenario.model, source: model.source, ...model.resolution } };
}

async function estimateOne(
  given: Readonly<Record<string, unknown>>,
  hub: HubOptions,
  marginFraction: number,
  sources: ScenarioSources,
  envVersions: Versions = {},
): Promise<{
  result: Estimate;
  scenario: Scenario;
  model: Awaited<ReturnType<typeof resolveModel>>;
  gpu: GpuSpec | null;
}> {
  try {
    const parsed = parseScenario(withEnvVersions(given, envVersions));
    const model = await resolveModel(parsed.model, hub);
    checkScenarioAgainstModel(parsed, model);
    const gpu = parsed.gpu === undefined ? null : catalogGpu(parsed.gpu);
    // Report the model as the user can name it again: a catalog id instead of an alias.
    const scenario: Scenario = {
      ...parsed,
      model: typeof parsed.model === 'string' ? model.id : parsed.model,
    };
    const result = estimate({
      scenario,
      shape: model.shape,
      exactParams: model.exactParams,
      gpu,
      marginFraction,
      terms: true,
    });
    return { result, scenario, model, gpu };
  } catch (error) {
    // A bad field says where the user set it: the flag as typed, the scenario file, the config's key.
    throw named(error, sources, 'estimate');
  }
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'estimate', 1);
  const positionalModel = positionals[0];
  const style = styleFor(ctx.stdout);
  const lang = langFromFlag(values.lang, ctx.env);
  const hub = hubProgress(ctx.stderr);
  const margin =
    values.headroom === undefined
      ? DEFAULT_MARGIN_FRACTION
      : parseMarginFraction(values.headroom, '--headroom');
  const envVersions =
    values.env === undefined
      ? {}
      : versionsFromEnv(parseEnvSnapshot(await readEnvFile(values.env), values.env));
  if (values.from !== undefined) {
    // A trainer config: one scenario, flags over it; the JSON says what was imported.
    const imported = await scenarioBase(values, 'estimate');
    const { raw, sources } = mergeScenarioFlags(
      imported.base,
      values,
      positionalModel,
      sourceOfBase(values, imported.imported),
    );
    if (raw.model === undefined) {
      throw fileError(
        'names-no-model',
        { command: 'estimate', file: String(values.from), format: String(imported.imported?.format) },
        'MODEL',
        'bad-flag',
      );
    }
    const one = await estimateOne(raw, hub, margin, sources, envVersions);
    if (values.json) {
      const { mapped, unmapped, assumed } = imported.imported!;
      const json = {
        ...estimateJson(one.result, one.scenario, one.model),
        imported: { file: values.from, format: imported.imported!.format, mapped, unmapped, assumed },
      };
      ctx.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      ctx.stdout.write(
        `${importSummary(imported, style)}\n${renderEstimate({ ...one, style, explain: values.explain === true, lang })}\n`,
      );
    }
    return 0;
  }
  if (values.scenario === undefined) {
    if (positionalModel === undefined && values.model === undefined) {
      throw fileError(
        'missing-argument',
        { command: 'estimate', needs: 'model', ref: '' },
        'MODEL',
        'bad-flag',
      );
    }
    const { raw, sources } = mergeScenarioFlags({}, values, positionalModel);
    const one = await estimateOne(raw, hub, margin, sources, envVersions);
    ctx.stdout.write(
      values.json
        ? `${JSON.stringify(estimateJson(one.result, one.scenario, one.model), null, 2)}\n`
        : `${renderEstimate({ ...one, style, explain: values.explain === true, lang })}\n`,
    );
    return 0;
  }
  const entries = await readScenarioFile(values.scenario);
  let failures = 0;
  for (const entry of entries) {
    const where = entries.length > 1 ? `${values.scenario}:${entry.line}` : values.scenario;
    try {
      if (entry.error) throw entry.error;
      // One scenario names its file; the lines of JSON Lines keep their fields' names (and their number).
      const file = entries.length === 1 ? sourceOfBase(values, null) : {};
      const { raw, sources } = mergeScenarioFlags(entry.value ?? {}, values, positionalModel, file);
      const one = await estimateOne(raw, hub, margin, sources, envVersions);
      if (values.json) {
        const json = estimateJson(one.result, one.scenario, one.model);
        ctx.stdout.write(
          `${entries.length > 1 ? JSON.stringify({ line: entry.line, ...json }) : JSON.stringify(json, null, 2)}\n`,
        );
      } else {
        if (entries.length > 1) ctx.stdout.write(`${style.dim(`── ${where}`)}\n`);
        ctx.stdout.write(`${renderEstimate({ ...one, style, explain: values.explain === true, lang })}\n\n`);
      }
    } catch (error) {
      if (entries.length === 1 || !isUserError(error)) throw error;
      failures++;
      // One bad line does not stop the others; it gets its own result line.
      const record = { line: entry.line, error: errorRecord(error) };
      if (values.json) ctx.stdout.write(`${JSON.stringify(record)}\n`);
      else {
        // In the user's language, as runCommand words a whole command's error (src/words/errors.ts).
        const words = userErrorWords(error, lang, { command: 'estimate' });
        const sep = COLON[lang];
        const said = words.message.startsWith(where) ? words.message : `${where}${sep}${words.message}`;
        ctx.stderr.write(
          `${style.red(said)}${words.hint ? `\n  ${errorLabels(lang).try}${sep}${words.hint}` : ''}\n\n`,
        );
      }
    }
  }
  if (failures > 0) ctx.stderr.write(`${failures} of ${entries.length} scenarios failed\n`);
  return failures > 0 ? 1 : 0;
}

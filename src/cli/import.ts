/** `headroom import FILE`: the scenario a trainer config maps to, and what was mapped, left out and assumed. */
import { HeadroomUserError, isUserError } from '../core/errors.js';
import type { ConfigFormat, ImportReport } from '../core/import/import-report.js';
import { parseScenario, type Scenario } from '../core/scenario.js';
import { readTrainerConfig } from '../io/read-config.js';
import { type CommandContext, parseFlags } from './_command.js';
import { renderTable, type Style, styleFor } from './_output.js';

export const help = `headroom import FILE — turn a trainer config into a Headroom scenario

Usage:
  headroom import FILE [--json]

Reads LLaMA-Factory, Axolotl and torchtune YAML, Hugging Face TrainingArguments / TRL SFTConfig (YAML or
JSON), accelerate launch configs and DeepSpeed JSON. A DeepSpeed file the config names is read too
(looked for beside the config, in the folders above it, then in the working directory). DeepSpeed's
"auto" values are reported, never guessed.

Output:
  --json                    { scenario, mapped, unmapped, assumed }: the scenario fields the file sets
                            (model kept as the config names it) plus the trainer's defaults it relies on

Use the config directly with --from on estimate, plan, fit, gpus --for and migrate; flags override it:
  headroom import examples/llama-3/qlora.yml
  headroom estimate --from examples/llama-3/qlora.yml --gpu rtx-4090 --seq-len 2048`;

const FORMAT_NAMES: Readonly<Record<ConfigFormat, string>> = {
  'llama-factory': 'LLaMA-Factory config',
  axolotl: 'Axolotl config',
  torchtune: 'torchtune recipe config',
  'hf-trainer': 'TrainingArguments / TRL config',
  accelerate: 'accelerate launch config',
  deepspeed: 'DeepSpeed config',
};

/**
 * Headroom's defaults for the fields a config leaves unset, as the scenario parser fills them (the
 * precision default follows the method), shown so nothing is hidden. Empty when the imported fields do
 * not parse: the estimate that follows says why.
 */
function headroomDefaults(scenario: Readonly<Record<string, unknown>>): (readonly [string, unknown])[] {
  let parsed: Scenario;
  try {
    parsed = parseScenario({ ...scenario, model: scenario.model ?? 'model' });
  } catch (error) {
    if (isUserError(error)) return [];
    throw error;
  }
  const out: (readonly [string, unknown])[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
    } else out.push([path, value]);
  };
  const { model: _model, ...fields } = parsed;
  walk(fields, '');
  return out;
}

const show = (value: unknown): string =>
  Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : JSON.stringify(value);

function fieldValue(scenario: Readonly<Record<string, unknown>>, field: string): unknown {
  let v: unknown = scenario;
  for (const part of field.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

/** Renders the import report for the terminal. */
export function renderImport(
  file: string,
  report: ImportReport,
  deepspeedPath: string | null,
  style: Style,
): string {
  const lines: string[] = [];
  lines.push(style.bold(`${file} — ${FORMAT_NAMES[report.format]}`));
  if (deepspeedPath) lines.push(style.dim(`with the DeepSpeed file it names: ${deepspeedPath}`));
  lines.push('');
  const rows: string[][] = [];
  const seen = new Set<string>();
  for (const m of report.mapped) {
    if (seen.has(m.field)) {
      const row = rows.find((r) => r[0] === m.field)!;
      row[1] = show(fieldValue(report.scenario, m.field));
      row[2] = `${row[2]}, ${m.key}`;
      continue;
    }
    seen.add(m.field);
    rows.push([m.field, show(fieldValue(report.scenario, m.field)), m.key]);
  }
  for (const a of report.assumed) {
    if (seen.has(a.field)) continue;
    seen.add(a.field);
    rows.push([a.field, show(a.value), style.yellow(`trainer default: ${a.reason}`)]);
  }
  const hasField = (f: string) =>
    [...seen].some((s) => s === f || s.startsWith(`${f}.`) || f.startsWith(`${s}.`));
  for (const [field, value] of headroomDefaults(report.scenario)) {
    if (hasField(field)) continue;
    rows.push([style.dim(field), style.dim(show(value)), style.dim('not in the file: Headroom default')]);
  }
  lines.push(renderTable(['scenario field', 'value', 'from'], rows));
  if (report.unmapped.length > 0) {
    lines.push('');
    lines.push(style.bold('not mapped'));
    const kinds: Readonly<Record<string, string>> = {
      'no-field': 'no scenario field',
      auto: '',
      deferred: 'decided elsewhere',
      unresolved: 'not understood',
    };
    lines.push(
      renderTable(
        ['key', 'value', 'why'],
        report.unmapped.map((u) => [
          u.key,
          show(u.value),
          `${kinds[u.kind] ? `${u.kind === 'unresolved' ? style.yellow(kinds[u.kind]!) : kinds[u.kind]}: ` : ''}${u.reason}`,
        ]),
      ),
    );
  }
  lines.push('');
  const model = report.scenario.model;
  lines.push(
    style.dim(
      model === undefined
        ? `no model in this file: headroom estimate MODEL --from ${file} --gpu ID`
        : `next: headroom estimate --from ${file} --gpu ID   (flags override the file)`,
    ),
  );
  return lines.join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, 'import', 1);
  const file = positionals[0];
  if (file === undefined) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: 'FILE',
      message: 'import needs a trainer config file',
      hint: 'headroom import examples/llama-3/qlora.yml',
    });
  }
  const { report, deepspeedPath } = await readTrainerConfig(file);
  if (values.json) {
    const { scenario, mapped, unmapped, assumed } = report;
    ctx.stdout.write(`${JSON.stringify({ scenario, mapped, unmapped, assumed }, null, 2)}\n`);
    return 0;
  }
  ctx.stdout.write(`${renderImport(file, report, deepspeedPath, styleFor(ctx.stdout))}\n`);
  return 0;
}

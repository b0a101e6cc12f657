/** `headroom migrate`: what will break when a working run moves to another machine, and how to move it. */
import { parseEnvSnapshot } from '../core/env.js';
import { fileError } from '../core/file-errors.js';
import { parseMarginFraction } from '../core/margin.js';
import {
  type CheckStatus,
  checkMigration,
  type MigrateSide,
  type MigrationReport,
  SMOKE_PEAK_TOLERANCE,
} from '../core/migrate.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { checkWords } from '../words/migrate-checks.js';
import { MIGRATE_NOT_CHECKED, MIGRATE_REPORT } from '../words/migrate-report.js';
import { type CommandContext, parseFlags } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { type Style, styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  bytesFlag,
  catalogGpu,
  countFlag,
  FROM_HELP,
  HEADROOM_HELP,
  importSummary,
  loadScenario,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
  tokensFlag,
} from './_scenario-input.js';
import { columns, padColumns } from './_width.js';
import { readEnvFile } from './env.js';

export const help = `headroom migrate — will a working run survive the move to other hardware?

Usage:
  headroom migrate --from-env A.json --to-env B.json MODEL|--scenario S|--from CONFIG [flags] [--json]
  headroom migrate --from-gpu ID --to-gpu ID MODEL [flags]

A checklist, each item pass / warn / fail with its reason: the estimated peak fits the target's usable
memory with the margin (the smallest GPU, or its MIG instance); enough GPUs; bf16 support (else fp16
with loss scaling); the parallel strategy against the interconnect (ZeRO-3/FSDP over PCIe: the
communication time per step); checkpoints and data against the free disk, and how long one save takes at
the measured write speed; driver, CUDA and framework versions that differ or are missing; checkpoint
frequency against preemption. Then a two-step plan: a smoke run, then the full run.
Environment files come from headroom env capture. Without one, a catalog GPU (--to-gpu / --from-gpu)
stands in, and the checklist says what it could not check.

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
  --from-env FILE  --to-env FILE    environments captured on the source and target machines
  --from-gpu ID    --to-gpu ID      catalog GPUs standing in for (or naming) each side's GPU
  --dataset-size SIZE       training data on disk (40GB, 1.2TiB)
  --save-steps N            optimizer steps between checkpoints
  --keep-checkpoints N      checkpoints kept at once (save_total_limit)       [2]
  --tokens N                training tokens of the full run (2e9, 500M)
${HEADROOM_HELP}
${LANG_HELP}

Examples:
  headroom migrate --from-env lab.json --to-env cloud.json --from axolotl.yml --save-steps 500
  headroom migrate --from-gpu a100-sxm-80gb --to-gpu l40s llama-3.1-8b --method lora --precision bf16-true`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  'from-env': { type: 'string' },
  'to-env': { type: 'string' },
  'from-gpu': { type: 'string' },
  'to-gpu': { type: 'string' },
  'dataset-size': { type: 'string' },
  'save-steps': { type: 'string' },
  'keep-checkpoints': { type: 'string' },
  tokens: { type: 'string' },
  headroom: { type: 'string' },
  ...LANG_OPTIONS,
  json: { type: 'boolean' },
} as const;

const MARK: Readonly<Record<CheckStatus, string>> = { pass: '✓', warn: '!', fail: '✗', unknown: '?' };

function colour(style: Style, status: CheckStatus): (s: string) => string {
  return status === 'pass'
    ? style.green
    : status === 'warn'
      ? style.yellow
      : status === 'fail'
        ? style.red
        : style.dim;
}

async function side(
  envFile: string | undefined,
  gpuId: string | undefined,
  flag: 'from' | 'to',
): Promise<MigrateSide> {
  const env = envFile === undefined ? null : parseEnvSnapshot(await readEnvFile(envFile), envFile);
  let gpu = gpuId === undefined ? null : catalogGpu(gpuId, `--${flag}-gpu`);
  if (!gpu && env?.gpus.status === 'ok') {
    const id = env.gpus.value.find((g) => g.catalogId)?.catalogId;
    if (id) gpu = catalogGpu(id, `--${flag}-gpu`);
  }
  return { label: envFile ?? gpu?.id ?? '?', env, gpu };
}

/** Renders the checklist and the two-step plan, in a language. */
export function renderMigration(
  report: MigrationReport,
  modelId: string,
  style: Style,
  lang: Lang = 'en',
): string {
  const lines: string[] = [];
  const word = (code: 'catalog-tag' | 'not-checked' | 'plan' | `verdict-${MigrationReport['verdict']}`) =>
    say(MIGRATE_REPORT, lang, { code, params: {} });
  const sideText = (s: MigrationReport['from']) =>
    `${s.label}${s.gpu && s.gpu !== s.label ? ` (${s.gpu})` : ''}${s.source === 'catalog' ? style.dim(` ${word('catalog-tag')}`) : ''}`;
  const moving = { model: modelId, from: sideText(report.from), to: sideText(report.to) };
  lines.push(style.bold(say(MIGRATE_REPORT, lang, { code: 'moving', params: moving })));
  lines.push('');
  const items = report.items.map((item) => ({ item, words: checkWords(lang, item) }));
  const width = Math.max(...items.map((i) => columns(i.words.title)));
  for (const { item, words } of items) {
    const c = colour(style, item.status);
    lines.push(`  ${c(MARK[item.status])} ${c(padColumns(words.title, width))}  ${words.reason}`);
    if (words.action && item.status !== 'pass')
      lines.push(style.dim(`    ${''.padEnd(width)}  → ${words.action}`));
  }
  if (report.notChecked.length > 0) {
    lines.push('');
    lines.push(style.yellow(`  ${word('not-checked')}`));
    for (const n of report.notChecked) lines.push(style.yellow(`    · ${say(MIGRATE_NOT_CHECKED, lang, n)}`));
  }
  const { smoke, full } = report.plan;
  const strong = style.bold;
  lines.push('');
  lines.push(`  ${word('plan')}`);
  const smokeParams = { ...smoke, target: report.to.label, tolerance: SMOKE_PEAK_TOLERANCE, strong };
  lines.push(`   ${say(MIGRATE_REPORT, lang, { code: 'smoke', params: smokeParams })}`);
  lines.push(`   ${say(MIGRATE_REPORT, lang, { code: 'full', params: { ...full, strong } })}`);
  lines.push('');
  lines.push(colour(style, report.verdict)(word(`verdict-${report.verdict}`)));
  return lines.join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'migrate', 1);
  const lang = langFromFlag(values.lang, ctx.env);
  if (values['to-env'] === undefined && values['to-gpu'] === undefined) {
    throw fileError(
      'missing-argument',
      { command: 'migrate', needs: 'migrate-target', ref: '' },
      '--to-env',
      'bad-flag',
    );
  }
  const from = await side(values['from-env'], values['from-gpu'], 'from');
  const to = await side(values['to-env'], values['to-gpu'], 'to');
  // The scenario's GPU is the target's (for the fit); a --gpu flag is not needed.
  const loaded = await loadScenario(
    to.gpu ? { ...values, gpu: values.gpu ?? to.gpu.id } : values,
    positionals[0],
    'migrate',
    undefined,
    hubProgress(ctx.stderr),
  );
  const marginFraction =
    values.headroom === undefined ? undefined : parseMarginFraction(values.headroom, '--headroom');
  const report = checkMigration({
    scenario: loaded.scenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    from,
    to,
    datasetBytes: bytesFlag(values, 'dataset-size') ?? null,
    saveEverySteps: countFlag(values, 'save-steps') ?? null,
    keepCheckpoints: countFlag(values, 'keep-checkpoints') ?? 2,
    tokens: tokensFlag(values, 'tokens') ?? null,
    ...(marginFraction === undefined ? {} : { marginFraction }),
  });
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const summary = importSummary(loaded, style);
  if (summary) ctx.stdout.write(`${summary}\n`);
  const said = modelSummary(loaded, style);
  if (said) ctx.stdout.write(`${said}\n`);
  ctx.stdout.write(`${renderMigration(report, loaded.model.id, style, lang)}\n`);
  return 0;
}

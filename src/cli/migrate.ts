/** `headroom migrate`: what will break when a working run moves to another machine, and how to move it. */
import { parseEnvSnapshot } from '../core/env.js';
import { HeadroomUserError } from '../core/errors.js';
import { parseMarginFraction } from '../core/margin.js';
import { type CheckStatus, checkMigration, type MigrateSide, type MigrationReport } from '../core/migrate.js';
import { formatBytes } from '../core/units.js';
import { type CommandContext, parseFlags } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { type Style, styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  bytesFlag,
  catalogGpu,
  countFlag,
  FROM_HELP,
  formatDuration,
  formatRate,
  HEADROOM_HELP,
  importSummary,
  loadScenario,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
  tokensFlag,
} from './_scenario-input.js';
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

/** Renders the checklist and the two-step plan. */
export function renderMigration(report: MigrationReport, modelId: string, style: Style): string {
  const lines: string[] = [];
  const sideText = (s: MigrationReport['from']) =>
    `${s.label}${s.gpu && s.gpu !== s.label ? ` (${s.gpu})` : ''}${s.source === 'catalog' ? style.dim(' [catalog]') : ''}`;
  lines.push(style.bold(`moving ${modelId}: ${sideText(report.from)} → ${sideText(report.to)}`));
  lines.push('');
  const width = Math.max(...report.items.map((i) => i.title.length));
  for (const item of report.items) {
    const c = colour(style, item.status);
    lines.push(`  ${c(MARK[item.status])} ${c(item.title.padEnd(width))}  ${item.reason}`);
    if (item.action && item.status !== 'pass')
      lines.push(style.dim(`    ${''.padEnd(width)}  → ${item.action}`));
  }
  if (report.notChecked.length > 0) {
    lines.push('');
    lines.push(style.yellow('  not checked:'));
    for (const n of report.notChecked) lines.push(style.yellow(`    · ${n}`));
  }
  const { smoke, full } = report.plan;
  const target = report.to.label;
  lines.push('');
  lines.push('  plan:');
  lines.push(
    `   1. smoke run on ${target}: ${smoke.steps} steps on a small subset (${formatTokensShort(smoke.tokens)} tokens). Expect a peak of ${style.bold(formatBytes(smoke.peakDeviceBytes))} per GPU in nvidia-smi (torch max_memory_allocated ${formatBytes(smoke.peakAllocatedBytes)})${smoke.tokensPerSecond ? ` and about ${style.bold(formatRate(smoke.tokensPerSecond))}${smoke.seconds ? ` (≈ ${formatDuration(smoke.seconds)})` : ''}` : ''}. Stop if the peak is more than 10 % above that, or the loss is not finite.`,
  );
  lines.push(
    `   2. full run${full.seconds !== null && full.tokens !== null ? `: ${formatTokensShort(full.tokens)} tokens in ≈ ${style.bold(formatDuration(full.seconds))}` : full.stepSeconds !== null ? `: ≈ ${formatDuration(full.stepSeconds)} per optimizer step (--tokens N for the whole run)` : ''}, resuming from the smoke run's settings; keep the checkpoint interval the checklist asks for.`,
  );
  lines.push('');
  const verdict = report.verdict;
  lines.push(
    colour(
      style,
      verdict,
    )(
      verdict === 'pass'
        ? '✓ ready to move'
        : verdict === 'warn'
          ? '! movable: read the ! and ? items first'
          : '✗ not ready: fix the ✗ items before moving',
    ),
  );
  return lines.join('\n');
}

function formatTokensShort(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'migrate', 1);
  if (values['to-env'] === undefined && values['to-gpu'] === undefined) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: '--to-env',
      message: 'migrate needs a target: --to-env FILE (captured there) or --to-gpu ID (a catalog GPU)',
      hint: 'headroom env capture -o target.json on the target machine, or --to-gpu h100-sxm',
    });
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
  ctx.stdout.write(`${renderMigration(report, loaded.model.id, style)}\n`);
  return 0;
}

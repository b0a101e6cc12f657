/** `headroom gpus [query]`: list and search the embedded GPU catalog; with --for, plan capacity for a scenario. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type CapacityResult, GPU_COUNTS, planCapacity } from '../core/capacity.js';
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { searchGpus } from '../core/catalog/index.js';
import { describeScenario } from '../core/describe.js';
import { HeadroomUserError } from '../core/errors.js';
import { MARGIN_REASON, parseMarginFraction, usableBytes } from '../core/margin.js';
import { formatBytes, GIB } from '../core/units.js';
import { type CommandContext, parseFlags } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { renderTable, type Style, styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  countFlag,
  FROM_HELP,
  formatDuration,
  formatRate,
  HEADROOM_HELP,
  importSummary,
  type LoadedScenario,
  loadScenario,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
  tokensFlag,
} from './_scenario-input.js';

export const help = `headroom gpus [QUERY] [--json]
headroom gpus [QUERY] --for MODEL|SCENARIO.json|CONFIG [flags] [--tokens N] [--json]

Lists the embedded GPU catalog. "usable" is what nvidia-smi reports as memory.total, not the marketed size.
  headroom gpus a100
  headroom gpus nvidia hopper --json

With --for (or --scenario / --from), plans capacity: for every catalog GPU matching a QUERY word (each
word is its own search: h100 a100 means either; quote words that must all match), the fewest of
it (1, 2, 4, 8, then whole nodes up to --max-gpus) that run the scenario within the margin, with the
strategy that needs (ZeRO-2, then ZeRO-3), the per-GPU peak, the headroom and a rough step time. The
catalog has no prices, so the cheapest is ranked by memory bought (count × marketed GB); --sort time
puts the fastest first.

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
  --for X                   a model id, a scenario JSON file or a trainer config
  --tokens N                training tokens of the whole run (2e9, 500M, 1.5B): estimates its duration
  --max-gpus N              largest GPU count tried                            [64]
  --sort cost|time          cheapest (memory bought) or fastest first          [cost]
${HEADROOM_HELP}

Examples:
  headroom gpus --for llama-3.1-8b --method qlora --quantization nf4 --gradient-checkpointing full
  headroom gpus h100 a100 --for llama-3.1-70b --method full --gradient-checkpointing full --tokens 2e9`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  for: { type: 'string' },
  tokens: { type: 'string' },
  'max-gpus': { type: 'string' },
  sort: { type: 'string' },
  headroom: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const LAYOUT: Readonly<Record<string, string>> = {
  single: '1 GPU',
  ddp: 'DDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
  fsdp: 'FSDP full shard',
  'fsdp-grad-op': 'FSDP grad-op',
};

/** --for X: a scenario file, a trainer config, or a model reference. */
function forValues(values: Record<string, string | boolean | undefined>): {
  values: Record<string, string | boolean | undefined>;
  model: string | undefined;
} {
  const target = values.for;
  if (typeof target !== 'string') return { values, model: undefined };
  const lower = target.toLowerCase();
  // Only a plain file is sniffed: a folder is a model folder whatever its name (and a pipe would block).
  const file = existsSync(target) && statSync(target).isFile();
  if (file && (lower.endsWith('.yaml') || lower.endsWith('.yml')))
    return { values: { ...values, from: target }, model: undefined };
  if (file && (lower.endsWith('.json') || lower.endsWith('.jsonl'))) {
    // A Headroom scenario has a model field; a DeepSpeed or TrainingArguments JSON does not use that key.
    const text = readFileSync(target, 'utf8');
    const scenarioLike = /"model"\s*:/.test(text) && !/"model_name_or_path"|"zero_optimization"/.test(text);
    return { values: { ...values, [scenarioLike ? 'scenario' : 'from']: target }, model: undefined };
  }
  return { values, model: target };
}

function renderCapacity(
  loaded: LoadedScenario,
  result: CapacityResult,
  tokens: number | null,
  gpus: readonly GpuSpec[],
  style: Style,
): string {
  const lines: string[] = [
    style.bold(`capacity for ${describeScenario(loaded.scenario, loaded.model.id).replace(/ · [^·]+$/, '')}`),
  ];
  lines.push(
    style.dim(
      `the fewest GPUs of each kind within the margin (${MARGIN_REASON}); cheapest first by memory bought, then the older generation`,
    ),
  );
  lines.push('');
  const rows = result.options.map((o, i) => [
    i === 0 ? style.green(o.gpu) : style.bold(o.gpu),
    `${o.gpus} ×`,
    `${LAYOUT[o.strategy] ?? o.strategy}${loaded.scenario.precision.startsWith('bf16') && !gpus.find((g) => g.id === o.gpu)?.bf16 ? style.yellow(' (no bf16: fp16)') : ''}`,
    formatBytes(o.estimate.peak.deviceBytes),
    `${formatBytes(o.headroomBytes)} (${((o.headroomBytes / (o.estimate.fits?.usableBytes ?? o.headroomBytes + o.estimate.peak.deviceBytes)) * 100).toFixed(0)} %)`,
    formatDuration(o.time.stepSeconds),
    formatRate(o.time.tokensPerSecond),
    ...(tokens ? [formatDuration(o.runSeconds ?? Number.NaN)] : []),
    `${o.memoryBoughtGB} GB`,
  ]);
  lines.push(
    renderTable(
      [
        'gpu',
        'count',
        'layout',
        'peak/GPU',
        'headroom',
        'step',
        'throughput',
        ...(tokens ? [`${formatTokens(tokens)} tokens`] : []),
        'bought',
      ],
      rows,
      tokens ? [1, 3, 4, 5, 6, 7, 8] : [1, 3, 4, 5, 6, 7],
    ),
  );
  if (result.options.length === 0)
    lines.push(style.red('no catalog GPU runs it at any count tried: headroom plan … shows what to change'));
  if (result.misses.length > 0) {
    lines.push('');
    lines.push(
      style.dim(
        `does not fit at any count tried: ${result.misses.map((m) => `${m.gpu} (${formatBytes(m.bestPeakBytes)} per GPU at best)`).join(', ')}`,
      ),
    );
  }
  lines.push('');
  lines.push(
    style.dim(
      'step = one optimizer step (micro-batch × accumulation per GPU); times from the time model: FLOPs at 40 % of dense peak, collectives overlapped, offload not (docs/time-model.md)',
    ),
  );
  return lines.join('\n');
}

function formatTokens(n: number): string {
  if (n >= 1e12) return `${(n / 1e12).toFixed(n % 1e12 === 0 ? 0 : 1)}T`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(n % 1e9 === 0 ? 0 : 1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n % 1e6 === 0 ? 0 : 1)}M`;
  return String(n);
}

async function runCapacity(
  raw: Record<string, string | boolean | undefined>,
  queries: readonly string[],
  ctx: CommandContext,
): Promise<number> {
  const query = queries.join(' ');
  const { values, model } = forValues(raw);
  const loaded = await loadScenario(values, model, 'gpus', undefined, hubProgress(ctx.stderr));
  const tokens = tokensFlag(values, 'tokens') ?? null;
  const maxGpus = countFlag(values, 'max-gpus', 'parallelism.gpus') ?? GPU_COUNTS[GPU_COUNTS.length - 1]!;
  const sort = values.sort ?? 'cost';
  if (sort !== 'cost' && sort !== 'time') {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: '--sort',
      message: `--sort ${String(sort)}: cost or time`,
      hint: '--sort time',
    });
  }
  const marginFraction =
    typeof values.headroom === 'string' ? parseMarginFraction(values.headroom, '--headroom') : undefined;
  // Each QUERY word is its own search (h100 a100: either); quote words to require both ("nvidia hopper").
  const gpus = queries.length === 0 ? searchGpus() : [...new Set(queries.flatMap((q) => searchGpus(q)))];
  const result = planCapacity({
    scenario: loaded.scenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    gpus,
    maxGpus,
    tokens,
    sort,
    ...(marginFraction === undefined ? {} : { marginFraction }),
  });
  if (values.json) {
    const json = {
      scenario: loaded.scenario,
      tokens,
      sort,
      options: result.options.map((o) => ({
        gpu: o.gpu,
        name: o.gpuName,
        gpus: o.gpus,
        strategy: o.strategy,
        peak: o.estimate.peak,
        headroomBytes: o.headroomBytes,
        stepSeconds: o.time.stepSeconds,
        tokensPerSecond: o.time.tokensPerSecond,
        runSeconds: o.runSeconds,
        memoryBoughtGB: o.memoryBoughtGB,
        scenario: o.scenario,
      })),
      misses: result.misses,
    };
    ctx.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const summary = importSummary(loaded, style);
  if (summary) ctx.stdout.write(`${summary}\n`);
  const said = modelSummary(loaded, style);
  if (said) ctx.stdout.write(`${said}\n`);
  if (gpus.length === 0) {
    ctx.stdout.write(`no catalog GPU matches "${query}"; headroom gpus lists all ${searchGpus().length}\n`);
    return 0;
  }
  ctx.stdout.write(`${renderCapacity(loaded, result, tokens, gpus, style)}\n`);
  return 0;
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'gpus', 10);
  const query = positionals.join(' ');
  if (values.for !== undefined || values.scenario !== undefined || values.from !== undefined) {
    return runCapacity(values, positionals, ctx);
  }
  const gpus = searchGpus(query);
  if (values.json) {
    ctx.stdout.write(
      `${JSON.stringify(
        gpus.map((g) => ({ ...g, usableBytes: usableBytes(g) })),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const style = styleFor(ctx.stdout);
  if (gpus.length === 0) {
    ctx.stdout.write(`no catalog GPU matches "${query}"; headroom gpus lists all ${searchGpus().length}\n`);
    return 0;
  }
  const rows = gpus.map((g) => [
    style.bold(g.id),
    g.name,
    `${(usableBytes(g) / GIB).toFixed(1)} GiB`,
    `${g.memoryGiB} GB`,
    g.bf16 ? 'yes' : style.yellow('no'),
    g.denseBf16Tflops === null ? '—' : String(g.denseBf16Tflops),
    g.interconnect?.type ?? '—',
  ]);
  ctx.stdout.write(
    `${renderTable(['id', 'name', 'usable', 'marketed', 'bf16', 'bf16 TFLOP/s', 'interconnect'], rows, [2, 3, 5])}\n`,
  );
  ctx.stdout.write(
    style.dim(
      `${gpus.length} GPU${gpus.length === 1 ? '' : 's'}. Check a fit: headroom estimate llama-3.1-8b --method qlora --quantization nf4 --gpu ${gpus[0]!.id}\n`,
    ),
  );
  return 0;
}

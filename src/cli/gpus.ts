/** `headroom gpus [query]`: list and search the embedded GPU catalog; with --for, plan capacity for a scenario. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type CapacityResult, GPU_COUNTS, planCapacity } from '../core/capacity.js';
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { searchGpus } from '../core/catalog/index.js';
import { fileError } from '../core/file-errors.js';
import { parseMarginFraction, usableBytes } from '../core/margin.js';
import type { MessageOf } from '../core/message.js';
import { formatBytes, GIB } from '../core/units.js';
import { CAPACITY, type CapacityParams } from '../words/capacity.js';
import { say } from '../words/catalog.js';
import { FORMATS } from '../words/format.js';
import type { Lang } from '../words/lang.js';
import { rangeNote } from '../words/margin.js';
import { describeScenario } from '../words/scenario-line.js';
import { type CommandContext, parseFlags } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
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

/** The command's --help in a language (the scenario flags' section is the field table's, in English). */
export function helpFor(lang: Lang): string {
  const w = (code: 'help' | 'help-flags' | 'help-examples') => say(CAPACITY, lang, { code, params: {} });
  return `${w('help')}

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${w('help-flags')}
${HEADROOM_HELP}
${LANG_HELP}

${w('help-examples')}`;
}

export const help = helpFor('en');

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  for: { type: 'string' },
  tokens: { type: 'string' },
  'max-gpus': { type: 'string' },
  sort: { type: 'string' },
  headroom: { type: 'string' },
  json: { type: 'boolean' },
  ...LANG_OPTIONS,
} as const;

/** The words of a code of the capacity domain, in a language. */
const wordsIn =
  (lang: Lang) =>
  (message: MessageOf<CapacityParams>): string =>
    say(CAPACITY, lang, message);
const plain = <C extends keyof CapacityParams>(code: C) =>
  ({ code, params: {} }) as MessageOf<CapacityParams>;

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
  lang: Lang = 'en',
): string {
  const w = wordsIn(lang);
  const description = describeScenario(loaded.scenario, loaded.model.id).replace(/ · [^·]+$/, '');
  const lines: string[] = [style.bold(w({ code: 'capacity-for', params: { description } }))];
  lines.push(style.dim(w(plain('intro'))));
  lines.push('');
  const rows = result.options.map((o, i) => [
    i === 0 ? style.green(o.gpu) : style.bold(o.gpu),
    `${o.gpus} ×`,
    `${w({ code: 'layout', params: { strategy: o.strategy } })}${loaded.scenario.precision.startsWith('bf16') && !gpus.find((g) => g.id === o.gpu)?.bf16 ? style.yellow(w(plain('no-bf16'))) : ''}`,
    FORMATS[lang].bytesRange(o.estimate.peak.deviceBytes, o.estimate.upper.deviceBytes),
    `${formatBytes(o.headroomBytes)} (${((o.headroomBytes / (o.estimate.fits?.usableBytes ?? o.headroomBytes + o.estimate.upper.deviceBytes)) * 100).toFixed(0)} %)`,
    formatDuration(o.time.stepSeconds),
    formatRate(o.time.tokensPerSecond),
    ...(tokens ? [formatDuration(o.runSeconds ?? Number.NaN)] : []),
    `${o.memoryBoughtGB} GB`,
  ]);
  lines.push(
    renderTable(
      [
        w(plain('column-gpu')),
        w(plain('column-count')),
        w(plain('column-layout')),
        w(plain('column-peak')),
        w(plain('column-headroom')),
        w(plain('column-step')),
        w(plain('column-throughput')),
        ...(tokens ? [w({ code: 'column-run', params: { tokens: formatTokens(tokens) } })] : []),
        w(plain('column-bought')),
      ],
      rows,
      tokens ? [1, 3, 4, 5, 6, 7, 8] : [1, 3, 4, 5, 6, 7],
    ),
  );
  if (result.options.length === 0) lines.push(style.red(w(plain('none-fits'))));
  if (result.misses.length > 0) {
    lines.push('');
    lines.push(style.dim(w({ code: 'misses', params: { misses: result.misses } })));
  }
  lines.push('');
  lines.push(style.dim(rangeNote(lang)));
  lines.push(style.dim(w(plain('footnote'))));
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
  const lang = langFromFlag(typeof raw.lang === 'string' ? raw.lang : undefined, ctx.env);
  const w = wordsIn(lang);
  const { values, model } = forValues(raw);
  const loaded = await loadScenario(values, model, 'gpus', undefined, hubProgress(ctx.stderr));
  const tokens = tokensFlag(values, 'tokens') ?? null;
  const maxGpus = countFlag(values, 'max-gpus', 'parallelism.gpus') ?? GPU_COUNTS[GPU_COUNTS.length - 1]!;
  const sort = values.sort ?? 'cost';
  if (sort !== 'cost' && sort !== 'time') {
    throw fileError(
      'flag-value',
      { flag: '--sort', value: String(sort), expected: 'either', values: ['cost', 'time'], example: 'time' },
      '--sort',
      'bad-flag',
    );
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
        upper: o.estimate.upper,
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
    ctx.stdout.write(`${w({ code: 'no-match', params: { query, total: searchGpus().length } })}\n`);
    return 0;
  }
  ctx.stdout.write(`${renderCapacity(loaded, result, tokens, gpus, style, lang)}\n`);
  return 0;
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'gpus', 10);
  const query = positionals.join(' ');
  const w = wordsIn(langFromFlag(values.lang, ctx.env));
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
    ctx.stdout.write(`${w({ code: 'no-match', params: { query, total: searchGpus().length } })}\n`);
    return 0;
  }
  const rows = gpus.map((g) => [
    style.bold(g.id),
    g.name,
    `${(usableBytes(g) / GIB).toFixed(1)} GiB`,
    `${g.memoryGiB} GB`,
    g.bf16 ? w(plain('yes')) : style.yellow(w(plain('no'))),
    g.denseBf16Tflops === null ? '—' : String(g.denseBf16Tflops),
    g.interconnect?.type ?? '—',
  ]);
  const header = (
    [
      'column-id',
      'column-name',
      'column-usable',
      'column-marketed',
      'column-bf16',
      'column-tflops',
      'column-interconnect',
    ] as const
  ).map((code) => w(plain(code)));
  ctx.stdout.write(`${renderTable(header, rows, [2, 3, 5])}\n`);
  ctx.stdout.write(
    style.dim(`${w({ code: 'list-count', params: { count: gpus.length, first: gpus[0]!.id } })}\n`),
  );
  return 0;
}

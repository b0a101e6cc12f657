/**
 * One scenario from whatever the user gave a command: a scenario JSON file (--scenario), a trainer
 * config (--from, imported), flags, or a positional MODEL — flags override the file. Shared by plan,
 * fit, gpus --for and migrate; estimate also reads JSON Lines and keeps its own loop.
 */
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { findGpu, GPUS, suggestIds } from '../core/catalog/index.js';
import { fileError } from '../core/file-errors.js';
import type { ImportReport } from '../core/import/import-report.js';
import type { ResolvedModel } from '../core/model-ref.js';
import { parseScenario, SCENARIO_LIMITS, type Scenario } from '../core/scenario.js';
import { checkScenarioAgainstModel } from '../core/scenario-limits.js';
import { formatBytes } from '../core/units.js';
import type { HubOptions } from '../io/hub.js';
import { readScenarioFile } from '../io/read-scenarios.js';
import { resolveModel } from '../io/resolve-model.js';
import { modelNotes, resolutionLine } from './_model-words.js';
import type { Style } from './_output.js';
import { type BaseSource, mergeScenarioFlags, named, SCENARIO_OPTIONS } from './_scenario-flags.js';

/** Scenario flags plus --from CONFIG. */
export const SCENARIO_INPUT_OPTIONS = { ...SCENARIO_OPTIONS, from: { type: 'string' } } as const;

/** The --from help line, for commands' help texts. */
export const FROM_HELP = `  --from CONFIG             a trainer config: LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL,
                            accelerate or DeepSpeed (YAML/JSON); flags override what it sets`;

/** The --headroom help line. */
export const HEADROOM_HELP =
  '  --headroom P              memory kept free: real batches vary in length (padded to the longest)  [10%]';

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** A catalog GPU by id or name; a user error with the nearest ids when unknown. */
export function catalogGpu(id: string, flag = 'gpu'): GpuSpec {
  const gpu = findGpu(id);
  if (!gpu) {
    const nearest = suggestIds(
      id,
      GPUS.map((g) => g.id),
    );
    throw fileError('gpu-unknown', { flag, id, nearest }, flag, 'unknown-gpu');
  }
  return gpu;
}

/** Base fields from --scenario (one object) or --from (a trainer config), before flags. */
export async function scenarioBase(
  values: Values,
  command: string,
): Promise<{ base: Record<string, unknown>; imported: ImportReport | null; importedFrom: string | null }> {
  if (typeof values.scenario === 'string' && typeof values.from === 'string') {
    throw fileError('scenario-and-from', { command }, '--from', 'bad-flag');
  }
  if (typeof values.from === 'string') {
    // Loaded only for --from: the YAML parser is most of a cold start otherwise.
    const { readTrainerConfig } = await import('../io/read-config.js');
    const { report } = await readTrainerConfig(values.from);
    return { base: { ...report.scenario }, imported: report, importedFrom: values.from };
  }
  if (typeof values.scenario === 'string') {
    const entries = await readScenarioFile(values.scenario);
    if (entries.length !== 1) {
      throw fileError(
        'scenario-count',
        { command, file: values.scenario, count: entries.length },
        values.scenario,
      );
    }
    const entry = entries[0]!;
    // A value that is not an object is an error entry already (read-scenarios.ts).
    if (entry.error) throw entry.error;
    return { base: { ...entry.value }, imported: null, importedFrom: null };
  }
  return { base: {}, imported: null, importedFrom: null };
}

export interface LoadedScenario {
  readonly scenario: Scenario;
  readonly model: ResolvedModel;
  readonly gpu: GpuSpec | null;
  readonly imported: ImportReport | null;
  readonly importedFrom: string | null;
}

/**
 * Reads, merges, validates and resolves one scenario; user errors name the flag, field or file.
 * `defaults` (a recorded run's scenario) is the base when neither --scenario nor --from is given;
 * `hub` is how a model from the Hugging Face Hub is fetched (hubProgress reports it on a terminal).
 */
export async function loadScenario(
  values: Values,
  positionalModel: string | undefined,
  command: string,
  defaults?: Readonly<Record<string, unknown>>,
  hub: HubOptions = {},
): Promise<LoadedScenario> {
  const read = await scenarioBase(values, command);
  const { imported, importedFrom } = read;
  const given = typeof values.scenario === 'string' || typeof values.from === 'string';
  const base = defaults && !given ? { ...defaults } : read.base;
  const { raw, sources } = mergeScenarioFlags(base, values, positionalModel, {
    ...sourceOfBase(values, given ? imported : null),
  });
  if (raw.model === undefined) {
    throw importedFrom
      ? fileError(
          'names-no-model',
          { command, file: importedFrom, format: String(imported?.format) },
          'MODEL',
          'bad-flag',
        )
      : fileError('missing-argument', { command, needs: 'model', ref: '' }, 'MODEL', 'bad-flag');
  }
  try {
    const parsed = parseScenario(raw);
    const model = await resolveModel(parsed.model, hub);
    checkScenarioAgainstModel(parsed, model);
    const gpu = parsed.gpu === undefined ? null : catalogGpu(parsed.gpu);
    const scenario: Scenario = {
      ...parsed,
      model: typeof parsed.model === 'string' ? model.id : parsed.model,
    };
    return { scenario, model, gpu, imported, importedFrom };
  } catch (error) {
    // A bad field says where the user set it: the flag as typed, the scenario file, the config's key.
    throw named(error, sources, command);
  }
}

/**
 * Where the fields of a command's base came from: the --scenario file, or the keys of the --from
 * config its importer mapped (a field the importer assumed names the config alone).
 */
export function sourceOfBase(values: Values, imported: ImportReport | null): { baseSource?: BaseSource } {
  if (typeof values.scenario === 'string') {
    const file = values.scenario;
    return { baseSource: () => ({ kind: 'file', file }) };
  }
  if (imported !== null && typeof values.from === 'string') {
    const file = values.from;
    const keys = new Map(imported.mapped.map((m) => [m.field, m]));
    return {
      baseSource: (path) => {
        const mapped = keys.get(path);
        return mapped === undefined
          ? { kind: 'import', file }
          : { kind: 'import', file, key: mapped.key, value: mapped.value };
      },
    };
  }
  return {};
}

/** One dim line saying what an imported config contributed. */
export function importSummary(
  loaded: Pick<LoadedScenario, 'imported' | 'importedFrom'>,
  style: Style,
): string | null {
  if (!loaded.imported || !loaded.importedFrom) return null;
  const r = loaded.imported;
  return style.dim(
    `from ${loaded.importedFrom} (${r.format}): ${r.mapped.length} keys mapped, ${r.assumed.length} trainer defaults assumed, ${r.unmapped.length} not mapped — headroom import ${loaded.importedFrom} shows which`,
  );
}

/**
 * How a model named by a Hub spelling reached the catalog (dim), and what a pre-quantized copy is stored
 * as when the scenario sizes it otherwise; null when the model was named by its catalog id.
 */
export function modelSummary(
  loaded: Pick<LoadedScenario, 'model' | 'scenario'>,
  style: Style,
): string | null {
  const line = resolutionLine(loaded.model);
  const notes = modelNotes(loaded.model, loaded.scenario.quantization);
  const lines = [...(line ? [style.dim(line)] : []), ...notes.map((n) => style.yellow(n))];
  return lines.length === 0 ? null : lines.join('\n');
}

/** A positive whole number from a flag, or undefined when absent. */
export function countFlag(
  values: Values,
  flag: string,
  limitOf?: keyof typeof SCENARIO_LIMITS,
): number | undefined {
  const raw = values[flag];
  // With `limitOf`, at most that scenario field's limit (--max-gpus counts GPUs as parallelism.gpus does).
  const max = limitOf === undefined ? undefined : SCENARIO_LIMITS[limitOf].max;
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' ? Number(raw.replace(/_/g, '')) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || (max !== undefined && n > max)) {
    throw fileError(
      'flag-value',
      {
        flag: `--${flag}`,
        value: String(raw),
        expected: 'whole-number',
        min: 1,
        ...(max === undefined ? {} : { max }),
        example: '8',
      },
      `--${flag}`,
      'out-of-range',
    );
  }
  return n;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
  b: 1e9,
};

/** A token count such as 2e9, 500M, 1.5B, 2_000_000. */
export function tokensFlag(values: Values, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? /^([\d._]+(?:e\d+)?)\s*([kmgtb]?)$/i.exec(raw.trim()) : null;
  const n = m ? Number(m[1]!.replace(/_/g, '')) * SIZE_UNITS[m[2]!.toLowerCase()]! : Number.NaN;
  if (!Number.isFinite(n) || n < 1) {
    throw fileError(
      'flag-value',
      { flag: `--${flag}`, value: String(raw), expected: 'token-count', example: '2e9' },
      `--${flag}`,
      'bad-flag',
    );
  }
  return Math.round(n);
}

const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** A size such as 40GB, 1.5TiB or 123456789 (bytes). */
export function bytesFlag(values: Values, flag: string): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? /^([\d.]+)\s*([a-z]*)$/i.exec(raw.trim()) : null;
  const unit = m ? BYTE_UNITS[(m[2] || 'b').toLowerCase()] : undefined;
  const n = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
  if (!Number.isFinite(n) || n < 0) {
    throw fileError(
      'flag-value',
      { flag: `--${flag}`, value: String(raw), expected: 'size', example: '40GB' },
      `--${flag}`,
      'bad-flag',
    );
  }
  return Math.round(n);
}

/** "1 h 20 min", "14 min", "38 s". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 90) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 72 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

/** "12.4k tok/s". */
export function formatRate(tokensPerSecond: number): string {
  if (tokensPerSecond >= 1e6) return `${(tokensPerSecond / 1e6).toFixed(2)}M tok/s`;
  if (tokensPerSecond >= 1e3) return `${(tokensPerSecond / 1e3).toFixed(1)}k tok/s`;
  return `${tokensPerSecond.toFixed(0)} tok/s`;
}

export { formatBytes };

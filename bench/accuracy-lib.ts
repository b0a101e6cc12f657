/** The accuracy benchmark's arithmetic, kept apart from file reading so tests can check it. */
import { withBitsandbytes } from '../src/core/bitsandbytes.js';
import { findGpu, findModel } from '../src/core/catalog/index.js';
import { isUserError } from '../src/core/errors.js';
import type { UpperLayout } from '../src/core/estimate/upper.js';
import { estimate, type PeakLevels } from '../src/core/estimate.js';
import { olderInstallAlternatives } from '../src/core/frameworks/alternatives.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';

export interface AccuracyRow {
  readonly id: string;
  readonly scenario: Record<string, unknown>;
  readonly measured: {
    readonly metric: 'allocated' | 'reserved' | 'device';
    readonly peakBytes: number | null;
    readonly outcome: 'ok' | 'oom';
    readonly unitAmbiguous?: boolean;
  };
  readonly source: {
    readonly quality: string;
    readonly dataset?: string;
    readonly ref?: string;
    readonly notes?: string;
    readonly extensions?: Readonly<Record<string, unknown>>;
    /** Rows measured by bench/gpu: the harness's record, with the installed package versions. */
    readonly harness?: { readonly packages?: Readonly<Record<string, string | null>> };
  };
}

/** A documented scenario correction: rows whose own source contradicts the scenario they were given. */
export interface Correction {
  readonly ids: readonly string[];
  /** Top-level scenario fields to replace. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Fields of scenario objects to set, keeping the rest of each object (e.g. { "lora": { "adapterDtype": "model" } }). */
  readonly merge?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Config fields to override on the row's catalog model: the model is then passed as the inline
   * config.json SCENARIO.md allows (e.g. { "tie_word_embeddings": false } for a framework that keeps
   * the output head as its own tensor).
   */
  readonly modelConfig?: Readonly<Record<string, unknown>>;
  readonly why: string;
  readonly evidence: string;
}

/**
 * Scenario extensions (`source.extensions`) that the estimator models as scenario fields. The rows carry
 * them because SCENARIO.md had no field for them (optimizerInBackward, torchCompile) or the conversion kept them
 * aside (modulesToSave); Headroom reads them instead of dropping them.
 */
function scenarioOf(row: AccuracyRow): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row.scenario };
  const ext = row.source.extensions ?? {};
  if (ext.optimizerInBackward !== undefined) out.optimizerInBackward = ext.optimizerInBackward;
  if (ext.torchCompile !== undefined) out.torchCompile = ext.torchCompile;
  if (Array.isArray(ext.modulesToSave) && out.lora && typeof out.lora === 'object') {
    out.lora = { ...(out.lora as Record<string, unknown>), modulesToSave: ext.modulesToSave };
  }
  return out;
}

/**
 * Applies corrections to the rows they name, returning new rows; every corrected row records why.
 * Throws when a correction names a row that is not there, so a stale file cannot pass silently.
 */
export function applyCorrections(
  rows: readonly AccuracyRow[],
  corrections: readonly Correction[],
): { rows: AccuracyRow[]; why: Map<string, string> } {
  const byId = new Map<string, Correction[]>();
  for (const c of corrections) for (const id of c.ids) byId.set(id, [...(byId.get(id) ?? []), c]);
  const known = new Set(rows.map((r) => r.id));
  const missing = [...byId.keys()].filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new Error(`corrections name rows that are not in the data: ${missing.join(', ')}`);
  const why = new Map<string, string>();
  const out = rows.map((row) => {
    const cs = byId.get(row.id);
    if (!cs) return row;
    why.set(row.id, cs.map((c) => c.why).join('; '));
    const scenario: Record<string, unknown> = { ...row.scenario };
    for (const c of cs) {
      Object.assign(scenario, c.set);
      for (const [field, fields] of Object.entries(c.merge ?? {})) {
        const current = scenario[field];
        if (typeof current !== 'object' || current === null)
          throw new Error(`correction for ${row.id}: scenario.${field} is not an object to merge into`);
        scenario[field] = { ...(current as Record<string, unknown>), ...fields };
      }
      if (c.modelConfig) {
        const entry = findModel(String(row.scenario.model));
        if (!entry)
          throw new Error(
            `correction for ${row.id}: model ${String(row.scenario.model)} is not in the catalog`,
          );
        scenario.model = {
          ...(typeof scenario.model === 'object' ? scenario.model : entry),
          ...c.modelConfig,
        };
      }
    }
    return { ...row, scenario };
  });
  return { rows: out, why };
}

export interface RowResult {
  readonly id: string;
  readonly dataset: string;
  readonly quality: string;
  readonly metric: string;
  readonly measuredBytes: number | null;
  readonly predictedBytes: number | null;
  /** (predicted − measured) / measured. */
  readonly error: number | null;
  readonly outcome: 'ok' | 'oom';
  /** For OOM rows: whether the estimate says it does not fit the row's GPU. */
  readonly oomPredicted: boolean | null;
  /** In the target set: quality high or medium, unambiguous units, a method the estimator models. */
  readonly inTarget: boolean;
  /** The source reports the same value for a different GPU count of the same setup. */
  readonly duplicateAcrossGpuCounts: boolean;
  /** The measured peak is below the weights, gradients and optimizer states the scenario must hold at its optimizer step. */
  readonly belowModelStateFloor: boolean;
  readonly skipped: string | null;
  readonly summary: string;
  /** The row's framework as its scenario names it (null when it names none) and its method: its kind for `upper`. */
  readonly framework: string | null;
  readonly method: string;
  /** One GPU or several, as the row's scenario (with its errata) says. */
  readonly layout: UpperLayout;
  /** The source a held-out check leaves out: the dataset, with the H200 harness split by run (sourceOf). */
  readonly source: string;
  /** The estimate's three peaks; null when the row was not estimated. */
  readonly peak: PeakLevels | null;
  /** The estimate's paged optimizer states (nvidia-smi's level; upper.ts leaves them unscaled). */
  readonly pagedBytes: number;
  /** The estimate's upper bound at the row's level (Estimate.upper, from the committed table). */
  readonly upperBytes: number | null;
  /**
   * The peaks of the scenario on each older install the estimate's upper bound also covers (a version
   * the profile assumed at today's release: olderInstallAlternatives), so a held-out bound is taken
   * over the same scenarios as the estimator's own.
   */
  readonly alternatives: readonly { readonly peak: PeakLevels; readonly pagedBytes: number }[];
}

export interface Stats {
  readonly rows: number;
  readonly medianAbsError: number;
  readonly p90AbsError: number;
  readonly underBeyond5: number;
  readonly oomRows: number;
  readonly oomPredicted: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Median and p90 of |error|, the share under-estimated by more than 5 %, and the OOM rows predicted. */
export function stats(results: readonly RowResult[]): Stats {
  const errors = results
    .filter((r) => r.error !== null)
    .map((r) => Math.abs(r.error!))
    .sort((a, b) => a - b);
  const withError = results.filter((r) => r.error !== null);
  const oom = results.filter((r) => r.outcome === 'oom' && r.oomPredicted !== null);
  return {
    rows: withError.length,
    medianAbsError: quantile(errors, 0.5),
    p90AbsError: quantile(errors, 0.9),
    underBeyond5:
      withError.length === 0 ? 0 : withError.filter((r) => r.error! < -0.05).length / withError.length,
    oomRows: oom.length,
    oomPredicted: oom.filter((r) => r.oomPredicted).length,
  };
}

function describe(s: Record<string, unknown>): string {
  const lora = s.lora as { rank?: number } | undefined;
  const par = s.parallelism as { strategy?: string; gpus?: number } | undefined;
  const model =
    typeof s.model === 'object' && s.model !== null
      ? `${String((s.model as { id?: unknown }).id ?? 'inline config')} (config patched)`
      : s.model;
  return [
    model,
    s.method,
    lora?.rank ? `r${lora.rank}` : '',
    s.quantization && s.quantization !== 'none' ? s.quantization : '',
    s.precision,
    `b${s.microBatchSize ?? 1}×${s.seqLen ?? 2048}`,
    s.gradientCheckpointing && s.gradientCheckpointing !== 'none' ? `ckpt-${s.gradientCheckpointing}` : '',
    par && par.strategy !== 'single' ? `${par.strategy}×${par.gpus}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Runs every row through the estimator. */
export function evaluateRows(rows: readonly AccuracyRow[]): RowResult[] {
  const key = (row: AccuracyRow): string => {
    const { parallelism: _p, gradientCheckpointing: _g, ...rest } = row.scenario;
    return `${row.source.dataset}|${row.measured.peakBytes}|${JSON.stringify(rest)}`;
  };
  const seen = new Map<string, number>();
  for (const row of rows)
    if (row.measured.peakBytes !== null) seen.set(key(row), (seen.get(key(row)) ?? 0) + 1);
  return rows.map((row) => {
    const dataset = row.source.dataset ?? row.source.ref ?? 'unknown';
    const base = {
      id: row.id,
      dataset,
      source: sourceOf(row.id, dataset),
      framework: typeof row.scenario.framework === 'string' ? row.scenario.framework : null,
      method: typeof row.scenario.method === 'string' ? row.scenario.method : 'full',
      layout:
        ((row.scenario.parallelism as { gpus?: number } | undefined)?.gpus ?? 1) > 1
          ? ('multi' as const)
          : ('single' as const),
      quality: row.source.quality,
      metric: row.measured.metric,
      measuredBytes: row.measured.peakBytes,
      outcome: row.measured.outcome,
      summary: describe(row.scenario),
      duplicateAcrossGpuCounts:
        row.measured.peakBytes !== null &&
        (seen.get(key(row)) ?? 0) > 1 &&
        ((row.scenario.parallelism as { gpus?: number } | undefined)?.gpus ?? 1) > 1,
    };
    const targetQuality =
      (row.source.quality === 'high' || row.source.quality === 'medium') && !row.measured.unitAmbiguous;
    try {
      // A row measured by our own harness names the bitsandbytes it ran with; that decides what a 4-bit
      // base kept (the harness frees each step's graph after backward, as the Hugging Face Trainer does).
      const scenario = withBitsandbytes(
        parseScenario(scenarioOf(row)),
        row.source.harness?.packages?.bitsandbytes ?? null,
      ).scenario;
      const model = resolveModelRef(scenario.model);
      if (!model) throw new Error(`model ${String(scenario.model)} not in catalog`);
      const gpu = scenario.gpu ? findGpu(scenario.gpu) : undefined;
      const result = estimate({ scenario, shape: model.shape, gpu: gpu ?? null });
      const alternatives = olderInstallAlternatives(scenario).map((older) => {
        const other = estimate({ scenario: older, shape: model.shape, gpu: null });
        return { peak: other.peak, pagedBytes: other.breakdown.pagedOptimizerBytes };
      });
      const at = (levels: PeakLevels): number =>
        row.measured.metric === 'allocated'
          ? levels.allocatedBytes
          : row.measured.metric === 'reserved'
            ? levels.reservedBytes
            : levels.deviceBytes;
      const level = at(result.peak);
      const measured = row.measured.peakBytes;
      const floor =
        result.breakdown.weightsBytes! + result.breakdown.gradientsBytes! + result.breakdown.optimizerBytes!;
      return {
        ...base,
        belowModelStateFloor: measured !== null && measured < floor,
        predictedBytes: level,
        peak: result.peak,
        pagedBytes: result.breakdown.pagedOptimizerBytes,
        upperBytes: at(result.upper),
        alternatives,
        error: measured === null ? null : (level - measured) / measured,
        oomPredicted: row.measured.outcome === 'oom' && result.fits ? !result.fits.ok : null,
        inTarget: targetQuality,
        skipped: null,
      };
    } catch (error) {
      const reason = isUserError(error) ? error.message : String(error);
      return {
        ...base,
        belowModelStateFloor: false,
        predictedBytes: null,
        peak: null,
        pagedBytes: 0,
        upperBytes: null,
        alternatives: [],
        error: null,
        oomPredicted: null,
        inTarget: false,
        skipped: reason,
      };
    }
  });
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const gb = (x: number | null): string => (x === null ? '—' : (x / 1e9).toFixed(2));

/** The same rows, evaluated as published and as a user gives them (the row's scenario with the row errata). */
export interface AccuracyRun {
  readonly published: readonly RowResult[];
  /** As a user gives it: the row's scenario (framework, versions, padding as the row states) with the errata. */
  readonly corrected: readonly RowResult[];
  /** Row id → why its scenario was corrected. */
  readonly why: ReadonlyMap<string, string>;
  readonly corrections: readonly Correction[];
}

/** Evaluates the rows as published and as a user gives them (errata applied). */
export function runAccuracy(rows: readonly AccuracyRow[], corrections: readonly Correction[]): AccuracyRun {
  const fixed = applyCorrections(rows, corrections);
  return { published: evaluateRows(rows), corrected: evaluateRows(fixed.rows), why: fixed.why, corrections };
}

const errorCell = (r: RowResult): string =>
  r.error === null
    ? r.oomPredicted === null
      ? '—'
      : r.oomPredicted
        ? 'predicted OOM'
        : 'MISSED OOM'
    : pct(r.error);

/** The dataset name of the rows bench/gpu/measure.py writes, and the id prefixes of its later runs. */
export const HARNESS_DATASET = 'headroom H200 harness';
/** The files in bench/data that hold the harness's rows. */
export const HARNESS_ROWS_FILE = /^h200.*measurements\.jsonl$/;
const CHECK_RUN_PREFIX = 'h200c-';
/** Held-out runs: `h200h-` (holdout-scenarios.jsonl), `h200g-` (holdout2-scenarios.jsonl). */
const isHeldOut = (id: string): boolean => id.startsWith('h200h-') || id.startsWith('h200g-');

/**
 * A row's source for a held-out check: its dataset, and for the H200 harness the run it came from (the
 * grid, the check run, each held-out run), which were designed and measured apart.
 */
export function sourceOf(id: string, dataset: string): string {
  if (dataset !== HARNESS_DATASET) return dataset;
  if (id.startsWith(CHECK_RUN_PREFIX)) return 'H200 check run';
  if (id.startsWith('h200h-')) return 'H200 held-out run 1';
  if (id.startsWith('h200g-')) return 'H200 held-out run 2';
  return 'H200 grid run';
}

/** Peaks the estimator predicted for a scenario before it was measured (bench/gpu/results/holdout*-predictions.jsonl). */
export interface Preregistered {
  readonly id: string;
  readonly predicted: {
    readonly allocatedBytes: number;
    readonly reservedBytes: number;
    readonly deviceBytes: number;
  };
}

/** The harness rows scored against the predictions made before they were measured (ids without the metric letter). */
export function scorePreregistered(
  rows: readonly RowResult[],
  predictions: readonly Preregistered[],
): RowResult[] {
  const byId = new Map(predictions.map((p) => [p.id, p.predicted]));
  return rows.flatMap((r) => {
    const predicted = byId.get(r.id.slice(0, -1));
    const level = `${r.metric}Bytes` as keyof Preregistered['predicted'];
    if (!predicted || r.measuredBytes === null || !(level in predicted)) return [];
    const bytes = predicted[level];
    return [{ ...r, predictedBytes: bytes, error: (bytes - r.measuredBytes) / r.measuredBytes }];
  });
}

/** What the allocator run's notes say it set: bench/gpu/measure.py records PYTORCH_CUDA_ALLOC_CONF there. */
export const EXPANDABLE_NOTE = 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True';

/** The allocator run (bench/gpu/device-expandable.sh): the same scenarios with each allocator setting. */
export interface AllocatorRuns {
  readonly defaultAllocator: readonly RowResult[];
  /** Estimated with `expandableSegments`, as the runs were set up. */
  readonly expandable: readonly RowResult[];
  /** The same rows estimated as if the default allocator ran them. */
  readonly expandableAsDefault: readonly RowResult[];
}

/**
 * Scores the allocator run's rows: the expandable ones once with `expandableSegments` (which their notes
 * record) and once without it, so the table shows what the field is worth.
 */
export function evaluateAllocatorRuns(
  defaultRows: readonly AccuracyRow[],
  expandableRows: readonly AccuracyRow[],
): AllocatorRuns {
  const withField = expandableRows.map((row) =>
    row.source.notes?.includes(EXPANDABLE_NOTE)
      ? { ...row, scenario: { ...row.scenario, expandableSegments: true } }
      : row,
  );
  return {
    defaultAllocator: evaluateRows(defaultRows),
    expandable: evaluateRows(withField),
    expandableAsDefault: evaluateRows(expandableRows),
  };
}

/** Renders the per-source and overall figures for the terminal and as markdown. */
export function renderAccuracyReport(
  run: AccuracyRun,
  sources: readonly string[],
  preregistered: readonly Preregistered[] = [],
  allocatorRuns: AllocatorRuns | null = null,
  /** The section on the upper bound (upper-lib.ts, renderUpperSection), placed after the overall table. */
  upperSection = '',
): { terminal: string; markdown: string } {
  const { why } = run;
  // The issue's targets are on the shared validation set; Headroom's own H200 rows are reported apart.
  const results = run.published.filter((r) => r.dataset !== HARNESS_DATASET);
  const corrected = run.corrected.filter((r) => r.dataset !== HARNESS_DATASET);
  const harness = run.published.filter((r) => r.dataset === HARNESS_DATASET && r.skipped === null);
  const target = results.filter((r) => r.inTarget);
  const correctedTarget = corrected.filter((r) => r.inTarget);
  const groups = (rs: readonly RowResult[]) => {
    const out = new Map<string, RowResult[]>();
    for (const r of rs) out.set(r.dataset, [...(out.get(r.dataset) ?? []), r]);
    return out;
  };
  const line = (label: string, s: Stats): string =>
    `| ${label} | ${s.rows} | ${Number.isNaN(s.medianAbsError) ? '—' : pct(s.medianAbsError)} | ${Number.isNaN(s.p90AbsError) ? '—' : pct(s.p90AbsError)} | ${pct(s.underBeyond5)} | ${s.oomRows === 0 ? '—' : `${s.oomPredicted}/${s.oomRows}`} |`;
  const header =
    '| rows | n | median abs error | p90 abs error | under-estimated > 5 % | OOM rows predicted not to fit |\n|---|---|---|---|---|---|';
  const floorRows = correctedTarget.filter((r) => r.belowModelStateFloor).length;
  const overall = [
    header,
    line('**target set as published** (quality high/medium, unambiguous units)', stats(target)),
    line(
      `**target set as a user gives it** (the row's framework, versions and padding; errata of ${why.size} rows, bench/data/corrections.json)`,
      stats(correctedTarget),
    ),
    line(
      `… without the ${floorRows} rows measured below their own model-state floor`,
      stats(correctedTarget.filter((r) => !r.belowModelStateFloor)),
    ),
    line(
      'all rows with a value (any quality), as published',
      stats(results.filter((r) => r.skipped === null)),
    ),
    line(
      'all rows with a value (any quality), as a user gives it',
      stats(corrected.filter((r) => r.skipped === null)),
    ),
  ].join('\n');
  const harnessTable = [
    header,
    line('**H200 harness, every row**', stats(harness)),
    ...(['allocated', 'reserved', 'device'] as const).map((metric) =>
      line(`${metric} rows`, stats(harness.filter((r) => r.metric === metric))),
    ),
    line(
      'grid run (bench/gpu/grid.py)',
      stats(harness.filter((r) => !r.id.startsWith(CHECK_RUN_PREFIX) && !isHeldOut(r.id))),
    ),
    line(
      'check run (bench/gpu/check-scenarios.jsonl: four architectures and setups the grid lacks)',
      stats(harness.filter((r) => r.id.startsWith(CHECK_RUN_PREFIX))),
    ),
    line(
      'held-out runs (bench/gpu/holdout*-scenarios.jsonl), by the estimator of today',
      stats(harness.filter((r) => isHeldOut(r.id))),
    ),
    ...(preregistered.length > 0
      ? [
          line(
            'held-out runs, as predicted before they were measured (bench/gpu/results/holdout*-predictions.jsonl)',
            stats(scorePreregistered(harness, preregistered)),
          ),
          line(
            '… the same, allocated rows only',
            stats(scorePreregistered(harness, preregistered).filter((r) => r.metric === 'allocated')),
          ),
        ]
      : []),
    ...(allocatorRuns
      ? (['reserved', 'device'] as const).flatMap((metric) => {
          const of = (rs: readonly RowResult[]) => stats(rs.filter((r) => r.metric === metric));
          return [
            line(`allocator run, default allocator, ${metric} rows`, of(allocatorRuns.defaultAllocator)),
            line(
              `allocator run, expandable segments, ${metric} rows, estimated with \`expandableSegments\` (its 7.8 % share comes from these runs)`,
              of(allocatorRuns.expandable),
            ),
            line(
              `… the same rows estimated as if the default allocator ran them`,
              of(allocatorRuns.expandableAsDefault),
            ),
          ];
        })
      : []),
  ].join('\n');
  const perSource = [
    header.replace('| rows |', '| source (target rows, as published) |'),
    ...[...groups(results).entries()].map(([name, rows]) =>
      line(name, stats(rows.filter((r) => r.inTarget))),
    ),
    '',
    header.replace('| rows |', '| source (target rows, as a user gives it) |'),
    ...[...groups(corrected).entries()].map(([name, rows]) =>
      line(name, stats(rows.filter((r) => r.inTarget))),
    ),
    '',
    header.replace('| rows |', '| source (all rows, as published) |'),
    ...[...groups(results).entries()].map(([name, rows]) =>
      line(name, stats(rows.filter((r) => r.skipped === null))),
    ),
  ].join('\n');
  const skipped = results.filter((r) => r.skipped !== null);
  const correctedById = new Map(corrected.map((r) => [r.id, r]));
  const rowsTable = [
    '| id | source | scenario | metric | measured GB | estimated GB | error | in target |',
    '|---|---|---|---|---|---|---|---|',
    ...results
      .filter((r) => r.skipped === null)
      .map((r) => {
        const c = correctedById.get(r.id);
        const fix =
          why.has(r.id) && c
            ? ` with errata: ${c.summary} → ${gb(c.predictedBytes)} GB, ${errorCell(c)} (${why.get(r.id)})`
            : '';
        return `| ${r.id} | ${r.dataset} | ${r.summary} | ${r.metric} | ${r.outcome === 'oom' ? 'OOM' : gb(r.measuredBytes)} | ${gb(r.predictedBytes)} | ${errorCell(r)} | ${r.inTarget ? 'yes' : ''}${r.duplicateAcrossGpuCounts ? ' (repeats 1-GPU value)' : ''}${r.belowModelStateFloor ? ' (below model-state floor)' : ''}${fix} |`;
      }),
  ].join('\n');
  const targets = `Targets on the target set: median ≤ 5 %, p90 ≤ 15 %, under-estimates beyond 5 % on ≤ 10 % of rows, every OOM row predicted not to fit.`;
  const markdown = [
    '# Estimator accuracy',
    '',
    `Generated by \`npm run bench:accuracy\` from ${sources.map((s) => `\`${s}\``).join(', ')}. Error = (estimate − measured) / measured, on the level each row measured.`,
    '',
    targets,
    '',
    '## Overall',
    '',
    overall,
    '',
    ...(upperSection
      ? [
          '## As a user gives it, and the upper bound',
          '',
          'The rows the upper-bound table is built from (`npm run upper:build`; src/core/estimate/upper-table.ts): the target set as a user gives it and the H200 harness rows. "Under upper" is the share whose measured peak is at or under the estimate\'s `upper` at its level: with the committed table (in-sample), and with the table rebuilt without the row\'s source (held out, the honest figure). Targets: under upper on ≥ 90 % of rows at a median upper ÷ estimate ≤ 1.25.',
          '',
          upperSection,
          '',
        ]
      : []),
    "## Headroom's H200 harness (bench/gpu)",
    '',
    'Random-weight models trained three steps on one H200 by `bench/gpu/measure.py` (torch 2.11, transformers 5.17, peft 0.21): every scenario measured at all three levels. Not part of the target set above; reported apart so that the two can be compared.',
    '',
    harnessTable,
    '',
    '## Per source',
    '',
    perSource,
    '',
    '## Errata',
    '',
    "Rows whose own source contradicts the scenario they were given (a device count, a batch setting, a config value the run's files state). The measured values are untouched; only the scenario fields named here are replaced. Facts about what a framework does are not errata: the framework profiles (src/core/frameworks/) derive them from the row's `framework` and `versions`.",
    '',
    ...run.corrections.map(
      (c) =>
        `- ${c.ids.join(', ')}: ${[
          ...Object.entries(c.set ?? {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
          ...Object.entries(c.merge ?? {}).flatMap(([field, fields]) =>
            Object.entries(fields).map(([k, v]) => `${field}.${k} = ${JSON.stringify(v)}`),
          ),
          ...Object.entries(c.modelConfig ?? {}).map(([k, v]) => `model config ${k} = ${JSON.stringify(v)}`),
        ].join('; ')}. Why: ${c.why}. Source: ${c.evidence}.`,
    ),
    '',
    `## Rows not estimated (${skipped.length})`,
    '',
    ...skipped.map((r) => `- ${r.id} (${r.dataset}): ${r.skipped}`),
    '',
    '## Every row',
    '',
    rowsTable,
    '',
  ].join('\n');
  const terminal = [
    targets,
    '',
    overall,
    '',
    ...(upperSection ? [upperSection, ''] : []),
    harnessTable,
    '',
    perSource,
    '',
    `${skipped.length} rows not estimated (peft-other and similar); see bench/results/accuracy.md`,
  ].join('\n');
  return { terminal, markdown };
}

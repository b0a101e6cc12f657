/** The accuracy benchmark's arithmetic, kept apart from file reading so tests can check it. */
import { findGpu } from '../src/core/catalog/index.js';
import { isUserError } from '../src/core/errors.js';
import { estimate } from '../src/core/estimate.js';
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
  readonly source: { readonly quality: string; readonly dataset?: string; readonly ref?: string };
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
  return [
    s.model,
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
      const scenario = parseScenario(row.scenario);
      const model = resolveModelRef(scenario.model);
      if (!model) throw new Error(`model ${String(scenario.model)} not in catalog`);
      const gpu = scenario.gpu ? findGpu(scenario.gpu) : undefined;
      const result = estimate({ scenario, shape: model.shape, gpu: gpu ?? null });
      const level =
        row.measured.metric === 'allocated'
          ? result.peak.allocatedBytes
          : row.measured.metric === 'reserved'
            ? result.peak.reservedBytes
            : result.peak.deviceBytes;
      const measured = row.measured.peakBytes;
      const floor =
        result.breakdown.weightsBytes! + result.breakdown.gradientsBytes! + result.breakdown.optimizerBytes!;
      return {
        ...base,
        belowModelStateFloor: measured !== null && measured < floor,
        predictedBytes: level,
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

/** Renders the per-source and overall figures for the terminal and as markdown. */
export function renderAccuracyReport(
  results: readonly RowResult[],
  sources: readonly string[],
): { terminal: string; markdown: string } {
  const target = results.filter((r) => r.inTarget);
  const groups = new Map<string, RowResult[]>();
  for (const r of results) groups.set(r.dataset, [...(groups.get(r.dataset) ?? []), r]);
  const line = (label: string, s: Stats): string =>
    `| ${label} | ${s.rows} | ${Number.isNaN(s.medianAbsError) ? '—' : pct(s.medianAbsError)} | ${Number.isNaN(s.p90AbsError) ? '—' : pct(s.p90AbsError)} | ${pct(s.underBeyond5)} | ${s.oomRows === 0 ? '—' : `${s.oomPredicted}/${s.oomRows}`} |`;
  const header =
    '| rows | n | median abs error | p90 abs error | under-estimated > 5 % | OOM rows predicted not to fit |\n|---|---|---|---|---|---|';
  const t = stats(target);
  const clean = stats(target.filter((r) => !r.duplicateAcrossGpuCounts && !r.belowModelStateFloor));
  const overall = [
    header,
    line('**target set** (quality high/medium, unambiguous units)', t),
    line(
      'target set without self-contradicting rows (value repeats the 1-GPU run, or below the model-state floor)',
      clean,
    ),
    line('all rows with a value (any quality)', stats(results.filter((r) => r.skipped === null))),
  ].join('\n');
  const perSource = [
    header.replace('| rows |', '| source (target rows) |'),
    ...[...groups.entries()].map(([name, rows]) => line(name, stats(rows.filter((r) => r.inTarget)))),
    '',
    header.replace('| rows |', '| source (all rows) |'),
    ...[...groups.entries()].map(([name, rows]) => line(name, stats(rows.filter((r) => r.skipped === null)))),
  ].join('\n');
  const skipped = results.filter((r) => r.skipped !== null);
  const rowsTable = [
    '| id | source | scenario | metric | measured GB | estimated GB | error | in target |',
    '|---|---|---|---|---|---|---|---|',
    ...results
      .filter((r) => r.skipped === null)
      .map(
        (r) =>
          `| ${r.id} | ${r.dataset} | ${r.summary} | ${r.metric} | ${r.outcome === 'oom' ? 'OOM' : gb(r.measuredBytes)} | ${gb(r.predictedBytes)} | ${r.error === null ? (r.oomPredicted === null ? '—' : r.oomPredicted ? 'predicted OOM' : 'MISSED OOM') : pct(r.error)} | ${r.inTarget ? 'yes' : ''}${r.duplicateAcrossGpuCounts ? ' (repeats 1-GPU value)' : ''}${r.belowModelStateFloor ? ' (below model-state floor)' : ''} |`,
      ),
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
    '## Per source',
    '',
    perSource,
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
    perSource,
    '',
    `${skipped.length} rows not estimated (peft-other and similar); see bench/results/accuracy.md`,
  ].join('\n');
  return { terminal, markdown };
}

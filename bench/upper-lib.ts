/**
 * The upper bound's arithmetic on measured rows (src/core/estimate/upper.ts): which rows speak for the
 * estimator's error, the table they give (scripts/build-upper-table.ts writes it), and how often the
 * measured peak stays under the bound, in the table's own rows and held out source by source.
 */
import {
  buildUpperTable,
  type UpperLevel,
  type UpperSample,
  type UpperTable,
  upperOfSetup,
  upperSampleRatio,
} from '../src/core/estimate/upper.js';
import { UPPER_TABLE } from '../src/core/estimate/upper-table.js';
import type { PeakLevels } from '../src/core/estimate.js';
import { HARNESS_DATASET, type RowResult, type Stats, stats } from './accuracy-lib.js';

/**
 * Whether a row speaks for the estimator's error: estimated, measured (not an OOM), and from the H200
 * harness or the target set (quality high or medium, unambiguous units), not a repeated 1-GPU value
 * and not measured below its own model-state floor (a misreported row, not an estimate's error).
 */
export function isUpperRow(r: RowResult): boolean {
  if (r.skipped !== null || r.peak === null || r.measuredBytes === null || r.outcome !== 'ok') return false;
  if (r.dataset === HARNESS_DATASET) return true;
  return r.inTarget && !r.duplicateAcrossGpuCounts && !r.belowModelStateFloor;
}

const levelOf = (r: RowResult): UpperLevel => r.metric as UpperLevel;

const atLevel = (peak: PeakLevels, level: UpperLevel): number =>
  level === 'allocated' ? peak.allocatedBytes : level === 'reserved' ? peak.reservedBytes : peak.deviceBytes;

/**
 * The rows' errors as the table reads them: measured ÷ estimated at the level each row measured. A row
 * whose bound is also taken over older installs (versions it does not give) is measured against the
 * highest of those estimates, because that is what its bound scales (pipeline.ts: the bound is the
 * higher of the row's and each older install's); its own point would count the version's gap twice.
 */
export function upperSamples(results: readonly RowResult[]): UpperSample[] {
  return results.filter(isUpperRow).map((r) => {
    const level = levelOf(r);
    let estimated = r.predictedBytes!;
    let paged = r.pagedBytes;
    for (const a of r.alternatives) {
      if (atLevel(a.peak, level) > estimated) {
        estimated = atLevel(a.peak, level);
        paged = a.pagedBytes;
      }
    }
    return {
      framework: r.framework,
      method: r.method,
      layout: r.layout,
      level,
      ratio: upperSampleRatio(level, r.measuredBytes!, estimated, paged),
      source: r.source,
    };
  });
}

/** The rows the table is built from, deduplicated by id (the harness rows appear in both evaluations). */
export function tableRows(results: readonly RowResult[]): RowResult[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    if (!isUpperRow(r) || seen.has(r.id)) return false;
    seen.add(r.id);
    return true;
  });
}

/** The row's upper bound at its level from `table`. */
export function upperOfRow(r: RowResult, table: UpperTable): number {
  const level = levelOf(r);
  const at = (peak: PeakLevels, pagedBytes: number): number =>
    atLevel(upperOfSetup(r, peak, pagedBytes, table), level);
  // Over the row's scenario and its older installs, as the estimator takes it (pipeline.ts).
  return Math.max(at(r.peak!, r.pagedBytes), ...r.alternatives.map((a) => at(a.peak, a.pagedBytes)));
}

/** How a bound did on some rows: how many, the share whose measured peak it covers, its median width. */
export interface UpperStats {
  readonly rows: number;
  /** Share of rows whose measured peak is at or under the bound. */
  readonly covered: number;
  /** Median of upper ÷ estimate. */
  readonly medianWidth: number;
}

/** The median, halfway between the middle two of an even count; NaN of none. */
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  return (s[Math.floor(mid)]! + s[Math.ceil(mid)]!) / 2;
};

/** The bound's coverage and width on rows, with each row's bound from `boundOf`. */
export function upperStats(rows: readonly RowResult[], boundOf: (r: RowResult) => number): UpperStats {
  const used = rows.filter((r) => r.peak !== null && r.measuredBytes !== null && r.predictedBytes! > 0);
  const bounds = used.map((r) => ({ r, bound: boundOf(r) }));
  return {
    rows: used.length,
    covered:
      used.length === 0
        ? Number.NaN
        : bounds.filter((b) => b.r.measuredBytes! <= b.bound).length / used.length,
    medianWidth: median(bounds.map((b) => b.bound / b.r.predictedBytes!)),
  };
}

/**
 * Leave one source out: for each source, the table built without its rows, and each of its rows' bound
 * from that table. The held-out figure: no row's own error sets its bound.
 */
export function leaveOneSourceOut(rows: readonly RowResult[]): Map<string, number> {
  const bySource = new Map<string, RowResult[]>();
  for (const r of rows) bySource.set(r.source, [...(bySource.get(r.source) ?? []), r]);
  const out = new Map<string, number>();
  for (const [source, own] of bySource) {
    const table = buildUpperTable(upperSamples(rows.filter((r) => r.source !== source)));
    for (const r of own) out.set(r.id, upperOfRow(r, table));
  }
  return out;
}

const pct = (x: number): string => (Number.isNaN(x) ? '—' : `${(x * 100).toFixed(1)} %`);
const times = (x: number): string => (Number.isNaN(x) ? '—' : `${x.toFixed(3)}×`);

/**
 * The report's section on the target set as a user gives it, with the bound: per framework and per
 * source, the error figures, the share of rows under the committed upper (in-sample), the share under
 * the upper held out by source, and the median upper ÷ estimate.
 */
export function renderUpperSection(userGiven: readonly RowResult[], harness: readonly RowResult[]): string {
  const rows = tableRows([...userGiven, ...harness]);
  const held = leaveOneSourceOut(rows);
  const committed = (r: RowResult) => r.upperBytes!;
  const heldOut = (r: RowResult) => held.get(r.id)!;
  const header =
    '| n | median abs error | p90 abs error | under-estimated > 5 % | under upper (committed table) | under upper, source held out | median upper ÷ estimate (held out) |\n|---|---|---|---|---|---|---|---|';
  const line = (label: string, rs: readonly RowResult[]): string => {
    const s: Stats = stats(rs);
    const inSample = upperStats(rs, committed);
    const out = upperStats(rs, heldOut);
    return `| ${label} | ${s.rows} | ${pct(s.medianAbsError)} | ${pct(s.p90AbsError)} | ${pct(s.underBeyond5)} | ${pct(inSample.covered)} | ${pct(out.covered)} | ${times(out.medianWidth)} |`;
  };
  const group = (rs: readonly RowResult[], key: (r: RowResult) => string) => {
    const m = new Map<string, RowResult[]>();
    for (const r of rs) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  };
  const shared = rows.filter((r) => r.dataset !== HARNESS_DATASET);
  const ownRows = rows.filter((r) => r.dataset === HARNESS_DATASET);
  const fresh = JSON.stringify(buildUpperTable(upperSamples(rows))) === JSON.stringify(UPPER_TABLE);
  return [
    fresh
      ? `The committed table (src/core/estimate/upper-table.ts) is what \`npm run upper:build\` builds from these ${rows.length} rows today.`
      : `**The committed table is stale**: \`npm run upper:build\` would build another from these ${rows.length} rows; run it, then this benchmark.`,
    '',
    `| rows ${header}`,
    line('**target set as a user gives it**', shared),
    line('H200 harness rows', ownRows),
    line('both (the rows the table is built from)', rows),
    ...(['allocated', 'reserved', 'device'] as const).map((level) =>
      line(
        `target set, ${level} rows`,
        shared.filter((r) => r.metric === level),
      ),
    ),
    '',
    `| framework (target set as a user gives it) ${header}`,
    ...group(shared, (r) => r.framework ?? '(none named)').map(([name, rs]) => line(name, rs)),
    '',
    `| source (held out as one) ${header}`,
    ...group(rows, (r) => r.source).map(([name, rs]) => line(name, rs)),
  ].join('\n');
}

/**
 * Writes src/core/estimate/upper-table.ts: the estimator's own error on measured runs, per kind of setup
 * (framework × method × layout at each level; upper.ts). Every row of the validation set (as a user gives it: the row's scenario with the errata of
 * bench/data/corrections.json) and of Headroom's H200 runs (bench/data/h200-*measurements.jsonl) goes
 * through the estimator; for each kind (framework × method × level, and the coarser kinds) with enough
 * rows, the 90th percentile of measured ÷ estimate, never below 1. Deterministic: the same rows and
 * estimator give the same file. Run: npm run upper:build (then npm run bench:accuracy).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyCorrections, evaluateRows } from '../bench/accuracy-lib.js';
import { measurementSources, ROOT, readCorrections, readRows, shortPath } from '../bench/rows.js';
import { tableRows, upperSamples } from '../bench/upper-lib.js';
import { buildUpperTable } from '../src/core/estimate/upper.js';

const sources = measurementSources();
const corrections = readCorrections();
const rows = applyCorrections(sources.flatMap(readRows), corrections).rows;
const used = tableRows(evaluateRows(rows));
const table = buildUpperTable(upperSamples(used));
const digest = (path: string): string =>
  createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12);
const inputs = [...sources, join(ROOT, 'bench', 'data', 'corrections.json')]
  .map((p) => ` *   ${shortPath(p)} (sha256 ${digest(p)})`)
  .join('\n');
const entries = Object.entries(table.kinds)
  .map(([key, v]) => `    '${key}': { rows: ${v.rows}, sources: ${v.sources}, ratio: ${v.ratio} },`)
  .join('\n');
const text = `// Written by \`npm run upper:build\` (scripts/build-upper-table.ts) from the measured rows; change those, then rerun it.
// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: measured ratios, not constants of mathematics
/**
 * The estimator's own error on measured runs, per kind of setup: for each framework × method × layout
 * (one GPU or several) at each level, and the coarser kinds (upper.ts, upperKinds), with at least
 * ${table.minRows} rows from ${table.minSources} sources: each source's ${table.quantile * 100}th percentile (nearest rank) of its rows'
 * measured ÷ estimate, then the conformal rank of those over the kind's sources (upper.ts, sourceQuantile: the highest, with
 * fewer than nineteen), never below 1. Not a per-row fit: every row of a kind shares one ratio, and the estimator's
 * terms are untouched. upper.ts reads it (Estimate.upper); docs/memory-model.md, "The upper bound".
 *
 * Built from ${used.length} measured rows (${used.filter((r) => r.source.startsWith('H200')).length} of them Headroom's H200 runs), each through the estimator of the
 * commit that ran the script, as a user gives it (the row's scenario, framework, versions and padding,
 * with the row errata of bench/data/corrections.json), from:
${inputs}
 */
// No import: upper.ts reads this table and types it (UpperTable).
export const UPPER_TABLE = {
  quantile: ${table.quantile},
  minRows: ${table.minRows},
  minSources: ${table.minSources},
  kinds: {
${entries}
  },
};
`;
const out = join(ROOT, 'src', 'core', 'estimate', 'upper-table.ts');
writeFileSync(out, text);
console.log(`wrote ${shortPath(out)}: ${Object.keys(table.kinds).length} kinds from ${used.length} rows`);

// Written by `npm run upper:build` (scripts/build-upper-table.ts) from the measured rows; change those, then rerun it.
// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: measured ratios, not constants of mathematics
/**
 * The estimator's own error on measured runs, per kind of setup: for each framework × method × layout
 * (one GPU or several) at each level, and the coarser kinds (upper.ts, upperKinds), with at least
 * 10 rows from 3 sources: each source's 90th percentile (nearest rank) of its rows'
 * measured ÷ estimate, then the conformal rank of those over the kind's sources (upper.ts, sourceQuantile: the highest, with
 * fewer than nineteen), never below 1. Not a per-row fit: every row of a kind shares one ratio, and the estimator's
 * terms are untouched. upper.ts reads it (Estimate.upper); docs/memory-model.md, "The upper bound".
 *
 * Built from 372 measured rows (273 of them Headroom's H200 runs), each through the estimator of the
 * commit that ran the script, as a user gives it (the row's scenario, framework, versions and padding,
 * with the row errata of bench/data/corrections.json), from:
 *   data/validation/measurements.jsonl (sha256 28e343697ad6)
 *   bench/data/h200-check-measurements.jsonl (sha256 77cdb402e25e)
 *   bench/data/h200-holdout-measurements.jsonl (sha256 522fe3bfef9b)
 *   bench/data/h200-holdout2-measurements.jsonl (sha256 3bc04320a1af)
 *   bench/data/h200-measurements.jsonl (sha256 50da3c32cda1)
 *   bench/data/corrections.json (sha256 3601e9719a55)
 */
// No import: upper.ts reads this table and types it (UpperTable).
export const UPPER_TABLE = {
  quantile: 0.9,
  minRows: 10,
  minSources: 3,
  kinds: {
    'any/any/any/allocated': { rows: 176, sources: 10, ratio: 1.151 },
    'any/any/any/device': { rows: 94, sources: 6, ratio: 1.283 },
    'any/any/any/reserved': { rows: 102, sources: 7, ratio: 1.289 },
    'any/any/multi/allocated': { rows: 15, sources: 3, ratio: 1.038 },
    'any/any/single/allocated': { rows: 161, sources: 9, ratio: 1.151 },
    'any/any/single/device': { rows: 91, sources: 4, ratio: 1.088 },
    'any/any/single/reserved': { rows: 102, sources: 7, ratio: 1.289 },
    'any/full/any/allocated': { rows: 63, sources: 7, ratio: 1.151 },
    'any/full/any/device': { rows: 49, sources: 4, ratio: 1.12 },
    'any/full/any/reserved': { rows: 50, sources: 5, ratio: 1.123 },
    'any/full/single/allocated': { rows: 59, sources: 7, ratio: 1.151 },
    'any/full/single/device': { rows: 49, sources: 4, ratio: 1.12 },
    'any/full/single/reserved': { rows: 50, sources: 5, ratio: 1.123 },
    'any/lora/any/allocated': { rows: 84, sources: 10, ratio: 1.054 },
    'any/lora/any/device': { rows: 39, sources: 4, ratio: 1.104 },
    'any/lora/any/reserved': { rows: 48, sources: 7, ratio: 1.109 },
    'any/lora/single/allocated': { rows: 73, sources: 9, ratio: 1.054 },
    'any/lora/single/device': { rows: 39, sources: 4, ratio: 1.104 },
    'any/lora/single/reserved': { rows: 48, sources: 7, ratio: 1.109 },
    'any/qlora/any/allocated': { rows: 26, sources: 4, ratio: 1.024 },
    'any/qlora/single/allocated': { rows: 26, sources: 4, ratio: 1.024 },
    'litgpt/any/any/allocated': { rows: 71, sources: 4, ratio: 1.04 },
    'litgpt/lora/any/allocated': { rows: 42, sources: 4, ratio: 1.054 },
    'litgpt/lora/single/allocated': { rows: 32, sources: 3, ratio: 1.054 },
  },
};

// Written by `npm run upper:build` (scripts/build-upper-table.ts) from the measured rows; change those, then rerun it.
// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: measured ratios, not constants of mathematics
/**
 * The estimator's own error on measured runs, per kind of setup: for each framework × method × layout
 * (one GPU or several) at each level, and the coarser kinds (upper.ts, upperKinds), with at least
 * 10 rows, the 90th percentile (nearest rank) of measured ÷ estimate over the rows of that
 * kind, never below 1. Not a per-row fit: every row of a kind shares one ratio, and the estimator's
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
  kinds: {
    'any/any/any/allocated': { rows: 176, ratio: 1.126 },
    'any/any/any/device': { rows: 94, ratio: 1.118 },
    'any/any/any/reserved': { rows: 102, ratio: 1.109 },
    'any/any/multi/allocated': { rows: 15, ratio: 1 },
    'any/any/single/allocated': { rows: 161, ratio: 1.127 },
    'any/any/single/device': { rows: 91, ratio: 1.103 },
    'any/any/single/reserved': { rows: 102, ratio: 1.109 },
    'any/full/any/allocated': { rows: 63, ratio: 1.038 },
    'any/full/any/device': { rows: 49, ratio: 1.152 },
    'any/full/any/reserved': { rows: 50, ratio: 1.143 },
    'any/full/single/allocated': { rows: 59, ratio: 1.04 },
    'any/full/single/device': { rows: 49, ratio: 1.152 },
    'any/full/single/reserved': { rows: 50, ratio: 1.143 },
    'any/lora/any/allocated': { rows: 84, ratio: 1.052 },
    'any/lora/any/device': { rows: 39, ratio: 1.08 },
    'any/lora/any/reserved': { rows: 48, ratio: 1.072 },
    'any/lora/multi/allocated': { rows: 11, ratio: 1 },
    'any/lora/single/allocated': { rows: 73, ratio: 1.054 },
    'any/lora/single/device': { rows: 39, ratio: 1.08 },
    'any/lora/single/reserved': { rows: 48, ratio: 1.072 },
    'any/qlora/any/allocated': { rows: 26, ratio: 1.31 },
    'any/qlora/single/allocated': { rows: 26, ratio: 1.31 },
    'litgpt/any/any/allocated': { rows: 71, ratio: 1.228 },
    'litgpt/lora/any/allocated': { rows: 42, ratio: 1.083 },
    'litgpt/lora/multi/allocated': { rows: 10, ratio: 1 },
    'litgpt/lora/single/allocated': { rows: 32, ratio: 1.126 },
    'litgpt/qlora/any/allocated': { rows: 24, ratio: 1.31 },
    'litgpt/qlora/single/allocated': { rows: 24, ratio: 1.31 },
    'torchtune/any/any/allocated': { rows: 14, ratio: 1.04 },
  },
};

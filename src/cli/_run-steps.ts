/**
 * What `runs show`, `run` and `watch` say about a run's steps, read from the ledger one row at a time:
 * whether memory grew, the per-step chart's columns and the per-rank table's rows. A run of 2,000,000
 * steps is read in two passes over its rows by step, in the memory of the chart and 16 bytes a step for
 * the growth check's medians (npm run bench:ledger-rows), never as an array of its records.
 */

import { rankStepPeaksByStep } from '../core/ranks.js';
import type { RunRecord } from '../core/run-record.js';
import { detectGrowthOf, type Growth, GrowthColumns, stepPeaksByStep } from '../core/run-summary.js';
import type { Ledger } from '../io/ledger.js';
import { type StepColumns, stepColumns } from './_chart.js';
import { type RankTable, rankTableRows } from './render-ranks.js';

export interface RunSteps {
  readonly growth: Growth;
  /** The per-step chart's columns, at most `chartWidth` of them; null without steps. */
  readonly chart: StepColumns | null;
  /** The per-rank table (a run of several ranks), else null. */
  readonly ranks: RankTable | null;
}

/** The growth of a run's per-step peaks, in one pass over its rows by step. */
export function runGrowth(ledger: Ledger, run: RunRecord): Growth {
  const growth = new GrowthColumns();
  for (const peak of stepPeaksByStep(ledger.rows.steps(run.id, 'step'))) growth.push(peak);
  return detectGrowthOf(growth);
}

/** The growth, the chart's columns and the per-rank table of a run, from the ledger. */
export function readRunSteps(ledger: Ledger, run: RunRecord, chartWidth: number): RunSteps {
  const growth = new GrowthColumns();
  const chart = stepColumns(run.steps, chartWidth);
  const peakStep = run.peakAllocated?.step ?? null;
  const reported = new Set<number>();
  let peakIndex = -1;
  let index = 0;
  // One pass: the growth columns, the chart, the ranks that reported steps and where the peak step is.
  for (const peak of stepPeaksByStep(
    (function* (rows) {
      for (const s of rows) {
        reported.add(s.rank);
        yield s;
      }
    })(ledger.rows.steps(run.id, 'step')),
  )) {
    growth.push(peak);
    chart.push({
      step: peak.step,
      allocatedBytes: peak.peakAllocatedBytes,
      reservedBytes: peak.peakReservedBytes,
    });
    if (peakIndex < 0 && peak.step === peakStep) peakIndex = index;
    index += 1;
  }
  let ranks: RankTable | null = null;
  if (run.ranks.length >= 2 && reported.size > 1) {
    // A second pass for the few steps the table shows.
    const ordered = [...reported].sort((a, b) => a - b);
    const picked = new Set(rankTableRows(index, peakIndex));
    const steps = [...rankStepPeaksByStep(ledger.rows.steps(run.id, 'step'), ordered, (i) => picked.has(i))];
    ranks = { ranks: ordered, total: index, steps };
  }
  return { growth: detectGrowthOf(growth), chart: chart.done(), ranks };
}

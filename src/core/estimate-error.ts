/**
 * How far an estimate was from what a run measured, with the one sign convention headroom states it in
 * everywhere (run, runs show, calibrate, diagnose, report, the dashboard):
 *
 *     error = (estimate − measured) / measured
 *
 * Negative: the estimate was too low — the run needed more than predicted, the dangerous side. Positive:
 * the estimate was too high. Divided by the measured figure, so "12 % under" is 12 % of what the run
 * really used. The words are src/words/estimate-error.ts's, English and Chinese.
 */

import { estimateErrorWords } from '../words/estimate-error.js';
import type { MessageCatalog } from './diagnose/messages.js';
import { EN } from './diagnose/messages.js';

/**
 * (estimate − measured) / measured; null when there is no measured figure to divide by.
 * @example estimateError(8 * GIB, 10 * GIB) // -0.2: the estimate was 20 % under the measured peak
 */
export function estimateError(estimatedBytes: number, measuredBytes: number | null): number | null {
  if (measuredBytes === null || !Number.isFinite(measuredBytes) || measuredBytes <= 0) return null;
  return (estimatedBytes - measuredBytes) / measuredBytes;
}

/** Which side of the measured peak the estimate fell, and by how many percent (one decimal). */
export interface EstimateErrorReading {
  readonly side: 'under' | 'over' | 'match';
  /** |error| in percent, rounded to one decimal; 0 for a match. */
  readonly percent: number;
}

/** The error as data for the words: under (too low), over (too high), or a match within 0.05 %. */
export function readEstimateError(error: number): EstimateErrorReading {
  const percent = Math.round(Math.abs(error) * 1000) / 10;
  if (percent === 0) return { side: 'match', percent: 0 };
  return { side: error < 0 ? 'under' : 'over', percent };
}

/**
 * @deprecated Issue #18: words belong to src/words — use `estimateErrorWords(readEstimateError(error),
 * lang)` from src/words/estimate-error.ts. Kept, with its signature, for the callers that still import
 * it from here (src/cli/render-run.ts, src/server/report-html.ts, web/src/pages/RunPage.tsx); the one
 * import from src/core into src/words, allowed by name in test/core-bundle.test.ts and
 * test/import-cycles.test.ts until the lead removes it.
 *
 * "estimate 12.0 % under the measured peak", "估算比实测峰值低 12.0 %".
 */
export function estimateErrorText(error: number, catalog: MessageCatalog = EN): string {
  return estimateErrorWords(readEstimateError(error), catalog.lang);
}

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

/**
 * Downsampling that keeps every peak. A chart is a few thousand pixels wide, so a 100 k-step run sends
 * more points than it can draw; averaging would hide the one step that ran out of memory. Each bucket of
 * consecutive points keeps its highest and lowest point of each series (min/max decimation, as
 * oscilloscopes draw), in time order, so the drawn envelope is the same as the full series'.
 */

/** Points kept by default: two per pixel of a wide chart. */
export const DEFAULT_MAX_POINTS = 4000;

/**
 * At most about `maxPoints` of `points` (already in time order): in each of maxPoints / (2 × series)
 * buckets, the point where each series is highest and where it is lowest. Shorter lists come back as
 * they are. A series value of null is skipped.
 */
export function keepPeaks<T>(
  points: readonly T[],
  series: readonly ((p: T) => number | null)[],
  maxPoints: number = DEFAULT_MAX_POINTS,
): T[] {
  if (points.length <= maxPoints || series.length === 0) return [...points];
  const columns = series.map((value) => points.map(value));
  return peakIndices(points.length, columns, maxPoints).map((i) => points[i]!);
}

/** A series as one value per point (null: no value there), e.g. a column of the run page's payload. */
export type SeriesColumn = ArrayLike<number | null>;

/**
 * keepPeaks over columns: the indices (ascending) of the points kept out of `length`, each column a
 * series with one value per point. Every index when `length` ≤ maxPoints. This is what thins a long
 * run's columnar chart payload without building an object per point.
 */
export function peakIndices(
  length: number,
  columns: readonly SeriesColumn[],
  maxPoints: number = DEFAULT_MAX_POINTS,
): number[] {
  if (length <= maxPoints || columns.length === 0) return Array.from({ length }, (_, i) => i);
  const perBucket = 2 * columns.length;
  const buckets = Math.max(1, Math.floor(maxPoints / perBucket));
  const kept: number[] = [];
  const picks: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * length) / buckets);
    const to = Math.floor(((b + 1) * length) / buckets);
    picks.length = 0;
    for (const column of columns) {
      let hi = -1;
      let lo = -1;
      let hiValue = Number.NEGATIVE_INFINITY;
      let loValue = Number.POSITIVE_INFINITY;
      for (let i = from; i < to; i++) {
        const v = column[i];
        if (v === null || v === undefined || Number.isNaN(v)) continue;
        if (v > hiValue) {
          hiValue = v;
          hi = i;
        }
        if (v < loValue) {
          loValue = v;
          lo = i;
        }
      }
      if (hi >= 0) picks.push(hi);
      if (lo >= 0) picks.push(lo);
    }
    if (picks.length === 0) picks.push(from);
    picks.sort((x, y) => x - y);
    for (let k = 0; k < picks.length; k++) if (k === 0 || picks[k] !== picks[k - 1]) kept.push(picks[k]!);
  }
  return kept;
}

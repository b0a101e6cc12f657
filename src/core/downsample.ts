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
  const perBucket = 2 * series.length;
  const buckets = Math.max(1, Math.floor(maxPoints / perBucket));
  const kept: T[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * points.length) / buckets);
    const to = Math.floor(((b + 1) * points.length) / buckets);
    const picks = new Set<number>();
    for (const value of series) {
      let hi = -1;
      let lo = -1;
      let hiValue = Number.NEGATIVE_INFINITY;
      let loValue = Number.POSITIVE_INFINITY;
      for (let i = from; i < to; i++) {
        const v = value(points[i]!);
        if (v === null || Number.isNaN(v)) continue;
        if (v > hiValue) {
          hiValue = v;
          hi = i;
        }
        if (v < loValue) {
          loValue = v;
          lo = i;
        }
      }
      if (hi >= 0) picks.add(hi);
      if (lo >= 0) picks.add(lo);
    }
    if (picks.size === 0) picks.add(from);
    for (const i of [...picks].sort((x, y) => x - y)) kept.push(points[i]!);
  }
  return kept;
}

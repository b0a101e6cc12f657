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
  const keeper = peakKeeper(points.length, series, maxPoints);
  for (const p of points) keeper.push(p);
  return keeper.done();
}

/** keepPeaks one point at a time: push the points in order, then take what was kept. */
export interface PeakKeeper<T> {
  push(point: T): void;
  done(): T[];
}

/**
 * keepPeaks over a series read one point at a time (a long run's rows straight from the ledger), in
 * memory of the points kept: `total` is how many points will be pushed (it sets the buckets); points
 * past it join the last bucket. The same points as keepPeaks over the whole list.
 */
export function peakKeeper<T>(
  total: number,
  series: readonly ((p: T) => number | null)[],
  maxPoints: number = DEFAULT_MAX_POINTS,
): PeakKeeper<T> {
  const kept: T[] = [];
  if (total <= maxPoints || series.length === 0) return { push: (p) => kept.push(p), done: () => kept };
  const perBucket = 2 * series.length;
  const buckets = Math.max(1, Math.floor(maxPoints / perBucket));
  let index = 0;
  let bucket = 0;
  let to = Math.floor(total / buckets);
  let first: { readonly i: number; readonly p: T } | null = null;
  const hi = series.map(() => ({ i: -1, v: Number.NEGATIVE_INFINITY, p: null as T | null }));
  const lo = series.map(() => ({ i: -1, v: Number.POSITIVE_INFINITY, p: null as T | null }));
  const flush = () => {
    if (first === null) return;
    const picks = new Map<number, T>();
    for (let k = 0; k < series.length; k++) {
      if (hi[k]!.i >= 0) picks.set(hi[k]!.i, hi[k]!.p as T);
      if (lo[k]!.i >= 0) picks.set(lo[k]!.i, lo[k]!.p as T);
      hi[k] = { i: -1, v: Number.NEGATIVE_INFINITY, p: null };
      lo[k] = { i: -1, v: Number.POSITIVE_INFINITY, p: null };
    }
    if (picks.size === 0) picks.set(first.i, first.p);
    for (const i of [...picks.keys()].sort((x, y) => x - y)) kept.push(picks.get(i)!);
    first = null;
  };
  return {
    push(p) {
      if (index >= to && bucket < buckets - 1) {
        flush();
        bucket += 1;
        to = Math.floor(((bucket + 1) * total) / buckets);
      }
      first ??= { i: index, p };
      for (let k = 0; k < series.length; k++) {
        const v = series[k]!(p);
        if (v === null || Number.isNaN(v)) continue;
        if (v > hi[k]!.v) hi[k] = { i: index, v, p };
        if (v < lo[k]!.v) lo[k] = { i: index, v, p };
      }
      index += 1;
    },
    done() {
      flush();
      return kept;
    },
  };
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
  // The same buckets as keepPeaks, over the points' indices: one algorithm (peakKeeper) for both.
  const keeper = peakKeeper<number>(
    length,
    columns.map((column) => (i: number) => column[i] ?? null),
    maxPoints,
  );
  for (let i = 0; i < length; i++) keeper.push(i);
  return keeper.done();
}

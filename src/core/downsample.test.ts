import { describe, expect, it } from 'vitest';
import { keepPeaks, peakIndices, peakKeeper } from './downsample.js';

describe('keepPeaks', () => {
  const points = Array.from({ length: 100_000 }, (_, i) => ({
    t: i,
    peak: 8 + Math.sin(i / 50) * 0.5 + (i === 73_421 ? 5 : 0),
    reserved: 9 + i / 100_000,
  }));

  it('sends at most the budget and keeps the one spike, the series’ max and min, in time order', () => {
    const kept = keepPeaks(points, [(p) => p.peak, (p) => p.reserved], 4000);
    expect(kept.length).toBeLessThanOrEqual(4000);
    expect(kept.length).toBeGreaterThan(2000);
    expect(kept.some((p) => p.t === 73_421)).toBe(true);
    expect(Math.max(...kept.map((p) => p.peak))).toBe(Math.max(...points.map((p) => p.peak)));
    expect(Math.min(...kept.map((p) => p.peak))).toBe(Math.min(...points.map((p) => p.peak)));
    expect(kept.at(-1)!.reserved).toBe(points.at(-1)!.reserved);
    expect(kept.every((p, i) => i === 0 || p.t > kept[i - 1]!.t)).toBe(true);
  });

  it('returns short lists whole and skips nulls', () => {
    expect(keepPeaks(points.slice(0, 10), [(p) => p.peak], 4000)).toHaveLength(10);
    const withNulls = Array.from({ length: 50 }, (_, i) => ({ t: i, v: i % 2 ? null : i }));
    const kept = keepPeaks(withNulls, [(p) => p.v], 10);
    expect(kept.map((p) => p.t)).toEqual([0, 8, 10, 18, 20, 28, 30, 38, 40, 48]);
  });
});

describe('peakIndices', () => {
  it('keeps the highest and lowest index of every bucket of every column, ascending, once each', () => {
    const n = 30_000;
    const a = Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) + (i === 12_345 ? 5000 : 0));
    const b = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : (i * 104_729) % 977));
    const kept = peakIndices(n, [a, b], 400);
    expect(kept.every((k, i) => i === 0 || k > kept[i - 1]!)).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(400);
    expect(kept).toContain(12_345);
    const buckets = Math.floor(400 / 4);
    const set = new Set(kept);
    for (let bucket = 0; bucket < buckets; bucket++) {
      const from = Math.floor((bucket * n) / buckets);
      const to = Math.floor(((bucket + 1) * n) / buckets);
      for (const column of [a, b]) {
        const values = column.slice(from, to).filter((v): v is number => v !== null);
        const keptValues = [...set].filter((k) => k >= from && k < to).map((k) => column[k]);
        expect(keptValues).toContain(Math.max(...values));
        expect(keptValues).toContain(Math.min(...values));
      }
    }
  });

  it('is keepPeaks over columns: the same points', () => {
    const points = Array.from({ length: 9_000 }, (_, i) => ({ v: Math.sin(i / 40) + (i === 4_321 ? 3 : 0) }));
    const byIndex = peakIndices(points.length, [points.map((p) => p.v)], 600).map((i) => points[i]);
    expect(byIndex).toEqual(keepPeaks(points, [(p) => p.v], 600));
    expect(peakIndices(5, [[1, 2, 3, 4, 5]], 600)).toEqual([0, 1, 2, 3, 4]);
  });
});

/** keepPeaks as it was written before the points could be pushed one at a time: the reference. */
function keepPeaksOverList<T>(
  points: readonly T[],
  series: readonly ((p: T) => number | null)[],
  maxPoints: number,
): T[] {
  if (points.length <= maxPoints || series.length === 0) return [...points];
  const buckets = Math.max(1, Math.floor(maxPoints / (2 * series.length)));
  const kept: T[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * points.length) / buckets);
    const to = Math.floor(((b + 1) * points.length) / buckets);
    const picks = new Set<number>();
    for (const value of series) {
      let hi = -1;
      let lo = -1;
      for (let i = from; i < to; i++) {
        const v = value(points[i]!);
        if (v === null || Number.isNaN(v)) continue;
        if (hi < 0 || v > value(points[hi]!)!) hi = i;
        if (lo < 0 || v < value(points[lo]!)!) lo = i;
      }
      if (hi >= 0) picks.add(hi);
      if (lo >= 0) picks.add(lo);
    }
    if (picks.size === 0) picks.add(from);
    for (const i of [...picks].sort((x, y) => x - y)) kept.push(points[i]!);
  }
  return kept;
}

describe('peakKeeper', () => {
  it('keeps, one point at a time, the very points keepPeaks keeps from the whole list', () => {
    let seed = 22;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const length of [5, 4001, 10_007, 123_457]) {
      const points = Array.from({ length }, (_, t) => ({
        t,
        a: random() < 0.05 ? null : Math.round(random() * 1000),
        b: Math.round(random() * 10),
      }));
      const series = [(p: (typeof points)[number]) => p.a, (p: (typeof points)[number]) => p.b];
      const keeper = peakKeeper(points.length, series, 4000);
      for (const p of points) keeper.push(p);
      expect(keeper.done()).toEqual(keepPeaksOverList(points, series, 4000));
      expect(keepPeaks(points, series, 4000)).toEqual(keepPeaksOverList(points, series, 4000));
    }
  });

  it('takes points past the total it was told into its last bucket, peaks kept', () => {
    const keeper = peakKeeper(100, [(p: number) => p], 10);
    for (let i = 0; i < 150; i++) keeper.push(i === 140 ? 1000 : i % 7);
    const kept = keeper.done();
    expect(kept).toContain(1000);
    expect(kept.length).toBeLessThanOrEqual(12);
  });
});

import { describe, expect, it } from 'vitest';
import { keepPeaks } from './downsample.js';

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

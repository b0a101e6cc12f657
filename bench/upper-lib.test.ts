import { describe, expect, it } from 'vitest';
import type { RowResult } from './accuracy-lib.js';
import { isUpperRow, leaveOneSourceOut, upperSamples, upperStats } from './upper-lib.js';

/** A measured row of `source` whose peak is `ratio` × its estimate (allocated level). */
const row = (id: string, source: string, ratio: number, over: Partial<RowResult> = {}): RowResult => ({
  id,
  dataset: source,
  source,
  quality: 'high',
  metric: 'allocated',
  measuredBytes: 100 * ratio,
  predictedBytes: 100,
  error: (100 - 100 * ratio) / (100 * ratio),
  outcome: 'ok',
  oomPredicted: null,
  inTarget: true,
  duplicateAcrossGpuCounts: false,
  belowModelStateFloor: false,
  skipped: null,
  summary: '',
  framework: 'litgpt',
  method: 'lora',
  layout: 'single',
  peak: { allocatedBytes: 100, reservedBytes: 110, deviceBytes: 120 },
  pagedBytes: 0,
  upperBytes: 100,
  alternatives: [],
  ...over,
});

describe('the rows that speak for the estimator’s error', () => {
  it('leaves out OOM rows, rows outside the target set, repeated 1-GPU values and misreported rows', () => {
    expect(isUpperRow(row('a', 's', 1))).toBe(true);
    expect(isUpperRow(row('b', 's', 1, { outcome: 'oom', measuredBytes: null }))).toBe(false);
    expect(isUpperRow(row('c', 's', 1, { inTarget: false }))).toBe(false);
    expect(isUpperRow(row('d', 's', 1, { duplicateAcrossGpuCounts: true }))).toBe(false);
    expect(isUpperRow(row('e', 's', 1, { belowModelStateFloor: true }))).toBe(false);
    // The H200 harness's rows all count.
    expect(
      isUpperRow(row('f', 'H200 grid run', 1, { dataset: 'headroom H200 harness', inTarget: false })),
    ).toBe(true);
    expect(upperSamples([row('a', 's', 1.25)])).toEqual([
      { framework: 'litgpt', method: 'lora', layout: 'single', level: 'allocated', ratio: 1.25, source: 's' },
    ]);
  });
});

describe('leave one source out', () => {
  it('bounds each source’s rows by a table built without them', () => {
    // Source A's rows are all 1.5× over; B's and C's are exact. Held out, A is bounded by B and C alone.
    const rows = [
      ...Array.from({ length: 10 }, (_, i) => row(`a${i}`, 'A', 1.5)),
      ...Array.from({ length: 10 }, (_, i) => row(`b${i}`, 'B', 1)),
      ...Array.from({ length: 10 }, (_, i) => row(`c${i}`, 'C', 1)),
    ];
    const held = leaveOneSourceOut(rows);
    expect(held.get('a0')).toBe(100);
    const a = upperStats(
      rows.filter((r) => r.source === 'A'),
      (r) => held.get(r.id)!,
    );
    expect(a).toEqual({ rows: 10, covered: 0, medianWidth: 1 });
    // B held out: A's 1.5 and C's 1 — 20 rows, the 18th of them is 1.5.
    expect(held.get('b0')).toBe(150);
    expect(upperStats(rows, (r) => held.get(r.id)!).covered).toBeCloseTo(20 / 30, 12);
  });

  it('measures a row with older installs against the highest of their estimates, the one its bound scales', () => {
    const older = { peak: { allocatedBytes: 130, reservedBytes: 90, deviceBytes: 150 }, pagedBytes: 0 };
    const [sample] = upperSamples([row('a0', 'A', 1.4, { alternatives: [older] })]);
    expect(sample!.ratio).toBeCloseTo(140 / 130, 12);
    const [reserved] = upperSamples([row('a1', 'A', 1.4, { metric: 'reserved', alternatives: [older] })]);
    // At reserved the row's own estimate (100) is above the older install's 90.
    expect(reserved!.ratio).toBeCloseTo(140 / 100, 12);
  });

  it('takes a held-out bound over the row and its older installs, as the estimator does', () => {
    const rows = [
      ...Array.from({ length: 10 }, (_, i) => row(`b${i}`, 'B', 1.5)),
      row('a0', 'A', 1.4, {
        alternatives: [
          { peak: { allocatedBytes: 130, reservedBytes: 140, deviceBytes: 150 }, pagedBytes: 0 },
        ],
      }),
    ];
    // A held out: B's ratio 1.5 applies to the row (150) and to its older install (195).
    expect(leaveOneSourceOut(rows).get('a0')).toBe(195);
  });
});

import { describe, expect, it } from 'vitest';
import {
  buildUpperTable,
  climbOnCard,
  nearestRankQuantile,
  sourceQuantile,
  UPPER_TABLE,
  type UpperBound,
  type UpperSample,
  upperBasis,
  upperFromBasis,
  upperKey,
  upperKinds,
  upperSampleRatio,
  withReserveClimb,
} from './upper.js';

const sample = (ratio: number, over: Partial<UpperSample> = {}): UpperSample => ({
  framework: 'litgpt',
  method: 'lora',
  layout: 'single',
  level: 'allocated',
  ratio,
  source: 'A',
  ...over,
});

/** `n` rows of `ratio` from each of the sources named. */
const fromSources = (sources: readonly string[], ratio: (i: number) => number, n = 4): UpperSample[] =>
  sources.flatMap((source) => Array.from({ length: n }, (_, i) => sample(ratio(i), { source })));

describe('nearestRankQuantile', () => {
  it('is the smallest value at least q of the values do not exceed', () => {
    const ten = [1.0, 0.9, 1.1, 1.05, 0.95, 1.2, 1.3, 1.02, 0.99, 1.5];
    // Nine of ten at or under 1.3: the 90th percentile by nearest rank (interpolation would say 1.32).
    expect(nearestRankQuantile(ten, 0.9)).toBe(1.3);
    expect(nearestRankQuantile(ten, 1)).toBe(1.5);
    expect(nearestRankQuantile([2], 0.9)).toBe(2);
    expect(nearestRankQuantile([], 0.9)).toBeNaN();
  });
});

describe('sourceQuantile', () => {
  it('takes each source’s own quantile, then split conformal prediction’s rank over the sources', () => {
    const of = (qs: readonly number[]) => new Map(qs.map((q, i) => [`s${i}`, [q]] as const));
    // Under nineteen sources, the rank ⌈(m + 1)·0.9⌉ is m: the highest source speaks.
    expect(sourceQuantile(of([1, 1.1, 1.3]), 0.9)).toBe(1.3);
    expect(sourceQuantile(of([1, 1, 1, 1, 1, 1, 1, 1, 1, 1.3]), 0.9)).toBe(1.3);
    // Nineteen sources: ⌈20 × 0.9⌉ = 18, so the highest of nineteen may lie above the bound.
    expect(sourceQuantile(of([...Array.from({ length: 17 }, () => 1), 1.2, 1.5]), 0.9)).toBe(1.2);
    // Within a source, the nearest-rank quantile of its rows: nine of ten at or under 1.08.
    const ten = Array.from({ length: 10 }, (_, i) => 1 + i / 100);
    expect(sourceQuantile(new Map([['a', ten]]), 0.9)).toBe(1.08);
    expect(sourceQuantile(new Map(), 0.9)).toBeNaN();
  });
});

describe('buildUpperTable', () => {
  it('keeps each kind with enough rows from enough sources, never below 1, and always the level alone', () => {
    const rows = [
      ...fromSources(['A', 'B', 'C'], (i) => 1 + i / 100),
      // Many rows, one source: they count only toward the coarser kinds.
      ...Array.from({ length: 12 }, () => sample(0.8, { framework: 'torchtune', source: 'T' })),
      sample(0.5, { level: 'device' }),
    ];
    const t = buildUpperTable(rows, 0.9, 10, 3);
    // Each of A, B, C: four rows 1.00–1.03, its own 90th percentile 1.03; three sources: the highest.
    expect(t.kinds['litgpt/lora/single/allocated']).toEqual({ rows: 12, sources: 3, ratio: 1.03 });
    expect(t.kinds['torchtune/lora/single/allocated']).toBeUndefined();
    // Any framework: T's 0.8 is a fourth source, and the highest still speaks.
    expect(t.kinds['any/lora/single/allocated']).toEqual({ rows: 24, sources: 4, ratio: 1.03 });
    // One device row: the level alone is kept, at 1 (an estimate above the peak is not narrowed below it).
    expect(t.kinds['any/any/any/device']).toEqual({ rows: 1, sources: 1, ratio: 1 });
    expect(t.kinds['any/lora/single/device']).toBeUndefined();
    // Deterministic: keys sorted, the same rows in another order give the same table.
    expect(Object.keys(t.kinds)).toEqual([...Object.keys(t.kinds)].sort());
    expect(buildUpperTable([...rows].reverse(), 0.9, 10, 3)).toEqual(t);
  });

  it('lets one source with a high error set its kind’s bound, however many rows the others have', () => {
    // Forty rows from four exact sources and three from one 1.3× over: a quantile over all 43 rows would
    // say 1 and miss the fifth source every time; per source, the bound is 1.3.
    const rows = [...fromSources(['A', 'B', 'C', 'D'], () => 1, 10), ...fromSources(['E'], () => 1.3, 3)];
    expect(
      nearestRankQuantile(
        rows.map((r) => r.ratio),
        0.9,
      ),
    ).toBe(1);
    expect(buildUpperTable(rows, 0.9, 10, 3).kinds['litgpt/lora/single/allocated']!.ratio).toBe(1.3);
  });

  it('rounds a ratio up to the thousandth, never down', () => {
    const t = buildUpperTable(
      fromSources(['A', 'B', 'C'], () => 1.0001),
      0.9,
      10,
      3,
    );
    expect(t.kinds['litgpt/lora/single/allocated']!.ratio).toBe(1.001);
  });
});

describe('upperBasis', () => {
  const table = {
    quantile: 0.9,
    minRows: 10,
    minSources: 3,
    kinds: {
      'litgpt/lora/multi/allocated': { rows: 12, sources: 3, ratio: 2 },
      'any/lora/single/allocated': { rows: 40, sources: 5, ratio: 1.1 },
      'any/any/any/allocated': { rows: 100, sources: 9, ratio: 1.2 },
    },
  };
  it('takes the finest kind the table has, and says which', () => {
    expect(upperBasis({ framework: 'litgpt', method: 'lora', layout: 'multi' }, 'allocated', table)).toEqual({
      kind: { framework: 'litgpt', method: 'lora', layout: 'multi' },
      rows: 12,
      sources: 3,
      ratio: 2,
      from: 'measured-runs',
    });
    // No litgpt single-GPU kind: any framework's single-GPU LoRA rows speak for it.
    expect(
      upperBasis({ framework: 'litgpt', method: 'lora', layout: 'single' }, 'allocated', table).kind,
    ).toEqual({ framework: null, method: 'lora', layout: 'single' });
    expect(upperBasis({ framework: null, method: 'full', layout: 'multi' }, 'allocated', table).ratio).toBe(
      1.2,
    );
    // A level the table lacks altogether: ratio 1 from no rows.
    expect(upperBasis({ framework: null, method: 'full', layout: 'multi' }, 'device', table)).toMatchObject({
      rows: 0,
      sources: 0,
      ratio: 1,
    });
  });

  it('lets a framework with fewer than nine sources widen the bound, never narrow it below any framework’s', () => {
    const few = {
      quantile: 0.9,
      minRows: 10,
      minSources: 3,
      kinds: {
        // Three litgpt sources, all over-estimated: their ratio is the floor of 1.
        'litgpt/qlora/single/allocated': { rows: 12, sources: 3, ratio: 1 },
        'litgpt/any/any/allocated': { rows: 30, sources: 4, ratio: 1.05 },
        'any/qlora/single/allocated': { rows: 20, sources: 4, ratio: 1.2 },
        'axolotl/qlora/single/allocated': { rows: 40, sources: 9, ratio: 1.01 },
        'unsloth/qlora/single/allocated': { rows: 12, sources: 3, ratio: 1.4 },
        'any/any/any/allocated': { rows: 100, sources: 12, ratio: 1.3 },
      },
    };
    // litgpt's few sources say 1; any framework's single-GPU QLoRA rows say 1.2, and name themselves.
    expect(upperBasis({ framework: 'litgpt', method: 'qlora', layout: 'single' }, 'allocated', few)).toEqual({
      kind: { framework: null, method: 'qlora', layout: 'single' },
      rows: 20,
      sources: 4,
      ratio: 1.2,
      from: 'measured-runs',
    });
    // Nine sources are enough for a framework's own ratio, even below any framework's.
    expect(
      upperBasis({ framework: 'axolotl', method: 'qlora', layout: 'single' }, 'allocated', few),
    ).toMatchObject({ kind: { framework: 'axolotl' }, ratio: 1.01 });
    // A framework's few sources that are wider than the rest keep their own ratio.
    expect(
      upperBasis({ framework: 'unsloth', method: 'qlora', layout: 'single' }, 'allocated', few),
    ).toMatchObject({ kind: { framework: 'unsloth', method: 'qlora' }, ratio: 1.4 });
    // A framework's coarser kind counts too: litgpt full has only litgpt/any (1.05), then any/any (1.3).
    expect(upperBasis({ framework: 'litgpt', method: 'full', layout: 'multi' }, 'allocated', few).ratio).toBe(
      1.3,
    );
  });

  it('lists a named framework’s kinds before any framework’s, finest first', () => {
    const keys = upperKinds({ framework: 'axolotl', method: 'qlora', layout: 'single' }).map((k) =>
      upperKey(k, 'device'),
    );
    expect(keys).toEqual([
      'axolotl/qlora/single/device',
      'axolotl/qlora/any/device',
      'axolotl/any/any/device',
      'any/qlora/single/device',
      'any/qlora/any/device',
      'any/any/single/device',
      'any/any/any/device',
    ]);
    expect(upperKinds({ framework: null, method: 'qlora', layout: 'single' })).toHaveLength(4);
  });

  it('the committed table has every level alone, each ratio at least 1', () => {
    for (const level of ['allocated', 'reserved', 'device'])
      expect(UPPER_TABLE.kinds[`any/any/any/${level}`]!.rows).toBeGreaterThan(0);
    for (const v of Object.values(UPPER_TABLE.kinds)) expect(v.ratio).toBeGreaterThanOrEqual(1);
  });
});

/** A basis of 10 rows from 3 sources, any kind, with these ratios at allocated, reserved and nvidia-smi. */
const basis = (a: number, r: number, d: number): UpperBound['basis'] => {
  const of = (ratio: number) => ({
    kind: { framework: null, method: null, layout: null },
    rows: 10,
    sources: 3,
    ratio,
    from: 'measured-runs' as const,
  });
  return { allocated: of(a), reserved: of(r), device: of(d) };
};

describe('upperFromBasis', () => {
  const peak = { allocatedBytes: 10e9, reservedBytes: 11e9, deviceBytes: 11.5e9 };

  it('scales each level by its ratio', () => {
    const u = upperFromBasis(peak, basis(1.1, 1.1, 1.1));
    expect([u.allocatedBytes, u.reservedBytes, u.deviceBytes]).toEqual([11e9, 12.1e9, 12.65e9]);
  });

  it('keeps the levels nested: reserved ≥ allocated, device ≥ reserved + what is outside torch', () => {
    // Allocated may be 50 % over; then reserved and device are too, whatever their own rows said.
    const u = upperFromBasis(peak, basis(1.5, 1.05, 1.05));
    expect(u.allocatedBytes).toBe(15e9);
    expect(u.reservedBytes).toBe(15e9);
    expect(u.deviceBytes).toBe(15e9 + 0.5e9);
  });

  it('leaves paged optimizer states unscaled, and reads a row’s error the same way', () => {
    const paged = { allocatedBytes: 10e9, reservedBytes: 11e9, deviceBytes: 27e9 };
    const u = upperFromBasis(paged, basis(1, 1, 1.1), 16e9);
    expect(u.deviceBytes).toBe(Math.round(11e9 * 1.1) + 16e9);
    // A device row measured at 28.1 GB against that estimate: (28.1 − 16) ÷ (27 − 16) = 1.1.
    expect(upperSampleRatio('device', 28.1e9, 27e9, 16e9)).toBeCloseTo(1.1, 12);
    // Other levels do not hold the paged states: the plain ratio.
    expect(upperSampleRatio('allocated', 11e9, 10e9, 16e9)).toBeCloseTo(1.1, 12);
  });
});

describe('a padded run’s reserve climb in the bound', () => {
  const peak = { allocatedBytes: 10e9, reservedBytes: 11e9, deviceBytes: 11.5e9 };
  const plain = upperFromBasis(peak, basis(1.1, 1.1, 1.1));

  it('without a climb, the card must hold what nvidia-smi shows', () => {
    expect(plain.neededDeviceBytes).toBe(plain.deviceBytes);
    expect(withReserveClimb(plain, peak, 0, 0)).toBe(plain);
  });

  it('tops reserved and nvidia-smi with the climb, and the card’s need with what a full card keeps of it', () => {
    const u = withReserveClimb(plain, peak, 6e9, 0.5e9);
    // Reserved: the point's 11 GB plus the 6 GB climb; nvidia-smi the same plus the 0.55 GB outside torch.
    expect(u.reservedBytes).toBe(17e9);
    expect(u.deviceBytes).toBe(17e9 + 0.55e9);
    // The need: the ratio's bound (12.65 GB) beats the point plus the 0.5 GB a full card keeps (12.05 GB).
    expect(u.neededDeviceBytes).toBe(plain.deviceBytes);
    // A keep larger than the ratio's margin sets the need.
    expect(withReserveClimb(plain, peak, 6e9, 2e9).neededDeviceBytes).toBe(13e9 + 0.55e9);
    expect(u.allocatedBytes).toBe(plain.allocatedBytes);
  });

  it('on a card smaller than the climb, holds reserved and nvidia-smi to the card, never under the need', () => {
    const u = withReserveClimb(plain, peak, 6e9, 0.5e9);
    const onCard = climbOnCard(u, 15e9);
    expect(onCard.deviceBytes).toBe(15e9);
    expect(onCard.reservedBytes).toBe(17e9 - 2.55e9);
    expect(onCard.neededDeviceBytes).toBe(u.neededDeviceBytes);
    // A card smaller than the need: the bound stays at the need (the verdict says it does not fit).
    const tiny = climbOnCard(u, 10e9);
    expect(tiny.deviceBytes).toBe(u.neededDeviceBytes);
    expect(tiny.reservedBytes).toBeGreaterThanOrEqual(tiny.allocatedBytes);
    // A card with room for the whole climb: unchanged.
    expect(climbOnCard(u, 40e9)).toBe(u);
  });
});

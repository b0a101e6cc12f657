import { describe, expect, it } from 'vitest';
import { maxBy, maxOf, minOf } from './extremes.js';

describe('maxOf and minOf', () => {
  it('take lists past the argument limit that Math.max(...list) throws on', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_001);
    expect(() => Math.max(...many)).toThrow(RangeError);
    expect(maxOf(many)).toBe(300_000);
    expect(minOf(many)).toBe(0);
    expect(
      maxBy(
        many.map((v) => ({ v })),
        (r) => r.v,
      ),
    ).toBe(300_000);
  });
  it('agree with Math.max and Math.min on short lists, and say what an empty one gives', () => {
    expect(maxOf([3, -1, 7])).toBe(7);
    expect(minOf([3, -1, 7])).toBe(-1);
    expect(maxOf([])).toBe(Number.NEGATIVE_INFINITY);
    expect(maxOf([], 0)).toBe(0);
    expect(minOf([Number.NaN, 2])).toBe(2);
    expect(maxBy([], () => 1, -1)).toBe(-1);
  });
});

import { describe, expect, it } from 'vitest';
import { meterBar } from './_bar.js';

describe('meterBar', () => {
  it('draws the value solid, the limit as ┃, and keeps the width', () => {
    const bar = meterBar(18, 25, 30, 21);
    expect([...bar]).toHaveLength(30);
    expect(bar.startsWith('█'.repeat(21))).toBe(true);
    expect(bar[25]).toBe('┃');
  });

  it('shades the stretch from the estimate to its upper bound, and nothing when the two are equal', () => {
    expect(meterBar(12, 24, 10, undefined, 18)).toBe('█████▒▒▒  ');
    expect(meterBar(12, 24, 10, undefined, 12)).toBe('█████     ');
    // The limit is drawn over the range where they meet.
    expect(meterBar(12, 24, 10, 16, 20)).toBe('█████▒▒┃  ');
    // An upper bound past the scale fills the bar, no wider.
    expect(meterBar(12, 24, 10, undefined, 40)).toBe('█████▒▒▒▒▒');
  });
});

import { describe, expect, it } from 'vitest';
import { findGpu } from './catalog/index.js';
import { fitVerdict, memoryTarget, parseMarginFraction, requiredDeviceBytes, targetOf } from './margin.js';

describe('margin', () => {
  it('parses percent and fractions', () => {
    expect(parseMarginFraction('10%', '--headroom')).toBe(0.1);
    expect(parseMarginFraction('15', '--headroom')).toBe(0.15);
    expect(parseMarginFraction('0.05', '--headroom')).toBe(0.05);
    expect(parseMarginFraction('0', '--headroom')).toBe(0);
  });
  it('rejects what is not a margin, naming the flag', () => {
    for (const bad of ['', 'lots', '-5%', '95%', '0.95'])
      expect(() => parseMarginFraction(bad, '--headroom')).toThrow(
        /^--headroom .*: not a margin between 0 % and 90 %$/,
      );
  });
  it('keeps the margin free of nvidia-smi memory.total', () => {
    // A10G: memory.total 23028 MiB (catalog, from public nvidia-smi outputs).
    expect(memoryTarget(findGpu('a10g')!)).toEqual({
      gpu: 'a10g',
      name: 'NVIDIA A10G 24GB (AWS G5)',
      usableBytes: 23028 * 1024 ** 2,
      marginFraction: 0.1,
      budgetBytes: Math.floor(23028 * 1024 ** 2 * 0.9),
    });
  });
});

describe('fitVerdict judges the upper bound', () => {
  const target = targetOf('card', 'card', 100e9, 0.1);
  it('a point that fits with an upper bound that does not is "does not fit"', () => {
    const e = { peak: { deviceBytes: 85e9 }, upper: { neededDeviceBytes: 95e9 }, breakdown: {} };
    expect(fitVerdict(e, target)).toMatchObject({
      ok: false,
      requiredBytes: 95e9,
      estimatedBytes: 85e9,
      headroomBytes: 5e9,
    });
    expect(requiredDeviceBytes(e)).toBe(95e9);
    expect(requiredDeviceBytes(e, 'point')).toBe(85e9);
    expect(fitVerdict({ ...e, upper: { neededDeviceBytes: 90e9 } }, target).ok).toBe(true);
  });
});

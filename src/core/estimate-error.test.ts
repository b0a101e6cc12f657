import { describe, expect, it } from 'vitest';
import { estimateErrorWords } from '../words/estimate-error.js';
import { estimateError, readEstimateError } from './estimate-error.js';
import { GIB } from './units.js';

describe('estimateError: (estimate − measured) / measured', () => {
  it('is negative when the estimate was too low, positive when too high, over the measured figure', () => {
    expect(estimateError(8 * GIB, 10 * GIB)).toBe(-0.2);
    expect(estimateError(10.8 * GIB, 10 * GIB)).toBeCloseTo(0.08, 12);
    expect(estimateError(10 * GIB, 10 * GIB)).toBe(0);
    // Nothing measured: no error to state.
    expect(estimateError(10 * GIB, null)).toBeNull();
    expect(estimateError(10 * GIB, 0)).toBeNull();
  });

  it('reads as under, over or a match, one decimal of a percent', () => {
    expect(readEstimateError(-0.1234)).toEqual({ side: 'under', percent: 12.3 });
    expect(readEstimateError(0.08)).toEqual({ side: 'over', percent: 8 });
    expect(readEstimateError(0.0004)).toEqual({ side: 'match', percent: 0 });
  });

  it('says it in one phrasing, in English and Chinese', () => {
    const text = (error: number, lang: 'en' | 'zh' = 'en') =>
      estimateErrorWords(readEstimateError(error), lang);
    expect(text(-0.12)).toBe('estimate 12.0 % under the measured peak');
    expect(text(0.08)).toBe('estimate 8.0 % over the measured peak');
    expect(text(0)).toBe('estimate matches the measured peak');
    expect(text(-0.12, 'zh')).toBe('估算比实测峰值低 12.0 %');
    expect(text(0.08, 'zh')).toBe('估算比实测峰值高 8.0 %');
  });

  it('rounds to one decimal of a percent in the words', () => {
    expect(estimateErrorWords({ side: 'under', percent: 12.3 }, 'en')).toBe(
      'estimate 12.3 % under the measured peak',
    );
  });
});

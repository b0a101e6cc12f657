import { describe, expect, it } from 'vitest';
import { estimateErrorWords } from '../words/estimate-error.js';
import { EN, ZH } from './diagnose/messages.js';
import { estimateError, estimateErrorText, readEstimateError } from './estimate-error.js';
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
    expect(estimateErrorText(-0.12)).toBe('estimate 12.0 % under the measured peak');
    expect(estimateErrorText(0.08, EN)).toBe('estimate 8.0 % over the measured peak');
    expect(estimateErrorText(0)).toBe('estimate matches the measured peak');
    expect(estimateErrorText(-0.12, ZH)).toBe('估算比实测峰值低 12.0 %');
    expect(estimateErrorText(0.08, ZH)).toBe('估算比实测峰值高 8.0 %');
  });

  it('is the words domain’s phrase, which the deprecated estimateErrorText only forwards to', () => {
    for (const error of [-0.12, 0.08, 0])
      for (const lang of ['en', 'zh'] as const)
        expect(estimateErrorWords(readEstimateError(error), lang)).toBe(
          estimateErrorText(error, lang === 'zh' ? ZH : EN),
        );
    expect(estimateErrorWords({ side: 'under', percent: 12.3 }, 'en')).toBe(
      'estimate 12.3 % under the measured peak',
    );
  });
});

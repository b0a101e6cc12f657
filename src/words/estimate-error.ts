/**
 * The words of an estimate against a measured peak (src/core/estimate-error.ts: error = (estimate −
 * measured) / measured, read as a side and a percent by readEstimateError), in English and Chinese.
 * `run`, `runs show`, `calibrate`, `diagnose`, the report and the dashboard all say it this way.
 */
import type { EstimateErrorReading } from '../core/estimate-error.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export interface EstimateErrorParams {
  /** "estimate 12.0 % under the measured peak" (too low), "… over …" (too high), or a match. */
  readonly 'estimate-error': EstimateErrorReading;
  /** The error with both figures: "estimate 12.0 % under the measured peak (8.80 GiB estimated, 10.00 GiB measured)". */
  readonly 'estimate-against': EstimateErrorReading & {
    readonly estimatedBytes: number;
    readonly measuredBytes: number;
  };
}

const pct = (r: EstimateErrorReading) => `${r.percent.toFixed(1)} %`;

const EN_ERROR = (r: EstimateErrorReading) =>
  r.side === 'match'
    ? 'estimate matches the measured peak'
    : `estimate ${pct(r)} ${r.side} the measured peak`;
const ZH_ERROR = (r: EstimateErrorReading) =>
  r.side === 'match' ? '估算与实测峰值一致' : `估算比实测峰值${r.side === 'under' ? '低' : '高'} ${pct(r)}`;

export const ESTIMATE_ERROR = defineDomain<EstimateErrorParams>({
  name: 'estimate-error',
  words: {
    en: {
      'estimate-error': (p) => EN_ERROR(p),
      'estimate-against': (p, f) =>
        `${EN_ERROR(p)} (${f.bytes(p.estimatedBytes)} estimated, ${f.bytes(p.measuredBytes)} measured)`,
    },
    zh: {
      'estimate-error': (p) => ZH_ERROR(p),
      'estimate-against': (p, f) =>
        `${ZH_ERROR(p)}（估算 ${f.bytes(p.estimatedBytes)}，实测 ${f.bytes(p.measuredBytes)}）`,
    },
  },
  examples: {
    'estimate-error': { side: 'under', percent: 12 },
    'estimate-against': {
      side: 'over',
      percent: 8.5,
      estimatedBytes: 10.85 * 2 ** 30,
      measuredBytes: 10 * 2 ** 30,
    },
  },
});

/**
 * The error in words, in a language.
 * @example estimateErrorWords(readEstimateError(-0.12), 'zh') // "估算比实测峰值低 12.0 %"
 */
export function estimateErrorWords(reading: EstimateErrorReading, lang: Lang): string {
  return say(ESTIMATE_ERROR, lang, { code: 'estimate-error', params: reading });
}

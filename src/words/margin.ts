/**
 * Why the fit verdict keeps a margin free (src/core/margin.ts): one line for the terminal, which
 * estimate, fit, plan and gpus --for print beside the budget; and what the ranges they print mean
 * (the estimate, then its upper bound, which the verdict judges).
 */
import type { NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export interface MarginParams {
  reason: NoParams;
  /** What "a–b" and the ▒ stretch of a bar mean in fit, plan and gpus --for. */
  range: NoParams;
}

export const MARGIN = defineDomain<MarginParams>({
  name: 'margin',
  words: {
    en: {
      reason: () =>
        'real batches vary in length — each is padded to its longest sample — so some steps need more than the typical one',
      range: () =>
        'memory as a range (▒ on the bars): the estimate, then the upper bound nine runs in ten of its kind stayed under; "fits" is judged on the upper bound',
    },
    zh: {
      reason: () => '真实批次长度不一——每个批次都会填充到其中最长的样本——所以有些步比典型的步需要更多显存',
      range: () =>
        '显存以范围表示（条形图中的 ▒）：先是估计值，再是同类运行十次中九次未超过的上界；“放得下”按上界判断',
    },
  },
  examples: { reason: {}, range: {} },
});

/** The margin's reason in a language. */
export const marginReason = (lang: Lang): string => say(MARGIN, lang, { code: 'reason', params: {} });

/** What the ranges of fit, plan and gpus --for mean, in a language. */
export const rangeNote = (lang: Lang): string => say(MARGIN, lang, { code: 'range', params: {} });

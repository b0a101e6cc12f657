/**
 * Why the fit verdict keeps a margin free (src/core/margin.ts): one line for the terminal, which
 * estimate, fit, plan and gpus --for print beside the budget.
 */
import type { NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export interface MarginParams {
  reason: NoParams;
}

export const MARGIN = defineDomain<MarginParams>({
  name: 'margin',
  words: {
    en: {
      reason: () =>
        'real batches vary in length — each is padded to its longest sample — so some steps need more than the typical one',
    },
    zh: {
      reason: () => '真实批次长度不一——每个批次都会填充到其中最长的样本——所以有些步比典型的步需要更多显存',
    },
  },
  examples: { reason: {} },
});

/** The margin's reason in a language. */
export const marginReason = (lang: Lang): string => say(MARGIN, lang, { code: 'reason', params: {} });

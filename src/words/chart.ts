/** The words of the terminal's per-step chart (src/cli/_chart.ts): its axis, in English and Chinese. */
import type { NoParams } from '../core/message.js';
import { defineDomain } from './catalog.js';

export interface ChartParams {
  'step-axis': NoParams;
}

export const CHART = defineDomain<ChartParams>({
  name: 'chart',
  words: {
    en: { 'step-axis': () => 'step' },
    zh: { 'step-axis': () => '步' },
  },
  examples: { 'step-axis': {} },
});

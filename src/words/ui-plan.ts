/**
 * The dashboard's words around the ladder and the fits strip (web/src/components/Ladder.tsx,
 * FitsStrip.tsx), in English and Chinese. The rungs, risks and dropped rungs themselves are worded by
 * plan-rungs, plan-risks and plan-dropped, as in the CLI.
 */
import type { NoParams } from '../core/message.js';
import type { RungChange } from '../core/plan.js';
import { defineDomain, say } from './catalog.js';
import { PLAN_RUNGS } from './plan-rungs.js';

export interface UiPlanParams {
  heading: NoParams;
  'fits-already': NoParams;
  budget: { readonly bytes: number };
  'dropped-heading': NoParams;
  /** An alternative to the winning rung: its change, its peak and its time per token. */
  alternative: {
    readonly change: RungChange;
    readonly peakBytes: number;
    readonly upperBytes: number;
    readonly relativeStepTime: number;
  };
  'fits-on': NoParams;
  /** A GPU chip's title: the GPU, and how far over, how much spare, or how much waits in CPU RAM. */
  'chip-over': { readonly gpu: string; readonly bytes: number };
  'chip-paged': { readonly gpu: string; readonly bytes: number };
  'chip-headroom': { readonly gpu: string; readonly bytes: number };
}

export const UI_PLAN = defineDomain<UiPlanParams>({
  name: 'ui-plan',
  words: {
    en: {
      heading: () => 'If it does not fit: the ladder, cheapest first',
      'fits-already': () => 'Already fits with the margin.',
      budget: (p, f) => `budget ${f.bytes(p.bytes)}`,
      'dropped-heading': () => 'Tried on the way and not needed: the changes above fit without each, as fast',
      alternative: (p, f) =>
        `${say(PLAN_RUNGS, 'en', p.change)} (${f.bytesRange(p.peakBytes, p.upperBytes)}, ×${p.relativeStepTime.toFixed(2)})`,
      'fits-on': () => 'Fits on',
      'chip-over': (p, f) => `${p.gpu}: over ${f.bytes(p.bytes)}`,
      'chip-paged': (p, f) => `${p.gpu}: paged optimizer states in CPU RAM (slower): ${f.bytes(p.bytes)}`,
      'chip-headroom': (p, f) => `${p.gpu}: headroom ${f.bytes(p.bytes)}`,
    },
    zh: {
      heading: () => '放不下时：按代价从低到高的调整方案',
      'fits-already': () => '在预留余量下已经放得下。',
      budget: (p, f) => `预算 ${f.bytes(p.bytes)}`,
      'dropped-heading': () => '途中尝试过、但并不需要的调整：没有它们，上面的调整也放得下，而且一样快',
      alternative: (p, f) =>
        `${say(PLAN_RUNGS, 'zh', p.change)}（${f.bytesRange(p.peakBytes, p.upperBytes)}，×${p.relativeStepTime.toFixed(2)}）`,
      'fits-on': () => '可运行的 GPU',
      'chip-over': (p, f) => `${p.gpu}：超出 ${f.bytes(p.bytes)}`,
      'chip-paged': (p, f) => `${p.gpu}：分页优化器状态放在 CPU 内存（较慢）：${f.bytes(p.bytes)}`,
      'chip-headroom': (p, f) => `${p.gpu}：剩余 ${f.bytes(p.bytes)}`,
    },
  },
  examples: {
    heading: {},
    'fits-already': {},
    budget: { bytes: 23_181_498_777 },
    'dropped-heading': {},
    alternative: {
      change: { id: 'qlora', code: 'qlora', params: {} },
      peakBytes: 2 ** 34,
      upperBytes: 2 ** 34 * 1.1,
      relativeStepTime: 1.12,
    },
    'fits-on': {},
    'chip-over': { gpu: 'NVIDIA GeForce RTX 4090', bytes: 2 ** 31 },
    'chip-paged': { gpu: 'NVIDIA GeForce RTX 4090', bytes: 2 ** 31 },
    'chip-headroom': { gpu: 'NVIDIA GeForce RTX 4090', bytes: 2 ** 31 },
  },
});

/**
 * The words of a rung the plan dropped (src/core/plan-prune.ts, DroppedNoteParams): what it saved where
 * the climb tried it, what it would save on top of the ladder shown, and after which rung it is not
 * needed (by name: the dashboard does not number its rows) or that the ladder fits without it.
 */

import type { RungChange } from '../core/plan.js';
import type { DroppedNoteParams } from '../core/plan-prune.js';
import { defineDomain, say } from './catalog.js';
import type { Format } from './format.js';
import { PLAN_RUNGS } from './plan-rungs.js';

const change = (c: RungChange, f: Format) => say(PLAN_RUNGS, f.lang, c);

const EXAMPLE_CHANGE: RungChange = {
  id: '8bit-optimizer',
  code: '8bit-optimizer',
  params: { from: 'adamw', to: 'adamw-8bit' },
};

export const PLAN_DROPPED = defineDomain<DroppedNoteParams>({
  name: 'plan-dropped',
  words: {
    en: {
      'not-needed-after': (p, f) =>
        `${change(p.change, f)}: saved ${f.bytes(p.savedBytes)} where tried, ${
          p.savingBytes > 0
            ? `${f.bytes(p.savingBytes)} on top of the changes above`
            : 'nothing on top of the changes above'
        } — not needed after ${change(p.after, f)}`,
      'not-needed': (p, f) =>
        `${change(p.change, f)}: saved ${f.bytes(p.savedBytes)} where tried, ${
          p.savingBytes > 0
            ? `${f.bytes(p.savingBytes)} on top of the changes above`
            : 'nothing on top of the changes above'
        } — not needed: fits without it`,
    },
    zh: {
      'not-needed-after': (p, f) =>
        `${change(p.change, f)}：尝试时节省 ${f.bytes(p.savedBytes)}，${
          p.savingBytes > 0
            ? `叠加在上面的调整之上节省 ${f.bytes(p.savingBytes)}`
            : '叠加在上面的调整之上不再节省显存'
        }——有了“${change(p.after, f)}”就不再需要`,
      'not-needed': (p, f) =>
        `${change(p.change, f)}：尝试时节省 ${f.bytes(p.savedBytes)}，${
          p.savingBytes > 0
            ? `叠加在上面的调整之上节省 ${f.bytes(p.savingBytes)}`
            : '叠加在上面的调整之上不再节省显存'
        }——不需要：没有它也放得下`,
    },
  },
  examples: {
    'not-needed-after': {
      change: EXAMPLE_CHANGE,
      savedBytes: 16_031_940_608,
      savingBytes: 251_658_240,
      after: { id: 'lora', code: 'lora', params: { rank: 16 } },
      position: 2,
    },
    'not-needed': {
      change: {
        id: 'zero-reduce-bucket',
        code: 'zero-reduce-bucket',
        params: { fromElements: 5e8, toElements: 4096 ** 2 },
      },
      savedBytes: 966_787_072,
      savingBytes: 966_787_072,
    },
  },
});

/**
 * The dashboard's Migrate page (web/src/pages/MigratePage.tsx), in English and Chinese: its labels,
 * the statuses and the smoke-run line. The checklist's own words come from migrate-checks.ts.
 */

import type { NoParams } from '../core/message.js';
import type { CheckStatus } from '../core/migrate.js';
import { defineDomain } from './catalog.js';

export interface UiMigrateParams {
  readonly title: NoParams;
  readonly from: NoParams;
  readonly to: NoParams;
  readonly gpu: NoParams;
  readonly 'env-file': NoParams;
  readonly scenario: NoParams;
  /** The parts not checked, each already worded (migrate-report.ts's migrate-not-checked). */
  readonly 'not-checked': { readonly lines: readonly string[] };
  /** The verdict line: the two sides and the verdict. */
  readonly verdict: { readonly from: string; readonly to: string; readonly verdict: CheckStatus };
  readonly smoke: NoParams;
  /** The smoke run: its steps, the peak to expect, and tokens/s when the target's throughput is known. */
  readonly 'smoke-figures': {
    readonly steps: number;
    readonly peakDeviceBytes: number;
    readonly tokensPerSecond: number | null;
  };
  readonly status: { readonly status: CheckStatus };
  /** The scenario names a model the catalog does not have (`model`: the reference as JSON). */
  readonly 'model-not-in-catalog': { readonly model: string };
  /** The scenario text is not valid (the parser's message). */
  readonly 'scenario-error': { readonly message: string };
}

const STATUS = {
  en: { pass: 'pass', warn: 'warn', fail: 'fail', unknown: 'unknown' },
  zh: { pass: '通过', warn: '警告', fail: '失败', unknown: '未知' },
} as const;

export const UI_MIGRATE = defineDomain<UiMigrateParams>({
  name: 'ui-migrate',
  words: {
    en: {
      title: () => 'Will it still fit there?',
      from: () => 'From',
      to: () => 'To',
      gpu: () => 'GPU',
      'env-file': () => 'env file (headroom env capture)',
      scenario: () => 'scenario (JSON, as docs/scenario.md describes)',
      'not-checked': (p) => `not checked: ${p.lines.join('; ')}`,
      verdict: (p) => `${p.from} → ${p.to}: ${STATUS.en[p.verdict]}`,
      smoke: () => 'smoke run',
      'smoke-figures': (p, f) =>
        `${p.steps} steps · peak ${f.bytes(p.peakDeviceBytes)}${p.tokensPerSecond ? ` · ${f.count(p.tokensPerSecond)} tokens/s` : ''}`,
      status: (p) => STATUS.en[p.status],
      'model-not-in-catalog': (p) => `model ${p.model} is not in the catalog`,
      'scenario-error': (p) => `scenario: ${p.message}`,
    },
    zh: {
      title: () => '换到那台机器还放得下吗？',
      from: () => '源环境',
      to: () => '目标环境',
      gpu: () => 'GPU',
      'env-file': () => '环境文件（headroom env capture）',
      scenario: () => '场景（JSON，格式见 docs/scenario.md）',
      'not-checked': (p) => `未检查：${p.lines.join('；')}`,
      verdict: (p) => `${p.from} → ${p.to}：${STATUS.zh[p.verdict]}`,
      smoke: () => '冒烟运行',
      'smoke-figures': (p, f) =>
        `${p.steps} 步 · 峰值 ${f.bytes(p.peakDeviceBytes)}${p.tokensPerSecond ? ` · ${f.count(p.tokensPerSecond)} tokens/s` : ''}`,
      status: (p) => STATUS.zh[p.status],
      'model-not-in-catalog': (p) => `模型 ${p.model} 不在目录中`,
      'scenario-error': (p) => `场景：${p.message}`,
    },
  },
  examples: {
    title: {},
    from: {},
    to: {},
    gpu: {},
    'env-file': {},
    scenario: {},
    'not-checked': {
      lines: [
        'gpu-count: no GPU list for l4 (catalog stands in; 1 GPU assumed)',
        'versions: no environment file for either side',
      ],
    },
    verdict: { from: 'a10g', to: 'l4', verdict: 'fail' },
    smoke: {},
    'smoke-figures': { steps: 30, peakDeviceBytes: 11e9, tokensPerSecond: 515.4 },
    status: { status: 'warn' },
    'model-not-in-catalog': { model: '"no-such-model"' },
    'scenario-error': { message: 'microBatchSize must be a positive integer' },
  },
});

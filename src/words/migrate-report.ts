/**
 * The words around `migrate`'s checklist, in English and Chinese: what could not be checked
 * (`migrate-not-checked`, by check id), and the CLI's heading, two-step plan and verdict
 * (`migrate-report`).
 */

import type { NoParams } from '../core/message.js';
import type { MigrationReport, NotCheckedParams } from '../core/migrate.js';
import { defineDomain } from './catalog.js';
import type { Format } from './format.js';
import { seconds } from './migrate-checks.js';

export const MIGRATE_NOT_CHECKED = defineDomain<NotCheckedParams>({
  name: 'migrate-not-checked',
  words: {
    en: {
      'gpu-count': (p) =>
        `gpu-count: no GPU list for ${p.label} (catalog stands in; ${p.assumedGpus} GPU${p.assumedGpus > 1 ? 's' : ''} assumed)`,
      interconnect: (p) =>
        `interconnect: no nvidia-smi topo for ${p.label}; the catalog's link for ${p.gpu} stands in`,
      'checkpoint-disk': (p) =>
        `checkpoint-disk: no environment file for ${p.label} (free disk and write speed unknown)`,
      versions: (p) => `versions: no environment file for ${p.side ?? 'either side'}`,
    },
    zh: {
      'gpu-count': (p) => `GPU 数量：没有 ${p.label} 的 GPU 列表（以目录代替，假定 ${p.assumedGpus} 块 GPU）`,
      interconnect: (p) => `互联：没有 ${p.label} 的 nvidia-smi topo；以目录中 ${p.gpu} 的互联代替`,
      'checkpoint-disk': (p) => `磁盘：没有 ${p.label} 的环境文件（剩余空间和写入速度未知）`,
      versions: (p) => `版本：没有${p.side === null ? '两侧' : ` ${p.side} `}的环境文件`,
    },
  },
  examples: {
    'gpu-count': { label: 'l4', assumedGpus: 1 },
    interconnect: { label: 'b.json', gpu: 'l40s' },
    'checkpoint-disk': { label: 'l4' },
    versions: { side: 't4' },
  },
});

/** Emphasis the renderer gives a figure (bold on a terminal); identity where there is none. */
export type Strong = (text: string) => string;

/** "61k", "1.0B": a token count as the plan writes it. */
export function tokensShort(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

/** "515 tok/s", "12.4k tok/s". */
export function tokenRate(tokensPerSecond: number): string {
  if (tokensPerSecond >= 1e6) return `${(tokensPerSecond / 1e6).toFixed(2)}M tok/s`;
  if (tokensPerSecond >= 1e3) return `${(tokensPerSecond / 1e3).toFixed(1)}k tok/s`;
  return `${tokensPerSecond.toFixed(0)} tok/s`;
}

type Plan = MigrationReport['plan'];

export interface MigrateReportParams {
  /** The heading: the model and the two sides as the renderer labels them. */
  readonly moving: { readonly model: string; readonly from: string; readonly to: string };
  /** The tag of a side that is only a catalog GPU. */
  readonly 'catalog-tag': NoParams;
  readonly 'not-checked': NoParams;
  readonly plan: NoParams;
  readonly smoke: Plan['smoke'] & {
    readonly target: string;
    readonly tolerance: number;
    readonly strong: Strong;
  };
  readonly full: Plan['full'] & { readonly strong: Strong };
  readonly 'verdict-pass': NoParams;
  readonly 'verdict-warn': NoParams;
  readonly 'verdict-fail': NoParams;
}

const duration = (f: Format, s: number) => seconds(f, s, true);

export const MIGRATE_REPORT = defineDomain<MigrateReportParams>({
  name: 'migrate-report',
  words: {
    en: {
      moving: (p) => `moving ${p.model}: ${p.from} → ${p.to}`,
      'catalog-tag': () => '[catalog]',
      'not-checked': () => 'not checked:',
      plan: () => 'plan:',
      smoke: (p, f) =>
        `1. smoke run on ${p.target}: ${p.steps} steps on a small subset (${tokensShort(p.tokens)} tokens). Expect a peak of ${p.strong(f.bytes(p.peakDeviceBytes))} per GPU in nvidia-smi (torch max_memory_allocated ${f.bytes(p.peakAllocatedBytes)})${p.tokensPerSecond ? ` and about ${p.strong(tokenRate(p.tokensPerSecond))}${p.seconds ? ` (≈ ${duration(f, p.seconds)})` : ''}` : ''}. Stop if the peak is more than ${f.percent(p.tolerance)} above that, or the loss is not finite.`,
      full: (p, f) =>
        `2. full run${p.seconds !== null && p.tokens !== null ? `: ${tokensShort(p.tokens)} tokens in ≈ ${p.strong(duration(f, p.seconds))}` : p.stepSeconds !== null ? `: ≈ ${duration(f, p.stepSeconds)} per optimizer step (--tokens N for the whole run)` : ''}, resuming from the smoke run's settings; keep the checkpoint interval the checklist asks for.`,
      'verdict-pass': () => '✓ ready to move',
      'verdict-warn': () => '! movable: read the ! and ? items first',
      'verdict-fail': () => '✗ not ready: fix the ✗ items before moving',
    },
    zh: {
      moving: (p) => `迁移 ${p.model}：${p.from} → ${p.to}`,
      'catalog-tag': () => '[目录]',
      'not-checked': () => '未检查：',
      plan: () => '计划：',
      smoke: (p, f) =>
        `1. 在 ${p.target} 上做冒烟运行：用一小部分数据跑 ${p.steps} 步（${tokensShort(p.tokens)} token）。nvidia-smi 中单卡峰值应约为 ${p.strong(f.bytes(p.peakDeviceBytes))}（torch max_memory_allocated ${f.bytes(p.peakAllocatedBytes)}）${p.tokensPerSecond ? `，速度约 ${p.strong(tokenRate(p.tokensPerSecond))}${p.seconds ? `（≈ ${duration(f, p.seconds)}）` : ''}` : ''}。若峰值高出 ${f.percent(p.tolerance)} 以上，或损失不是有限值，就停下来。`,
      full: (p, f) =>
        `2. 完整运行${p.seconds !== null && p.tokens !== null ? `：${tokensShort(p.tokens)} token，约 ${p.strong(duration(f, p.seconds))}` : p.stepSeconds !== null ? `：每个优化器步约 ${duration(f, p.stepSeconds)}（用 --tokens N 估算整次运行）` : ''}，沿用冒烟运行的设置；按检查清单要求的间隔保存检查点。`,
      'verdict-pass': () => '✓ 可以迁移',
      'verdict-warn': () => '! 可以迁移：先看标 ! 和 ? 的项',
      'verdict-fail': () => '✗ 尚不能迁移：先修复标 ✗ 的项',
    },
  },
  examples: {
    moving: { model: 'llama-3.1-8b', from: 'h200.json (h200-sxm)', to: 't4 [catalog]' },
    'catalog-tag': {},
    'not-checked': {},
    plan: {},
    smoke: {
      target: 't4',
      steps: 30,
      tokens: 61_440,
      peakDeviceBytes: 11e9,
      peakAllocatedBytes: 10e9,
      tokensPerSecond: 515,
      seconds: 119,
      tolerance: 0.1,
      strong: (s) => s,
    },
    full: { tokens: 1e9, stepSeconds: 4, seconds: 1.9e6, strong: (s) => s },
    'verdict-pass': {},
    'verdict-warn': {},
    'verdict-fail': {},
  },
});

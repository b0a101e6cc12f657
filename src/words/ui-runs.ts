/**
 * The words of the dashboard's run pages (web/src/pages/RunsPage.tsx, RunPage.tsx, ComparePage.tsx and
 * web/src/components/TimeChart.tsx), in English and Chinese. A run's status comes from the `run-status`
 * domain (src/words/run.ts), its findings from the diagnosis in the page's language.
 */
import type { MessageOf, NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

/** The columns of the runs table, by the field they show. */
export type RunsColumn =
  | 'name'
  | 'status'
  | 'model'
  | 'method'
  | 'microBatchSize'
  | 'seqLen'
  | 'peakAllocatedBytes'
  | 'peakReservedBytes'
  | 'peakDeviceBytes'
  | 'durationMs';

export interface UiRunsParams {
  readonly title: NoParams;
  readonly empty: NoParams;
  readonly loading: NoParams;
  readonly demo: NoParams;
  readonly compare: NoParams;
  readonly column: { readonly column: RunsColumn };
  readonly seconds: { readonly seconds: number };
  readonly live: NoParams;
  readonly 'peak-allocated': NoParams;
  readonly 'peak-reserved': NoParams;
  readonly 'peak-device': NoParams;
  readonly 'step-count-label': NoParams;
  readonly 'step-count': { readonly steps: number; readonly last: number | null };
  readonly memory: NoParams;
  readonly 'per-step': NoParams;
  /** The run page of a run of several ranks: each step's allocated peak, one line per rank. */
  readonly 'per-rank': { readonly ranks: number; readonly peakRank: number | null };
  readonly 'rank-series': { readonly rank: number };
  readonly 'per-step-title': NoParams;
  readonly 'step-bar': { readonly first: number; readonly last: number; readonly bytes: number };
  readonly 'estimate-vs-measured': NoParams;
  readonly level: { readonly level: 'allocated' | 'reserved' | 'device' };
  readonly findings: NoParams;
  readonly 'no-findings': NoParams;
  readonly 'series-used': NoParams;
  readonly 'series-loss': NoParams;
  readonly oom: NoParams;
  readonly 'axis-seconds': NoParams;
  /** The chart's x value in its legend (uPlot says "Value" otherwise). */
  readonly 'series-time': NoParams;
  readonly 'axis-step': NoParams;
  readonly diff: NoParams;
  readonly 'one-variable': NoParams;
}

const COLUMNS_EN: Readonly<Record<RunsColumn, string>> = {
  name: 'name',
  status: 'status',
  model: 'model',
  method: 'method',
  microBatchSize: 'batch',
  seqLen: 'seq',
  peakAllocatedBytes: 'peak allocated',
  peakReservedBytes: 'peak reserved',
  peakDeviceBytes: 'peak nvidia-smi',
  durationMs: 'duration',
};
const COLUMNS_ZH: Readonly<Record<RunsColumn, string>> = {
  name: '名称',
  status: '状态',
  model: '模型',
  method: '方法',
  microBatchSize: '批大小',
  seqLen: '序列',
  peakAllocatedBytes: '已分配峰值',
  peakReservedBytes: '已保留峰值',
  peakDeviceBytes: 'nvidia-smi 峰值',
  durationMs: '时长',
};
const LEVELS_EN = { allocated: 'allocated', reserved: 'reserved', device: 'nvidia-smi' } as const;
const LEVELS_ZH = { allocated: '已分配', reserved: '已保留', device: 'nvidia-smi 层面' } as const;
const range = (p: { readonly first: number; readonly last: number }) =>
  p.first === p.last ? `${p.first}` : `${p.first}–${p.last}`;

export const UI_RUNS = defineDomain<UiRunsParams>({
  name: 'ui-runs',
  words: {
    en: {
      title: () => 'Runs',
      empty: () => 'No runs recorded yet. Start one with: headroom run -- python train.py',
      loading: () => 'loading…',
      demo: () => 'demo data',
      compare: () => 'Compare selected',
      column: (p) => COLUMNS_EN[p.column],
      seconds: (p) => `${p.seconds} s`,
      live: () => 'live',
      'peak-allocated': () => 'peak allocated',
      'peak-reserved': () => 'peak reserved',
      'peak-device': () => 'peak nvidia-smi',
      'step-count-label': () => 'steps',
      'step-count': (p) => `${p.steps}${p.last === null ? '' : ` (last ${p.last})`}`,
      memory: () => 'Memory over time',
      'per-step': () => 'Per-step peak',
      'per-rank': (p) =>
        `Per-step peak allocated, ${p.ranks} ranks${p.peakRank === null ? '' : ` (the run’s peak is rank ${p.peakRank}’s)`}`,
      'rank-series': (p) => `rank ${p.rank} allocated`,
      'per-step-title': () => 'per-step peak allocated',
      'step-bar': (p, f) => `step ${range(p)}: ${f.bytes(p.bytes)}`,
      'estimate-vs-measured': () => 'Estimate vs measured',
      level: (p) => LEVELS_EN[p.level],
      findings: () => 'Diagnosis',
      'no-findings': () => 'Nothing to report.',
      'series-used': () => 'nvidia-smi used',
      'series-loss': () => 'loss',
      oom: () => 'OOM',
      'axis-seconds': () => 's',
      'series-time': () => 'time (s)',
      'axis-step': () => 'step',
      diff: () => 'What changed',
      'one-variable': () =>
        'More than one variable changed: the change in memory cannot be attributed to one of them.',
    },
    zh: {
      title: () => '运行记录',
      empty: () => '还没有运行记录。用 headroom run -- python train.py 开始一次。',
      loading: () => '加载中…',
      demo: () => '演示数据',
      compare: () => '比较所选',
      column: (p) => COLUMNS_ZH[p.column],
      seconds: (p) => `${p.seconds} 秒`,
      live: () => '实时',
      'peak-allocated': () => '已分配峰值',
      'peak-reserved': () => '已保留峰值',
      'peak-device': () => 'nvidia-smi 峰值',
      'step-count-label': () => '步数',
      'step-count': (p) => `${p.steps}${p.last === null ? '' : `（最后一步 ${p.last}）`}`,
      memory: () => '显存随时间变化',
      'per-step': () => '每步峰值',
      'per-rank': (p) =>
        `每步已分配峰值，共 ${p.ranks} 个 rank${p.peakRank === null ? '' : `（本次运行的峰值来自 rank ${p.peakRank}）`}`,
      'rank-series': (p) => `rank ${p.rank} 已分配`,
      'per-step-title': () => '每步已分配峰值',
      'step-bar': (p, f) => `第 ${range(p)} 步：${f.bytes(p.bytes)}`,
      'estimate-vs-measured': () => '估算与实测',
      level: (p) => LEVELS_ZH[p.level],
      findings: () => '诊断',
      'no-findings': () => '没有发现问题。',
      'series-used': () => 'nvidia-smi 已用',
      'series-loss': () => '损失',
      oom: () => '显存溢出',
      'axis-seconds': () => '秒',
      'series-time': () => '时间（秒）',
      'axis-step': () => '步',
      diff: () => '配置差异',
      'one-variable': () => '改变了不止一个变量：无法把显存变化归因于其中某一个。',
    },
  },
  examples: {
    title: {},
    empty: {},
    loading: {},
    demo: {},
    compare: {},
    column: { column: 'peakDeviceBytes' },
    seconds: { seconds: 435 },
    live: {},
    'peak-allocated': {},
    'peak-reserved': {},
    'peak-device': {},
    'step-count-label': {},
    'step-count': { steps: 12, last: 12 },
    'per-rank': { ranks: 2, peakRank: 1 },
    'rank-series': { rank: 0 },
    memory: {},
    'per-step': {},
    'per-step-title': {},
    'step-bar': { first: 1, last: 4, bytes: 2 ** 33 },
    'estimate-vs-measured': {},
    level: { level: 'device' },
    findings: {},
    'no-findings': {},
    'series-used': {},
    'series-loss': {},
    oom: {},
    'axis-seconds': {},
    'series-time': {},
    'axis-step': {},
    diff: {},
    'one-variable': {},
  },
});

/** The run pages' words in a language: `const w = uiRunsWords(useLang())`. */
export function uiRunsWords(lang: Lang): (message: MessageOf<UiRunsParams>) => string {
  return (message) => say(UI_RUNS, lang, message);
}

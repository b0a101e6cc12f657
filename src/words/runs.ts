/**
 * The words of `headroom runs` (list, show, diff, export, rm) in English and Chinese: the table's
 * headers, the show page's headings, the diff's rows and its one-variable warning
 * (src/core/run-diff.ts RunDiffWarningParams).
 */
import type { NoParams } from '../core/message.js';
import type { PeakLayer, RunDiffWarningParams } from '../core/run-diff.js';
import { defineDomain } from './catalog.js';

/** The labels and lines of `headroom runs`. */
export interface RunsLabelParams {
  readonly 'col-id': NoParams;
  readonly 'col-name': NoParams;
  readonly 'col-status': NoParams;
  readonly 'col-model': NoParams;
  readonly 'col-method': NoParams;
  readonly 'col-batch': NoParams;
  readonly 'col-seq': NoParams;
  readonly 'col-allocated': NoParams;
  readonly 'col-reserved': NoParams;
  readonly 'col-device': NoParams;
  readonly 'col-steps': NoParams;
  readonly 'col-duration': NoParams;
  readonly 'col-started': NoParams;
  /** A scenario whose model is an inline config, not a name. */
  readonly 'inline-config': NoParams;
  readonly 'no-runs': { readonly path: string };
  readonly orphaned: { readonly id: number; readonly log: string | null };
  readonly removed: { readonly id: number; readonly name: string | null };
  readonly 'chart-heading': { readonly allocatedMark: string; readonly reservedMark: string };
  readonly phases: NoParams;
  /** `runs show` of a run of several ranks: its ranks side by side, the run's peak rank marked. */
  readonly 'ranks-heading': {
    readonly count: number;
    readonly peakRank: number | null;
    readonly mark: string;
  };
  readonly 'col-rank': NoParams;
  readonly 'col-local-rank': NoParams;
  readonly 'col-host': NoParams;
  readonly 'col-gpu': NoParams;
  readonly 'per-rank-heading': { readonly shown: number; readonly total: number };
  readonly 'col-step': NoParams;
  readonly 'phase-when': NoParams;
  readonly 'phase-after-step': NoParams;
  readonly 'phase-rank': NoParams;
  readonly 'phase-change': NoParams;
  readonly 'phase-peak-before': NoParams;
  readonly events: NoParams;
  readonly 'compared-by': { readonly by: 'scenario' | 'command' };
  readonly 'diff-status': NoParams;
  readonly 'diff-steps': NoParams;
  readonly 'diff-peak': { readonly layer: PeakLayer };
  readonly 'diff-changed': NoParams;
  readonly 'diff-change': NoParams;
}

export type RunsWordParams = RunsLabelParams & RunDiffWarningParams;

export const RUNS = defineDomain<RunsWordParams>({
  name: 'runs',
  words: {
    en: {
      'col-id': () => 'id',
      'col-name': () => 'name',
      'col-status': () => 'status',
      'col-model': () => 'model',
      'col-method': () => 'method',
      'col-batch': () => 'batch',
      'col-seq': () => 'seq',
      'col-allocated': () => 'allocated',
      'col-reserved': () => 'reserved',
      'col-device': () => 'nvidia-smi',
      'col-steps': () => 'steps',
      'col-duration': () => 'duration',
      'col-started': () => 'started (UTC)',
      'inline-config': () => 'inline config',
      'no-runs': (p) => `no runs recorded yet in ${p.path}\nTry: headroom run -- python train.py`,
      orphaned: (p) =>
        `run ${p.id} is "running" but nothing records it: headroom watch --log ${p.log} resumes it`,
      removed: (p) => `removed run ${p.id}${p.name ? ` "${p.name}"` : ''} and its files`,
      'chart-heading': (p) => `per-step peak (${p.allocatedMark} allocated, ${p.reservedMark} reserved)`,
      phases: () => 'phases',
      'ranks-heading': (p) =>
        `${p.count} ranks${p.peakRank === null ? '' : ` (${p.mark} rank ${p.peakRank} holds the run’s peak)`}`,
      'col-rank': () => 'rank',
      'col-local-rank': () => 'local',
      'col-host': () => 'host',
      'col-gpu': () => 'GPU',
      'per-rank-heading': (p) =>
        `per-step peak allocated per rank${p.shown < p.total ? ` (${p.shown} of ${p.total} steps)` : ''}`,
      'col-step': () => 'step',
      'phase-when': () => 'when',
      'phase-after-step': () => 'after step',
      'phase-rank': () => 'rank',
      'phase-change': () => 'change',
      'phase-peak-before': () => 'peak before',
      events: () => 'events',
      'compared-by': (p) => `compared by ${p.by === 'scenario' ? 'scenario fields' : 'command line'}`,
      'diff-status': () => 'status',
      'diff-steps': () => 'steps',
      'diff-peak': (p) => (p.layer === 'device' ? 'peak nvidia-smi' : `peak ${p.layer}`),
      'diff-changed': () => 'changed',
      'diff-change': () => 'change',
      'several-changed': (p) =>
        `${p.names.length} variables changed (${p.names.join(', ')}): the change in peak memory cannot be put down to one of them; change one at a time`,
      'nothing-changed': (p) =>
        `nothing recorded differs between runs ${p.a} and ${p.b}: a difference in memory comes from something not recorded (data, library versions) or is noise`,
    },
    zh: {
      'col-id': () => 'id',
      'col-name': () => '名称',
      'col-status': () => '状态',
      'col-model': () => '模型',
      'col-method': () => '方法',
      'col-batch': () => '批大小',
      'col-seq': () => '序列',
      'col-allocated': () => '已分配',
      'col-reserved': () => '已保留',
      'col-device': () => 'nvidia-smi',
      'col-steps': () => '步数',
      'col-duration': () => '时长',
      'col-started': () => '开始时间（UTC）',
      'inline-config': () => '内联配置',
      'no-runs': (p) => `${p.path} 中还没有运行记录\n建议：headroom run -- python train.py`,
      orphaned: (p) =>
        `运行 ${p.id} 状态为 "running"，但没有进程在记录它：headroom watch --log ${p.log} 可接着记录`,
      removed: (p) => `已删除运行 ${p.id}${p.name ? ` "${p.name}"` : ''} 及其文件`,
      'chart-heading': (p) => `每步峰值（${p.allocatedMark} 已分配，${p.reservedMark} 已保留）`,
      phases: () => '阶段',
      'ranks-heading': (p) =>
        `${p.count} 个 rank${p.peakRank === null ? '' : `（${p.mark} rank ${p.peakRank} 的峰值即本次运行的峰值）`}`,
      'col-rank': () => 'rank 编号',
      'col-local-rank': () => '本机 rank',
      'col-host': () => '主机',
      'col-gpu': () => 'GPU',
      'per-rank-heading': (p) =>
        `各 rank 每步的已分配峰值${p.shown < p.total ? `（显示 ${p.total} 步中的 ${p.shown} 步）` : ''}`,
      'col-step': () => '步',
      'phase-when': () => '时间',
      'phase-after-step': () => '所在步之后',
      'phase-rank': () => 'rank 编号',
      'phase-change': () => '变化',
      'phase-peak-before': () => '此前峰值',
      events: () => '事件',
      'compared-by': (p) => `按${p.by === 'scenario' ? '场景字段' : '命令行'}比较`,
      'diff-status': () => '状态',
      'diff-steps': () => '步数',
      'diff-peak': (p) =>
        `${p.layer === 'device' ? 'nvidia-smi ' : p.layer === 'allocated' ? '已分配' : '已保留'}峰值`,
      'diff-changed': () => '已改变',
      'diff-change': () => '变化',
      'several-changed': (p) =>
        `有 ${p.names.length} 个变量改变了（${p.names.join('、')}）：峰值显存的变化无法归因于其中某一个；一次只改一个`,
      'nothing-changed': (p) =>
        `运行 ${p.a} 与 ${p.b} 之间没有任何已记录的差异：显存的差别来自未记录的因素（数据、库版本），或只是噪声`,
    },
  },
  examples: {
    'col-id': {},
    'col-name': {},
    'col-status': {},
    'col-model': {},
    'col-method': {},
    'col-batch': {},
    'col-seq': {},
    'col-allocated': {},
    'col-reserved': {},
    'col-device': {},
    'col-steps': {},
    'col-duration': {},
    'col-started': {},
    'inline-config': {},
    'no-runs': { path: '/home/me/.headroom/ledger.db' },
    orphaned: { id: 4, log: '/tmp/probe.jsonl' },
    removed: { id: 2, name: 'bs8' },
    'chart-heading': { allocatedMark: '█', reservedMark: '░' },
    phases: {},
    'ranks-heading': { count: 2, peakRank: 1, mark: '◀' },
    'col-rank': {},
    'col-local-rank': {},
    'col-host': {},
    'col-gpu': {},
    'per-rank-heading': { shown: 20, total: 200 },
    'col-step': {},
    'phase-when': {},
    'phase-after-step': {},
    'phase-rank': {},
    'phase-change': {},
    'phase-peak-before': {},
    events: {},
    'compared-by': { by: 'command' },
    'diff-status': {},
    'diff-steps': {},
    'diff-peak': { layer: 'allocated' },
    'diff-changed': {},
    'diff-change': {},
    'several-changed': { names: ['--batch-size', '--leak-mib'] },
    'nothing-changed': { a: 5, b: 6 },
  },
});

/** The dashboard's words in English and Simplified Chinese; the browser's language picks the default. */
import { createContext, useContext } from 'react';
import type { PeakTermName } from '../../src/core/estimate.js';
import type { EstimateNote } from '../../src/core/estimate-notes.js';
import { say } from '../../src/words/catalog.js';
import { ESTIMATE_NOTES } from '../../src/words/estimate-notes.js';
import { peakTermLabel } from '../../src/words/peak-terms.js';
import { UI_ESTIMATE_LABELS } from '../../src/words/ui-estimate.js';

export type Lang = 'en' | 'zh';

const EN = {
  'nav.estimate': 'Estimate',
  'nav.runs': 'Runs',
  'nav.migrate': 'Migrate',
  'nav.snapshot': 'Snapshot',
  'nav.demo': 'demo data',
  ...UI_ESTIMATE_LABELS.en,
  'level.allocated': 'allocated',
  'level.reserved': 'reserved',
  'level.device': 'nvidia-smi',
  'runs.title': 'Runs',
  'runs.empty': 'No runs recorded yet. Start one with: headroom run -- python train.py',
  'runs.name': 'name',
  'runs.status': 'status',
  'runs.model': 'model',
  'runs.method': 'method',
  'runs.batch': 'batch',
  'runs.seq': 'seq',
  'runs.peakAllocated': 'peak allocated',
  'runs.peakReserved': 'peak reserved',
  'runs.peakDevice': 'peak nvidia-smi',
  'runs.duration': 'duration',
  'runs.started': 'started',
  'runs.compare': 'Compare selected',
  'run.memory': 'Memory over time',
  'run.stepCount': 'steps',
  'run.steps': 'Per-step peak',
  'run.loss': 'loss',
  'run.findings': 'Diagnosis',
  'run.noFindings': 'Nothing to report.',
  'run.live': 'live',
  'run.oom': 'OOM',
  'run.estimateVsMeasured': 'Estimate vs measured',
  'run.system': 'nvidia-smi used',
  'run.diff': 'What changed',
  'run.oneVariable':
    'More than one variable changed: the change in memory cannot be attributed to one of them.',
  'common.loading': 'loading…',
  'common.error': 'error',
  'common.none': 'none',
} as const;

export type MessageKey = keyof typeof EN;

const ZH: Record<MessageKey, string> = {
  'nav.estimate': '估算',
  'nav.runs': '运行记录',
  'nav.migrate': '迁移',
  'nav.snapshot': '显存快照',
  'nav.demo': '演示数据',
  ...UI_ESTIMATE_LABELS.zh,
  'level.allocated': '已分配',
  'level.reserved': '已保留',
  'level.device': 'nvidia-smi',
  'runs.title': '运行记录',
  'runs.empty': '还没有运行记录。用 headroom run -- python train.py 开始一次。',
  'runs.name': '名称',
  'runs.status': '状态',
  'runs.model': '模型',
  'runs.method': '方法',
  'runs.batch': '批大小',
  'runs.seq': '序列',
  'runs.peakAllocated': '已分配峰值',
  'runs.peakReserved': '已保留峰值',
  'runs.peakDevice': 'nvidia-smi 峰值',
  'runs.duration': '时长',
  'runs.started': '开始时间',
  'runs.compare': '比较所选',
  'run.memory': '显存随时间变化',
  'run.stepCount': '步数',
  'run.steps': '每步峰值',
  'run.loss': '损失',
  'run.findings': '诊断',
  'run.noFindings': '没有发现问题。',
  'run.live': '实时',
  'run.oom': '显存溢出',
  'run.estimateVsMeasured': '估算与实测',
  'run.system': 'nvidia-smi 已用',
  'run.diff': '配置差异',
  'run.oneVariable': '改变了不止一个变量：无法把显存变化归因于其中某一个。',
  'common.loading': '加载中…',
  'common.error': '错误',
  'common.none': '无',
};

export const MESSAGES: Readonly<Record<Lang, Readonly<Record<MessageKey, string>>>> = { en: EN, zh: ZH };

/** The language the browser prefers, when it is one we speak. */
export function defaultLang(languages: readonly string[]): Lang {
  return languages.some((l) => l.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export const LangContext = createContext<Lang>('en');

/** The words for a term of the peak (estimate --explain's), in the current language (src/words/peak-terms.ts). */
export function useTermLabel(): (term: PeakTermName) => string {
  const lang = useContext(LangContext);
  return (term) => peakTermLabel(lang, term);
}

/** An estimate's note in the current language (src/words/estimate-notes.ts). */
export function useNoteText(): (note: EstimateNote) => string {
  const lang = useContext(LangContext);
  return (note) => say(ESTIMATE_NOTES, lang, note);
}

/** The current language. */
export function useLang(): Lang {
  return useContext(LangContext);
}

/** The translate function for the current language. */
export function useT(): (key: MessageKey) => string {
  const lang = useContext(LangContext);
  return (key) => MESSAGES[lang][key];
}

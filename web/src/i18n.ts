/** The dashboard's words in English and Simplified Chinese; the browser's language picks the default. */
import { createContext, useContext } from 'react';
import type { PeakTermName, ReserveBasis } from '../../src/core/estimate.js';
import type { EstimateNote } from '../../src/core/estimate-notes.js';
import { say } from '../../src/words/catalog.js';
import { ESTIMATE_NOTES } from '../../src/words/estimate-notes.js';
import { ESTIMATE_VIEW } from '../../src/words/estimate-view.js';
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

/** The row that names what set the reserve above allocated (estimate --explain's words, src/words/estimate-view.ts). */
export function useReserveLabel(): (basis: ReserveBasis) => string {
  const lang = useContext(LangContext);
  return (basis) => say(ESTIMATE_VIEW, lang, { code: 'terms-reserve', params: { basis } });
}

/**
 * A fixed row of how the peak adds up, in the CLI's words (estimate-view.ts): FSDP's communication
 * streams' cached blocks, or what the process holds outside torch.
 */
export function usePeakRowLabel(): (code: 'terms-stream-cache' | 'terms-outside') => string {
  const lang = useContext(LangContext);
  return (code) => say(ESTIMATE_VIEW, lang, { code, params: {} });
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

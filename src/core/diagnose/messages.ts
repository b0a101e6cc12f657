/**
 * @deprecated Issue #18: the findings' words moved to src/words (findings.ts, finding-actions.ts,
 * evidence.ts, remedies.ts, oom.ts, diagnosis.ts), rendered there from the findings' codes and raw
 * params. What stays here holds no words: a language handle for the callers that still pass
 * `catalogFor(lang)` to `estimateErrorText` (src/core/estimate-error.ts) and the `Lang` type. New code
 * takes `Lang` from src/words/lang.ts and renders with src/words; the lead removes this file once
 * nothing imports it.
 */
import type { Lang } from '../../words/lang.js';

export type { Lang };

/** A language, as the old catalogs were passed around. */
export interface MessageCatalog {
  readonly lang: Lang;
}

export const EN: MessageCatalog = { lang: 'en' };
export const ZH: MessageCatalog = { lang: 'zh' };

/** Catalogs by language code. */
export const CATALOGS: Readonly<Record<Lang, MessageCatalog>> = { en: EN, zh: ZH };

/** The catalog of a language code ("zh", "zh-CN", "en_US.UTF-8"); English for anything else. */
export function catalogFor(lang: string | null | undefined): MessageCatalog {
  return /^zh/i.test(lang ?? '') ? ZH : EN;
}

/**
 * The languages Headroom speaks, and how a command picks one: `--lang`, else the POSIX locale
 * (LC_ALL, then LC_MESSAGES, then LANG: a `zh…` locale speaks Chinese), else English.
 */
export const LANGS = ['en', 'zh'] as const;
export type Lang = (typeof LANGS)[number];

/** The language a locale or a `--lang` value names: zh, zh_CN.UTF-8, zh-Hans → zh; anything else → en. */
export function langOf(value: string | null | undefined): Lang {
  return value !== null && value !== undefined && /^zh(?:$|[-_.@])/i.test(value.trim()) ? 'zh' : 'en';
}

/** Whether a `--lang` value names a language Headroom speaks (en, zh, or a locale of either). */
export function isLangValue(value: string): boolean {
  return /^(?:en|zh)(?:[-_][\w.@-]*)?$/i.test(value.trim());
}

/** The colon and the comma that join words in each language, for the edges that join words themselves. */
export const COLON: Readonly<Record<Lang, string>> = { en: ': ', zh: '：' };
export const COMMA: Readonly<Record<Lang, string>> = { en: ', ', zh: '，' };

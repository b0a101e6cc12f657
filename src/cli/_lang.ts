/** `--lang en|zh` for every command: its words come from the catalog in src/words. */
import { fileError } from '../core/file-errors.js';
import { isLangValue, type Lang, langOf } from '../words/lang.js';

export const LANG_OPTIONS = { lang: { type: 'string' } } as const;

export const LANG_HELP = `  --lang en|zh              the language of the output: en English, zh Simplified Chinese  [from LC_ALL / LANG]`;

/** The POSIX locale that names the language of messages: LC_ALL, then LC_MESSAGES, then LANG. */
export function localeOf(env: NodeJS.ProcessEnv): string {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return value;
  }
  return '';
}

/**
 * The language a command speaks: --lang, else the locale (zh… → Chinese), else English. Every
 * command takes --lang (LANG_OPTIONS, LANG_HELP) and renders its words from src/words in it. `speaker`
 * names what speaks in the error for a language it does not (diagnose: "the findings speak").
 */
export function langFromFlag(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  speaker: 'headroom' | 'findings' = 'headroom',
): Lang {
  if (flag === undefined) return langOf(localeOf(env));
  if (!isLangValue(flag)) {
    throw fileError('bad-lang', { value: flag, speaker }, '--lang', 'bad-flag');
  }
  return langOf(flag);
}

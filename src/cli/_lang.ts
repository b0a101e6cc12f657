/** `--lang en|zh` for the commands whose words come from the message catalog (diagnose). */
// The catalog module alone: the diagnoser behind diagnose/index.js costs every command ~40 ms to load.
import { catalogFor, type MessageCatalog } from '../core/diagnose/messages.js';
import { HeadroomUserError } from '../core/errors.js';
import { isLangValue, type Lang, langOf } from '../words/lang.js';

export const LANG_OPTIONS = { lang: { type: 'string' } } as const;

export const LANG_HELP = `  --lang en|zh              the language of the output (English, 简体中文)   [from LC_ALL / LANG]`;

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
 * command takes --lang (LANG_OPTIONS, LANG_HELP) and renders its words from src/words in it.
 */
export function langFromFlag(flag: string | undefined, env: NodeJS.ProcessEnv): Lang {
  if (flag === undefined) return langOf(localeOf(env));
  if (!isLangValue(flag)) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: '--lang',
      message: `--lang ${flag}: Headroom speaks en (English) and zh (简体中文)`,
      hint: '--lang zh or --lang en',
    });
  }
  return langOf(flag);
}

/** The catalog of --lang, else of the locale (zh… → Chinese), else English. */
export function catalogFromFlag(flag: string | undefined, env: NodeJS.ProcessEnv): MessageCatalog {
  if (flag === undefined) return catalogFor(localeOf(env));
  if (!/^(?:en|zh)(?:[-_][\w.@-]*)?$/i.test(flag.trim())) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: '--lang',
      message: `--lang ${flag}: the findings speak en (English) and zh (简体中文)`,
      hint: '--lang zh or --lang en',
    });
  }
  return catalogFor(flag.trim());
}

/** `--lang en|zh` for the commands whose words come from the message catalog (diagnose). */
import { catalogFor, type MessageCatalog } from '../core/diagnose/index.js';
import { HeadroomUserError } from '../core/errors.js';

export const LANG_OPTIONS = { lang: { type: 'string' } } as const;

export const LANG_HELP = `  --lang en|zh              the language of the findings (English, 简体中文)   [from LC_ALL / LANG]`;

/** The POSIX locale that names the language of messages: LC_ALL, then LC_MESSAGES, then LANG. */
export function localeOf(env: NodeJS.ProcessEnv): string {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return value;
  }
  return '';
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

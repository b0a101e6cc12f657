/**
 * Where the browser tests find a Chromium or Chrome: a path named in the environment, else the first
 * of the usual install paths that is an executable file. playwright-core drives it; nothing downloads
 * a browser of its own. scripts/ensure-test-deps.ts asks the same question before `npm test` runs.
 */
import { accessSync, constants, statSync } from 'node:fs';

/** Variables that name the executable, first one set wins: Headroom's own, then the common one. */
export const BROWSER_ENV = ['HEADROOM_CHROMIUM', 'CHROME_PATH'] as const;

/** Where Debian, Ubuntu (deb and snap), Google's packages and macOS put Chromium or Chrome. */
export const BROWSER_PATHS: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export type BrowserLookup =
  | { found: true; path: string; from: (typeof BROWSER_ENV)[number] | 'usual paths' }
  | { found: false; reason: string; variable?: (typeof BROWSER_ENV)[number] };

/** True for a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The browser to drive. A variable that is set but names no executable is an error, not a reason to
 * fall back: the person who set it meant that browser.
 */
export function findBrowser(
  env: NodeJS.ProcessEnv = process.env,
  executable: (path: string) => boolean = isExecutable,
  paths: readonly string[] = BROWSER_PATHS,
): BrowserLookup {
  for (const name of BROWSER_ENV) {
    const named = env[name];
    if (named === undefined || named === '') continue;
    return executable(named)
      ? { found: true, path: named, from: name }
      : { found: false, reason: `${name}=${named} is not an executable file`, variable: name };
  }
  const path = paths.find(executable);
  return path !== undefined
    ? { found: true, path, from: 'usual paths' }
    : {
        found: false,
        reason: `no Chromium or Chrome at ${paths.join(', ')}, and neither ${BROWSER_ENV.join(' nor ')} is set`,
      };
}

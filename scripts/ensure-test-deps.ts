/**
 * The first step of `npm test`: the machine things the tests need beside node_modules, checked in a
 * second, installed where that is possible without asking, else a stop at once with the one command
 * that installs them.
 *
 * - a Chromium or Chrome for the browser tests (test/browser/find-browser.ts says where it looks);
 * - python3 for the probe's and the GPU harness's tests;
 * - a CJK font, so the Chinese pages in the browser tests' screenshots show glyphs, not boxes;
 * - in CI (CI=true) only, Prometheus and promtool for the fleet's integration test
 *   (test/prometheus.test.ts), which skips itself with a message elsewhere.
 *
 * Missing ones are installed from Debian/Ubuntu packages when apt-get is there and this process is
 * root or has passwordless sudo: `apt-get update` (only when the package lists do not know the
 * packages yet), then `apt-get install -y --no-install-recommends`. Nothing downloads a browser build
 * of its own (never `playwright install`).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findBrowser, isExecutable } from '../test/browser/find-browser.js';

export interface Need {
  /** What it is for, as the person reading the stop message needs it. */
  what: string;
  /** Debian/Ubuntu packages that provide it, the first one the package lists know is taken. */
  packages: readonly string[];
  /** Why it is missing. */
  reason: string;
  /** False when installing a package cannot help (a variable names a browser that is not there). */
  installable: boolean;
}

export interface Machine {
  /** A program's exit status and output, or null status when it could not be started. */
  run(command: string, args: readonly string[]): { status: number | null; stdout: string };
  /** Whether a path is a file this process may execute. */
  executable(path: string): boolean;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  uid: number | undefined;
}

export const SYSTEM: Machine = {
  run(command, args) {
    const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { status: result.error ? null : result.status, stdout: result.stdout ?? '' };
  },
  executable: isExecutable,
  env: process.env,
  platform: process.platform,
  uid: process.getuid?.(),
};

/** What is missing on this machine; empty when the tests can run. */
export function missing(machine: Machine): Need[] {
  const needs: Need[] = [];
  const browser = findBrowser(machine.env, (path) => machine.executable(path));
  if (!browser.found) {
    needs.push({
      what: 'a Chromium or Chrome for the browser tests',
      packages: ['chromium', 'chromium-browser'],
      reason: browser.reason,
      installable: browser.variable === undefined,
    });
  }
  if (machine.run('python3', ['--version']).status !== 0) {
    needs.push({
      what: "python3 for the probe's tests",
      packages: ['python3'],
      reason: 'python3 is not on PATH',
      installable: true,
    });
  }
  // macOS ships CJK fonts (PingFang); elsewhere ask fontconfig, which Chromium uses too.
  if (machine.platform !== 'darwin') {
    const fonts = machine.run('fc-list', [':lang=zh', 'family']);
    if (fonts.status !== 0 || fonts.stdout.trim() === '') {
      needs.push({
        what: 'a CJK font, so Chinese screenshots show glyphs',
        packages: ['fonts-noto-cjk'],
        reason:
          fonts.status === null ? 'fc-list (fontconfig) is not installed' : 'fc-list :lang=zh lists no font',
        installable: true,
      });
    }
  }
  const prometheus = (tool: string) => machine.run(tool, ['--version']).status === 0;
  if (machine.env.CI === 'true' && !(prometheus('prometheus') && prometheus('promtool'))) {
    needs.push({
      what: "Prometheus and promtool for the fleet's integration test (required when CI=true)",
      packages: ['prometheus'],
      reason: 'prometheus or promtool is not on PATH',
      installable: true,
    });
  }
  return needs;
}

/** How this process could run apt-get without a prompt: directly (root), through `sudo -n`, or not. */
export function installer(machine: Machine): string[] | undefined {
  if (machine.run('apt-get', ['--version']).status !== 0) return undefined;
  if (machine.uid === 0) return [];
  return machine.run('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : undefined;
}

/** The package of each need that the package lists know, or undefined for a need none is known of. */
export function choosePackages(needs: readonly Need[], machine: Machine): (string | undefined)[] {
  const known = (name: string) => machine.run('apt-cache', ['show', '--no-all-versions', name]).status === 0;
  return needs.map((need) => need.packages.find(known));
}

/** The one command a person runs to install `packages` on Debian or Ubuntu. */
export function aptCommand(packages: readonly string[], sudo: boolean): string {
  const prefix = sudo ? 'sudo ' : '';
  return `${prefix}apt-get update && ${prefix}apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/** What to print when the tests cannot start, with the command that fixes it. */
export function stopMessage(needs: readonly Need[], machine: Machine): string {
  const lines = ['npm test needs, before it can run:'];
  for (const need of needs) lines.push(`  - ${need.what}: ${need.reason}`);
  const named = needs.find((need) => !need.installable);
  if (named !== undefined) {
    lines.push(
      'Point that variable at a Chromium or Chrome executable, or unset it, then run npm test again.',
    );
  } else if (machine.run('apt-get', ['--version']).status === 0) {
    const chosen = choosePackages(needs, machine);
    const packages = needs.map((need, index) => chosen[index] ?? need.packages[0]!);
    lines.push(
      'Install them with:',
      `  ${aptCommand(packages, machine.uid !== 0)}`,
      'then run npm test again.',
    );
  } else {
    lines.push('Install them with your package manager, then run npm test again.');
    if (needs.some((need) => need.packages.includes('chromium'))) {
      lines.push('A Chromium or Chrome installed elsewhere: set HEADROOM_CHROMIUM to its executable.');
    }
  }
  return lines.join('\n');
}

/** Runs a command with its output shown; true when it exits 0. */
export type Exec = (command: string, args: readonly string[]) => boolean;

const SHOWN: Exec = (command, args) => {
  console.error(`$ ${[command, ...args].join(' ')}`);
  return spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
};

/** Checks, installs what it can, checks again; the exit code of the step. */
export function ensure(
  machine: Machine,
  exec: Exec = SHOWN,
  log: (line: string) => void = console.error,
): number {
  let needs = missing(machine);
  if (needs.length === 0) return 0;
  const fail = (why?: string): number => {
    log(why === undefined ? stopMessage(needs, machine) : `${stopMessage(needs, machine)}\n(${why})`);
    return 1;
  };
  const prefix = installer(machine);
  if (prefix === undefined || needs.some((need) => !need.installable)) return fail();
  const apt = (...args: string[]): boolean => {
    const [command, ...rest] = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
    return exec(command!, rest);
  };
  let packages = choosePackages(needs, machine);
  if (packages.includes(undefined)) {
    // The package lists are missing or old (a fresh image): refresh them, once.
    if (!apt('update')) return fail('apt-get update failed');
    packages = choosePackages(needs, machine);
  }
  const known = packages.filter((name): name is string => name !== undefined);
  if (known.length < needs.length) return fail('the package lists have no package for it');
  log(`npm test: installing ${known.join(' ')} (${needs.map((need) => need.what).join('; ')})`);
  if (!apt('install', '-y', '--no-install-recommends', ...known)) return fail('apt-get install failed');
  needs = missing(machine);
  return needs.length === 0 ? 0 : fail('still missing after the install');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = ensure(SYSTEM);
}

/** Where the browser tests find a browser, and what `npm test` does first when a dependency is missing. */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensure, type Machine } from '../scripts/ensure-test-deps.js';
import { BROWSER_PATHS, findBrowser, isExecutable } from './browser/find-browser.js';

const only =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

describe('findBrowser', () => {
  it('takes HEADROOM_CHROMIUM first, then CHROME_PATH', () => {
    const both = { HEADROOM_CHROMIUM: '/x/chrome', CHROME_PATH: '/y/chrome' };
    expect(findBrowser(both, only('/x/chrome', '/y/chrome', '/usr/bin/chromium'))).toEqual({
      found: true,
      path: '/x/chrome',
      from: 'HEADROOM_CHROMIUM',
    });
    expect(findBrowser({ CHROME_PATH: '/y/chrome' }, only('/y/chrome', '/usr/bin/chromium'))).toEqual({
      found: true,
      path: '/y/chrome',
      from: 'CHROME_PATH',
    });
  });

  it('does not fall back when a variable names no executable (HEADROOM_CHROMIUM=/nonexistent)', () => {
    expect(findBrowser({ HEADROOM_CHROMIUM: '/nonexistent' }, only('/usr/bin/chromium'))).toEqual({
      found: false,
      reason: 'HEADROOM_CHROMIUM=/nonexistent is not an executable file',
      variable: 'HEADROOM_CHROMIUM',
    });
  });

  it('ignores an empty variable and tries the usual paths in order', () => {
    const env = { HEADROOM_CHROMIUM: '', CHROME_PATH: '' };
    expect(findBrowser(env, only('/snap/bin/chromium'))).toMatchObject({ path: '/snap/bin/chromium' });
    expect(findBrowser(env, only('/snap/bin/chromium', '/usr/bin/google-chrome'))).toEqual({
      found: true,
      path: '/usr/bin/google-chrome',
      from: 'usual paths',
    });
    expect(BROWSER_PATHS[0]).toBe('/usr/bin/chromium');
  });

  it('names every place it looked when there is none', () => {
    const lookup = findBrowser({}, () => false);
    expect(lookup.found).toBe(false);
    if (lookup.found) return;
    for (const path of BROWSER_PATHS) expect(lookup.reason).toContain(path);
    expect(lookup.reason).toContain('HEADROOM_CHROMIUM nor CHROME_PATH');
    expect(lookup.variable).toBeUndefined();
  });

  it('counts only executable files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-find-browser-'));
    const program = join(dir, 'chrome');
    const text = join(dir, 'notes.txt');
    writeFileSync(program, '#!/bin/sh\n');
    chmodSync(program, 0o755);
    writeFileSync(text, 'not a browser\n');
    chmodSync(text, 0o644);
    mkdirSync(join(dir, 'folder'));
    expect([program, text, join(dir, 'folder'), join(dir, 'absent')].map(isExecutable)).toEqual([
      true,
      // root may read anything, but X_OK still needs an execute bit on a file
      false,
      false,
      false,
    ]);
  });
});

/** A Debian machine in a test: what is installed, what the package lists know, who we are. */
function fakeDebian(
  options: {
    installed?: string[];
    listsFresh?: boolean;
    known?: string[];
    uid?: number;
    sudo?: boolean;
    apt?: boolean;
    env?: NodeJS.ProcessEnv;
    installFails?: boolean;
  } = {},
) {
  const state = {
    installed: new Set(options.installed ?? []),
    listsFresh: options.listsFresh ?? true,
    calls: [] as string[],
    log: [] as string[],
  };
  const known = new Set(options.known ?? ['chromium', 'python3', 'fonts-noto-cjk', 'prometheus']);
  const browserAt: Record<string, string> = {
    chromium: '/usr/bin/chromium',
    'chromium-browser': '/usr/bin/chromium-browser',
  };
  const machine: Machine = {
    executable: (path) =>
      Object.entries(browserAt).some(([pkg, at]) => at === path && state.installed.has(pkg)),
    env: options.env ?? {},
    platform: 'linux',
    uid: options.uid ?? 0,
    run(command, args) {
      const status = (ok: boolean, missing: number | null = 1) => ({ status: ok ? 0 : missing, stdout: '' });
      if (command === 'python3') return status(state.installed.has('python3'), null);
      if (command === 'prometheus' || command === 'promtool')
        return status(state.installed.has('prometheus'), null);
      if (command === 'fc-list') {
        return { status: 0, stdout: state.installed.has('fonts-noto-cjk') ? 'Noto Sans CJK SC\n' : '' };
      }
      if (command === 'apt-get') return status(options.apt ?? true, null);
      if (command === 'sudo') return status(options.sudo ?? false);
      if (command === 'apt-cache') return status(state.listsFresh && known.has(args.at(-1)!), 100);
      return status(false, null);
    },
  };
  const exec = (command: string, args: readonly string[]): boolean => {
    state.calls.push([command, ...args].join(' '));
    if (args.includes('update')) state.listsFresh = true;
    const install = args.indexOf('install');
    if (install >= 0) {
      if (options.installFails) return false;
      for (const name of args.slice(install + 1).filter((arg) => !arg.startsWith('-')))
        state.installed.add(name);
    }
    return true;
  };
  return { machine, state, run: () => ensure(machine, exec, (line) => state.log.push(line)) };
}

const EVERYTHING = ['chromium', 'python3', 'fonts-noto-cjk'];

describe('ensure (the first step of npm test)', () => {
  it('does nothing when the browser, python3 and a CJK font are there', () => {
    const debian = fakeDebian({ installed: EVERYTHING });
    expect(debian.run()).toBe(0);
    expect(debian.state.calls).toEqual([]);
    expect(debian.state.log).toEqual([]);
  });

  it('as root on a fresh image: refreshes the package lists once, installs what is missing, checks again', () => {
    const debian = fakeDebian({ installed: ['python3'], listsFresh: false });
    expect(debian.run()).toBe(0);
    expect(debian.state.calls).toEqual([
      'env DEBIAN_FRONTEND=noninteractive apt-get update',
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-noto-cjk',
    ]);
  });

  it('installs Prometheus for the fleet test in CI only (CI=true), where that test is required', () => {
    expect(fakeDebian({ installed: EVERYTHING }).run()).toBe(0);
    const ci = fakeDebian({ installed: EVERYTHING, env: { CI: 'true' } });
    expect(ci.run()).toBe(0);
    expect(ci.state.calls).toEqual([
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus',
    ]);
  });

  it('skips apt-get update when the package lists already know the packages', () => {
    const debian = fakeDebian({ installed: ['chromium', 'python3'] });
    expect(debian.run()).toBe(0);
    expect(debian.state.calls).toEqual([
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fonts-noto-cjk',
    ]);
  });

  it('uses passwordless sudo when it is not root', () => {
    const debian = fakeDebian({ installed: ['python3', 'fonts-noto-cjk'], uid: 1000, sudo: true });
    expect(debian.run()).toBe(0);
    expect(debian.state.calls).toEqual([
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium',
    ]);
  });

  it("takes Ubuntu's chromium-browser where the lists have no chromium", () => {
    const debian = fakeDebian({ installed: ['python3'], known: ['chromium-browser', 'fonts-noto-cjk'] });
    expect(debian.run()).toBe(0);
    expect(debian.state.calls.at(-1)).toBe(
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium-browser fonts-noto-cjk',
    );
  });

  it('stops at once with the one command when it may not install (no root, no passwordless sudo)', () => {
    const debian = fakeDebian({ installed: ['python3'], uid: 1000 });
    expect(debian.run()).toBe(1);
    expect(debian.state.calls).toEqual([]);
    expect(debian.state.log.join('\n')).toContain(
      'Install them with:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium fonts-noto-cjk\nthen run npm test again.',
    );
  });

  it('stops without installing when HEADROOM_CHROMIUM names no browser (HEADROOM_CHROMIUM=/nonexistent)', () => {
    const debian = fakeDebian({ installed: EVERYTHING, env: { HEADROOM_CHROMIUM: '/nonexistent' } });
    expect(debian.run()).toBe(1);
    expect(debian.state.calls).toEqual([]);
    expect(debian.state.log.join('\n')).toBe(
      [
        'npm test needs, before it can run:',
        '  - a Chromium or Chrome for the browser tests: HEADROOM_CHROMIUM=/nonexistent is not an executable file',
        'Point that variable at a Chromium or Chrome executable, or unset it, then run npm test again.',
      ].join('\n'),
    );
  });

  it('without apt-get, says what is missing and how to name a browser installed elsewhere', () => {
    const debian = fakeDebian({ installed: ['python3', 'fonts-noto-cjk'], apt: false });
    expect(debian.run()).toBe(1);
    const message = debian.state.log.join('\n');
    expect(message).toContain('Install them with your package manager, then run npm test again.');
    expect(message).toContain('set HEADROOM_CHROMIUM to its executable');
  });

  it('fails with the command when the install fails', () => {
    const debian = fakeDebian({ installed: ['chromium', 'fonts-noto-cjk'], installFails: true });
    expect(debian.run()).toBe(1);
    expect(debian.state.log.at(-1)).toMatch(
      /python3 is not on PATH\nInstall them with:\n {2}apt-get update && apt-get install -y --no-install-recommends python3\nthen run npm test again.\n\(apt-get install failed\)$/,
    );
  });
});

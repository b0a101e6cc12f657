/**
 * Read commands on a home this user may not write (a read-only mount, another user's folder): they read
 * the ledger as it is instead of failing, and a command that must write says what to do. Root ignores
 * file modes, so as root the commands run as `nobody` (setpriv, util-linux); without either the test is
 * skipped with its reason.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../src/io/ledger.js';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const root = process.getuid?.() === 0;
const setpriv = spawnSync('setpriv', ['--version']).status === 0;
const runnable = !root || setpriv;

const dir = mkdtempSync(join(tmpdir(), 'headroom-ro-'));
chmodSync(dir, 0o755);
const home = join(dir, 'home');
afterAll(() => {
  chmodSync(home, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

function headroom(args: readonly string[]) {
  const env = { ...process.env, NO_COLOR: '1', HEADROOM_HOME: home, HF_ENDPOINT: 'http://127.0.0.1:9' };
  const [cmd, argv] = root
    ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  const r = spawnSync(cmd as string, argv as string[], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!runnable)('a read-only home', () => {
  it('lists, shows, reports and diagnoses its runs, and refuses to remove one with a clear error', () => {
    const ledger = Ledger.open(home);
    const run = ledger.createRun({
      name: 'ro-run',
      command: ['python', 'train.py'],
      cwd: '/work',
      host: 'gpu1',
      scenario: { model: 'llama-3.2-1b', method: 'lora' },
      estimate: { allocatedBytes: 1000, reservedBytes: 1100, deviceBytes: 1600 },
      env: { gpus: [{ index: 0, name: 'NVIDIA H200' }] },
      startedAtMs: 1_767_225_600_000,
      monitorPid: 123,
    });
    ledger.updateRun(run.id, { status: 'ok', exitCode: 0, endedAtMs: 1_767_225_660_000 });
    ledger.close();
    // WAL mode's -wal and -shm are gone after the last close: a read-only open alone cannot read it.
    chmodSync(join(home, 'ledger.db'), 0o444);
    chmodSync(home, 0o555);

    const list = headroom(['runs', '--json']);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    const runs = JSON.parse(list.stdout) as { id: number; name: string; status: string }[];
    expect(runs.map((r) => [r.id, r.name])).toEqual([[run.id, 'ro-run']]);

    const show = headroom(['runs', 'show', 'ro-run']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('ro-run');

    const out = join(dir, 'out');
    mkdirSync(out, { mode: 0o777 });
    chmodSync(out, 0o777);
    for (const command of [
      ['report', 'ro-run', '-o', join(out, 'r.html')],
      ['diagnose', 'ro-run'],
    ]) {
      const r = headroom(command);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }

    const rm = headroom(['runs', 'rm', 'ro-run']);
    expect(rm.code).not.toBe(0);
    expect(rm.stderr).toContain('cannot open the ledger');
    expect(rm.stderr).toContain('set HEADROOM_HOME to a folder you can write');
    expect(rm.stderr).not.toMatch(/\n\s+at /);
  });
});

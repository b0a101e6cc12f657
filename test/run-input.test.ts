/**
 * Bad input to `headroom run` and `watch`, end to end with the stand-in torch and nvidia-smi: a probe
 * log that never appears, a negative value that belongs to the training, --json on a pipe.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('headroom watch --log PATH that does not appear', () => {
  it('says so after --wait seconds, exits 1 and records nothing', () => {
    const { dir, env } = standinHome('headroom-watch-wait-');
    const log = join(dir, 'never.jsonl');
    const r = headroom(env, 'watch', '--log', log, '--wait', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `headroom: waiting up to 1 s for ${log} …\nerror: ${log} did not appear within 1 s; is the training writing its probe log there? (HEADROOM_LOG=${log})\nTry: start the training with HEADROOM_LOG=${log} PYTHONPATH="$(headroom probe path)", or wait longer: --wait 120\n`,
    );
    // No run left "running" (nor any other) in the ledger.
    expect(JSON.parse(headroom(env, 'runs', '--json').stdout)).toEqual([]);
  });

  it('--wait takes seconds, 0 or more', () => {
    const { env } = standinHome('headroom-watch-wait-');
    const r = headroom(env, 'watch', '--log', 'x.jsonl', '--wait', '-3');
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: --wait -3: not a number of seconds (0 or more)\nTry: e.g. --wait 30\n',
    ]);
  });
});

describe('headroom run and negative numbers', () => {
  it('a negative value is ours before --, and the training’s, untouched, after it', () => {
    const { env } = standinHome('headroom-run-negative-');
    const r = headroom(
      env,
      'run',
      '--no-smi',
      '--name',
      '-3',
      '--json',
      '--',
      'python3',
      '-c',
      'import sys; print(sys.argv[1:])',
      '--lr',
      '-2',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("['--lr', '-2']\n");
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: '-3',
      command: ['python3', '-c', 'import sys; print(sys.argv[1:])', '--lr', '-2'],
    });
  });
});

/**
 * The stand-in nvidia-smi lists a process the stand-in torch mirrored only while that process runs, as
 * the driver does: not after it exits (a zombie holds no GPU memory), not when its pid now names another
 * process (the start time in the state file differs from /proc/PID/stat's); each under the card it
 * allocated on, and not on a card it only asked about.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STANDIN_BIN, standinHome } from './standins.js';

/** The compute-apps rows, each as its `fields` (default: the pid alone). */
const rows = (env: NodeJS.ProcessEnv, fields = 'pid'): string[] =>
  spawnSync(
    'python3',
    [join(STANDIN_BIN, 'nvidia-smi'), `--query-compute-apps=${fields}`, '--format=csv,noheader,nounits'],
    { env, encoding: 'utf8' },
  )
    .stdout.trim()
    .split('\n')
    .filter((l) => l !== '');
const listed = (env: NodeJS.ProcessEnv): string[] => rows(env).map((l) => l.split(',')[0]!.trim());

/** /proc/PID/stat's start time (field 22), as the stand-in torch records it. */
const startOf = (pid: number): number =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(/\s+/)[19]);

describe.runIf(process.platform === 'linux')('stand-in nvidia-smi: which mirrored processes are live', () => {
  it('lists a running process with its start time, and not the same pid with another start time', () => {
    const { env } = standinHome('headroom-standin-smi-', { idleGpu: true });
    const dir = env.STANDIN_NVSMI_STATE_DIR!;
    const pid = process.pid;
    const state = (start: number) =>
      writeFileSync(join(dir, `${pid}.json`), JSON.stringify({ pid, start, devices: { 0: 2 ** 30 } }));
    state(startOf(pid));
    expect(listed(env)).toEqual([String(pid)]);
    // A reused pid: the file's process started at another time.
    state(startOf(pid) - 1);
    expect(listed(env)).toEqual([]);
  });

  it('does not list a process that has exited and is not yet reaped (a zombie)', async () => {
    const { env } = standinHome('headroom-standin-smi-', { idleGpu: true });
    const dir = env.STANDIN_NVSMI_STATE_DIR!;
    // A parent that never waits for its forked child: the child stays a zombie while the parent sleeps.
    const parent = spawn('python3', [
      '-c',
      'import os, sys, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)',
    ]);
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (d) => r(String(d)))));
      const stat = () => readFileSync(`/proc/${pid}/stat`, 'utf8');
      for (let i = 0; i < 200 && !stat().includes(') Z '); i++) await new Promise((r) => setTimeout(r, 10));
      expect(stat()).toContain(') Z ');
      writeFileSync(
        join(dir, `${pid}.json`),
        JSON.stringify({ pid, start: startOf(pid), devices: { 0: 2 ** 30 } }),
      );
      expect(listed(env)).toEqual([]);
    } finally {
      parent.kill();
    }
  });

  it('lists a process under the card it allocated on, not the card it only read the stats of', async () => {
    const { env } = standinHome('headroom-standin-smi-', { idleGpu: true });
    // Rank 1 of two, as a probe sees it: the stats of every card read, memory only on its own.
    const rank = spawn(
      'python3',
      [
        '-c',
        [
          'import time, torch',
          'torch.cuda.init()',
          'torch.cuda.memory_stats(0)',
          'torch.cuda.set_device(1)',
          'torch.cuda.standin_allocate(1 << 30)',
          'print("ready", flush=True)',
          'time.sleep(30)',
        ].join('\n'),
      ],
      { env: { ...env, STANDIN_DEVICE_COUNT: '2' } },
    );
    try {
      await new Promise((r) => rank.stdout.once('data', r));
      // 1 GiB in whole 20 MiB segments (1040 MiB) and the 500 MiB context, on the stand-in torch's GPU 1.
      expect(rows(env, 'pid,gpu_uuid,used_memory')).toEqual([
        `${rank.pid}, GPU-00000000-0000-0000-0000-000000000001, 1540`,
      ]);
    } finally {
      rank.kill();
    }
  });
});

/**
 * `headroom run --metrics-port` and `headroom serve`'s /metrics, black-box: the live 8-rank run of the
 * stand-in torch scraped while it runs, the same run in serve's exposition once it ended, and the
 * flag's errors.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDashboardApp } from '../src/server/dashboard.js';
import { REPO_ROOT } from './data.js';
import { STANDIN_TORCH } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_fleet.py');
const MIB = 2 ** 20;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

const dir = mkdtempSync(join(tmpdir(), 'headroom-metrics-run-'));
const env = { ...process.env, NO_COLOR: '1', HEADROOM_HOME: join(dir, 'home'), PYTHONPATH: STANDIN_TORCH };
const children: ChildProcess[] = [];
afterAll(() => {
  writeFileSync(join(dir, 'release'), '');
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const samples = (body: string) => body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('headroom run --metrics-port', () => {
  it('serves the live run on 127.0.0.1 while it runs, then stops with it', async () => {
    const port = await freePort();
    const release = join(dir, 'release');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--no-smi',
        '--name',
        'live',
        '--metrics-port',
        String(port),
        '--',
        'python3',
        TRAIN,
        '--hold-file',
        release,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    let body = '';
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      body = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      if ((body.match(/^headroom_run_step\{[^}]*\} 4$/gm) ?? []).length === 8) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stderr).toContain(
      `headroom: this run's Prometheus metrics are on http://127.0.0.1:${port}/metrics`,
    );
    const host = (await import('node:os')).hostname();
    const reserved = samples(body).filter((l) => l.includes('level="reserved"'));
    expect(reserved).toEqual(
      Array.from(
        { length: 8 },
        (_, r) =>
          `headroom_run_peak_bytes{run="1",name="live",rank="${r}",Hostname="${host}",gpu="${r}",UUID="GPU-00000000-0000-0000-0000-00000000000${r}",level="reserved"} ${(r === 3 ? 3840 + 20_480 : 3840) * MIB}`,
      ),
    );
    expect(samples(body)).toContain(`headroom_run_running{run="1",name="live",Hostname="${host}"} 1`);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    writeFileSync(release, '');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();

    // The same run in serve's /metrics, ended: running 0, its ranks as they were.
    const app = await createDashboardApp({ webRoot: join(dir, 'no-web'), env, demo: false });
    const served = await app.request('/metrics');
    expect(served.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await served.text();
    expect(samples(text)).toContain(`headroom_run_running{run="1",name="live",Hostname="${host}"} 0`);
    expect(samples(text).filter((l) => l.includes('level="reserved"'))).toEqual(reserved);
  }, 60_000);

  it('stops before the command starts when the port is taken, recording nothing', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as AddressInfo;
    const home = mkdtempSync(join(tmpdir(), 'headroom-metrics-taken-'));
    const r = spawnSync(
      process.execPath,
      [BIN, 'run', '--no-smi', '--metrics-port', String(port), '--', 'python3', '-c', 'print("ran")'],
      { env: { ...env, HEADROOM_HOME: home }, encoding: 'utf8' },
    );
    await new Promise((done) => taken.close(done));
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('ran');
    expect(r.stderr).toContain(`error: --metrics-port ${port}: the port is already in use (127.0.0.1)`);
    expect(r.stderr).toContain(`Try: --metrics-port ${port + 1}, or --metrics-port 0 for any free port`);
    const runs = spawnSync(process.execPath, [BIN, 'runs', '--json'], {
      env: { ...env, HEADROOM_HOME: home },
      encoding: 'utf8',
    });
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });

  it.each(['abc', '70000', '-1'])('refuses --metrics-port %s', (value) => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--no-smi', '--metrics-port', value, '--', 'true'], {
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: --metrics-port ${value}: not a port number (0 to 65535)`);
  });
});

/**
 * The fleet end to end with a real Prometheus (Debian's `prometheus` package) on 127.0.0.1: it scrapes
 * `headroom run --metrics-port` recording an 8-rank run of the stand-in torch
 * (test/fixtures/train_fleet.py), and two hosts' dcgm-exporter pages served from static files in the
 * exporter's exact format (test/fixtures/fleet/dcgm-*.prom). `headroom fleet` then reads back exact
 * bytes and findings, and the exposition passes `promtool check metrics`.
 *
 * Required in CI (CI=true: .ci/run installs the package); skipped with a message elsewhere when
 * `prometheus` or `promtool` is not on PATH.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';
import { STANDIN_TORCH } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const FLEET = join(REPO_ROOT, 'test', 'fixtures', 'fleet');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_fleet.py');
const MIB = 2 ** 20;
/** An H100 80GB HBM3 in the dcgm pages: used + free + reserved = 81559 MiB, reserved 529 MiB. */
const H100_MIB = 81_559;
/** Every rank's peak (train_fleet.py's docstring), and rank 3's with its 20 GiB more. */
const RANK_MIB = 2048 + 512 + 1024 + 256;
const RANK3_MIB = RANK_MIB + 20_480;

const onPath = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
const HAVE = onPath('prometheus') && onPath('promtool');
const REQUIRED = process.env.CI === 'true';
if (!HAVE && !REQUIRED) {
  console.warn(
    'test/prometheus.test.ts skipped: prometheus and promtool are not on PATH (apt-get install prometheus); CI=true makes it required',
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (${String(last)})` : ''}`);
}

const json = async (url: string) => (await fetch(url)).json() as Promise<Record<string, unknown>>;

describe.runIf(HAVE || REQUIRED)('Prometheus, dcgm-exporter pages and headroom, together', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-prometheus-'));
  const release = join(dir, 'release');
  const env = { ...process.env, NO_COLOR: '1', HEADROOM_HOME: join(dir, 'home'), PYTHONPATH: STANDIN_TORCH };
  let exporterPort = 0;
  let prometheusUrl = '';
  let prometheus: ChildProcess | undefined;
  let training: ChildProcess | undefined;
  let trainingExit: Promise<number | null> = Promise.resolve(null);
  let dcgm: Server | undefined;
  let prometheusLog = '';

  beforeAll(async () => {
    expect(HAVE, 'prometheus and promtool must be on PATH in CI (Debian package prometheus)').toBe(true);
    // Two dcgm-exporters, one per host, as static pages.
    const pages: Record<string, string> = {
      '/gpu-node-a/metrics': readFileSync(join(FLEET, 'dcgm-gpu-node-a.prom'), 'utf8'),
      '/gpu-node-b/metrics': readFileSync(join(FLEET, 'dcgm-gpu-node-b.prom'), 'utf8'),
    };
    dcgm = createServer((req, res) => {
      const page = pages[req.url ?? ''];
      if (page === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(page);
    });
    await new Promise<void>((done) => dcgm!.listen(0, '127.0.0.1', done));
    const dcgmPort = (dcgm.address() as AddressInfo).port;

    // The live 8-rank run, recorded by headroom run and served on --metrics-port.
    exporterPort = await freePort();
    training = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--no-smi',
        '--name',
        'fleet-8',
        '--metrics-port',
        String(exporterPort),
        '--',
        'python3',
        TRAIN,
        '--hold-file',
        release,
        '--hold-s',
        '120',
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let trainingErr = '';
    training.stderr!.on('data', (d: Buffer) => {
      trainingErr += d.toString();
    });
    trainingExit = new Promise((done) => training!.once('exit', (code) => done(code)));
    await until(`8 ranks at step 4 on :${exporterPort}/metrics (stderr: ${trainingErr})`, async () => {
      const body = await (await fetch(`http://127.0.0.1:${exporterPort}/metrics`)).text();
      return (body.match(/^headroom_run_step\{[^}]*\} 4$/gm) ?? []).length === 8 ? body : null;
    });

    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: headroom
    static_configs: [{ targets: ['127.0.0.1:${exporterPort}'] }]
  - job_name: dcgm-gpu-node-a
    metrics_path: /gpu-node-a/metrics
    static_configs: [{ targets: ['127.0.0.1:${dcgmPort}'] }]
  - job_name: dcgm-gpu-node-b
    metrics_path: /gpu-node-b/metrics
    static_configs: [{ targets: ['127.0.0.1:${dcgmPort}'] }]
`,
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus.stderr!.on('data', (d: Buffer) => {
      prometheusLog = `${prometheusLog}${d.toString()}`.slice(-4000);
    });
    await until('all three targets up', async () => {
      const targets = (await json(`${prometheusUrl}/api/v1/targets`)) as {
        data?: { activeTargets?: { health: string }[] };
      };
      const active = targets.data?.activeTargets ?? [];
      return active.length === 3 && active.every((t) => t.health === 'up') ? true : null;
    });
    // Up is one scrape; the series are in once a query sees them.
    await until('the series in Prometheus', async () => {
      const q = async (query: string) =>
        (
          (
            (await json(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`)) as {
              data?: { result?: unknown[] };
            }
          ).data?.result ?? []
        ).length;
      return (await q('DCGM_FI_DEV_FB_USED')) === 12 && (await q('headroom_run_peak_bytes')) === 16
        ? true
        : null;
    });
  }, 90_000);

  afterAll(async () => {
    writeFileSync(release, '');
    prometheus?.kill('SIGTERM');
    const stopped = prometheus
      ? await Promise.race([
          new Promise((done) => prometheus!.once('exit', () => done(true))),
          new Promise((done) => setTimeout(() => done(false), 5000)),
        ])
      : true;
    if (!stopped) prometheus?.kill('SIGKILL');
    if (
      (await Promise.race([trainingExit, new Promise((done) => setTimeout(() => done('late'), 10_000))])) ===
      'late'
    )
      training?.kill('SIGKILL');
    dcgm?.closeAllConnections();
    await new Promise((done) => (dcgm ? dcgm.close(done) : done(null)));
  }, 30_000);

  const fleet = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'fleet', '--prometheus', prometheusUrl, ...args], {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });

  it('reads back every card with exact bytes, the run on each of host A’s, and the three findings', () => {
    const r = fleet('--json');
    expect(r.stderr, prometheusLog).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      prometheus: string;
      gpus: {
        host: string;
        gpu: number;
        uuid: string;
        modelName: string;
        usedBytes: number;
        freeBytes: number;
        totalBytes: number;
        reservedBytes: number;
        runs: {
          instance: string;
          run: string;
          name: string;
          rank: string;
          allocatedBytes: number;
          reservedBytes: number;
          deviceBytes: null;
        }[];
      }[];
      findings: { code: string; severity: string; params: Record<string, unknown> }[];
    };
    expect(out.prometheus).toBe(prometheusUrl);
    const usedA = [4340, 4340, 4340, 24_820, 4340, 14_580, 4340, 4340];
    const usedB = [78_000, 76_000, 0, 0];
    expect(out.gpus).toEqual([
      ...usedA.map((used, i) => ({
        host: 'gpu-node-a',
        gpu: i,
        uuid: `GPU-00000000-0000-0000-0000-00000000000${i}`,
        modelName: 'NVIDIA H100 80GB HBM3',
        usedBytes: used * MIB,
        freeBytes: (H100_MIB - 529 - used) * MIB,
        totalBytes: H100_MIB * MIB,
        reservedBytes: 529 * MIB,
        runs: [
          {
            instance: `127.0.0.1:${exporterPort}`,
            run: '1',
            name: 'fleet-8',
            rank: String(i),
            allocatedBytes: (i === 3 ? RANK3_MIB : RANK_MIB) * MIB,
            reservedBytes: (i === 3 ? RANK3_MIB : RANK_MIB) * MIB,
            deviceBytes: null,
          },
        ],
      })),
      ...usedB.map((used, i) => ({
        host: 'gpu-node-b',
        gpu: i,
        uuid: `GPU-5f3c2b1a-9d8e-4f70-a615-2c4b8e9d0a1${i}`,
        modelName: 'NVIDIA H100 80GB HBM3',
        usedBytes: used * MIB,
        freeBytes: (H100_MIB - 529 - used) * MIB,
        totalBytes: H100_MIB * MIB,
        reservedBytes: 529 * MIB,
        runs: [],
      })),
    ]);
    expect(out.findings.map((f) => [f.code, f.severity, f.params.host, f.params.gpu])).toEqual([
      ['above-siblings', 'warn', 'gpu-node-a', 3],
      ['unaccounted', 'warn', 'gpu-node-a', 5],
      ['full-no-run', 'warn', 'gpu-node-b', 0],
    ]);
    expect(out.findings[1]!.params).toMatchObject({
      accountedBytes: RANK_MIB * MIB,
      unaccountedBytes: (14_580 - RANK_MIB) * MIB,
    });
  });

  it('prints the table and the findings in English and Chinese', () => {
    const en = fleet('--lang', 'en');
    expect(en.status).toBe(0);
    expect(en.stdout).toContain('12 cards on 2 hosts, 1 running Headroom run, 3 findings');
    expect(en.stdout).toMatch(
      /gpu-node-a\s+3\s+NVIDIA H100 80GB HBM3\s+24\.24 GiB\s+54\.89 GiB\s+79\.65 GiB\s+run fleet-8 rank 3/,
    );
    expect(en.stdout).toContain('⚠ gpu-node-b GPU 0 (GPU-5f3c2b1a-9d8e-4f70-a615-2c4b8e9d0a10) is 96 % full');
    const zh = fleet('--lang', 'zh');
    expect(zh.stdout).toContain('2 台主机上的 12 张卡，1 个正在运行的 Headroom 任务，3 项发现');
    expect(zh.stdout).toContain('这张卡上还有别的进程');
  });

  it('passes promtool check metrics, lint included, on the live exposition', async () => {
    const body = await (await fetch(`http://127.0.0.1:${exporterPort}/metrics`)).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });

  it('runs every query of the Grafana dashboard on this Prometheus, with the answers it is drawn from', async () => {
    const dashboard = JSON.parse(
      readFileSync(join(REPO_ROOT, 'docs', 'grafana', 'headroom.json'), 'utf8'),
    ) as {
      panels: { title: string; targets: { refId: string; expr: string }[] }[];
    };
    const answers: Record<string, { metric: Record<string, string>; value: [number, string] }[]> = {};
    for (const panel of dashboard.panels) {
      for (const t of panel.targets) {
        const expr = t.expr.replaceAll('$run', '.*');
        const body = (await json(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)) as {
          status: string;
          data: { result: { metric: Record<string, string>; value: [number, string] }[] };
        };
        expect(body.status, `${panel.title} ${t.refId}: ${expr}`).toBe('success');
        answers[`${dashboard.panels.indexOf(panel) + 1}${t.refId}`] = body.data.result;
      }
    }
    // Panel 1: eight ranks' reserved peaks, and DCGM's used memory of exactly their eight cards, in bytes.
    expect(answers['1A']).toHaveLength(8);
    expect(answers['1B']!.map((r) => [r.metric.Hostname, r.metric.gpu, Number(r.value[1])]).sort()).toEqual(
      [4340, 4340, 4340, 24_820, 4340, 14_580, 4340, 4340]
        .map((used, i) => ['gpu-node-a', String(i), used * MIB])
        .sort(),
    );
    // Panel 2's actual peak: the largest rank, per level.
    expect(answers['2C']!.map((r) => [r.metric.level, Number(r.value[1])]).sort()).toEqual([
      ['allocated', RANK3_MIB * MIB],
      ['reserved', RANK3_MIB * MIB],
    ]);
    expect(answers['3A']!.map((r) => Number(r.value[1]))).toEqual(Array(8).fill(4));
    // Panel 4: the live run's diagnosis sees rank 3 holding 20 GiB more than the others.
    expect(
      answers['4A']!.map((r) => [r.metric.run, r.metric.code, r.metric.severity, r.value[1]]),
    ).toContainEqual(['1', 'rank-imbalance', 'warn', '1']);
    // Panel 5 is headroom fleet's full-no-run, in PromQL.
    expect(answers['5A']!.map((r) => [r.metric.Hostname, r.metric.gpu])).toEqual([['gpu-node-b', '0']]);
  });

  it('says clearly when the Prometheus is down', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const r = spawnSync(process.execPath, [BIN, 'fleet', '--prometheus', down], { encoding: 'utf8', env });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: ${down} (query DCGM_FI_DEV_FB_USED): nothing listens at`);
    expect(r.stderr).toContain('Try: is Prometheus running there?');
  });
});

/** The fleet page in a real browser, against a fake Prometheus that answers with recorded answers. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusConfig } from '../../src/io/prometheus.js';
import { createDashboardApp } from '../../src/server/dashboard.js';
import { REPO_ROOT } from '../data.js';
import { tempHome } from '../ledger-fixture.js';
import { launch, listen, screenshot } from './browser.js';

const WEB = join(REPO_ROOT, 'dist', 'web');
const API = join(REPO_ROOT, 'test', 'fixtures', 'fleet', 'api');
const RECORDED = new Set([
  'DCGM_FI_DEV_FB_USED',
  'DCGM_FI_DEV_FB_FREE',
  'DCGM_FI_DEV_FB_RESERVED',
  'headroom_run_peak_bytes',
  'headroom_run_running',
]);

let browser: BrowserContext;
let page: Page;
let prometheus: Server;
/** When set, the fake Prometheus has no series at all (no dcgm-exporter scraped). */
let empty = false;
const servers: { url: string; stop: () => Promise<void> }[] = [];
let withPrometheus: string;
let without: string;

beforeAll(async () => {
  prometheus = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
    const name = !empty && RECORDED.has(query) ? query : 'empty';
    res.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(join(API, `${name}.json`)));
  });
  await new Promise<void>((done) => prometheus.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
  const home = tempHome();
  for (const config of [prometheusConfig({ url }, {}), null]) {
    servers.push(
      await listen(
        await createDashboardApp({
          webRoot: WEB,
          env: { HEADROOM_HOME: home },
          demo: false,
          prometheus: config,
        }),
      ),
    );
  }
  withPrometheus = servers[0]!.url;
  without = servers[1]!.url;
  browser = await launch();
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  prometheus?.closeAllConnections();
  await new Promise((done) => prometheus?.close(done));
});

describe('Fleet page', () => {
  it('shows every card, the run on each, and the findings', async () => {
    await page.goto(`${withPrometheus}/#/fleet`);
    await page.getByTestId('lang-en').click();
    const summary = page.getByTestId('fleet-summary');
    await expect
      .poll(() => summary.textContent())
      .toContain('12 cards on 2 hosts, 1 running Headroom run, 3 findings');
    const rows = page.getByTestId('fleet-table').locator('tbody tr');
    expect(await rows.count()).toBe(12);
    expect((await rows.nth(3).locator('td').allTextContents()).filter((t) => t !== '')).toEqual([
      'gpu-node-a',
      '3',
      'NVIDIA H100 80GB HBM3',
      '24.24 GiB',
      '54.89 GiB',
      '79.65 GiB',
      'run fleet-8 rank 3',
    ]);
    // Host B's card 0 is past 95 %: its bar is the full one.
    expect(await rows.nth(8).locator('.fleet-used-fill.full').count()).toBe(1);
    expect(await rows.nth(9).locator('.fleet-used-fill.full').count()).toBe(0);
    const findings = await page.getByTestId('fleet-findings').locator('li').allTextContents();
    expect(findings).toHaveLength(3);
    expect(findings[0]).toContain(
      'gpu-node-a GPU 3 (GPU-00000000-0000-0000-0000-000000000003) of run fleet-8 holds 24.24 GiB',
    );
    expect(findings[1]).toContain('10.49 GiB more than the Headroom ranks on it hold (3.75 GiB)');
    expect(findings[2]).toContain('is 96 % full (76.17 GiB of 79.65 GiB)');
    await screenshot(page, 'fleet-page');
  });

  it('speaks Chinese after the switch, findings included', async () => {
    await page.getByTestId('lang-zh').click();
    await expect
      .poll(() => page.getByTestId('fleet-summary').textContent())
      .toContain('2 台主机上的 12 张卡');
    expect(await page.getByTestId('nav-fleet').textContent()).toBe('集群');
    const findings = await page.getByTestId('fleet-findings').locator('li').allTextContents();
    expect(findings[2]).toContain('已用 96 %');
    await screenshot(page, 'fleet-page-zh');
    await page.getByTestId('lang-en').click();
  });

  it('says what the Prometheus answered when it has no DCGM series', async () => {
    empty = true;
    try {
      await page.goto(`${withPrometheus}/#/runs`);
      await page.goto(`${withPrometheus}/#/fleet`);
      await expect.poll(() => page.getByTestId('fleet-error').textContent()).toContain('has no DCGM series');
    } finally {
      empty = false;
    }
  });

  it('says how to give the server a Prometheus when it has none', async () => {
    await page.goto(`${without}/#/fleet`);
    await expect
      .poll(() => page.getByTestId('fleet-not-configured').textContent())
      .toContain('headroom serve --prometheus URL');
  });
});

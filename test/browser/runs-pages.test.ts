/** The runs pages in a real browser: a recorded run, a live one, two compared, the demo, and the token. */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProbeLine } from '../../src/core/probe-log.js';
import { analyseSnapshot, mainPeak } from '../../src/core/snapshot/analyse.js';
import { formatBytes } from '../../src/core/units.js';
import { Ledger } from '../../src/io/ledger.js';
import { createDashboardApp } from '../../src/server/dashboard.js';
import { REPO_ROOT } from '../data.js';
import { GIB, startRun, tempHome } from '../ledger-fixture.js';
import { launch, listen, screenshot } from './browser.js';

const WEB = join(REPO_ROOT, 'dist', 'web');
const OOM = `Traceback (most recent call last):
  File "train.py", line 10, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.42 GiB memory in use. Of the allocated memory 20.10 GiB is allocated by PyTorch, and 1.80 GiB is reserved by PyTorch but unallocated.`;

let browser: BrowserContext;
let page: Page;
const home = tempHome();
let server: { url: string; stop: () => Promise<void> };
let ids: { ok: number; oom: number; snapshot: number };
const SNAPSHOT = join(REPO_ROOT, 'data', 'fixtures', 'snapshots', 'eor_nn_snapshot.pickle');

/** A run whose probe wrote an allocator snapshot on its OOM (the fixture, in the run's folder). */
function runWithSnapshot(): number {
  const run = startRun(home, 'with-snapshot', null);
  run.finish('oom', 1);
  const ledger = Ledger.open(home);
  const dir = ledger.runDir(run.id);
  mkdirSync(dir, { recursive: true });
  copyFileSync(SNAPSHOT, join(dir, 'memory-snapshot.pickle'));
  const line = parseProbeLine(
    JSON.stringify({
      v: 1,
      t: 1_767_225_700,
      pid: 7,
      event: 'snapshot',
      path: join(dir, 'memory-snapshot.pickle'),
      bytes: 1234,
      reason: 'oom',
      entries: 100000,
      step: 3,
    }),
  );
  if (!line.ok) throw new Error(line.problem.message);
  ledger.ingestProbe(run.id, [
    { path: join(dir, 'probe.jsonl'), endOffset: 1, lines: [{ offset: 0, event: line.event }] },
  ]);
  ledger.close();
  return run.id;
}

beforeAll(async () => {
  const a = startRun(home, 'baseline-b2', {
    model: 'llama-3.2-1b',
    method: 'lora',
    microBatchSize: 2,
    seqLen: 1024,
  });
  a.steps(
    Array.from({ length: 40 }, (_, i) => ({
      step: i + 1,
      allocatedGiB: 3,
      peakGiB: 8 + (i % 5) * 0.05,
      reservedGiB: 9,
      loss: 2 - i * 0.02,
    })),
  );
  a.finish('ok', 41);
  const b = startRun(home, 'b4-s2048', {
    model: 'llama-3.2-1b',
    method: 'lora',
    microBatchSize: 4,
    seqLen: 2048,
  });
  b.steps(
    Array.from({ length: 12 }, (_, i) => ({
      step: i + 1,
      allocatedGiB: 3,
      peakGiB: 19 + i * 0.1,
      reservedGiB: 21,
    })),
  );
  b.oom(OOM, 12.5);
  b.finish('oom', 13);
  ids = { ok: a.id, oom: b.id, snapshot: runWithSnapshot() };
  browser = await launch();
  server = await listen(
    await createDashboardApp({ webRoot: WEB, env: { HEADROOM_HOME: home }, demo: true, pollMs: 100 }),
  );
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('Runs pages', () => {
  it('lists the runs, the demo labelled as one', async () => {
    await page.goto(`${server.url}/#/runs`);
    const table = page.getByTestId('runs-table');
    await expect.poll(() => table.textContent()).toContain('b4-s2048');
    expect(await table.textContent()).toContain('demo');
    await screenshot(page, 'runs-page');
  });

  it("shows a recorded run's peaks, chart and findings", async () => {
    await page.goto(`${server.url}/#/runs/${ids.oom}`);
    await expect
      .poll(() => page.getByTestId('peak-allocated').textContent())
      .toBe(formatBytes(Math.round((19 + 1.1) * GIB)));
    expect(await page.getByTestId('run-status').textContent()).toBe('oom');
    // The diagnosis follows the chart (GET /api/runs/:id/extras).
    await expect.poll(() => page.getByTestId('findings').locator('li.finding').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('findings').textContent()).toContain('Tried to allocate 2.00 GiB');
    expect(await page.locator('.time-chart canvas').count()).toBe(1);
    await screenshot(page, 'run-page-oom');
  });

  it("links a run's allocator snapshot to the Snapshot page, which opens it", async () => {
    await page.goto(`${server.url}/#/runs/${ids.snapshot}`);
    const link = page.getByTestId('snapshot-link-0');
    await expect.poll(() => link.textContent()).toBe('Allocator snapshot at the out-of-memory (rank 0)');
    expect(await page.getByTestId('run-snapshots').textContent()).toContain(formatBytes(1234));
    await link.click();
    const peak = mainPeak(analyseSnapshot(new Uint8Array(readFileSync(SNAPSHOT))))!;
    await expect
      .poll(() => page.getByTestId('snapshot-peak').textContent(), { timeout: 20_000 })
      .toBe(formatBytes(peak.activeBytes));
    // A run without one has no link.
    await page.goto(`${server.url}/#/runs/${ids.oom}`);
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('oom');
    expect(await page.getByTestId('run-snapshots').count()).toBe(0);
  });

  it('shows the demo run with its diagnosis', async () => {
    await page.goto(`${server.url}/#/runs/0`);
    await expect.poll(() => page.getByTestId('findings').locator('li.finding').count()).toBeGreaterThan(1);
    await screenshot(page, 'run-page-demo');
    // The findings come from the same message catalog as `diagnose --lang zh`.
    await page.getByTestId('lang-zh').click();
    await expect
      .poll(() => page.getByTestId('findings').locator('li.finding b').first().textContent())
      .toMatch(/[\u4e00-\u9fff]/);
    await screenshot(page, 'run-page-demo-zh');
    await page.getByTestId('lang-en').click();
  });

  it('in Chinese, a run page has no English words of its own left in its main areas', async () => {
    await page.goto(`${server.url}/#/runs/${ids.oom}`);
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('oom');
    await page.getByTestId('lang-zh').click();
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('显存溢出');
    const main = page.locator('.run-page');
    expect(await main.locator('h3').allTextContents()).toEqual([
      '显存随时间变化',
      '每步峰值',
      '估算与实测',
      '诊断',
    ]);
    expect(await main.locator('dl.peaks dt').allTextContents()).toEqual([
      '已分配峰值',
      '已保留峰值',
      'nvidia-smi 峰值',
      '步数',
    ]);
    expect(await page.getByTestId('step-count').textContent()).toBe('12（最后一步 12）');
    // The estimate against the run, in the one convention, in Chinese (the diagnose catalog's words).
    const levels = page.getByTestId('estimate-vs-measured');
    expect(await levels.locator('th').allTextContents()).toEqual(['已分配', '已保留', 'nvidia-smi 层面']);
    expect(await levels.locator('tr').first().locator('td').last().textContent()).toMatch(
      /^估算比实测峰值(低|高) [\d.]+ %$/,
    );
    // The findings are the diagnosis in Chinese.
    await expect
      .poll(() => page.getByTestId('findings').locator('li.finding b').first().textContent())
      .toMatch(/[\u4e00-\u9fff]/);
    // None of the page's own English words are left: the run's name and command and torch's OOM text
    // (data, not words) are left out of what is read.
    const text = await main.evaluate((el) => {
      const copy = el.cloneNode(true) as HTMLElement;
      for (const data of Array.from(copy.querySelectorAll('.command, pre.oom-text, h2'))) data.remove();
      return copy.textContent ?? '';
    });
    for (const english of [
      'Memory over time',
      'Per-step peak',
      'Estimate vs measured',
      'Diagnosis',
      'peak allocated',
      'peak reserved',
      'steps',
      'last',
      'estimate',
      'measured peak',
      'allocated',
      'reserved',
    ])
      expect([english, text.includes(english)]).toEqual([english, false]);
    await screenshot(page, 'run-page-oom-zh');

    // The runs table and the comparison switch too.
    await page.goto(`${server.url}/#/runs`);
    const table = page.getByTestId('runs-table');
    await expect.poll(() => table.locator('th').allTextContents()).toContain('名称');
    expect(await table.textContent()).toContain('演示数据');
    expect(await table.textContent()).toContain('演示：llama-3.2-3b LoRA，评估时显存溢出（合成数据）');
    expect(await table.textContent()).not.toMatch(/demo data|peak allocated|duration/);
    await page.goto(`${server.url}/#/runs/compare?a=${ids.ok}&b=${ids.oom}`);
    await expect
      .poll(() => page.getByTestId('one-variable-warning').textContent())
      .toBe('改变了不止一个变量：无法把显存变化归因于其中某一个。');
    expect(await page.locator('section.panel h3').textContent()).toBe('配置差异');
    await page.getByTestId('lang-en').click();
  });

  it('compares two runs with the one-variable warning', async () => {
    await page.goto(`${server.url}/#/runs/compare?a=${ids.ok}&b=${ids.oom}`);
    await expect.poll(() => page.getByTestId('diff-table').textContent()).toContain('microBatchSize');
    expect(await page.getByTestId('one-variable-warning').isVisible()).toBe(true);
    await screenshot(page, 'runs-compare');
  });

  it('updates a run still going within a second of a new step', async () => {
    const live = startRun(home, 'live', { model: 'llama-3.2-1b', method: 'lora' });
    live.steps([{ step: 1, allocatedGiB: 2, peakGiB: 5, reservedGiB: 6 }]);
    await page.goto(`${server.url}/#/runs/${live.id}`);
    await expect.poll(() => page.getByTestId('step-count').textContent()).toBe('1 (last 1)');
    const written = Date.now();
    live.steps([{ step: 2, allocatedGiB: 2, peakGiB: 5.5, reservedGiB: 6 }]);
    await expect
      .poll(() => page.getByTestId('step-count').textContent(), { timeout: 3000, interval: 50 })
      .toBe('2 (last 2)');
    expect(Date.now() - written).toBeLessThan(3000);
    live.finish('ok', 3);
  });
});

describe('a token-protected server', () => {
  it('refuses a request without the token, and serves one with it', async () => {
    const guarded = await listen(
      await createDashboardApp({
        webRoot: WEB,
        env: { HEADROOM_HOME: home },
        demo: false,
        token: 'let-me-in',
      }),
    );
    try {
      const without = await page.goto(`${guarded.url}/`);
      expect(without?.status()).toBe(401);
      const withToken = await page.goto(`${guarded.url}/?token=let-me-in#/runs`);
      expect(withToken?.status()).toBe(200);
      await expect.poll(() => page.getByTestId('runs-table').textContent()).toContain('baseline-b2');
    } finally {
      await guarded.stop();
    }
  });
});

/** The Snapshot page in a real browser: a .pickle picked, analysed by the server, drawn; a bad one refused. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseSnapshot, mainPeak } from '../../src/core/snapshot/analyse.js';
import { formatBytes } from '../../src/core/units.js';
import { createApp } from '../../src/server/app.js';
import { REPO_ROOT } from '../data.js';
import { browserSession, screenshot } from './browser.js';

const session = browserSession(() => createApp({ webRoot: join(REPO_ROOT, 'dist', 'web') }));
const FTCOURSE = join(REPO_ROOT, 'data', 'fixtures', 'snapshots', 'ftcourse_memory_snapshot.pickle');

describe('the Snapshot page', () => {
  it('shows the core’s figures for a picked snapshot: the peak, the parts, the sites, the timeline', async () => {
    const { page } = session;
    const expected = analyseSnapshot(readFileSync(FTCOURSE));
    const peak = mainPeak(expected)!;
    await page.goto(`${session.url}/#/snapshot`);
    await page.getByTestId('snapshot-file').setInputFiles(FTCOURSE);
    await expect
      .poll(() => page.getByTestId('snapshot-peak').textContent(), { timeout: 20_000 })
      .toBe(formatBytes(peak.activeBytes));
    expect(await page.getByTestId('snapshot-file-name').textContent()).toBe(
      'ftcourse_memory_snapshot.pickle',
    );
    expect(await page.getByTestId('snapshot-reserved').textContent()).toBe(
      `${formatBytes(expected.reservedBytes)} (215 segments)`,
    );
    expect(await page.getByTestId('part-activations').textContent()).toBe(
      formatBytes(peak.live.parts.activations),
    );
    expect(await page.getByTestId('part-unattributed').textContent()).toBe(
      formatBytes(peak.live.unattributedBytes),
    );
    const sites = page.getByTestId('snapshot-sites').locator('tbody tr');
    expect(await sites.count()).toBe(10);
    expect(await sites.nth(1).textContent()).toContain('bitsandbytes/autograd/_functions.py:509 forward');
    // uPlot draws on a canvas inside the timeline.
    expect(await page.getByTestId('snapshot-timeline').locator('canvas').count()).toBe(1);
    expect(await page.getByTestId('snapshot-findings').textContent()).toContain('is cached but unused');
    await screenshot(page, 'snapshot-page');

    await page.getByTestId('lang-zh').click();
    await expect.poll(() => page.getByTestId('snapshot-findings').textContent()).toContain('被缓存但未使用');
    expect(await page.getByTestId('snapshot-sites').textContent()).toContain('激活');
    await screenshot(page, 'snapshot-page-zh');
    await page.getByTestId('lang-en').click();
  });

  it('says why a pickle that would run code is refused', async () => {
    const { page } = session;
    const evil = join(mkdtempSync(join(tmpdir(), 'headroom-evil-')), 'evil.pickle');
    writeFileSync(evil, Buffer.from([0x80, 4, 0x63, ...Buffer.from('os\nsystem\n'), 0x2e]));
    await page.goto(`${session.url}/#/snapshot`);
    await page.getByTestId('snapshot-file').setInputFiles(evil);
    await expect
      .poll(() => page.getByTestId('snapshot-error').textContent())
      .toContain('evil.pickle: byte 2: opcode GLOBAL (0x63) would import or call a Python object');
  });
});

/** The run page on a long run in a real browser: a zoom that rests draws its window in full detail. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../src/server/dashboard.js';
import { REPO_ROOT } from '../data.js';
import { startRun, tempHome } from '../ledger-fixture.js';
import { browserSession } from './browser.js';

const STEPS = 12_000;
const home = tempHome();
const run = startRun(home, 'long', null);
run.steps(
  Array.from({ length: STEPS }, (_, i) => ({
    step: i + 1,
    allocatedGiB: 3,
    peakGiB: 8 + Math.sin((i + 1) / 50) * 0.5,
    reservedGiB: 9 + (i + 1) / STEPS,
    loss: 2,
  })),
  0.01,
);
run.finish('ok', 121);

const session = browserSession(() =>
  createDashboardApp({ webRoot: join(REPO_ROOT, 'dist', 'web'), env: { HEADROOM_HOME: home }, demo: false }),
);

/** The step points the chart holds between two times (allocated is drawn at steps only). */
const stepsBetween = (from: number, to: number) => `(() => {
  const u = document.querySelector('.time-chart').uplot;
  let n = 0;
  for (let i = 0; i < u.data[0].length; i++) {
    const t = u.data[0][i];
    if (t >= ${from} && t <= ${to} && u.data[3][i] !== null) n++;
  }
  return n;
})()`;

describe('a long run on the run page', () => {
  it('draws a thinned overview, every step of a zoomed window once it rests, and the overview again', async () => {
    const { page, url } = session;
    await page.goto(`${url}/#/runs/${run.id}`);
    // Polled through page.evaluate: waitForFunction's polling compiles its predicate in the page, which
    // the page's CSP (no unsafe-eval) refuses whenever the chart is not drawn at the first look.
    await expect
      .poll(() => page.evaluate(`!!document.querySelector('.time-chart')?.uplot`), { timeout: 15_000 })
      .toBe(true);
    const overview = (await page.evaluate(
      `document.querySelector('.time-chart').uplot.data[0].length`,
    )) as number;
    expect(overview).toBeLessThanOrEqual(4000);
    // 50 s to 52 s holds steps 5000 to 5200: the overview has a few of them, the window all 201.
    expect((await page.evaluate(stepsBetween(50, 52))) as number).toBeLessThan(201);
    const windows: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/window?')) windows.push(r.url());
    });
    await page.evaluate(`document.querySelector('.time-chart').uplot.setScale('x', { min: 50, max: 52 })`);
    await expect.poll(() => page.evaluate(stepsBetween(50, 52)), { timeout: 5000 }).toBe(201);
    expect(windows).toHaveLength(1);
    expect(windows[0]).toContain('from=50&to=52');
    // The zoom is kept while the detail is drawn.
    expect(await page.evaluate(`document.querySelector('.time-chart').uplot.scales.x.min`)).toBe(50);
    // Back to the whole run: the overview, with nothing asked.
    await page.evaluate(`(() => { const u = document.querySelector('.time-chart').uplot;
      u.setScale('x', { min: u.data[0][0], max: u.data[0][u.data[0].length - 1] }); })()`);
    await expect
      .poll(() => page.evaluate(`document.querySelector('.time-chart').uplot.data[0].length`), {
        timeout: 5000,
      })
      .toBe(overview);
    expect(windows).toHaveLength(1);
  });
});

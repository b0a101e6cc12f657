import { describe, expect, it } from 'vitest';
import { GIB, startRun, tempHome } from '../../test/ledger-fixture.js';
import type {
  RunChart,
  RunDetail,
  RunDiff,
  RunExtras,
  RunSummary,
  RunUpdate,
  RunWindow,
} from '../core/dashboard-types.js';
import { requestLang } from './app.js';
import { createDashboardApp } from './dashboard.js';
import { DEMO_RUN_ID } from './demo-run.js';

const OOM = `Traceback (most recent call last):
  File "train.py", line 10, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.42 GiB memory in use. Of the allocated memory 20.10 GiB is allocated by PyTorch, and 1.80 GiB is reserved by PyTorch but unallocated.`;

async function appWithRuns() {
  const home = tempHome();
  const a = startRun(home, 'baseline', {
    model: 'llama-3.2-1b',
    method: 'lora',
    microBatchSize: 2,
    seqLen: 1024,
  });
  a.steps(
    [1, 2, 3].map((step) => ({
      step,
      allocatedGiB: 3,
      peakGiB: 8 + step * 0.1,
      reservedGiB: 9,
      loss: 2 - step * 0.1,
    })),
  );
  a.finish('ok', 4);
  const b = startRun(home, 'bigger', {
    model: 'llama-3.2-1b',
    method: 'lora',
    microBatchSize: 4,
    seqLen: 2048,
  });
  b.steps([1, 2].map((step) => ({ step, allocatedGiB: 3, peakGiB: 19, reservedGiB: 21 })));
  b.oom(OOM, 2.5);
  b.finish('oom', 3);
  const app = await createDashboardApp({ webRoot: '/nonexistent', env: { HEADROOM_HOME: home }, demo: true });
  return { app, home, ids: [a.id, b.id] as const };
}

describe('runs API', () => {
  it('lists the demo run and the ledger runs with their peaks', async () => {
    const { app, ids } = await appWithRuns();
    const { runs } = (await (await app.request('/api/runs')).json()) as { runs: RunSummary[] };
    expect(runs.map((r) => [r.id, r.status, r.demo ?? false])).toEqual([
      [DEMO_RUN_ID, 'oom', true],
      [ids[0], 'ok', false],
      [ids[1], 'oom', false],
    ]);
    expect(runs[1]).toMatchObject({
      name: 'baseline',
      model: 'llama-3.2-1b',
      method: 'lora',
      steps: 3,
      peakAllocatedBytes: Math.round(8.3 * GIB),
      peakReservedBytes: 9 * GIB,
      durationMs: 4000,
    });
  });

  it('gives one run its series, the OOM and the findings', async () => {
    const { app, ids } = await appWithRuns();
    const detail = (await (await app.request(`/api/runs/${ids[1]}`)).json()) as RunDetail;
    expect(detail.steps.map((s) => [s.step, s.t, s.peakAllocatedBytes])).toEqual([
      [1, 1, 19 * GIB],
      [2, 2, 19 * GIB],
    ]);
    expect(detail.oom?.t).toBe(2.5);
    expect(detail.oom?.text).toContain('Tried to allocate 2.00 GiB');
    expect(detail.findings.length).toBeGreaterThan(0);
    expect(detail.findings.map((f) => f.code)).toEqual(['activations']);
  });

  it("serves the demo run's page in parts too, its name and findings in the page's language", async () => {
    const { app } = await appWithRuns();
    const full = (await (await app.request(`/api/runs/${DEMO_RUN_ID}?lang=zh`)).json()) as RunDetail;
    const chart = (await (await app.request(`/api/runs/${DEMO_RUN_ID}/chart`)).json()) as RunChart;
    expect(chart.steps.step).toEqual(full.steps.map((s) => s.step));
    expect(chart.oom).toEqual(full.oom);
    const extras = (await (await app.request(`/api/runs/${DEMO_RUN_ID}/extras?lang=zh`)).json()) as RunExtras;
    expect(extras.name).toBe(full.run.name);
    expect(extras.findings).toEqual(full.findings);
  });

  it('compares two runs and warns that two variables changed', async () => {
    const { app, ids } = await appWithRuns();
    const diff = (await (await app.request(`/api/runs/diff?a=${ids[0]}&b=${ids[1]}`)).json()) as RunDiff;
    expect(diff.changes.map((c) => c.field).sort()).toEqual(['microBatchSize', 'seqLen']);
    expect(diff.oneVariableWarning).toBe(true);
  });

  it('answers an unknown run with a 400 naming it', async () => {
    const { app } = await appWithRuns();
    const res = await app.request('/api/runs/99');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'no run 99 in the ledger',
    );
    // The dashboard sends its language; the words come from the same catalog as the CLI's.
    const zh = await app.request('/api/runs/99', { headers: { 'accept-language': 'zh' } });
    expect(zh.status).toBe(400);
    expect(((await zh.json()) as { error: { message: string; hint: string } }).error).toMatchObject({
      message: '记录中没有运行 99',
      hint: 'headroom runs 会列出已有的运行',
    });
    const window = await app.request('/api/runs/1/window?from=9&to=1', {
      headers: { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
    });
    expect(((await window.json()) as { error: { message: string } }).error.message).toBe(
      'from 和 to 须为自运行开始起的秒数，且 from ≤ to',
    );
  });

  it('words its errors in English for a browser that asks for English or names no language', () => {
    expect(requestLang(undefined)).toBe('en');
    expect(requestLang('en-US,en;q=0.9,zh;q=0.8')).toBe('en');
    expect(requestLang('zh-TW')).toBe('zh');
    expect(requestLang('')).toBe('en');
  });

  it('streams a live run and ends when it finishes', async () => {
    const home = tempHome();
    const live = startRun(home, 'live', null);
    live.steps([{ step: 1, allocatedGiB: 1, peakGiB: 2, reservedGiB: 3 }]);
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
      pollMs: 20,
    });
    const res = await app.request(`/api/runs/${live.id}/stream`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 5000;
      while (!text.includes(needle) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil('"replace":true');
    live.steps([{ step: 2, allocatedGiB: 1, peakGiB: 2.5, reservedGiB: 3 }]);
    await readUntil('"replace":false');
    live.finish('ok', 3);
    await readUntil('event: end');
    const updates = text.split('\n\n').filter((block) => block.startsWith('event: update'));
    const steps = updates.map((u) => (JSON.parse(u.split('data: ')[1]!) as RunUpdate).steps.step);
    expect(steps.slice(0, 2)).toEqual([[1], [2]]);
    expect(text).toContain('event: end\ndata: {"status":"ok"}');
  });
});

describe('a long run on the run page', () => {
  it('sends a few thousand points that keep every peak, and the zoomed window in detail', async () => {
    const home = tempHome();
    const run = startRun(home, 'long', null);
    const steps = Array.from({ length: 20_000 }, (_, i) => ({
      step: i + 1,
      allocatedGiB: 3,
      peakGiB: i + 1 === 12_345 ? 20 : 8 + Math.sin(i / 50) * 0.5,
      reservedGiB: 9 + i / 20_000,
      loss: 2,
    }));
    run.steps(steps, 0.01);
    run.finish('ok', 300);
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
    });
    const detail = (await (await app.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    expect(detail.recorded).toEqual({ steps: 20_000, samples: 0 });
    expect(detail.steps.length).toBeLessThanOrEqual(4000);
    expect(Math.max(...detail.steps.map((s) => s.peakAllocatedBytes ?? 0))).toBe(20 * GIB);
    expect(detail.steps.find((s) => s.peakAllocatedBytes === 20 * GIB)!.step).toBe(12_345);
    const spike = detail.steps.find((s) => s.step === 12_345)!.t;
    const zoom = (await (
      await app.request(`/api/runs/${run.id}/window?from=${spike - 1}&to=${spike + 1}`)
    ).json()) as RunWindow;
    // Two seconds at 100 steps a second: every step, nothing thinned.
    expect(zoom.steps.step.length).toBeGreaterThanOrEqual(199);
    expect(zoom.steps.step.length).toBeLessThanOrEqual(201);
    expect(zoom.recorded.steps).toBe(zoom.steps.step.length);
    const bad = await app.request(`/api/runs/${run.id}/window?from=5&to=1`);
    expect(bad.status).toBe(400);
  });
});

describe('the run page: chart first, detail on zoom, only new rows live', () => {
  const STEPS = 20_000;
  /** A step's allocated peak, GiB: a slow wave, with a spike every 397 steps of its own height. */
  const peakGiB = (step: number) => (step % 397 === 0 ? 12 + (step % 7) : 8 + Math.sin(step / 50) * 0.5);

  async function longRun() {
    const home = tempHome();
    const run = startRun(home, 'long', { model: 'llama-3.2-1b', method: 'lora' });
    run.steps(
      Array.from({ length: STEPS }, (_, i) => ({
        step: i + 1,
        allocatedGiB: 3,
        peakGiB: peakGiB(i + 1),
        reservedGiB: 9 + (i + 1) / STEPS,
        loss: 2 - (i + 1) / STEPS,
      })),
      0.01,
    );
    run.finish('ok', 300);
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
    });
    return { app, id: run.id };
  }

  it('sends the chart as columns, a few thousand points, with the highest step of every bucket', async () => {
    const { app, id } = await longRun();
    const chart = (await (await app.request(`/api/runs/${id}/chart`)).json()) as RunChart;
    expect(chart.recorded).toEqual({ steps: STEPS, samples: 0 });
    expect(chart.run.steps).toBe(STEPS);
    const { step, t, allocatedBytes, reservedBytes, loss } = chart.steps;
    expect(step.length).toBeLessThanOrEqual(4000);
    expect(step.length).toBeGreaterThanOrEqual(666);
    for (const column of [t, allocatedBytes, reservedBytes, loss]) expect(column).toHaveLength(step.length);
    expect(t.every((x, i) => i === 0 || x > t[i - 1]!)).toBe(true);
    // Every spike is there with its own height, and so is the highest step of each of the 666 buckets
    // (4000 points / 2 × 3 series) the 20,000 steps fall into.
    const at = new Map(step.map((s, i) => [s, allocatedBytes[i]]));
    for (let s = 397; s <= STEPS; s += 397) expect([s, at.get(s)]).toEqual([s, Math.round(peakGiB(s) * GIB)]);
    const buckets = Math.floor(4000 / 6);
    for (let b = 0; b < buckets; b++) {
      const from = Math.floor((b * STEPS) / buckets) + 1;
      const to = Math.floor(((b + 1) * STEPS) / buckets);
      const highest = Math.max(
        ...Array.from({ length: to - from + 1 }, (_, i) => Math.round(peakGiB(from + i) * GIB)),
      );
      const kept = step.flatMap((s, i) => (s >= from && s <= to ? [allocatedBytes[i]] : []));
      expect([b, Math.max(...(kept as number[]))]).toEqual([b, highest]);
    }
    // The last step's reserved (the series' highest) and loss (its lowest) are kept too.
    expect(step.at(-1)).toBe(STEPS);
    expect(reservedBytes.at(-1)).toBe(10 * GIB);
    expect(loss.at(-1)).toBe(1);
    // The chart carries no diagnosis: that comes after it.
    expect('findings' in chart).toBe(false);
    expect(chart.estimate?.peak.allocatedBytes).toBeGreaterThan(0);
    const extras = (await (await app.request(`/api/runs/${id}/extras?lang=zh`)).json()) as RunExtras;
    expect(Array.isArray(extras.findings)).toBe(true);
    expect(extras.name).toBe('long');
    // One rank: the page draws no per-rank chart, so its steps are not sent twice.
    expect(extras.rankSteps).toEqual({ ranks: [0], steps: [] });
  });

  it('gives every step of a zoomed window, and the same run detail as the full read', async () => {
    const { app, id } = await longRun();
    // Steps are 10 ms apart from t = 0.01 s: 50.00 s to 53.00 s holds steps 5000 to 5300, every one.
    const zoom = (await (await app.request(`/api/runs/${id}/window?from=50&to=53`)).json()) as RunWindow;
    expect(zoom.from).toBe(50);
    expect(zoom.to).toBe(53);
    expect(zoom.steps.step).toEqual(Array.from({ length: 301 }, (_, i) => 5000 + i));
    expect(zoom.recorded).toEqual({ steps: 301, samples: 0 });
    expect(zoom.steps.allocatedBytes[5194 - 5000]).toBe(Math.round(peakGiB(5194) * GIB));
    // A window wider than a chart is thinned the same way, peaks kept.
    const wide = (await (await app.request(`/api/runs/${id}/window?from=0&to=150`)).json()) as RunWindow;
    expect(wide.recorded.steps).toBe(15_000);
    expect(wide.steps.step.length).toBeLessThanOrEqual(4000);
    expect(wide.steps.step).toContain(397 * 30);
    // The chart's full-resolution read agrees with RunDetail's (the object read the report uses).
    const detail = (await (await app.request(`/api/runs/${id}`)).json()) as RunDetail;
    const chart = (await (await app.request(`/api/runs/${id}/chart`)).json()) as RunChart;
    expect(chart.steps.step).toEqual(detail.steps.map((s) => s.step));
    expect(chart.steps.allocatedBytes).toEqual(detail.steps.map((s) => s.peakAllocatedBytes));
  });

  it('streams only the rows written after the chart it was opened from', async () => {
    const home = tempHome();
    const live = startRun(home, 'live', null);
    live.steps([1, 2, 3].map((step) => ({ step, allocatedGiB: 1, peakGiB: 2, reservedGiB: 3 })));
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
      pollMs: 20,
    });
    const chart = (await (await app.request(`/api/runs/${live.id}/chart`)).json()) as RunChart;
    expect(chart.steps.step).toEqual([1, 2, 3]);
    const res = await app.request(
      `/api/runs/${live.id}/stream?after=${chart.after.steps},${chart.after.samples}`,
    );
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const updates = () =>
      text
        .split('\n\n')
        .filter((block) => block.startsWith('event: update'))
        .map((u) => JSON.parse(u.split('data: ')[1]!) as RunUpdate);
    const readUntil = async (done: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!done() && Date.now() < deadline) {
        const { value, done: end } = await reader.read();
        if (end) break;
        text += decoder.decode(value);
      }
    };
    live.steps([{ step: 4, allocatedGiB: 1, peakGiB: 2.5, reservedGiB: 3 }]);
    await readUntil(() => updates().length >= 1);
    live.steps([5, 6].map((step) => ({ step, allocatedGiB: 1, peakGiB: 2, reservedGiB: 3 })));
    await readUntil(() => updates().length >= 2);
    live.finish('ok', 7);
    await readUntil(() => text.includes('event: end'));
    const got = updates();
    expect(got.map((u) => [u.replace, u.steps.step])).toEqual([
      [false, [4]],
      [false, [5, 6]],
    ]);
    expect(got[0]!.steps.allocatedBytes).toEqual([Math.round(2.5 * GIB)]);
    expect(got[1]!.after.steps).toBeGreaterThan(got[0]!.after.steps);
  });
});

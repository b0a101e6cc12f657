import { describe, expect, it } from 'vitest';
import { GIB, startRun, tempHome } from '../../test/ledger-fixture.js';
import type { RunDetail, RunDiff, RunSummary } from '../core/dashboard-types.js';
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
    const steps = updates.map((u) =>
      (JSON.parse(u.split('data: ')[1]!) as { steps: { step: number }[] }).steps.map((s) => s.step),
    );
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
    ).json()) as { steps: RunDetail['steps'] };
    // Two seconds at 100 steps a second: every step, nothing thinned.
    expect(zoom.steps.length).toBeGreaterThanOrEqual(199);
    expect(zoom.steps.length).toBeLessThanOrEqual(201);
    const bad = await app.request(`/api/runs/${run.id}/window?from=5&to=1`);
    expect(bad.status).toBe(400);
  });
});

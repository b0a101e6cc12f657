/** The snapshot API: an upload analysed with its limit, a hostile one refused, a recorded run's snapshot. */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { startRun, tempHome } from '../../test/ledger-fixture.js';
import { Ledger } from '../io/ledger.js';
import { runSnapshotPath } from '../io/read-snapshot.js';
import { createApp } from './app.js';
import { createDashboardApp } from './dashboard.js';

const FIXTURE = join(REPO_ROOT, 'data', 'fixtures', 'snapshots', 'eor_nn_snapshot.pickle');
const bytes = readFileSync(FIXTURE);

describe('POST /api/snapshot', () => {
  const app = createApp({ webRoot: null });

  it('analyses the body: the report headroom snapshot --json prints', async () => {
    const res = await app.request('/api/snapshot?name=eor.pickle&top=3', { method: 'POST', body: bytes });
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      file: string;
      segments: number;
      tracePeakActiveBytes: number[];
      peaks: { live: { sites: unknown[] } }[];
    };
    expect(json.file).toBe('eor.pickle');
    expect(json.segments).toBe(10);
    expect(json.tracePeakActiveBytes).toEqual([108270580]);
    expect(json.peaks[0]!.live.sites).toHaveLength(3);
  });

  it('takes a body far above the 1 MB limit of the other routes', async () => {
    const small = createApp({ webRoot: null, bodyLimitBytes: 1000 });
    expect((await small.request('/api/snapshot', { method: 'POST', body: bytes })).status).toBe(200);
    expect(
      (
        await small.request('/api/estimate', {
          method: 'POST',
          body: 'x'.repeat(2000),
          headers: { 'content-length': '2000' },
        })
      ).status,
    ).toBe(413);
  });

  it('answers 413 with a clear message over its own limit', async () => {
    const limited = createApp({ webRoot: null, snapshotLimitBytes: 1000 });
    const res = await limited.request('/api/snapshot', {
      method: 'POST',
      body: bytes,
      headers: { 'content-length': String(bytes.length) },
    });
    expect(res.status).toBe(413);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('too-large');
    expect(json.error.message).toBe('the snapshot is over the 1000 B this server accepts');
  });

  it('refuses a pickle that would run code with a 400 naming the opcode', async () => {
    const evil = Buffer.from([0x80, 4, 0x63, ...Buffer.from('os\nsystem\n'), 0x2e]);
    const res = await app.request('/api/snapshot?name=evil.pickle', { method: 'POST', body: evil });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; where: string; message: string } };
    expect(json.error).toMatchObject({ code: 'bad-file', where: 'evil.pickle' });
    expect(json.error.message).toContain('byte 2: opcode GLOBAL (0x63) would import or call');
  });

  it('refuses an empty body', async () => {
    const res = await app.request('/api/snapshot', { method: 'POST', body: new Uint8Array() });
    expect(res.status).toBe(400);
  });
});

describe('GET /api/runs/:id/snapshot', () => {
  it("analyses the snapshot in a recorded run's folder, and says when there is none", async () => {
    const home = tempHome();
    const run = startRun(home, 'with-snapshot', null);
    run.finish('oom', 1);
    const bare = startRun(home, 'without', null);
    bare.finish('ok', 0);
    const ledger = Ledger.open(home);
    mkdirSync(ledger.runDir(run.id), { recursive: true });
    copyFileSync(FIXTURE, runSnapshotPath(ledger.runDir(run.id)));
    ledger.close();
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
    });

    const res = await app.request(`/api/runs/${run.id}/snapshot`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tracePeakActiveBytes: number[] }).tracePeakActiveBytes).toEqual([
      108270580,
    ]);

    const none = await app.request(`/api/runs/${bare.id}/snapshot`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { message: string } }).error.message).toBe(
      `run ${bare.id} has no memory snapshot`,
    );
    expect((await app.request('/api/runs/999/snapshot')).status).toBe(404);
  });
});

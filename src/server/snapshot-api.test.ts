/** The snapshot API: an upload analysed with its limit, a hostile one refused, a recorded run's snapshot. */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { startRun, tempHome } from '../../test/ledger-fixture.js';
import { parseProbeLine } from '../core/probe-log.js';
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
    // The words of an empty snapshot file given to the CLI, in the request's language.
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'the uploaded snapshot: byte 0: the file is empty',
    );
    const zh = await app.request('/api/snapshot?name=a.pickle', {
      method: 'POST',
      body: new Uint8Array(),
      headers: { 'accept-language': 'zh' },
    });
    expect(((await zh.json()) as { error: { message: string } }).error.message).toBe('a.pickle：文件是空的');
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

describe('GET /api/runs/:id/snapshot of a run whose probe wrote snapshots', () => {
  /** A run whose probe log is in its folder and names these snapshot files. */
  function recorded(home: string, files: readonly { path: string; rank: number; reason: string }[]) {
    const run = startRun(home, 'recorded', null);
    run.finish('oom', 1);
    const ledger = Ledger.open(home);
    const dir = ledger.runDir(run.id);
    mkdirSync(dir, { recursive: true });
    ledger.updateRun(run.id, { logPath: join(dir, 'probe.jsonl') });
    ledger.ingestProbe(run.id, [
      {
        path: join(dir, 'probe.jsonl'),
        endOffset: 1,
        lines: files.map((f, i) => {
          const line = JSON.stringify({
            v: 1,
            t: 1_767_225_700 + i,
            pid: 7,
            rank: f.rank,
            localRank: f.rank,
            worldSize: 2,
            event: 'snapshot',
            path: f.path,
            bytes: bytes.length,
            reason: f.reason,
            entries: 100000,
            step: 3,
          });
          const parsed = parseProbeLine(line);
          if (!parsed.ok) throw new Error(parsed.problem.message);
          return { offset: i, event: parsed.event };
        }),
      },
    ]);
    ledger.close();
    return { id: run.id, dir };
  }

  it("serves each rank's recorded file, by run id and rank only", async () => {
    const home = tempHome();
    const ledger = Ledger.open(home);
    const dir = ledger.runDir(1);
    ledger.close();
    const run = recorded(home, [
      { path: join(dir, 'memory-snapshot.rank0.pickle'), rank: 0, reason: 'exit' },
      { path: join(dir, 'memory-snapshot.rank1.pickle'), rank: 1, reason: 'oom' },
    ]);
    expect(run.dir).toBe(dir);
    copyFileSync(FIXTURE, join(dir, 'memory-snapshot.rank0.pickle'));
    copyFileSync(FIXTURE, join(dir, 'memory-snapshot.rank1.pickle'));
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
    });
    const oom = await app.request(`/api/runs/${run.id}/snapshot`);
    expect(oom.status).toBe(200);
    expect(((await oom.json()) as { file: string }).file).toBe(`run ${run.id} snapshot`);
    const rank0 = await app.request(`/api/runs/${run.id}/snapshot?rank=0`);
    expect([rank0.status, ((await rank0.json()) as { segments: number }).segments]).toEqual([200, 10]);
    expect((await app.request(`/api/runs/${run.id}/snapshot?rank=5`)).status).toBe(404);
    expect((await app.request(`/api/runs/${run.id}/snapshot?rank=-1`)).status).toBe(400);
    // A path in the query is not a parameter of this route: it still answers with the recorded file.
    const named = await app.request(`/api/runs/${run.id}/snapshot?rank=0&path=/etc/passwd`);
    expect(((await named.json()) as { segments: number }).segments).toBe(10);
  });

  it("refuses a recorded path outside the run's folders, another name, or a link out of them", async () => {
    const home = tempHome();
    const elsewhere = join(tempHome(), 'memory-snapshot.pickle');
    copyFileSync(FIXTURE, elsewhere);
    const outside = recorded(home, [{ path: elsewhere, rank: 0, reason: 'oom' }]);
    const ledger = Ledger.open(home);
    const dir2 = ledger.runDir(outside.id + 1);
    ledger.close();
    mkdirSync(dir2, { recursive: true });
    writeFileSync(join(dir2, 'secrets.pickle'), bytes);
    const renamed = recorded(home, [{ path: join(dir2, 'secrets.pickle'), rank: 0, reason: 'oom' }]);
    expect(renamed.dir).toBe(dir2);
    const ledger3 = Ledger.open(home);
    const dir3 = ledger3.runDir(renamed.id + 1);
    ledger3.close();
    mkdirSync(dir3, { recursive: true });
    symlinkSync(elsewhere, join(dir3, 'memory-snapshot.pickle'));
    const linked = recorded(home, [{ path: join(dir3, 'memory-snapshot.pickle'), rank: 0, reason: 'oom' }]);
    const app = await createDashboardApp({
      webRoot: '/nonexistent',
      env: { HEADROOM_HOME: home },
      demo: false,
    });
    for (const id of [outside.id, renamed.id, linked.id]) {
      const res = await app.request(`/api/runs/${id}/snapshot`);
      expect([id, res.status]).toEqual([id, 403]);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error).toMatchObject({
        code: 'forbidden',
        message: `run ${id}'s snapshot is recorded outside its folders; it is not served`,
      });
    }
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/ledger-fixture.js';
import { prometheusConfig } from '../io/prometheus.js';
import { createDashboardApp } from './dashboard.js';

const app = (prometheus: string | null, token?: string) =>
  createDashboardApp({
    webRoot: '/nonexistent',
    env: { HEADROOM_HOME: tempHome() },
    demo: false,
    prometheus: prometheus === null ? null : prometheusConfig({ url: prometheus }, {}),
    ...(token === undefined ? {} : { token }),
  });

describe('GET /api/fleet', () => {
  it('answers 503 not-configured when the server has no Prometheus', async () => {
    const r = await (await app(null)).request('/api/fleet');
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('not-configured');
  });

  it("answers 502 with the reason when the server's Prometheus is down", async () => {
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((done) => probe.close(done));
    const r = await (await app(url)).request('/api/fleet');
    expect(r.status).toBe(502);
    const { error } = (await r.json()) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('network');
    expect(error.message).toContain('(connection refused)');
    expect(error.hint).toContain('is Prometheus running there?');
  });
});

describe('GET /metrics', () => {
  it('serves the exposition, behind the token when the server has one', async () => {
    const open = await (await app(null)).request('/metrics');
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('# TYPE headroom_run_peak_bytes gauge');
    const guarded = await app(null, 's3cret');
    expect((await guarded.request('/metrics')).status).toBe(401);
    const scraped = await guarded.request('/metrics', { headers: { authorization: 'Bearer s3cret' } });
    expect(scraped.status).toBe(200);
  });
});

/**
 * The local server stays local (issue 22): on a real socket on 127.0.0.1, a foreign Host (DNS
 * rebinding) and a foreign Origin are refused, every response carries the security headers, a missing
 * asset is a 404, and live streams are capped.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedHosts } from '../src/cli/serve.js';
import { Ledger } from '../src/io/ledger.js';
import { createApp, hostnameOf, LOOPBACK_HOSTS } from '../src/server/app.js';
import { mountRuns } from '../src/server/runs-api.js';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with the headers as given (fetch would not let us forge Host). */
function send(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        // A stream never ends by itself: the first event is enough.
        if (res.headers['content-type']?.includes('text/event-stream') && body.includes('\n\n')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          req.destroy();
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
    });
    req.end();
  });
}

describe('the server on 127.0.0.1', () => {
  let port = 0;
  let close: () => void = () => {};
  const home = mkdtempSync(join(tmpdir(), 'headroom-hard-'));
  const root = mkdtempSync(join(tmpdir(), 'headroom-web-'));
  let runId = 0;

  beforeAll(async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(root, 'assets', 'index-BxWWhMqZ.js'), 'console.log(2)');
    const ledger = Ledger.open(home);
    runId = ledger.createRun({
      name: 'live',
      command: ['python', 'train.py'],
      cwd: home,
      host: 'gpu1',
      scenario: null,
      estimate: null,
      env: {},
      startedAtMs: Date.now(),
      monitorPid: process.pid,
    }).id;
    ledger.close();
    const app = createApp({
      webRoot: root,
      extend: (api: Hono) =>
        mountRuns(api, {
          openLedger: () => Ledger.open(home),
          diagnoseRun: () => [],
          demo: null,
          pollMs: 20,
          maxStreams: 2,
        }),
    });
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        port = info.port;
        resolve();
      });
      close = () => server.close();
    });
  });
  afterAll(() => close());

  it('answers its own names and refuses another (DNS rebinding)', async () => {
    expect((await send(port, '/api/health', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await send(port, '/api/health', { host: `localhost:${port}` })).status).toBe(200);
    const rebound = await send(port, '/api/health', { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.body).error.code).toBe('foreign-host');
  });

  it('refuses data requests from another site’s page, serves its own', async () => {
    const own = await send(port, '/api/runs', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
    });
    expect(own.status).toBe(200);
    const foreign = await send(port, '/api/runs', {
      host: `127.0.0.1:${port}`,
      origin: 'http://attacker.example',
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.code).toBe('foreign-origin');
    const sandboxed = await send(
      port,
      '/api/estimate',
      { host: `127.0.0.1:${port}`, origin: 'null' },
      'POST',
    );
    expect(sandboxed.status).toBe(403);
  });

  it('sends the security headers on pages and API answers alike', async () => {
    for (const path of ['/', '/api/health', '/api/nope']) {
      const res = await send(port, path, { host: `127.0.0.1:${port}` });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('answers a missing asset with 404 and a client route with the app', async () => {
    expect((await send(port, '/assets/missing.js', { host: `127.0.0.1:${port}` })).status).toBe(404);
    const route = await send(port, '/runs/3', { host: `127.0.0.1:${port}` });
    expect(route.status).toBe(200);
    expect(route.body).toContain('<div id="root">');
  });

  it('lets the browser keep a content-hashed asset for good, and asks again for the page and the rest', async () => {
    const host = { host: `127.0.0.1:${port}` };
    const hashed = await send(port, '/assets/index-BxWWhMqZ.js', host);
    expect([hashed.status, hashed.body]).toEqual([200, 'console.log(2)']);
    expect(hashed.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    for (const path of ['/', '/runs/3', '/assets/app.js'])
      expect((await send(port, path, host)).headers['cache-control']).toBe('no-cache');
  });

  it('caps the live streams open at once', async () => {
    const path = `/api/runs/${runId}/stream`;
    const streams: ReturnType<typeof request>[] = [];
    const statuses: number[] = [];
    // Two streams stay open (the run is still running); the third is refused.
    const holders = [0, 1].map(
      () =>
        new Promise<void>((resolve) => {
          const req = request(
            { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}` } },
            (res) => {
              statuses.push(res.statusCode ?? 0);
              res.once('data', () => resolve());
            },
          );
          req.end();
          streams.push(req);
          setTimeout(() => resolve(), 300);
        }),
    );
    await Promise.all(holders);
    expect(statuses).toEqual([200, 200]);
    const third = await send(port, path, { host: `127.0.0.1:${port}` });
    expect(third.status).toBe(503);
    expect(JSON.parse(third.body).error.code).toBe('too-many-streams');
    for (const s of streams) s.destroy();
  });
});

describe('the names served', () => {
  it('are the loopback names on loopback, the address and loopback elsewhere, any on every interface', () => {
    expect(servedHosts('127.0.0.1')).toEqual(LOOPBACK_HOSTS);
    expect(servedHosts('10.0.0.5')).toEqual(['10.0.0.5', ...LOOPBACK_HOSTS]);
    expect(servedHosts('0.0.0.0')).toBe('any');
  });
  it('reads a Host header and an Origin the same way', () => {
    expect(hostnameOf('127.0.0.1:7777')).toBe('127.0.0.1');
    expect(hostnameOf('[::1]:7777')).toBe('::1');
    expect(hostnameOf('LOCALHOST')).toBe('localhost');
    expect(hostnameOf('http://attacker.example:80', true)).toBe('attacker.example');
    expect(hostnameOf('file:///etc', true)).toBeNull();
  });
});

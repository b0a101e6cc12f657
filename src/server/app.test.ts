import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, resolveStaticPath } from './app.js';

function webRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'headroom-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, '..', 'secret.txt'), 'do not serve');
  return root;
}

describe('the API', () => {
  const app = createApp({ webRoot: null });

  it('estimates a scenario server-side with the same core', async () => {
    const res = await app.request('/api/estimate', {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-3.1-8b', method: 'lora', precision: 'bf16-true', gpu: 'a10g' }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      perGpu: boolean;
      fits: { gpu: string };
      scenario: { method: string };
    };
    expect(json.perGpu).toBe(true);
    expect(json.fits.gpu).toBe('a10g');
    expect(json.scenario.method).toBe('lora');
  });

  it('turns a bad scenario into a 400 naming the field', async () => {
    const res = await app.request('/api/estimate', {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-3.1-8b', microBatchSize: -1 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'out-of-range',
        where: 'microBatchSize',
        message: 'microBatchSize: -1 must be a whole number from 1 to 65536',
        hint: null,
        params: { value: -1, min: 1, max: 65536 },
        path: ['microBatchSize'],
      },
    });
  });

  it('refuses a scenario past what its model has with a 400 carrying the code, message and figures', async () => {
    const res = await app.request('/api/estimate', {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-3.1-8b', method: 'freeze', trainableLayers: 40 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'out-of-range',
        where: 'trainableLayers',
        message: 'trainableLayers: 40 is more than the 32 layers llama-3.1-8b has',
        hint: 'from 1 to 32; method full trains every layer and the embeddings too',
        params: { value: 40, max: 32 },
        path: ['trainableLayers'],
      },
    });
  });

  it('refuses bodies over the limit', async () => {
    const small = createApp({ webRoot: null, bodyLimitBytes: 100 });
    const res = await small.request('/api/estimate', {
      method: 'POST',
      body: JSON.stringify({ model: 'x'.repeat(500) }),
      headers: { 'content-length': '512' },
    });
    expect(res.status).toBe(413);
  });

  it('answers unknown API routes with JSON 404', async () => {
    const res = await app.request('/api/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not-found');
  });
});

describe('the token', () => {
  const app = createApp({ webRoot: null, token: 's3cret-token' });
  it('refuses requests without it', async () => {
    expect((await app.request('/api/health')).status).toBe(401);
    expect(
      (await app.request('/api/health', { headers: { authorization: 'Bearer wrong-token!' } })).status,
    ).toBe(401);
  });
  it('accepts it as a bearer header or a query parameter', async () => {
    expect(
      (await app.request('/api/health', { headers: { authorization: 'Bearer s3cret-token' } })).status,
    ).toBe(200);
    expect((await app.request('/api/health?token=s3cret-token')).status).toBe(200);
  });
});

describe('static files', () => {
  const root = webRoot();
  const app = createApp({ webRoot: root });

  it('serves the build and falls back to index.html for client routes', async () => {
    const js = await app.request('/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await (await app.request('/runs/3')).text()).toContain('<div id="root">');
  });

  it.each([
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/%00index.html',
    '/..\\secret.txt',
  ])('never escapes the build folder: %s', async (path) => {
    const res = await app.request(path);
    expect(await res.text()).not.toContain('do not serve');
  });

  it('resolveStaticPath keeps paths inside the root', () => {
    expect(resolveStaticPath('/srv/web', '/assets/a.js')).toBe('/srv/web/assets/a.js');
    expect(resolveStaticPath('/srv/web', '/../../etc/passwd')).toBe('/srv/web/etc/passwd');
    expect(resolveStaticPath('/srv/web', '/%E0%A4%A')).toBeNull();
    expect(resolveStaticPath('/srv/web', '/a\\..\\b')).toBeNull();
  });
});

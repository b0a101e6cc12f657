/** The Prometheus client against small HTTP servers of the test's own: answers, auth, and every failure. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { HeadroomUserError } from '../core/errors.js';
import {
  DEFAULT_PROMETHEUS_TIMEOUT_MS,
  MAX_ANSWER_BYTES,
  type PrometheusConfig,
  prometheusConfig,
  queryInstant,
  readFleet,
} from './prometheus.js';

const API = join(REPO_ROOT, 'test', 'fixtures', 'fleet', 'api');
const real = (name: string) => readFileSync(join(API, `${name}.json`), 'utf8');

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((done) => s.close(done));
  }
});

/** A server on 127.0.0.1 that answers with `handle`; returns its base URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const config = (url: string, more: Partial<PrometheusConfig> = {}): PrometheusConfig => ({
  url: `${url}/`,
  timeoutMs: 2000,
  authorization: null,
  ...more,
});

async function failure(promise: Promise<unknown>): Promise<HeadroomUserError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('prometheusConfig', () => {
  it('takes --prometheus, else HEADROOM_PROMETHEUS, else none', () => {
    expect(prometheusConfig({ url: 'http://a:9090' }, { HEADROOM_PROMETHEUS: 'http://b:9090' })).toEqual({
      url: 'http://a:9090/',
      timeoutMs: DEFAULT_PROMETHEUS_TIMEOUT_MS,
      authorization: null,
    });
    expect(prometheusConfig({}, { HEADROOM_PROMETHEUS: 'http://b:9090/prom' })?.url).toBe(
      'http://b:9090/prom/',
    );
    expect(prometheusConfig({}, {})).toBeNull();
  });

  it('turns user:password@ in the URL into basic auth and leaves it out of the URL', () => {
    const c = prometheusConfig({ url: 'https://ana:s%3Acret@prom.example/' }, {})!;
    expect(c.url).toBe('https://prom.example/');
    expect(c.authorization).toBe(`Basic ${Buffer.from('ana:s:cret').toString('base64')}`);
  });

  it('reads a bearer token from HEADROOM_PROMETHEUS_TOKEN or --token-file, basic auth from the environment', () => {
    expect(prometheusConfig({ url: 'http://a' }, { HEADROOM_PROMETHEUS_TOKEN: 'abc' })!.authorization).toBe(
      'Bearer abc',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'headroom-token-')), 'token');
    writeFileSync(file, 'from-file\n');
    expect(prometheusConfig({ url: 'http://a', tokenFile: file }, {})!.authorization).toBe(
      'Bearer from-file',
    );
    expect(
      prometheusConfig(
        { url: 'http://a' },
        { HEADROOM_PROMETHEUS_USER: 'u', HEADROOM_PROMETHEUS_PASSWORD: 'p' },
      )!.authorization,
    ).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  });

  it.each([
    [
      { url: 'prometheus:9090' },
      {},
      '--prometheus prometheus:9090: Prometheus is asked over http or https, not prometheus',
    ],
    [{ url: 'not a url' }, {}, '--prometheus not a url: not a URL'],
    [
      {},
      { HEADROOM_PROMETHEUS: 'ftp://x' },
      'HEADROOM_PROMETHEUS ftp://x: Prometheus is asked over http or https, not ftp',
    ],
    [{ url: 'http://a', timeoutS: '0' }, {}, '--timeout 0: seconds from above 0 to 600'],
    [{ url: 'http://a', timeoutS: 'soon' }, {}, '--timeout soon: seconds from above 0 to 600'],
    [
      { url: 'http://a', tokenFile: '/nonexistent/token' },
      {},
      '--token-file /nonexistent/token: cannot read it (ENOENT)',
    ],
    [
      { url: 'http://u:p@a' },
      { HEADROOM_PROMETHEUS_TOKEN: 't' },
      'both a bearer token and a basic-auth user are set for Prometheus; a request carries one',
    ],
  ])('refuses %j %j', (settings, env, message) => {
    let error: unknown;
    try {
      prometheusConfig(settings, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HeadroomUserError);
    expect((error as HeadroomUserError).message).toBe(message);
  });
});

describe('queryInstant', () => {
  it('asks GET <base>/api/v1/query with the query and the Authorization header', async () => {
    const seen: { url?: string | undefined; auth?: string | undefined } = {};
    const url = await serve((req, res) => {
      seen.url = req.url;
      seen.auth = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/json' }).end(real('headroom_run_running'));
    });
    const read = await queryInstant(config(`${url}/prom`, { authorization: 'Bearer t0k' }), 'up{job="a b"}');
    expect(seen).toEqual({ url: '/prom/api/v1/query?query=up%7Bjob%3D%22a+b%22%7D', auth: 'Bearer t0k' });
    expect(read.samples.map((s) => [s.metric.run, s.value])).toEqual([['1', 1]]);
  });

  it('says so when nothing listens (connection refused)', async () => {
    const url = await serve(() => {});
    const port = new URL(url).port;
    const s = servers.pop()!;
    await new Promise((done) => s.close(done));
    const error = await failure(queryInstant(config(url), 'up'));
    expect(error.code).toBe('network');
    expect(error.message).toBe(
      `${url} (query up): nothing listens at 127.0.0.1:${port} (connection refused)`,
    );
    expect(error.hint).toContain('is Prometheus running there?');
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const url = await serve(() => {});
    const error = await failure(queryInstant(config(url, { timeoutMs: 150 }), 'up'));
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(`${url} (query up): Prometheus did not answer within 0.15 s`);
    expect(error.hint).toContain('--timeout 30');
  });

  it("reports Prometheus' own error answer (HTTP 400, errorType bad_data)", async () => {
    const url = await serve((_req, res) => res.writeHead(400).end(real('bad_query')));
    expect((await failure(queryInstant(config(url), 'sum('))).message).toBe(
      `${url} (query sum(): Prometheus answered an error (bad_data): invalid parameter "query": 1:5: parse error: unclosed left parenthesis`,
    );
  });

  it('names the credentials on 401 and 403', async () => {
    const url = await serve((_req, res) => res.writeHead(401).end('Unauthorized'));
    const error = await failure(queryInstant(config(url), 'up'));
    expect(error.message).toBe(
      `${url} (query up): Prometheus refused the request (HTTP 401, and none was given)`,
    );
    expect(error.hint).toContain('HEADROOM_PROMETHEUS_TOKEN');
  });

  it('says what a proxy page that is not JSON answered', async () => {
    const url = await serve((_req, res) => res.writeHead(502, 'Bad Gateway').end('<html>bad gateway</html>'));
    const error = await failure(queryInstant(config(url), 'up'));
    expect(error.message).toBe(
      `${url} (query up) answered HTTP 502 Bad Gateway with no JSON ("<html>bad gateway</html>")`,
    );
    expect(error.hint).toContain('try again');
  });

  it(`stops reading past ${MAX_ANSWER_BYTES / 2 ** 20} MiB`, async () => {
    const chunk = Buffer.alloc(2 ** 20, 0x20);
    const url = await serve((_req, res) => {
      res.writeHead(200);
      let sent = 0;
      const more = () => {
        while (sent <= MAX_ANSWER_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    expect((await failure(queryInstant(config(url), 'up'))).message).toBe(
      `${url} (query up) answered more than 64 MiB; nothing was read`,
    );
  });
});

describe('readFleet', () => {
  /** A Prometheus that answers each metric name with the recorded answer of that name. */
  const recorded = (names: Readonly<Record<string, string>>) =>
    serve((req, res) => {
      const query = new URL(req.url!, 'http://x').searchParams.get('query')!;
      res.writeHead(200, { 'content-type': 'application/json' }).end(real(names[query] ?? 'empty'));
    });

  it('reads the cards and the runs of a recorded answer', async () => {
    const url = await recorded(
      Object.fromEntries(
        [
          'DCGM_FI_DEV_FB_USED',
          'DCGM_FI_DEV_FB_FREE',
          'DCGM_FI_DEV_FB_RESERVED',
          'headroom_run_peak_bytes',
          'headroom_run_running',
        ].map((n) => [n, n]),
      ),
    );
    const reading = await readFleet(config(url));
    expect(reading.prometheus).toBe(url);
    expect(reading.gpus).toHaveLength(12);
    expect(reading.findings.map((f) => f.code)).toEqual(['above-siblings', 'unaccounted', 'full-no-run']);
  });

  it('says which DCGM series it asked for when there are none', async () => {
    const url = await recorded({});
    const error = await failure(readFleet(config(url)));
    expect(error.message).toBe(
      `${url} has no DCGM series: DCGM_FI_DEV_FB_USED returned nothing (also asked: DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_FB_RESERVED)`,
    );
    expect(error.hint).toContain("must scrape NVIDIA's dcgm-exporter");
  });
});

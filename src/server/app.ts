/**
 * The dashboard's HTTP app, built by a function so tests drive it with `app.request()` and no socket.
 * It serves the JSON API and the built React dashboard. Errors become responses in one place.
 */

import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import { findGpu, GPUS, MODELS } from '../core/catalog/index.js';
import { isUserError } from '../core/errors.js';
import { estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import { parseScenario } from '../core/scenario.js';
import { checkScenarioAgainstModel } from '../core/scenario-limits.js';
import { userErrorWords } from '../words/errors.js';
import { type Lang, langOf } from '../words/lang.js';
import { mountSnapshotUpload, SNAPSHOT_BODY_LIMIT_BYTES, SNAPSHOT_PATH } from './snapshot-api.js';

/** The optional parts of the app: each route group answers 503 with a reason when its part is absent. */
export interface AppDeps {
  /** The built dashboard (dist/web); null serves the API alone. */
  readonly webRoot: string | null;
  /** Required as `Authorization: Bearer <token>` or `?token=` on every request when set. */
  readonly token?: string;
  /** Largest accepted request body. */
  readonly bodyLimitBytes?: number;
  /** Largest accepted snapshot upload (POST /api/snapshot), which has its own limit. */
  readonly snapshotLimitBytes?: number;
  /** Extra API routes (runs, migrate, import …) mounted under /api by the callers that have them. */
  readonly extend?: (api: Hono) => void;
  /** GET /metrics: the Prometheus exposition of the runs (src/io/metrics-registry.ts), when given. */
  readonly metrics?: () => Promise<{ readonly contentType: string; readonly body: string }>;
  /**
   * The host names this server answers to (the `Host` header, port aside), against DNS rebinding: a page
   * of another site whose name resolves to 127.0.0.1 sends its own name. 'any' when it listens on every
   * interface, where the token is required instead. Default: the loopback names.
   */
  readonly hosts?: readonly string[] | 'any';
}

/** The names a loopback server answers to. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

/**
 * Headers every response carries: no framing by another site (clickjacking), no content sniffing, no
 * referrer leaving with a ?token= link, scripts and styles only from this server.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The host name of a Host header or an Origin URL, lower-cased, without port or IPv6 brackets; null when unreadable. */
export function hostnameOf(value: string, isOrigin = false): string | null {
  let url: URL;
  try {
    url = new URL(isOrigin ? value : `http://${value}`);
  } catch {
    return null;
  }
  if (isOrigin && url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The cookie a browser keeps the token in after opening the ?token= link. */
const TOKEN_COOKIE = 'headroom_token';

/** Default request body limit: a pasted config.json or trainer config is far below this. */
export const DEFAULT_BODY_LIMIT_BYTES = 1_000_000;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** Constant-time comparison, so a token cannot be guessed one character at a time from timings. */
function sameToken(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

/** Resolves a URL path inside `root`, or null when it would escape it (.., encoded slashes, absolute). */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const base = resolve(root);
  const target = resolve(base, `.${normalize(`/${decoded}`)}`);
  return target === base || target.startsWith(base + sep) ? target : null;
}

/**
 * Builds the app.
 * @example const app = createApp({ webRoot: 'dist/web' }); await app.request('/api/health')
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const hosts = deps.hosts ?? LOOPBACK_HOSTS;
  const allowed = (name: string | null) =>
    hosts === 'any' || (name !== null && hosts.some((h) => h.toLowerCase() === name));

  // First of all: who is asking. A foreign Host is DNS rebinding; a foreign Origin is another site's page.
  app.use('*', async (c, next) => {
    const host = c.req.header('host');
    if (host !== undefined && !allowed(hostnameOf(host))) {
      return c.json(
        {
          error: {
            code: 'foreign-host',
            message: `this server answers to ${hosts === 'any' ? 'any host' : hosts.join(', ')}, not ${JSON.stringify(host.slice(0, 200))}`,
          },
        },
        421,
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && !allowed(hostnameOf(origin, true))) {
      return c.json(
        { error: { code: 'foreign-origin', message: 'requests from another site’s pages are refused' } },
        403,
      );
    }
    if (origin === 'null' && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json(
        { error: { code: 'foreign-origin', message: 'requests from another site’s pages are refused' } },
        403,
      );
    }
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  });

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (isUserError(error)) {
      // A user error's words are the catalog's (src/words/errors.ts), in the request's language.
      const words = userErrorWords(error, requestLang(c.req.header('accept-language')));
      return c.json(
        {
          error: {
            code: error.code,
            where: error.where ?? null,
            message: words.message,
            hint: words.hint ?? error.hint ?? null,
            ...(error.path === undefined ? {} : { path: error.path }),
            ...(error.params === undefined ? {} : { params: error.params }),
          },
        },
        400,
      );
    }
    console.error(error);
    return c.json({ error: { code: 'internal', message: 'internal error; see the server log' } }, 500);
  });

  if (deps.token !== undefined) {
    const token = deps.token;
    app.use('*', async (c, next) => {
      const header = c.req.header('authorization') ?? '';
      const fromQuery = c.req.query('token');
      const given = header.startsWith('Bearer ')
        ? header.slice(7)
        : (fromQuery ?? getCookie(c, TOKEN_COOKIE) ?? '');
      if (!sameToken(given, token)) {
        return c.json(
          {
            error: {
              code: 'unauthorized',
              message:
                'this server needs its token: Authorization: Bearer <token>, or open the link with ?token=',
            },
          },
          401,
        );
      }
      await next();
      // A browser that opened the link with ?token= keeps it in a cookie for the page's assets and API calls.
      if (fromQuery !== undefined)
        setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
    });
  }

  const generalLimit = bodyLimit({
    maxSize: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    onError: (c) =>
      c.json(
        {
          error: {
            code: 'too-large',
            message: `request body over ${deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES} bytes`,
          },
        },
        413,
      ),
  });
  // A snapshot upload is far larger than a config: its route has its own limit.
  app.use('/api/*', (c, next) => (c.req.path === SNAPSHOT_PATH ? next() : generalLimit(c, next)));

  const api = new Hono();
  api.get('/health', (c) => c.json({ ok: true }));
  api.get('/catalog/models', (c) => c.json(MODELS));
  api.get('/catalog/gpus', (c) => c.json(GPUS));
  api.post('/estimate', async (c) => {
    const body = await c.req.json().catch(() => {
      throw new HTTPException(400, { message: 'the body must be a JSON scenario' });
    });
    const scenario = parseScenario(body);
    const model = resolveModelRef(scenario.model);
    if (!model) {
      return c.json(
        {
          error: {
            code: 'unknown-model',
            message: `model ${JSON.stringify(scenario.model)} is not in the catalog; paste its config.json instead`,
          },
        },
        400,
      );
    }
    // Out of the model's range (a rank past its hidden size): a 400 with the code and message, as any user error.
    checkScenarioAgainstModel(scenario, model);
    const gpu = scenario.gpu ? (findGpu(scenario.gpu) ?? null) : null;
    return c.json({ ...estimate({ scenario, shape: model.shape, gpu, terms: true }), scenario });
  });
  mountSnapshotUpload(api, deps.snapshotLimitBytes ?? SNAPSHOT_BODY_LIMIT_BYTES);
  deps.extend?.(api);
  app.route('/api', api);
  app.all('/api/*', (c) =>
    c.json({ error: { code: 'not-found', message: `no API route ${c.req.method} ${c.req.path}` } }, 404),
  );

  const metrics = deps.metrics;
  if (metrics) {
    app.get('/metrics', async (c) => {
      const { contentType, body } = await metrics();
      return c.body(body, 200, { 'content-type': contentType });
    });
  }

  const webRoot = deps.webRoot;
  app.get('*', async (c) => {
    if (webRoot === null) return c.text('the dashboard is not built: npm run build', 404);
    const path = resolveStaticPath(webRoot, c.req.path === '/' ? '/index.html' : c.req.path);
    if (path === null) return c.text('not found', 404);
    const isFile = (await stat(path).catch(() => null))?.isFile() === true;
    // A client route (no extension) is the app's; a missing asset is a 404, not the app's HTML.
    if (!isFile && extname(c.req.path) !== '') return c.text('not found', 404);
    const file = isFile ? path : join(webRoot, 'index.html');
    const body = await readFile(file).catch(() => null);
    if (body === null) return c.text('the dashboard is not built: npm run build', 404);
    return new Response(body, {
      headers: {
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': cacheControlOf(isFile ? c.req.path : '/index.html'),
      },
    });
  });
  return app;
}

/**
 * How long a browser may keep a dashboard file: Vite names each built asset by its content's hash
 * (assets/index-BxWWhMqZ.js), so a name never changes meaning and the browser keeps it for good; the
 * page itself and early.js name those assets, so they are asked for again on every visit. `private`:
 * a token-gated server's files are not for shared caches.
 */
export function cacheControlOf(path: string): string {
  return /^\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(path)
    ? 'private, max-age=31536000, immutable'
    : 'no-cache';
}

/**
 * The language of a request's error words: Chinese when its Accept-Language puts a zh tag first
 * (the dashboard sends its own language; a browser its preference), else English.
 */
export function requestLang(acceptLanguage: string | undefined): Lang {
  // The first tag, its quality dropped ("zh-CN;q=0.9"), read as a locale is.
  return langOf((acceptLanguage ?? '').split(',')[0]?.split(';')[0]);
}

/**
 * A client of Prometheus' HTTP API for `headroom fleet` and the dashboard's fleet page: instant
 * queries (`GET /api/v1/query?query=…`), a timeout on each, a bearer token or basic auth, a bounded
 * answer, and a clear error for a server that is down, slow, answers an error, or has no DCGM series.
 */
import { readFileSync } from 'node:fs';
import { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { analyzeFleet, type FleetReading } from '../core/fleet/fleet.js';
import { DCGM_FB_METRICS, HEADROOM_METRICS } from '../core/fleet/names.js';
import { type InstantVector, readInstantVector } from '../core/fleet/prometheus-response.js';

/** How long one query may take unless --timeout says otherwise. */
export const DEFAULT_PROMETHEUS_TIMEOUT_MS = 10_000;
/** The largest answer read: 64 MiB holds a few hundred thousand series, far more than a fleet has. */
export const MAX_ANSWER_BYTES = 64 * 2 ** 20;

export interface PrometheusConfig {
  /** The server's base URL, without credentials (http://host:9090 or a path prefix). */
  readonly url: string;
  readonly timeoutMs: number;
  /** The Authorization header, when the server needs one. */
  readonly authorization: string | null;
}

export interface PrometheusSettings {
  /** --prometheus, else HEADROOM_PROMETHEUS. */
  readonly url?: string | undefined;
  /** --timeout in seconds. */
  readonly timeoutS?: string | undefined;
  /** --token-file: a file holding the bearer token. */
  readonly tokenFile?: string | undefined;
}

/**
 * The server to ask, from flags and the environment: HEADROOM_PROMETHEUS for the URL,
 * HEADROOM_PROMETHEUS_TOKEN (or --token-file) for a bearer token, HEADROOM_PROMETHEUS_USER and
 * HEADROOM_PROMETHEUS_PASSWORD (or user:password@ in the URL) for basic auth. Null when no URL is given.
 */
export function prometheusConfig(
  settings: PrometheusSettings,
  env: NodeJS.ProcessEnv,
): PrometheusConfig | null {
  const raw = settings.url ?? env.HEADROOM_PROMETHEUS;
  if (raw === undefined || raw.trim() === '') return null;
  const where = settings.url === undefined ? 'HEADROOM_PROMETHEUS' : '--prometheus';
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw fileError('prom-not-url', { where, raw }, where, 'bad-flag');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const scheme = url.protocol.replace(':', '');
    throw fileError('prom-scheme', { where, raw, scheme }, where, 'bad-flag');
  }
  let timeoutMs = DEFAULT_PROMETHEUS_TIMEOUT_MS;
  if (settings.timeoutS !== undefined) {
    const s = Number(settings.timeoutS);
    if (!Number.isFinite(s) || s <= 0 || s > 600) {
      throw fileError('prom-timeout-flag', { raw: String(settings.timeoutS) }, '--timeout', 'bad-flag');
    }
    timeoutMs = Math.round(s * 1000);
  }
  // fetch() refuses a URL with credentials in it: they become the Authorization header.
  const userInUrl = url.username !== '' ? decodeURIComponent(url.username) : null;
  const passwordInUrl = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  let token = env.HEADROOM_PROMETHEUS_TOKEN?.trim() || null;
  if (settings.tokenFile !== undefined) {
    try {
      token = readFileSync(settings.tokenFile, 'utf8').trim();
    } catch (error) {
      const detail = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw fileError('prom-token-unreadable', { file: settings.tokenFile, detail }, '--token-file');
    }
    if (token === '') {
      throw fileError('prom-token-empty', { file: settings.tokenFile }, '--token-file');
    }
  }
  const user = userInUrl ?? (env.HEADROOM_PROMETHEUS_USER?.trim() || null);
  const password = userInUrl !== null ? passwordInUrl : (env.HEADROOM_PROMETHEUS_PASSWORD ?? '');
  if (token !== null && user !== null) {
    throw fileError('prom-two-auths', { where }, where, 'bad-flag');
  }
  const authorization =
    token !== null
      ? `Bearer ${token}`
      : user !== null
        ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
        : null;
  const base = url.toString();
  return { url: base.endsWith('/') ? base : `${base}/`, timeoutMs, authorization };
}

/** The base URL as it is safe to show (credentials are never in it). */
export function shownUrl(config: PrometheusConfig): string {
  return config.url.replace(/\/$/, '');
}

async function readBounded(response: Response, where: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw fileError('prom-too-large', { where, mib: MAX_ANSWER_BYTES / 2 ** 20 }, where, 'network');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function networkError(error: unknown, config: PrometheusConfig, where: string): HeadroomUserError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    const seconds = config.timeoutMs / 1000;
    const suggest = Math.max(30, 2 * seconds);
    return fileError('prom-no-answer', { where, seconds, suggest }, where, 'timeout');
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  const { host, hostname } = new URL(config.url);
  const why =
    code === 'ECONNREFUSED'
      ? 'refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'unknown-host'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? 'closed'
          : 'other';
  const detail = code || cause?.message || (error as Error).message;
  return fileError('prom-unreachable', { where, why, host, hostname, detail }, where, 'network');
}

/** Runs one instant query. Throws HeadroomUserError when the server is down, slow, or answers an error. */
export async function queryInstant(config: PrometheusConfig, query: string): Promise<InstantVector> {
  const url = new URL('api/v1/query', config.url);
  url.searchParams.set('query', query);
  const where = `${shownUrl(config)} (query ${query})`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      headers: {
        accept: 'application/json',
        ...(config.authorization === null ? {} : { authorization: config.authorization }),
      },
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: 'follow',
    });
    text = await readBounded(response, where);
  } catch (error) {
    if (error instanceof HeadroomUserError) throw error;
    throw networkError(error, config, where);
  }
  if (response.status === 401 || response.status === 403) {
    const anonymous = config.authorization === null;
    throw fileError('prom-refused', { where, status: response.status, anonymous }, where, 'network');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const { status, statusText } = response;
    throw fileError(
      'prom-not-json',
      { where, status, statusText, start: text.slice(0, 120) },
      where,
      'network',
    );
  }
  return readInstantVector(body, where);
}

/** Asks the server for DCGM's framebuffer series and ours, and analyses them. */
export async function readFleet(config: PrometheusConfig): Promise<FleetReading> {
  const [used, free, reserved, peaks, running] = await Promise.all([
    queryInstant(config, DCGM_FB_METRICS.used),
    queryInstant(config, DCGM_FB_METRICS.free),
    queryInstant(config, DCGM_FB_METRICS.reserved),
    queryInstant(config, HEADROOM_METRICS.peakBytes.name),
    queryInstant(config, HEADROOM_METRICS.running.name),
  ]);
  if (used.samples.length === 0) {
    const url = shownUrl(config);
    throw fileError('prom-no-dcgm', { url, ...DCGM_FB_METRICS }, url, 'network');
  }
  const report = analyzeFleet({
    used: used.samples,
    free: free.samples,
    reserved: reserved.samples,
    peaks: peaks.samples,
    running: running.samples,
  });
  const warnings = [...new Set([used, free, reserved, peaks, running].flatMap((v) => v.warnings))];
  return { prometheus: shownUrl(config), ...report, warnings };
}

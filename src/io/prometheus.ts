/**
 * A client of Prometheus' HTTP API for `headroom fleet` and the dashboard's fleet page: instant
 * queries (`GET /api/v1/query?query=…`), a timeout on each, a bearer token or basic auth, a bounded
 * answer, and a clear error for a server that is down, slow, answers an error, or has no DCGM series.
 */
import { readFileSync } from 'node:fs';
import { HeadroomUserError } from '../core/errors.js';
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

const URL_HINT = 'headroom fleet --prometheus http://prometheus.example:9090 (or set HEADROOM_PROMETHEUS)';

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
    throw new HeadroomUserError({
      code: 'bad-flag',
      where,
      message: `${where} ${raw}: not a URL`,
      hint: URL_HINT,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where,
      message: `${where} ${raw}: Prometheus is asked over http or https, not ${url.protocol.replace(':', '')}`,
      hint: URL_HINT,
    });
  }
  let timeoutMs = DEFAULT_PROMETHEUS_TIMEOUT_MS;
  if (settings.timeoutS !== undefined) {
    const s = Number(settings.timeoutS);
    if (!Number.isFinite(s) || s <= 0 || s > 600) {
      throw new HeadroomUserError({
        code: 'bad-flag',
        where: '--timeout',
        message: `--timeout ${settings.timeoutS}: seconds from above 0 to 600`,
        hint: '--timeout 30',
      });
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
      throw new HeadroomUserError({
        code: 'bad-file',
        where: '--token-file',
        message: `--token-file ${settings.tokenFile}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        hint: 'give a file that holds the bearer token on one line',
      });
    }
    if (token === '') {
      throw new HeadroomUserError({
        code: 'bad-file',
        where: '--token-file',
        message: `--token-file ${settings.tokenFile} is empty`,
        hint: 'put the bearer token in it, on one line',
      });
    }
  }
  const user = userInUrl ?? (env.HEADROOM_PROMETHEUS_USER?.trim() || null);
  const password = userInUrl !== null ? passwordInUrl : (env.HEADROOM_PROMETHEUS_PASSWORD ?? '');
  if (token !== null && user !== null) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where,
      message: 'both a bearer token and a basic-auth user are set for Prometheus; a request carries one',
      hint: 'unset HEADROOM_PROMETHEUS_TOKEN (and --token-file), or HEADROOM_PROMETHEUS_USER and the user in the URL',
    });
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
      throw new HeadroomUserError({
        code: 'network',
        where,
        message: `${where} answered more than ${MAX_ANSWER_BYTES / 2 ** 20} MiB; nothing was read`,
        hint: 'the URL may not be a Prometheus query API; check --prometheus',
      });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function networkError(error: unknown, config: PrometheusConfig, where: string): HeadroomUserError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new HeadroomUserError({
      code: 'timeout',
      where,
      message: `${where}: Prometheus did not answer within ${config.timeoutMs / 1000} s`,
      hint: `it may be overloaded or the URL may point at something that never answers: headroom fleet --timeout ${Math.max(30, (2 * config.timeoutMs) / 1000)}`,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  const host = new URL(config.url).host;
  const what =
    code === 'ECONNREFUSED'
      ? `nothing listens at ${host} (connection refused)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the host ${new URL(config.url).hostname} is not known (${code})`
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? `the connection to ${host} was closed before an answer`
          : `cannot reach ${host} (${code || cause?.message || (error as Error).message})`;
  return new HeadroomUserError({
    code: 'network',
    where,
    message: `${where}: ${what}`,
    hint: 'is Prometheus running there? Check the URL and port (Prometheus listens on 9090 by default)',
  });
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
    throw new HeadroomUserError({
      code: 'network',
      where,
      message: `${where}: Prometheus refused the request (HTTP ${response.status}${config.authorization === null ? ', and none was given' : ''})`,
      hint: 'set HEADROOM_PROMETHEUS_TOKEN (or --token-file) for a bearer token, or HEADROOM_PROMETHEUS_USER and HEADROOM_PROMETHEUS_PASSWORD for basic auth',
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HeadroomUserError({
      code: 'network',
      where,
      message: `${where} answered HTTP ${response.status} ${response.statusText} with no JSON (${JSON.stringify(text.slice(0, 120))})`,
      hint:
        response.status >= 500
          ? 'the server or a proxy in front of it failed; try again, or ask its owner'
          : 'give --prometheus the base URL of a Prometheus server (http://host:9090), not of an exporter or a proxy page',
    });
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
    throw new HeadroomUserError({
      code: 'network',
      where: shownUrl(config),
      message: `${shownUrl(config)} has no DCGM series: ${DCGM_FB_METRICS.used} returned nothing (also asked: ${DCGM_FB_METRICS.free}, ${DCGM_FB_METRICS.reserved})`,
      hint: "Prometheus must scrape NVIDIA's dcgm-exporter on every GPU host (port 9400 by default), with its default counters, which include the DCGM_FI_DEV_FB_* fields",
    });
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

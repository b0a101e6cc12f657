/**
 * An instant query's answer from Prometheus' HTTP API, read defensively: the envelope
 * `{status, data: {resultType: "vector", result: [{metric, value: [ts, "v"]}]}}` on success, and
 * `{status: "error", errorType, error}` on failure (prometheus/web/api/v1/api.go, the `response` and
 * `QueryData` types; docs "HTTP API", "Format overview" and "Instant vectors"). Anything else is a clear
 * error naming the server and the query, never a crash.
 */
import { HeadroomUserError } from '../errors.js';

/** One series of an instant vector: its labels, its value and when Prometheus evaluated it. */
export interface VectorSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
  /** Evaluation time, seconds since the epoch. */
  readonly timestampS: number;
}

/** What an instant query read. */
export interface InstantVector {
  readonly samples: readonly VectorSample[];
  /** Series whose value was not a finite number ("NaN", "+Inf"): left out of `samples`. */
  readonly nonFinite: number;
  readonly warnings: readonly string[];
}

/** The most series one answer may hold; a fleet of 10,000 cards is far below it. */
export const MAX_VECTOR_SERIES = 200_000;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function shapeError(where: string, what: string): HeadroomUserError {
  return new HeadroomUserError({
    code: 'network',
    where,
    message: `${where} answered, but not with Prometheus' query API JSON: ${what}`,
    hint: 'give --prometheus the base URL of a Prometheus server (http://host:9090), not of an exporter or a proxy page',
  });
}

/**
 * Reads the parsed JSON of `GET /api/v1/query`. `where` names the server and the query in messages.
 * Throws HeadroomUserError for an error answer or an unexpected shape.
 */
export function readInstantVector(body: unknown, where: string): InstantVector {
  if (!isRecord(body)) throw shapeError(where, 'the body is not a JSON object');
  if (body.status === 'error') {
    const type = typeof body.errorType === 'string' ? body.errorType : 'unknown';
    const error = typeof body.error === 'string' ? body.error.slice(0, 500) : 'no message';
    throw new HeadroomUserError({
      code: 'network',
      where,
      message: `${where}: Prometheus answered an error (${type}): ${error}`,
      hint:
        type === 'timeout'
          ? 'the query ran past the server’s own limit (--query.timeout): ask a smaller Prometheus, or raise that limit'
          : type === 'bad_data'
            ? 'the query was rejected: this headroom and that Prometheus may disagree on PromQL; report it with the server’s version'
            : 'look at the Prometheus server’s log; try again once it answers queries',
    });
  }
  if (body.status !== 'success') throw shapeError(where, `status is ${JSON.stringify(body.status)}`);
  const data = body.data;
  if (!isRecord(data)) throw shapeError(where, 'no data object');
  if (data.resultType !== 'vector')
    throw shapeError(where, `resultType is ${JSON.stringify(data.resultType)}, not "vector"`);
  if (!Array.isArray(data.result)) throw shapeError(where, 'data.result is not a list');
  if (data.result.length > MAX_VECTOR_SERIES)
    throw shapeError(where, `${data.result.length} series, more than the ${MAX_VECTOR_SERIES} read`);
  const samples: VectorSample[] = [];
  let nonFinite = 0;
  for (const [i, entry] of data.result.entries()) {
    if (!isRecord(entry) || !isRecord(entry.metric) || !Array.isArray(entry.value))
      throw shapeError(where, `series ${i} has no metric object and value pair`);
    const [ts, text] = entry.value as unknown[];
    if (typeof ts !== 'number' || typeof text !== 'string')
      throw shapeError(where, `series ${i}'s value is not [timestamp, "number"]`);
    const metric: Record<string, string> = {};
    for (const [k, v] of Object.entries(entry.metric)) {
      if (typeof v !== 'string') throw shapeError(where, `series ${i}'s label ${k} is not a string`);
      metric[k] = v;
    }
    const value = Number(text);
    if (!Number.isFinite(value)) {
      nonFinite++;
      continue;
    }
    samples.push({ metric, value, timestampS: ts });
  }
  const warnings = Array.isArray(body.warnings)
    ? body.warnings.filter((w): w is string => typeof w === 'string')
    : [];
  return { samples, nonFinite, warnings };
}

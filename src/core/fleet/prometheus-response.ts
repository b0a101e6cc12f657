/**
 * An instant query's answer from Prometheus' HTTP API, read defensively: the envelope
 * `{status, data: {resultType: "vector", result: [{metric, value: [ts, "v"]}]}}` on success, and
 * `{status: "error", errorType, error}` on failure (prometheus/web/api/v1/api.go, the `response` and
 * `QueryData` types; docs "HTTP API", "Format overview" and "Instant vectors"). Anything else is a clear
 * error naming the server and the query, never a crash.
 */
import type { HeadroomUserError } from '../errors.js';
import { fileError, type PromShapeProblem } from '../file-errors.js';

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

/** An answer that is JSON but not the query API's: what is off, with the figures its words name. */
function shapeError(
  where: string,
  problem: PromShapeProblem,
  more: { value?: string; index?: number; label?: string; count?: number } = {},
): HeadroomUserError {
  const { value = '', index = 0, label = '', count = 0 } = more;
  const params = { where, problem, value, index, label, count, max: MAX_VECTOR_SERIES };
  return fileError('prom-bad-shape', params, where, 'network');
}

/**
 * Reads the parsed JSON of `GET /api/v1/query`. `where` names the server and the query in messages.
 * Throws HeadroomUserError for an error answer or an unexpected shape.
 */
export function readInstantVector(body: unknown, where: string): InstantVector {
  if (!isRecord(body)) throw shapeError(where, 'not-object');
  if (body.status === 'error') {
    const type = typeof body.errorType === 'string' ? body.errorType : 'unknown';
    // '' when the answer says nothing: the words say so (src/words/prometheus-errors.ts).
    const error = typeof body.error === 'string' ? body.error.slice(0, 500) : '';
    throw fileError('prom-error-answer', { where, errorType: type, error }, where, 'network');
  }
  if (body.status !== 'success')
    throw shapeError(where, 'status', { value: String(JSON.stringify(body.status)) });
  const data = body.data;
  if (!isRecord(data)) throw shapeError(where, 'no-data');
  if (data.resultType !== 'vector')
    throw shapeError(where, 'result-type', {
      value: String(JSON.stringify(data.resultType)),
    });
  if (!Array.isArray(data.result)) throw shapeError(where, 'result-not-list');
  if (data.result.length > MAX_VECTOR_SERIES)
    throw shapeError(where, 'too-many-series', { count: data.result.length });
  const samples: VectorSample[] = [];
  let nonFinite = 0;
  for (const [i, entry] of data.result.entries()) {
    if (!isRecord(entry) || !isRecord(entry.metric) || !Array.isArray(entry.value))
      throw shapeError(where, 'series-shape', { index: i });
    const [ts, text] = entry.value as unknown[];
    if (typeof ts !== 'number' || typeof text !== 'string')
      throw shapeError(where, 'series-value', { index: i });
    const metric: Record<string, string> = {};
    for (const [k, v] of Object.entries(entry.metric)) {
      if (typeof v !== 'string') throw shapeError(where, 'label-not-string', { index: i, label: k });
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

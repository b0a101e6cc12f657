import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { HeadroomUserError } from '../errors.js';
import { MAX_VECTOR_SERIES, readInstantVector } from './prometheus-response.js';

/** Real answers of Prometheus 2.42.0 (Debian's package) to GET /api/v1/query. */
const real = (name: string): unknown =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'fleet', 'api', `${name}.json`), 'utf8'));

const WHERE = 'http://127.0.0.1:9090 (query q)';
const failure = (body: unknown): HeadroomUserError => {
  try {
    readInstantVector(body, WHERE);
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('no error');
};

describe('readInstantVector', () => {
  it("reads a real vector answer: labels, the value as a number, Prometheus' evaluation time", () => {
    const { samples, nonFinite, warnings } = readInstantVector(real('DCGM_FI_DEV_FB_USED'), WHERE);
    expect(samples).toHaveLength(12);
    expect(samples[0]).toEqual({
      metric: {
        DCGM_FI_DRIVER_VERSION: '550.54.15',
        Hostname: 'gpu-node-a',
        UUID: 'GPU-00000000-0000-0000-0000-000000000000',
        __name__: 'DCGM_FI_DEV_FB_USED',
        device: 'nvidia0',
        gpu: '0',
        instance: '127.0.0.1:19401',
        job: 'dcgm',
        modelName: 'NVIDIA H100 80GB HBM3',
        pci_bus_id: '00000000:18:00.0',
      },
      value: 4340,
      timestampS: 1796166732.953,
    });
    expect([nonFinite, warnings]).toEqual([0, []]);
  });

  it('reads a real empty answer as no series', () => {
    expect(readInstantVector(real('empty'), WHERE).samples).toEqual([]);
  });

  it("turns a real error answer into a user error with Prometheus' type and message", () => {
    const error = failure(real('bad_query'));
    expect(error.code).toBe('network');
    expect(error.message).toBe(
      'http://127.0.0.1:9090 (query q): Prometheus answered an error (bad_data): invalid parameter "query": 1:5: parse error: unclosed left parenthesis',
    );
    expect(error.hint).toContain('PromQL');
  });

  it('refuses a real range (matrix) answer: the fleet reads instant vectors', () => {
    expect(failure(real('matrix')).message).toContain('resultType is "matrix", not "vector"');
  });

  it('leaves out NaN and infinite values, counting them', () => {
    const body = {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { a: '1' }, value: [1, 'NaN'] },
          { metric: { a: '2' }, value: [1, '+Inf'] },
          { metric: { a: '3' }, value: [1, '7'] },
        ],
      },
      warnings: ['partial answer', 3],
    };
    const read = readInstantVector(body, WHERE);
    expect(read.samples.map((s) => s.metric.a)).toEqual(['3']);
    expect(read.nonFinite).toBe(2);
    expect(read.warnings).toEqual(['partial answer']);
  });

  it.each([
    ['a list', [], 'the body is not a JSON object'],
    ['null', null, 'the body is not a JSON object'],
    ['an HTML page parsed as a string', '<html>', 'the body is not a JSON object'],
    ['no status', { data: {} }, 'status is undefined'],
    ['no data', { status: 'success' }, 'no data object'],
    [
      'a result that is not a list',
      { status: 'success', data: { resultType: 'vector', result: {} } },
      'data.result is not a list',
    ],
    [
      'a series with no value',
      { status: 'success', data: { resultType: 'vector', result: [{ metric: {} }] } },
      'series 0 has no metric object and value pair',
    ],
    [
      'a number as the value',
      { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, 2] }] } },
      'series 0\'s value is not [timestamp, "number"]',
    ],
    [
      'a label that is not a string',
      {
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: { gpu: 0 }, value: [1, '2'] }] },
      },
      "series 0's label gpu is not a string",
    ],
  ])('refuses %s with a clear error, never a crash', (_what, body, text) => {
    const error = failure(body);
    expect(error.message).toBe(`${WHERE} answered, but not with Prometheus' query API JSON: ${text}`);
    expect(error.hint).toContain('http://host:9090');
  });

  it(`refuses more than ${MAX_VECTOR_SERIES} series`, () => {
    const result = Array.from({ length: MAX_VECTOR_SERIES + 1 }, () => ({ metric: {}, value: [1, '1'] }));
    expect(failure({ status: 'success', data: { resultType: 'vector', result } }).message).toContain(
      `${MAX_VECTOR_SERIES + 1} series, more than the ${MAX_VECTOR_SERIES} read`,
    );
  });

  it("names Prometheus' own timeout in the hint", () => {
    expect(
      failure({ status: 'error', errorType: 'timeout', error: 'query timed out in expression evaluation' })
        .hint,
    ).toContain('--query.timeout');
  });
});

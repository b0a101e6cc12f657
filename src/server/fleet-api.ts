/**
 * GET /api/fleet: what `headroom fleet` reads, asked of the Prometheus the server was started with
 * (`headroom serve --prometheus URL`, or HEADROOM_PROMETHEUS). 503 when it has none; 502 with the
 * reason when that Prometheus is down, slow, answers an error or has no DCGM series.
 */
import type { Hono } from 'hono';
import { isUserError } from '../core/errors.js';
import { type PrometheusConfig, readFleet } from '../io/prometheus.js';

export function mountFleet(api: Hono, config: PrometheusConfig | null): void {
  api.get('/fleet', async (c) => {
    if (config === null) {
      return c.json(
        {
          error: {
            code: 'not-configured',
            message: 'this server has no Prometheus to ask',
            hint: 'headroom serve --prometheus http://prometheus:9090 (or set HEADROOM_PROMETHEUS)',
          },
        },
        503,
      );
    }
    try {
      return c.json(await readFleet(config));
    } catch (error) {
      if (!isUserError(error)) throw error;
      return c.json(
        {
          error: {
            code: error.code,
            where: error.where ?? null,
            message: error.message,
            hint: error.hint ?? null,
          },
        },
        502,
      );
    }
  });
}

/**
 * `headroom run --metrics-port N`: a tiny HTTP server on 127.0.0.1:N that answers `GET /metrics` with
 * the live run's exposition while it runs, for a Prometheus (or its agent) on the same machine.
 * It listens before the run starts (so a port in use stops nothing half-started) and is given the
 * run's source once the run has an id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileError } from '../core/file-errors.js';
import type { MetricsSource } from '../core/fleet/metrics-source.js';
import { exposition } from './metrics-registry.js';

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  readonly url: string;
  /** What /metrics reads from now on; before this the exposition has no runs. */
  serve(source: MetricsSource): void;
  close(): Promise<void>;
}

const NO_RUNS: MetricsSource = { runs: () => [] };

/** A --metrics-port value: a port number, 0 for any free one. */
export function parseMetricsPort(value: string, flag = '--metrics-port'): number {
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw fileError(
      'flag-value',
      { flag, value, expected: 'port', min: 0, max: 65535, example: '9464' },
      flag,
      'bad-flag',
    );
  }
  return port;
}

/** Starts listening; throws HeadroomUserError when the port is taken or cannot be used. */
export async function startMetricsServer(
  port: number,
  options: { readonly host?: string; readonly flag?: string } = {},
): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const flag = options.flag ?? '--metrics-port';
  let source = NO_RUNS;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('GET /metrics\n');
      return;
    }
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('the exposition is at /metrics\n');
      return;
    }
    exposition(source).then(
      (e) => {
        res.writeHead(200, { 'content-type': e.contentType });
        res.end(req.method === 'HEAD' ? undefined : e.body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`headroom could not read the run: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES'
          ? fileError(
              'port-unavailable',
              { flag, port, host, busy: error.code === 'EADDRINUSE', next: port === 0 ? 9464 : port + 1 },
              flag,
              'bad-flag',
            )
          : error,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `http://${host}:${actual}/metrics`,
    serve(next) {
      source = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * `headroom run --metrics-port N`, kept out of run.ts but for its hook: the flag, its help line, and a
 * server that listens before the command starts (a port in use stops nothing half-started) and serves
 * the run's exposition once the run has an id.
 */
import { ledgerMetricsSource } from '../io/metrics-ledger.js';
import { parseMetricsPort, startMetricsServer } from '../io/metrics-server.js';

export const RUN_METRICS_OPTIONS = { 'metrics-port': { type: 'string' } } as const;

export const RUN_METRICS_HELP = `  --metrics-port N          serve the live run as Prometheus metrics on 127.0.0.1:N/metrics
                            (0: any free port); see headroom fleet and docs/monitoring.md`;

export interface RunMetrics {
  /** Serves run `runId` of the ledger in `home` from now on. */
  follow(home: string, runId: number): void;
  close(): Promise<void>;
}

const NONE: RunMetrics = { follow: () => {}, close: async () => {} };

/** Listens on --metrics-port when it was given; a no-op otherwise. */
export async function startRunMetrics(
  port: string | undefined,
  say: (text: string) => void,
): Promise<RunMetrics> {
  if (port === undefined) return NONE;
  const server = await startMetricsServer(parseMetricsPort(port));
  say(`headroom: this run's Prometheus metrics are on ${server.url}`);
  return {
    follow: (home, runId) => server.serve(ledgerMetricsSource(home, runId)),
    close: () => server.close(),
  };
}

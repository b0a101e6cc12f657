/**
 * The dashboard app as `headroom serve` runs it: the core app plus the routes that need the edges
 * (the run ledger) and the demo run. Kept apart from app.ts so the core app stays testable alone.
 */
import type { Hono } from 'hono';
import type { FindingView } from '../core/dashboard-types.js';
import type { Timeline } from '../core/diagnose/timeline.js';
import type { RunRecord } from '../core/run-record.js';
import { diagnoseRun } from '../io/diagnose-run.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { ledgerMetricsSource } from '../io/metrics-ledger.js';
import { exposition } from '../io/metrics-registry.js';
import type { PrometheusConfig } from '../io/prometheus.js';
import { type RunSnapshotFile, runSnapshotFile } from '../io/read-snapshot.js';
import type { Lang } from '../words/lang.js';
import { createApp } from './app.js';
import { buildDemoRun } from './demo-run.js';
import { findingViews } from './finding-views.js';
import { mountFleet } from './fleet-api.js';
import { mountRuns } from './runs-api.js';
import { mountRunSnapshot } from './snapshot-api.js';

export interface DashboardOptions {
  readonly webRoot: string;
  readonly env: NodeJS.ProcessEnv;
  readonly token?: string;
  /** Include the demo run on the runs page. */
  readonly demo: boolean;
  /** Poll interval of live streams, ms (tests shorten it). */
  readonly pollMs?: number;
  /** The Prometheus the fleet page asks (serve --prometheus, HEADROOM_PROMETHEUS); none when absent. */
  readonly prometheus?: PrometheusConfig | null;
  /** The host names served (app.ts AppDeps.hosts); default: loopback. */
  readonly hosts?: readonly string[] | 'any';
}

/**
 * The diagnosis of a recorded run (OOM text, step timeline, nvidia-smi samples), in the page's language;
 * the timeline's steps when the caller read them already.
 */
export function runFindings(
  ledger: Ledger,
  run: RunRecord,
  lang: Lang = 'en',
  timelineSteps?: Timeline['steps'],
): FindingView[] {
  return findingViews(
    diagnoseRun(ledger, run, timelineSteps === undefined ? {} : { timelineSteps }).findings,
    lang,
  );
}

/** Which snapshot file of a recorded run may be served (read-snapshot.ts), or null when there is no such run. */
function findRunSnapshot(home: string, id: number, rank?: number): RunSnapshotFile | null {
  const ledger = Ledger.open(home);
  try {
    const run = ledger.getRun(String(id));
    return run ? runSnapshotFile(run, ledger.runDir(id), rank) : null;
  } finally {
    ledger.close();
  }
}

/** Builds the dashboard app. */
export async function createDashboardApp(options: DashboardOptions): Promise<Hono> {
  const home = headroomHome(options.env);
  const demo = options.demo ? { en: buildDemoRun('en'), zh: buildDemoRun('zh') } : null;
  // One source for the server's life: finished runs are read once, not on every scrape.
  const metricsSource = ledgerMetricsSource(home);
  return createApp({
    webRoot: options.webRoot,
    metrics: () => exposition(metricsSource),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.hosts === undefined ? {} : { hosts: options.hosts }),
    extend: (api) => {
      mountRunSnapshot(api, (id, rank) => findRunSnapshot(home, id, rank));
      mountFleet(api, options.prometheus ?? null);
      mountRuns(api, {
        openLedger: () => Ledger.open(home),
        diagnoseRun: runFindings,
        demo,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
    },
  });
}

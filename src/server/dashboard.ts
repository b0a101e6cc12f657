/**
 * The dashboard app as `headroom serve` runs it: the core app plus the routes that need the edges
 * (the run ledger) and the demo run. Kept apart from app.ts so the core app stays testable alone.
 */
import type { Hono } from 'hono';
import type { FindingView } from '../core/dashboard-types.js';
import type { RunRecord } from '../core/run-record.js';
import { diagnoseRun } from '../io/diagnose-run.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import type { Lang } from '../words/lang.js';
import { createApp } from './app.js';
import { buildDemoRun } from './demo-run.js';
import { findingViews } from './finding-views.js';
import { mountRuns } from './runs-api.js';

export interface DashboardOptions {
  readonly webRoot: string;
  readonly env: NodeJS.ProcessEnv;
  readonly token?: string;
  /** Include the demo run on the runs page. */
  readonly demo: boolean;
  /** Poll interval of live streams, ms (tests shorten it). */
  readonly pollMs?: number;
}

/** The diagnosis of a recorded run (OOM text, step timeline, nvidia-smi samples), in the page's language. */
export function runFindings(ledger: Ledger, run: RunRecord, lang: Lang = 'en'): FindingView[] {
  return findingViews(diagnoseRun(ledger, run).findings, lang);
}

/** Builds the dashboard app. */
export async function createDashboardApp(options: DashboardOptions): Promise<Hono> {
  const home = headroomHome(options.env);
  const demo = options.demo ? { en: buildDemoRun('en'), zh: buildDemoRun('zh') } : null;
  return createApp({
    webRoot: options.webRoot,
    ...(options.token === undefined ? {} : { token: options.token }),
    extend: (api) =>
      mountRuns(api, {
        openLedger: () => Ledger.open(home),
        diagnoseRun: runFindings,
        demo,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      }),
  });
}

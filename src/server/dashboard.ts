/**
 * The dashboard app as `headroom serve` runs it: the core app plus the routes that need the edges
 * (the run ledger). Kept apart from app.ts so the core app stays testable without a ledger.
 */
import type { Hono } from 'hono';
import { createApp } from './app.js';

export interface DashboardOptions {
  readonly webRoot: string;
  readonly env: NodeJS.ProcessEnv;
  readonly token?: string;
  /** Include the demo run on the runs page. */
  readonly demo: boolean;
}

/** Builds the dashboard app. */
export async function createDashboardApp(options: DashboardOptions): Promise<Hono> {
  return createApp({
    webRoot: options.webRoot,
    ...(options.token === undefined ? {} : { token: options.token }),
  });
}

/** A Chromium or Chrome (find-browser.ts) through playwright-core, with the flags it needs here, and a live test server. */
import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { REPO_ROOT } from '../data.js';
import { findBrowser } from './find-browser.js';

export const SCREENSHOTS = join(REPO_ROOT, 'test-results');

/** Launches headless Chromium with a fresh profile (its --user-data-dir), in English unless told otherwise. */
export async function launch(
  locale = 'en-US',
  options: { bypassCSP?: boolean } = {},
): Promise<BrowserContext> {
  const browser = findBrowser();
  if (!browser.found) {
    throw new Error(`${browser.reason}. Run npm test, which installs one, or set HEADROOM_CHROMIUM.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'headroom-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: browser.path,
    headless: true,
    locale,
    // Only the benchmark sets this: it evaluates timing code in the page, which the dashboard's CSP forbids.
    bypassCSP: options.bypassCSP ?? false,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Serves an app on 127.0.0.1 at a free port; returns its base URL and a stop function. */
export async function listen(app: Hono): Promise<{ url: string; stop: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Browsers keep connections alive (and EventSource streams open): end them so close() returns.
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
  });
}

/** Saves a full-page screenshot under test-results/ (ignored by git) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * A page in Chromium on a live server of `app()` for one test file: started before its tests, closed
 * after them. Read `session.page` and `session.url` inside the tests.
 */
export function browserSession(app: () => Hono | Promise<Hono>): { page: Page; url: string } {
  const session = {} as { page: Page; url: string };
  let browser: BrowserContext | undefined;
  let server: { url: string; stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    browser = await launch();
    server = await listen(await app());
    session.url = server.url;
    session.page = await browser.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return session;
}

/** `headroom serve`: the local dashboard and its API. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { fileError } from '../core/file-errors.js';
import { prometheusConfig } from '../io/prometheus.js';
import { LOOPBACK_HOSTS } from '../server/app.js';
import { createDashboardApp } from '../server/dashboard.js';
import { say } from '../words/catalog.js';
import { REPORT } from '../words/report.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_OPTIONS, langFromFlag } from './_lang.js';
import { styleFor } from './_output.js';

export const help = `headroom serve [--port 7777] [--host 127.0.0.1] [--token TOKEN] [--no-demo] [--prometheus URL]

Serves the dashboard (estimate, runs, migrate) and its API, on 127.0.0.1 by default.
  --host ADDR    listen elsewhere than loopback; then --token is required, since anyone who can
                 reach the port could otherwise read your runs (commands, paths, configs)
  --token T      every request must carry it: Authorization: Bearer T, or ?token=T in the URL
  --no-demo      leave the demo run out of the runs page
  --lang en|zh   the language of these lines (the dashboard has its own switch)   [from LC_ALL / LANG]
  --prometheus URL   the Prometheus the fleet page asks (headroom fleet --help) [HEADROOM_PROMETHEUS]
Runs come from the ledger (HEADROOM_HOME, default ~/.headroom). GET /metrics is their Prometheus
exposition (docs/monitoring.md); with --token, a scraper sends it as a bearer token.`;

const LOOPBACK = new Set(LOOPBACK_HOSTS);

/**
 * The Host names the server answers to: loopback names on loopback (a page elsewhere that rebinds its
 * name to 127.0.0.1 is refused), the address given plus loopback elsewhere, any on every interface
 * (0.0.0.0, ::), where the token is what keeps others out.
 */
export function servedHosts(host: string): readonly string[] | 'any' {
  if (host === '0.0.0.0' || host === '::') return 'any';
  return LOOPBACK.has(host)
    ? LOOPBACK_HOSTS
    : [host.replace(/^\[|\]$/g, '').toLowerCase(), ...LOOPBACK_HOSTS];
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(
    args,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'no-demo': { type: 'boolean' },
      prometheus: { type: 'string' },
      ...LANG_OPTIONS,
    },
    'serve',
    0,
  );
  const lang = langFromFlag(values.lang, ctx.env);
  const host = values.host ?? '127.0.0.1';
  const port = Number(values.port ?? '7777');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw fileError(
      'flag-value',
      { flag: '--port', value: String(values.port), expected: 'port', example: '7777' },
      '--port',
      'bad-flag',
    );
  }
  if (!LOOPBACK.has(host) && !values.token) {
    throw fileError('host-without-token', { host }, '--host', 'bad-flag');
  }
  const prometheus = prometheusConfig({ url: values.prometheus }, ctx.env);
  const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'web');
  const app = await createDashboardApp({
    webRoot,
    env: ctx.env,
    demo: !values['no-demo'],
    prometheus,
    hosts: servedHosts(host),
    ...(values.token ? { token: values.token } : {}),
  });
  const style = styleFor(ctx.stdout);
  await new Promise<void>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${info.port}/${values.token ? `?token=${values.token}` : ''}`;
      const on = say(REPORT, lang, { code: 'serve-on', params: { url: style.cyan(url) } });
      const stop = say(REPORT, lang, { code: 'serve-stop', params: {} });
      ctx.stdout.write(`${style.bold(on)}\n${style.dim(stop)}\n`);
    });
    server.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? fileError(
              'port-unavailable',
              { flag: '--port', port, host, busy: true, next: port + 1 },
              '--port',
              'bad-flag',
            )
          : error,
      ),
    );
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/** `headroom fleet --prometheus URL`: every card dcgm-exporter reports, our runs on them, and what is wrong. */

import { fileError } from '../core/file-errors.js';
import type { FleetReport } from '../core/fleet/fleet.js';
import { DCGM_FB_METRICS, HEADROOM_METRICS } from '../core/fleet/names.js';
import { formatBytes } from '../core/units.js';
import { prometheusConfig, readFleet } from '../io/prometheus.js';
import { say } from '../words/catalog.js';
import { FLEET_FINDINGS } from '../words/fleet.js';
import type { Lang } from '../words/lang.js';
import { fleetWords } from '../words/ui-fleet.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { renderTable, type Style, styleFor } from './_output.js';

export const help = `headroom fleet — every GPU Prometheus sees, the Headroom runs on each, and what is wrong

Usage:
  headroom fleet --prometheus URL [--json] [--lang en|zh]

Asks a Prometheus server (instant queries of its HTTP API) for dcgm-exporter's framebuffer series
(${DCGM_FB_METRICS.used}, ${DCGM_FB_METRICS.free}, ${DCGM_FB_METRICS.reserved}, in MiB) and for
Headroom's own (${HEADROOM_METRICS.peakBytes.name}, ${HEADROOM_METRICS.running.name}, exported by
headroom serve's /metrics and headroom run --metrics-port), across all hosts. It finds: a card at
95 % or more with no running Headroom run on it (a leftover job); a card of a run far above the
run's other cards (past their median by 20 % of the card or 2 GiB); memory on a card that the run's
processes there do not account for (past 10 % of the card or 1 GiB). Cards are matched by UUID,
else by Hostname and gpu.

Options:
  --prometheus URL          the Prometheus server (http://host:9090, or a path prefix)
                            [HEADROOM_PROMETHEUS]
  --timeout S               seconds each query may take                        [10]
  --token-file FILE         a bearer token for the server, from a file
  --json                    { prometheus, gpus: [{ host, gpu, uuid, modelName, usedBytes,
                            freeBytes, totalBytes, reservedBytes, runs }], findings, warnings }
${LANG_HELP}

Environment:
  HEADROOM_PROMETHEUS             the server's URL, when --prometheus is not given
  HEADROOM_PROMETHEUS_TOKEN       a bearer token (Authorization: Bearer …)
  HEADROOM_PROMETHEUS_USER, HEADROOM_PROMETHEUS_PASSWORD
                                  basic auth (or http://user:password@host:9090)

Examples:
  headroom fleet --prometheus http://prometheus.internal:9090
  HEADROOM_PROMETHEUS=http://127.0.0.1:9090 headroom fleet --json | jq '.findings'`;

const OPTIONS = {
  prometheus: { type: 'string' },
  timeout: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean' },
  ...LANG_OPTIONS,
} as const;

/** The table of cards, the summary and the findings, in a language. */
export function renderFleet(
  report: FleetReport & { readonly prometheus: string },
  lang: Lang,
  style: Style,
): string {
  const w = fleetWords(lang);
  const bytes = (b: number | null) => (b === null ? '—' : formatBytes(b));
  const runs = new Set(report.gpus.flatMap((g) => g.runs.map((r) => `${r.instance ?? ''}/${r.run}`)));
  const hosts = new Set(report.gpus.map((g) => g.host ?? ''));
  const lines = [
    `${style.bold(w('title'))}  ${style.dim(w('source', { url: report.prometheus }))}`,
    w('summary', {
      cards: report.gpus.length,
      hosts: hosts.size,
      runs: runs.size,
      findings: report.findings.length,
    }),
    '',
    renderTable(
      [w('host'), w('gpu'), w('model'), w('used'), w('free'), w('total'), w('runs')],
      report.gpus.map((g) => [
        g.host ?? '—',
        g.gpu === null ? '—' : String(g.gpu),
        g.modelName ?? '—',
        bytes(g.usedBytes),
        bytes(g.freeBytes),
        bytes(g.totalBytes),
        g.runs.map((r) => w('run-rank', { run: r.name ?? r.run, rank: r.rank })).join(', ') || '—',
      ]),
      [1, 3, 4, 5],
    ),
    '',
    style.bold(w('findings')),
  ];
  if (report.findings.length === 0) lines.push(`  ${style.green('✓')} ${w('no-findings')}`);
  for (const f of report.findings) lines.push(`  ${style.yellow('⚠')} ${say(FLEET_FINDINGS, lang, f)}`);
  return lines.join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, OPTIONS, 'fleet', 0);
  const lang = langFromFlag(values.lang, ctx.env);
  const config = prometheusConfig(
    { url: values.prometheus, timeoutS: values.timeout, tokenFile: values['token-file'] },
    ctx.env,
  );
  if (config === null) {
    throw fileError(
      'missing-argument',
      { command: 'fleet', needs: 'prometheus', ref: '' },
      '--prometheus',
      'bad-flag',
    );
  }
  const reading = await readFleet(config);
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(reading, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout, ctx.env);
  ctx.stdout.write(`${renderFleet(reading, lang, style)}\n`);
  for (const warning of reading.warnings) ctx.stderr.write(`headroom: Prometheus warns: ${warning}\n`);
  return 0;
}

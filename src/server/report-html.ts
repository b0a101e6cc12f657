/**
 * `headroom report`: one self-contained HTML file (no script, no network) with a run's charts as
 * inline SVG, its scenario, estimate vs measured, and the findings — to attach to an issue or send.
 * Every user string (run names, commands, OOM text) is escaped.
 */
import type { RunDetail } from '../core/dashboard-types.js';
import { estimateError, readEstimateError } from '../core/estimate-error.js';
import type { MessageOf } from '../core/message.js';
import { GIB } from '../core/units.js';
import { say } from '../words/catalog.js';
import { estimateErrorWords } from '../words/estimate-error.js';
import { FORMATS } from '../words/format.js';
import type { Lang } from '../words/lang.js';
import { REPORT, type ReportWordParams } from '../words/report.js';
import { RUN_STATUS } from '../words/run.js';

/** A word of the report, escaped for HTML. */
const t = (lang: Lang, message: MessageOf<ReportWordParams>) => escapeHtml(say(REPORT, lang, message));

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const W = 900;
const H = 260;
const PAD = { left: 48, right: 48, top: 12, bottom: 28 };

function polyline(points: readonly [number, number][], color: string, dash = ''): string {
  if (points.length === 0) return '';
  const d = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  return `<polyline fill="none" stroke="${color}" stroke-width="1.5"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${d}"/>`;
}

/** Memory over time (used, reserved, allocated), loss on the right axis, phases shaded, the OOM marked. */
function memoryChart(detail: RunDetail, lang: Lang): string {
  const times = [...detail.steps.map((s) => s.t), ...detail.samples.map((s) => s.t), detail.oom?.t ?? 0];
  const tMax = Math.max(1, ...times);
  const memMax =
    Math.max(
      GIB,
      ...detail.samples.map((s) => Math.max(s.usedBytes, s.totalBytes)),
      ...detail.steps.map((s) => s.peakReservedBytes ?? s.reservedBytes ?? 0),
    ) * 1.05;
  const losses = detail.steps.map((s) => s.loss).filter((l): l is number => l !== null);
  const lossMax = Math.max(1e-9, ...losses) * 1.05;
  const x = (t: number) => PAD.left + (t / tMax) * (W - PAD.left - PAD.right);
  const y = (b: number) => H - PAD.bottom - (b / memMax) * (H - PAD.top - PAD.bottom);
  const yl = (l: number) => H - PAD.bottom - (l / lossMax) * (H - PAD.top - PAD.bottom);
  const bands = detail.phases
    .filter((p) => p.name !== 'train')
    .map(
      (p) =>
        `<rect x="${x(p.start).toFixed(1)}" y="${PAD.top}" width="${Math.max(1, x(p.end) - x(p.start)).toFixed(1)}" height="${H - PAD.top - PAD.bottom}" fill="rgba(250,204,21,0.2)"><title>${escapeHtml(p.name)}</title></rect>`,
    )
    .join('');
  const ticks = Array.from({ length: 5 }, (_, i) => (memMax / 4) * i)
    .map(
      (b) =>
        `<text x="${PAD.left - 6}" y="${y(b) + 4}" text-anchor="end">${(b / GIB).toFixed(0)}</text><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(b)}" y2="${y(b)}" stroke="#e2e8f0"/>`,
    )
    .join('');
  const capacity = detail.samples[0]?.totalBytes;
  const oom = detail.oom
    ? `<line x1="${x(detail.oom.t)}" x2="${x(detail.oom.t)}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#dc2626" stroke-width="2"/><text x="${x(detail.oom.t) - 4}" y="${PAD.top + 28}" text-anchor="end" fill="#dc2626">${t(lang, { code: 'oom', params: {} })}</text>`
    : '';
  const legend = (
    code: 'legend-used' | 'legend-reserved' | 'legend-allocated' | 'legend-loss' | 'legend-capacity',
  ) => t(lang, { code, params: {} });
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${t(lang, { code: 'memory-chart', params: {} })}">
${bands}${ticks}
${capacity ? `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(capacity)}" y2="${y(capacity)}" stroke="#dc2626" stroke-dasharray="6 4"/>` : ''}
${polyline(
  detail.samples.map((s) => [x(s.t), y(s.usedBytes)]),
  '#64748b',
)}
${polyline(
  detail.steps.filter((s) => s.peakReservedBytes !== null).map((s) => [x(s.t), y(s.peakReservedBytes!)]),
  '#d97706',
)}
${polyline(
  detail.steps.filter((s) => s.peakAllocatedBytes !== null).map((s) => [x(s.t), y(s.peakAllocatedBytes!)]),
  '#2563eb',
)}
${polyline(
  detail.steps.filter((s) => s.loss !== null).map((s) => [x(s.t), yl(s.loss!)]),
  '#be185d',
  '4 3',
)}
${oom}
<text x="${PAD.left}" y="${H - 8}">0 s</text><text x="${W - PAD.right}" y="${H - 8}" text-anchor="end">${tMax.toFixed(0)} s</text>
<text x="12" y="${PAD.top + 10}">GiB</text><text x="${W - 8}" y="${PAD.top + 10}" text-anchor="end" fill="#be185d">${t(lang, { code: 'loss-axis', params: { max: lossMax } })}</text>
</svg>
<p class="legend"><i style="background:#64748b"></i>${legend('legend-used')} <i style="background:#d97706"></i>${legend('legend-reserved')} <i style="background:#2563eb"></i>${legend('legend-allocated')} <i style="background:#be185d"></i>${legend('legend-loss')} ${capacity ? `<i style="background:#dc2626"></i>${legend('legend-capacity')}` : ''}</p>`;
}

/** One level's error in the one convention (estimate − measured) / measured, in words. */
function errorCell(estimated: number | null, measured: number | null, lang: Lang): string {
  const error = estimated === null ? null : estimateError(estimated, measured);
  return error === null ? '' : escapeHtml(estimateErrorWords(readEstimateError(error), lang));
}

function row(cells: readonly string[]): string {
  return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/**
 * Renders the report in a language (its findings come in the language `detail` was built in:
 * runDetail's `lang`). `generatedAt` is an ISO time (passed in so the output is reproducible).
 */
export function renderReportHtml(detail: RunDetail, generatedAt: string, lang: Lang = 'en'): string {
  const { run } = detail;
  const bytes = FORMATS[lang].bytes;
  const levels = [
    ['allocated', detail.estimate?.peak.allocatedBytes ?? null, run.peakAllocatedBytes],
    ['reserved', detail.estimate?.peak.reservedBytes ?? null, run.peakReservedBytes],
    ['device', detail.estimate?.peak.deviceBytes ?? null, run.peakDeviceBytes],
  ] as const;
  const findings = detail.findings
    .map(
      (f) =>
        `<li class="${escapeHtml(f.severity)}"><b>${escapeHtml(f.title)}</b><ul>${f.evidence.map((e) => `<li>${escapeHtml(e.label)}: <code>${escapeHtml(e.value)}</code></li>`).join('')}</ul><p>${escapeHtml(f.action)}</p></li>`,
    )
    .join('');
  const status = say(RUN_STATUS, lang, { code: run.status, params: {} });
  const heading = (code: 'memory-heading' | 'estimate-heading' | 'diagnosis-heading' | 'scenario-heading') =>
    t(lang, { code, params: {} });
  const meta = t(lang, {
    code: 'meta',
    params: {
      startedAt: run.startedAt,
      steps: run.steps,
      seconds: run.durationMs === null ? null : Math.round(run.durationMs / 1000),
      demo: run.demo === true,
    },
  });
  return `<!doctype html>
<html lang="${lang === 'zh' ? 'zh-Hans' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t(lang, { code: 'title', params: { name: run.name } })}</title>
<style>
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#0f172a;max-width:960px;margin:24px auto;padding:0 16px;background:#f8fafc}
section{background:#fff;border:1px solid #e2e8f0;border-radius:10px;padding:14px 18px;margin:14px 0}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0 0 8px}
code,pre{font-family:ui-monospace,monospace;font-size:12px}pre{white-space:pre-wrap;background:#fef2f2;padding:8px;border-radius:6px}
table{border-collapse:collapse}td,th{padding:3px 14px 3px 0;text-align:left;font-variant-numeric:tabular-nums}
svg{width:100%;height:auto;font-size:11px;fill:#334155}.legend{font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
.badge{font-size:12px;padding:1px 8px;border-radius:99px;background:#e2e8f0}.oom,.failed{background:#fee2e2}.ok{background:#dcfce7}
li.error>b{color:#dc2626}li.warn>b{color:#d97706}.muted{color:#64748b;font-size:12px}
</style></head><body>
<h1>#${run.id} ${escapeHtml(run.name)} <span class="badge ${escapeHtml(run.status)}">${escapeHtml(status)}</span></h1>
<p class="muted"><code>${escapeHtml(run.command)}</code><br>${meta}</p>
<section><h2>${heading('memory-heading')}</h2>${memoryChart(detail, lang)}</section>
<section><h2>${heading('estimate-heading')}</h2><table><tr><th></th><th>${t(lang, { code: 'col-estimated', params: {} })}</th><th>${t(lang, { code: 'col-measured', params: {} })}</th><th>${t(lang, { code: 'col-error', params: {} })}</th></tr>
${levels.map(([level, est, meas]) => row([t(lang, { code: 'level', params: { level } }), est === null ? '—' : bytes(est), meas === null ? '—' : bytes(meas), errorCell(est, meas, lang)])).join('')}
</table></section>
<section><h2>${heading('diagnosis-heading')}</h2>${findings ? `<ol>${findings}</ol>` : `<p>${t(lang, { code: 'no-findings', params: {} })}</p>`}${detail.oom ? `<pre>${escapeHtml(detail.oom.text)}</pre>` : ''}</section>
<section><h2>${heading('scenario-heading')}</h2>${run.scenario ? `<pre style="background:#f1f5f9">${escapeHtml(JSON.stringify(run.scenario, null, 2))}</pre>` : `<p class="muted">${t(lang, { code: 'no-scenario', params: {} })}</p>`}</section>
<p class="muted">${t(lang, { code: 'generated', params: { at: generatedAt } })}</p>
</body></html>
`;
}

/**
 * The views of a recorded run: JSON, the summary, the live status line, the runs table and the diff,
 * in the language asked for. What they say is decided in src/core (run/summary.ts, run-summary.ts,
 * run-diff.ts); the words come from src/words/run.ts and src/words/runs.ts.
 */

import { readEstimateError } from '../core/estimate-error.js';
import type { MessageOf } from '../core/message.js';
import { eventData, eventKind, type HeadroomEvent } from '../core/run/events.js';
import { type RunSummary, summarizeRun } from '../core/run/summary.js';
import type { RunDiff } from '../core/run-diff.js';
import type { LayerPeak, RunEvent, RunRecord, RunStatus, StepRecord } from '../core/run-record.js';
import { GROWTH_MIN_STEPS, GROWTH_WARMUP_STEPS, type Growth } from '../core/run-summary.js';
import type { LiveState } from '../io/recorder.js';
import { say } from '../words/catalog.js';
import { estimateErrorWords } from '../words/estimate-error.js';
import { FORMATS } from '../words/format.js';
import type { Lang } from '../words/lang.js';
import { eventWords, RUN, RUN_END, RUN_EVENTS, RUN_STATUS, type RunLineParams } from '../words/run.js';
import { RUN_SNAPSHOT } from '../words/run-snapshot.js';
import { RUNS, type RunsWordParams } from '../words/runs.js';
import { renderStepColumns, sparkline } from './_chart.js';
import { renderTable, type Style, visibleWidth } from './_output.js';
import type { RunSteps } from './_run-steps.js';
import { renderRanks } from './render-ranks.js';

/** A line of run or watch in words. */
export const w = (lang: Lang, line: MessageOf<RunLineParams>) => say(RUN, lang, line);
/** A line of runs in words. */
export const ws = (lang: Lang, line: MessageOf<RunsWordParams>) => say(RUNS, lang, line);

/**
 * An event headroom writes, as the ledger stores it: its kind, the English words (the message column
 * keeps English for every reader) and its data (`extra`, fields older headroom stored, then its params).
 */
export function storedEvent(event: HeadroomEvent, extra: Readonly<Record<string, unknown>> = {}) {
  return {
    kind: eventKind(event),
    source: 'headroom' as const,
    message: say(RUN_EVENTS, 'en', event),
    data: { ...extra, ...eventData(event) },
  };
}

/** "4.2 s", "2m 13s", "1h 02m" (in Chinese "4.2 秒", "2 分 13 秒", "1 小时 02 分"). */
export function formatDuration(ms: number, lang: Lang = 'en'): string {
  return w(lang, { code: 'duration', params: { ms } });
}

/** Time since the run started, "m:ss". */
function clock(sinceStartMs: number): string {
  const s = Math.max(0, Math.round(sinceStartMs / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const field = (run: RunRecord, key: string): unknown => run.scenario?.[key];

function modelOf(run: RunRecord, lang: Lang = 'en'): string | null {
  const m = field(run, 'model');
  return typeof m === 'string' ? m : m ? ws(lang, { code: 'inline-config', params: {} }) : null;
}

/** The run as JSON (`runs --json`, `runs show --json`, `run --json`). */
export function runJson(run: RunRecord, now: number = Date.now()): Record<string, unknown> {
  const peak = (p: LayerPeak | null) =>
    p ? { bytes: p.bytes, atMs: p.atMs, step: p.step, gpu: p.gpu } : null;
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    exitCode: run.exitCode,
    signal: run.signal,
    command: run.command,
    cwd: run.cwd,
    host: run.host,
    model: modelOf(run),
    method: (field(run, 'method') as string | undefined) ?? null,
    batchSize: run.batchSize,
    seqLen: run.seqLen,
    startedAt: new Date(run.startedAtMs).toISOString(),
    endedAt: run.endedAtMs === null ? null : new Date(run.endedAtMs).toISOString(),
    durationS: ((run.endedAtMs ?? now) - run.startedAtMs) / 1000,
    steps: run.steps,
    lastStep: run.lastStep,
    peakAllocatedBytes: run.peakAllocated?.bytes ?? null,
    peakReservedBytes: run.peakReserved?.bytes ?? null,
    peakDeviceBytes: run.peakDevice?.bytes ?? null,
    peakGpuUsedBytes: run.peakGpuUsed?.bytes ?? null,
    // The rank whose peak the peaks above are, and every rank as recorded (the ledger's run_ranks).
    peakRank: run.peakRank,
    ranks: run.ranks,
    peaks: {
      allocated: peak(run.peakAllocated),
      reserved: peak(run.peakReserved),
      device: peak(run.peakDevice),
      gpuUsed: peak(run.peakGpuUsed),
    },
    estimate: run.estimate,
    scenario: run.scenario,
    env: run.env,
    logPath: run.logPath,
    stderrPath: run.stderrPath,
    monitorPid: run.monitorPid,
    childPid: run.childPid,
    snapshots: run.snapshots,
  };
}

export function statusText(status: RunStatus, style: Style, lang: Lang = 'en'): string {
  const colour: Record<RunStatus, (s: string) => string> = {
    running: style.cyan,
    ok: style.green,
    oom: style.red,
    failed: style.red,
    killed: style.yellow,
  };
  return colour[status](say(RUN_STATUS, lang, { code: status, params: {} }));
}

const bytesOr = (b: number | null | undefined, lang: Lang = 'en') =>
  b === null || b === undefined ? '—' : FORMATS[lang].bytes(b);

/** The `headroom runs` table. */
export function renderRunsTable(
  runs: readonly RunRecord[],
  style: Style,
  now: number = Date.now(),
  lang: Lang = 'en',
): string {
  const rows = runs.map((r) => [
    String(r.id),
    r.name ?? '',
    statusText(r.status, style, lang),
    modelOf(r, lang) ?? '—',
    (field(r, 'method') as string | undefined) ?? '—',
    r.batchSize === null ? '—' : String(r.batchSize),
    r.seqLen === null ? '—' : String(r.seqLen),
    bytesOr(r.peakAllocated?.bytes, lang),
    bytesOr(r.peakReserved?.bytes, lang),
    bytesOr(r.peakDevice?.bytes, lang),
    String(r.steps),
    formatDuration((r.endedAtMs ?? now) - r.startedAtMs, lang),
    new Date(r.startedAtMs).toISOString().slice(0, 16).replace('T', ' '),
  ]);
  const columns = [
    'col-id',
    'col-name',
    'col-status',
    'col-model',
    'col-method',
    'col-batch',
    'col-seq',
    'col-allocated',
    'col-reserved',
    'col-device',
    'col-steps',
    'col-duration',
    'col-started',
  ] as const;
  return renderTable(
    columns.map((code) => ws(lang, { code, params: {} })),
    rows,
    [0, 5, 6, 7, 8, 9, 10, 11],
  );
}

/** The summary's lines in words (what they say is summarizeRun's, src/core/run/summary.ts). */
export function renderSummary(summary: RunSummary, style: Style, lang: Lang = 'en'): string {
  const f = FORMATS[lang];
  const lines: string[] = [];
  const headline = [
    w(lang, { code: 'run-ref', params: { id: summary.id, name: summary.name } }),
    statusText(summary.status, style, lang),
    ...(summary.exitCode === null
      ? []
      : [w(lang, { code: 'exit', params: { code: summary.exitCode, signal: summary.signal } })]),
    formatDuration(summary.durationMs, lang),
    w(lang, { code: 'step-count', params: { steps: summary.steps } }),
  ];
  lines.push(style.bold(headline.join(' · ')));
  if (summary.command.length > 0) lines.push(style.dim(summary.command.join(' ')));
  else if (summary.watchedLog)
    lines.push(style.dim(w(lang, { code: 'watched', params: { log: summary.watchedLog } })));
  lines.push('');
  if (summary.peaks.length > 0) {
    const table = summary.peaks.map((p) => [
      w(lang, { code: 'layer', params: { layer: p.layer } }),
      f.bytes(p.bytes),
      [
        ...(p.step !== null ? [w(lang, { code: 'at-step', params: { step: p.step } })] : []),
        clock(p.sinceStartMs),
        ...(p.gpu !== null ? [w(lang, { code: 'on-gpu', params: { gpu: p.gpu } })] : []),
      ].join(' · '),
      w(lang, { code: 'layer-what', params: { layer: p.layer } }),
    ]);
    const header = (['col-peak', 'col-bytes', 'col-when', 'col-what'] as const).map((code) =>
      w(lang, { code, params: {} }),
    );
    for (const line of renderTable(header, table, [1]).split('\n')) lines.push(`  ${line}`);
  } else {
    lines.push(`  ${w(lang, { code: 'nothing-recorded', params: {} })}`);
  }
  if (summary.probeSilent) lines.push(style.dim(`  ${w(lang, { code: 'probe-silent', params: {} })}`));
  if (summary.gaps.cacheBytes !== null || summary.gaps.nonTorchBytes !== null)
    lines.push(`  ${w(lang, { code: 'gaps', params: summary.gaps })}`);
  if (summary.estimate) {
    // Each level's estimate against the run's peak, error = (estimate − measured) / measured.
    const rows = summary.estimate.map((e) => [
      w(lang, { code: 'layer', params: { layer: e.level } }),
      f.bytes(e.estimatedBytes),
      e.error === null
        ? w(lang, { code: 'not-measured', params: {} })
        : estimateErrorWords(readEstimateError(e.error), lang),
    ]);
    lines.push(`  ${w(lang, { code: 'estimate-heading', params: {} })}`);
    for (const line of renderTable(['', '', ''], rows, [1]).split('\n').slice(2)) lines.push(`    ${line}`);
  }
  const growth = summary.growth;
  if (growth.kind === 'grew') {
    lines.push(style.yellow(`  ${w(lang, { code: 'growth-grew', params: growth })}`));
  } else if (growth.kind === 'flat') {
    lines.push(`  ${w(lang, { code: 'growth-flat', params: growth })}`);
  } else if (growth.steps > 0) {
    const needs = GROWTH_WARMUP_STEPS + GROWTH_MIN_STEPS;
    lines.push(
      style.dim(`  ${w(lang, { code: 'growth-unjudged', params: { steps: growth.steps, needs } })}`),
    );
  }
  const end = summary.end;
  const endText = say(RUN_END, lang, end);
  if (end.code === 'oom') {
    lines.push(style.red(`  ✗ ${endText}`));
    const m = end.params.message;
    if (m) lines.push(`    ${m.length > 400 ? `${m.slice(0, 400)}…` : m}`);
  } else if (end.code === 'not-started' || end.code === 'failed') lines.push(style.red(`  ✗ ${endText}`));
  else if (end.code === 'killed') lines.push(style.yellow(`  ■ ${endText}`));
  else if (end.code === 'finished') lines.push(style.green(`  ✓ ${endText}`));
  else lines.push(style.cyan(`  … ${endText}`));
  for (const e of summary.warnings) lines.push(style.yellow(`  ! ${eventWords(e, lang) ?? e.kind}`));
  if (summary.badLines > 0)
    lines.push(
      style.yellow(
        `  ${w(lang, { code: 'bad-lines', params: { count: summary.badLines, runId: summary.id } })}`,
      ),
    );
  return lines.join('\n');
}

/** The summary of a run: peaks per layer and when, gaps, estimate, growth, outcome. */
export function renderRunSummary(
  run: RunRecord,
  steps: readonly StepRecord[] | Growth,
  events: readonly RunEvent[],
  style: Style,
  now: number = Date.now(),
  lang: Lang = 'en',
): string {
  const summary = renderSummary(summarizeRun(run, steps, events, now), style, lang);
  return run.snapshots.length === 0 ? summary : `${summary}\n${renderSnapshotLines(run, style, lang)}`;
}

/** The allocator snapshots a run's probe wrote, one line each, and how to read them. */
export function renderSnapshotLines(run: RunRecord, style: Style, lang: Lang = 'en'): string {
  const lines = [`  ${say(RUN_SNAPSHOT, lang, { code: 'heading', params: {} })}`];
  for (const s of run.snapshots) {
    const params = { reason: s.reason, rank: s.rank, step: s.step, bytes: s.bytes, path: s.path };
    lines.push(`    ${say(RUN_SNAPSHOT, lang, { code: 'line', params })}`);
  }
  lines.push(style.dim(`    ${say(RUN_SNAPSHOT, lang, { code: 'read', params: { runId: run.id } })}`));
  return lines.join('\n');
}

/** The kinds of event `runs show` lists. */
const NOTABLE_EVENTS: ReadonlySet<string> = new Set([
  'oom',
  'exception',
  'oom-text',
  'probe-bad-line',
  'spawn-error',
  'interrupted',
  'prelaunch',
  'sampler-problem',
  'note',
]);

/** The width of `runs show`'s per-step chart on a terminal of `width` columns. */
export function stepChartWidth(width: number): number {
  return Math.max(20, Math.min(100, width - 16));
}

/**
 * `runs show`: the summary, the per-step chart, phases and the notable events. `steps` is what the
 * run's step rows come to (readRunSteps, src/cli/_run-steps.ts: a long run is never an array of them).
 */
export function renderRunShow(
  run: RunRecord,
  steps: RunSteps,
  events: readonly RunEvent[],
  style: Style,
  lang: Lang = 'en',
): string {
  const parts = [renderRunSummary(run, steps.growth, events, style, Date.now(), lang)];
  if (steps.chart !== null) {
    const heading = ws(lang, {
      code: 'chart-heading',
      params: { allocatedMark: style.cyan('█'), reservedMark: style.dim('░') },
    });
    parts.push(`\n  ${heading}\n${renderStepColumns(steps.chart, style)}`);
  }
  const ranks = renderRanks(run, steps.ranks, style, lang);
  if (ranks !== '') parts.push(ranks);
  const phases = events.filter((e) => e.kind === 'phase');
  if (phases.length > 0) {
    const rows = phases.map((e) => {
      const devices = (e.data.devices as { peakAllocatedBytes?: number }[] | undefined) ?? [];
      const peak = devices.length > 0 ? Math.max(...devices.map((d) => d.peakAllocatedBytes ?? 0)) : null;
      return [
        clock(e.tMs - run.startedAtMs),
        e.step === null ? '—' : String(e.step),
        String(e.rank ?? 0),
        e.message ?? '',
        bytesOr(peak, lang),
      ];
    });
    const header = (
      ['phase-when', 'phase-after-step', 'phase-rank', 'phase-change', 'phase-peak-before'] as const
    ).map((code) => ws(lang, { code, params: {} }));
    parts.push(
      `\n  ${ws(lang, { code: 'phases', params: {} })}\n${renderTable(header, rows, [1, 2, 4])
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`,
    );
  }
  const notable = events.filter((e) => NOTABLE_EVENTS.has(e.kind));
  if (notable.length > 0) {
    parts.push(`\n  ${ws(lang, { code: 'events', params: {} })}`);
    for (const e of notable) {
      const text = (eventWords(e, lang) ?? '').split('\n')[0]!;
      parts.push(
        `  ${clock(e.tMs - run.startedAtMs)}  ${e.kind.padEnd(15)} ${text.length > 160 ? `${text.slice(0, 160)}…` : text}`,
      );
    }
  }
  return parts.join('\n');
}

/** The live status line (terminal): step, loss, the three layers, headroom, sparkline. */
export function renderStatusLine(
  live: LiveState,
  elapsedMs: number,
  width: number,
  style: Style,
  lang: Lang = 'en',
): string {
  const parts = [
    style.bold(
      live.step === null
        ? w(lang, { code: 'live-waiting', params: {} })
        : w(lang, { code: 'live-step', params: { step: live.step } }),
    ),
    live.loss === null ? null : w(lang, { code: 'live-loss', params: { loss: live.loss } }),
    live.allocatedBytes === null
      ? null
      : w(lang, { code: 'live-allocated', params: { bytes: live.allocatedBytes } }),
    live.reservedBytes === null
      ? null
      : w(lang, { code: 'live-reserved', params: { bytes: live.reservedBytes } }),
    live.usedBytes === null
      ? null
      : w(lang, { code: 'live-used', params: { bytes: live.usedBytes, own: live.usedIsOwn } }),
    live.headroomBytes === null
      ? null
      : w(lang, { code: 'live-free', params: { bytes: live.headroomBytes } }),
    live.recentPeaks.length > 1
      ? w(lang, {
          code: 'live-peak',
          params: { sparkline: style.cyan(sparkline(live.recentPeaks.slice(-24))) },
        })
      : null,
    live.oomSeen ? style.red('OOM') : null,
    style.dim(formatDuration(elapsedMs, lang)),
  ].filter((p): p is string => p !== null);
  let line = `● ${parts.join(' · ')}`;
  // Keep it on one row: drop parts from the right until it fits.
  while (visibleWidth(line) > width - 1 && parts.length > 1) {
    parts.splice(parts.length - 2, 1);
    line = `● ${parts.join(' · ')}`;
  }
  return line;
}

/** A plain status line for logs (no terminal): one line every so often. */
export function renderPlainStatus(live: LiveState, elapsedMs: number, lang: Lang = 'en'): string {
  const parts = [
    live.step === null
      ? w(lang, { code: 'plain-no-step', params: {} })
      : w(lang, { code: 'live-step', params: { step: live.step } }),
    live.loss === null ? null : w(lang, { code: 'live-loss', params: { loss: live.loss } }),
    live.allocatedBytes === null
      ? null
      : w(lang, { code: 'plain-allocated', params: { bytes: live.allocatedBytes } }),
    live.reservedBytes === null
      ? null
      : w(lang, { code: 'plain-reserved', params: { bytes: live.reservedBytes } }),
    live.usedBytes === null
      ? null
      : w(lang, { code: 'plain-used', params: { bytes: live.usedBytes, own: live.usedIsOwn } }),
    live.headroomBytes === null
      ? null
      : w(lang, { code: 'live-free', params: { bytes: live.headroomBytes } }),
    formatDuration(elapsedMs, lang),
  ].filter(Boolean);
  return `[headroom] ${parts.join(' · ')}`;
}

/** `runs diff A B`. */
export function renderDiff(
  diff: RunDiff,
  a: RunRecord,
  b: RunRecord,
  style: Style,
  lang: Lang = 'en',
): string {
  const label = (r: RunRecord) => w(lang, { code: 'run-ref', params: { id: r.id, name: r.name } });
  const lines: string[] = [];
  lines.push(style.bold(`${label(a)} → ${label(b)}`));
  lines.push(style.dim(ws(lang, { code: 'compared-by', params: { by: diff.comparedBy } })));
  lines.push('');
  const changed = style.yellow(ws(lang, { code: 'diff-changed', params: {} }));
  const rows: string[][] = [
    [
      ws(lang, { code: 'diff-status', params: {} }),
      statusText(a.status, style, lang),
      statusText(b.status, style, lang),
      '',
    ],
  ];
  for (const c of diff.changes) rows.push([c.name, c.a ?? '—', c.b ?? '—', changed]);
  const f = FORMATS[lang];
  for (const p of diff.peaks) {
    const delta =
      p.deltaBytes === null
        ? ''
        : `${p.deltaBytes >= 0 ? '+' : '−'}${f.bytes(Math.abs(p.deltaBytes))}${p.deltaPercent === null ? '' : ` (${p.deltaPercent >= 0 ? '+' : ''}${p.deltaPercent.toFixed(1)} %)`}`;
    rows.push([
      ws(lang, { code: 'diff-peak', params: { layer: p.layer } }),
      bytesOr(p.aBytes, lang),
      bytesOr(p.bBytes, lang),
      delta,
    ]);
  }
  rows.push([ws(lang, { code: 'diff-steps', params: {} }), String(a.steps), String(b.steps), '']);
  lines.push(
    renderTable(['', label(a), label(b), ws(lang, { code: 'diff-change', params: {} })], rows)
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  if (diff.warning) lines.push('', style.yellow(`  ⚠ ${ws(lang, diff.warning)}`));
  return lines.join('\n');
}

/** The views of a recorded run: JSON, the summary, the live status line, the runs table and the diff. */

import { estimateError, estimateErrorText } from '../core/estimate-error.js';
import type { RunDiff } from '../core/run-diff.js';
import type { LayerPeak, RunEvent, RunRecord, RunStatus, StepRecord } from '../core/run-record.js';
import {
  detectGrowth,
  GROWTH_MIN_STEPS,
  GROWTH_WARMUP_STEPS,
  layerGaps,
  perStepPeaks,
  runOutcome,
} from '../core/run-summary.js';
import { formatBytes } from '../core/units.js';
import type { LiveState } from '../io/recorder.js';
import { renderStepChart, sparkline } from './_chart.js';
import { renderTable, type Style } from './_output.js';

/** "4.2 s", "2m 13s", "1h 02m". */
export function formatDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Time since the run started, "m:ss". */
function clock(run: RunRecord, atMs: number): string {
  const s = Math.max(0, Math.round((atMs - run.startedAtMs) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const field = (run: RunRecord, key: string): unknown => run.scenario?.[key];

function modelOf(run: RunRecord): string | null {
  const m = field(run, 'model');
  return typeof m === 'string' ? m : m ? 'inline config' : null;
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
  };
}

export function statusText(status: RunStatus, style: Style): string {
  const colour: Record<RunStatus, (s: string) => string> = {
    running: style.cyan,
    ok: style.green,
    oom: style.red,
    failed: style.red,
    killed: style.yellow,
  };
  return colour[status](status);
}

const bytesOr = (b: number | null | undefined) => (b === null || b === undefined ? '—' : formatBytes(b));

/** The `headroom runs` table. */
export function renderRunsTable(runs: readonly RunRecord[], style: Style, now: number = Date.now()): string {
  const rows = runs.map((r) => [
    String(r.id),
    r.name ?? '',
    statusText(r.status, style),
    modelOf(r) ?? '—',
    (field(r, 'method') as string | undefined) ?? '—',
    r.batchSize === null ? '—' : String(r.batchSize),
    r.seqLen === null ? '—' : String(r.seqLen),
    bytesOr(r.peakAllocated?.bytes),
    bytesOr(r.peakReserved?.bytes),
    bytesOr(r.peakDevice?.bytes),
    String(r.steps),
    formatDuration((r.endedAtMs ?? now) - r.startedAtMs),
    new Date(r.startedAtMs).toISOString().slice(0, 16).replace('T', ' '),
  ]);
  return renderTable(
    [
      'id',
      'name',
      'status',
      'model',
      'method',
      'batch',
      'seq',
      'allocated',
      'reserved',
      'nvidia-smi',
      'steps',
      'duration',
      'started (UTC)',
    ],
    rows,
    [0, 5, 6, 7, 8, 9, 10, 11],
  );
}

/** The summary of a run: peaks per layer and when, gaps, estimate, growth, outcome. */
export function renderRunSummary(
  run: RunRecord,
  steps: readonly StepRecord[],
  events: readonly RunEvent[],
  style: Style,
  now: number = Date.now(),
): string {
  const lines: string[] = [];
  const duration = formatDuration((run.endedAtMs ?? now) - run.startedAtMs);
  const exit = run.exitCode === null ? '' : ` · exit ${run.exitCode}${run.signal ? ` (${run.signal})` : ''}`;
  lines.push(
    style.bold(
      `run ${run.id}${run.name ? ` "${run.name}"` : ''} · ${statusText(run.status, style)}${exit} · ${duration} · ${run.steps} step${run.steps === 1 ? '' : 's'}`,
    ),
  );
  if (run.command.length > 0) lines.push(style.dim(run.command.join(' ')));
  else if (run.logPath) lines.push(style.dim(`watched ${run.logPath}`));
  lines.push('');
  const when = (p: LayerPeak, withStep: boolean) =>
    `${withStep && p.step !== null ? `step ${p.step} · ` : ''}${clock(run, p.atMs)}${p.gpu !== null ? ` · GPU ${p.gpu}` : ''}`;
  const table: string[][] = [];
  if (run.peakAllocated)
    table.push([
      'allocated',
      formatBytes(run.peakAllocated.bytes),
      when(run.peakAllocated, true),
      'torch max_memory_allocated',
    ]);
  if (run.peakReserved)
    table.push([
      'reserved',
      formatBytes(run.peakReserved.bytes),
      when(run.peakReserved, true),
      'torch max_memory_reserved',
    ]);
  if (run.peakDevice)
    table.push([
      'nvidia-smi',
      formatBytes(run.peakDevice.bytes),
      when(run.peakDevice, false),
      "this run's processes",
    ]);
  if (run.peakGpuUsed)
    table.push([
      'whole GPU',
      formatBytes(run.peakGpuUsed.bytes),
      when(run.peakGpuUsed, false),
      'memory.used, every process',
    ]);
  if (table.length > 0) {
    for (const line of renderTable(['peak', 'bytes', 'when', 'what'], table, [1]).split('\n'))
      lines.push(`  ${line}`);
  } else {
    lines.push('  no memory was recorded (no probe events and no nvidia-smi samples)');
  }
  if (!run.peakAllocated && run.steps === 0) {
    lines.push(
      style.dim(
        '  the probe recorded nothing: add `import headroom_probe` and headroom_probe.step(...) to the script',
      ),
    );
  }
  const gaps = layerGaps(run);
  const gapText = [
    gaps.cacheBytes !== null
      ? `${formatBytes(gaps.cacheBytes)} cached by the allocator (reserved − allocated)`
      : null,
    gaps.nonTorchBytes !== null
      ? `${formatBytes(gaps.nonTorchBytes)} CUDA context and non-PyTorch memory (nvidia-smi − reserved)`
      : null,
  ].filter(Boolean);
  if (gapText.length > 0) lines.push(`  between the layers: ${gapText.join(' · ')}`);
  if (run.estimate) {
    const e = run.estimate;
    // Each level's estimate against the run's peak, error = (estimate − measured) / measured.
    const rows = (
      [
        ['allocated', e.allocatedBytes, run.peakAllocated?.bytes ?? null],
        ['reserved', e.reservedBytes, run.peakReserved?.bytes ?? null],
        ['nvidia-smi', e.deviceBytes, run.peakDevice?.bytes ?? null],
      ] as const
    ).map(([level, estimated, measured]) => {
      const error = estimateError(estimated, measured);
      return [level, formatBytes(estimated), error === null ? 'not measured' : estimateErrorText(error)];
    });
    lines.push("  the scenario's estimate against the run's peaks:");
    for (const line of renderTable(['', '', ''], rows, [1]).split('\n').slice(2)) lines.push(`    ${line}`);
  }
  const peaks = perStepPeaks(steps);
  const growth = detectGrowth(peaks);
  if (growth.kind === 'grew') {
    const what =
      growth.layer === 'allocated'
        ? 'live tensors grew: a leak (a loss kept with its graph, outputs kept on the GPU) or longer inputs'
        : 'the allocator cache grew while live tensors did not: fragmentation (try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)';
    lines.push(
      style.yellow(
        `  ⚠ memory grew: per-step peak ${growth.layer} ${formatBytes(growth.fromBytes)} at step ${growth.fromStep} → ${formatBytes(growth.toBytes)} at step ${growth.toStep} (${formatBytes(growth.bytesPerStep)}/step); ${what}`,
      ),
    );
  } else if (growth.kind === 'flat') {
    lines.push(
      `  memory: flat across ${growth.steps} steps (per-step peak about ${formatBytes(growth.levelBytes)})`,
    );
  } else if (growth.steps > 0) {
    lines.push(
      style.dim(
        `  memory growth: not judged on ${growth.steps} step${growth.steps === 1 ? '' : 's'} (needs ${GROWTH_WARMUP_STEPS + GROWTH_MIN_STEPS})`,
      ),
    );
  }
  const outcome = runOutcome(run, events);
  if (run.status === 'oom' || outcome.error?.kind === 'oom') {
    const e = outcome.error;
    const where = e
      ? [
          e.step !== null ? `after step ${e.step}` : '',
          e.phase ? `phase ${e.phase}` : '',
          e.rank !== null ? `rank ${e.rank}` : '',
        ]
          .filter(Boolean)
          .join(', ')
      : '';
    lines.push(style.red(`  ✗ ended in a CUDA out-of-memory${where ? ` (${where})` : ''}`));
    if (e?.message) lines.push(`    ${e.message.length > 400 ? `${e.message.slice(0, 400)}…` : e.message}`);
  } else if (run.status === 'failed' && events.some((e) => e.kind === 'spawn-error')) {
    lines.push(style.red(`  ✗ failed: ${events.find((e) => e.kind === 'spawn-error')!.message}`));
  } else if (run.status === 'failed') {
    lines.push(
      style.red(
        `  ✗ failed${outcome.error ? `: ${outcome.error.type ?? 'error'}: ${outcome.error.message.split('\n')[0]}` : ''}`,
      ),
    );
  } else if (run.status === 'killed') {
    lines.push(
      style.yellow(
        `  ■ stopped${run.signal ? ` by ${run.signal}` : ''}; everything recorded until then is kept`,
      ),
    );
  } else if (run.status === 'ok') {
    lines.push(style.green('  ✓ finished'));
  } else {
    lines.push(style.cyan('  … still running'));
  }
  const sampler = events.filter((e) => e.kind === 'sampler-problem' || e.kind === 'prelaunch');
  for (const e of sampler.slice(0, 3)) lines.push(style.yellow(`  ! ${e.message ?? e.kind}`));
  const bad = events.filter((e) => e.kind === 'probe-bad-line');
  if (bad.length > 0)
    lines.push(
      style.yellow(
        `  ! ${bad.length} probe line${bad.length === 1 ? '' : 's'} could not be read (headroom runs show ${run.id} lists them)`,
      ),
    );
  return lines.join('\n');
}

/** `runs show`: the summary, the per-step chart, phases and the notable events. */
export function renderRunShow(
  run: RunRecord,
  steps: readonly StepRecord[],
  events: readonly RunEvent[],
  style: Style,
  width: number,
): string {
  const parts = [renderRunSummary(run, steps, events, style)];
  const peaks = perStepPeaks(steps);
  if (peaks.length > 0) {
    parts.push(
      `\n  per-step peak (${style.cyan('█')} allocated, ${style.dim('░')} reserved)\n${renderStepChart(
        peaks.map((p) => ({
          step: p.step,
          allocatedBytes: p.peakAllocatedBytes,
          reservedBytes: p.peakReservedBytes,
        })),
        style,
        { width: Math.max(20, Math.min(100, width - 16)) },
      )}`,
    );
  }
  const phases = events.filter((e) => e.kind === 'phase');
  if (phases.length > 0) {
    const rows = phases.map((e) => {
      const devices = (e.data.devices as { peakAllocatedBytes?: number }[] | undefined) ?? [];
      const peak = devices.length > 0 ? Math.max(...devices.map((d) => d.peakAllocatedBytes ?? 0)) : null;
      return [
        clock(run, e.tMs),
        e.step === null ? '—' : String(e.step),
        String(e.rank ?? 0),
        e.message ?? '',
        bytesOr(peak),
      ];
    });
    parts.push(
      `\n  phases\n${renderTable(['when', 'after step', 'rank', 'change', 'peak before'], rows, [1, 2, 4])
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`,
    );
  }
  const notable = events.filter((e) =>
    [
      'oom',
      'exception',
      'oom-text',
      'probe-bad-line',
      'spawn-error',
      'interrupted',
      'prelaunch',
      'sampler-problem',
      'note',
    ].includes(e.kind),
  );
  if (notable.length > 0) {
    parts.push(`\n  events`);
    for (const e of notable) {
      const text = (e.message ?? '').split('\n')[0]!;
      parts.push(
        `  ${clock(run, e.tMs)}  ${e.kind.padEnd(15)} ${text.length > 160 ? `${text.slice(0, 160)}…` : text}`,
      );
    }
  }
  return parts.join('\n');
}

/** The live status line (terminal): step, loss, the three layers, headroom, sparkline. */
export function renderStatusLine(live: LiveState, elapsedMs: number, width: number, style: Style): string {
  const parts = [
    style.bold(live.step === null ? 'waiting for the first step' : `step ${live.step}`),
    live.loss === null ? null : `loss ${live.loss.toPrecision(4)}`,
    live.allocatedBytes === null ? null : `alloc ${formatBytes(live.allocatedBytes)}`,
    live.reservedBytes === null ? null : `rsvd ${formatBytes(live.reservedBytes)}`,
    live.usedBytes === null ? null : `${live.usedIsOwn ? 'smi' : 'gpu used'} ${formatBytes(live.usedBytes)}`,
    live.headroomBytes === null ? null : `free ${formatBytes(live.headroomBytes)}`,
    live.recentPeaks.length > 1 ? `peak ${style.cyan(sparkline(live.recentPeaks.slice(-24)))}` : null,
    live.oomSeen ? style.red('OOM') : null,
    style.dim(formatDuration(elapsedMs)),
  ].filter((p): p is string => p !== null);
  let line = `● ${parts.join(' · ')}`;
  // Keep it on one row: drop parts from the right until it fits.
  while (visible(line) > width - 1 && parts.length > 1) {
    parts.splice(parts.length - 2, 1);
    line = `● ${parts.join(' · ')}`;
  }
  return line;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI codes to measure width
const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;

/** A plain status line for logs (no terminal): one line every so often. */
export function renderPlainStatus(live: LiveState, elapsedMs: number): string {
  const parts = [
    live.step === null ? 'no step yet' : `step ${live.step}`,
    live.loss === null ? null : `loss ${live.loss.toPrecision(4)}`,
    live.allocatedBytes === null ? null : `allocated ${formatBytes(live.allocatedBytes)}`,
    live.reservedBytes === null ? null : `reserved ${formatBytes(live.reservedBytes)}`,
    live.usedBytes === null
      ? null
      : `nvidia-smi ${formatBytes(live.usedBytes)}${live.usedIsOwn ? '' : ' (whole GPU)'}`,
    live.headroomBytes === null ? null : `free ${formatBytes(live.headroomBytes)}`,
    formatDuration(elapsedMs),
  ].filter(Boolean);
  return `[headroom] ${parts.join(' · ')}`;
}

/** `runs diff A B`. */
export function renderDiff(diff: RunDiff, a: RunRecord, b: RunRecord, style: Style): string {
  const label = (r: RunRecord) => `run ${r.id}${r.name ? ` "${r.name}"` : ''}`;
  const lines: string[] = [];
  lines.push(style.bold(`${label(a)} → ${label(b)}`));
  lines.push(style.dim(`compared by ${diff.comparedBy === 'scenario' ? 'scenario fields' : 'command line'}`));
  lines.push('');
  const rows: string[][] = [['status', statusText(a.status, style), statusText(b.status, style), '']];
  for (const c of diff.changes) rows.push([c.name, c.a ?? '—', c.b ?? '—', style.yellow('changed')]);
  for (const p of diff.peaks) {
    const name = p.layer === 'device' ? 'peak nvidia-smi' : `peak ${p.layer}`;
    const delta =
      p.deltaBytes === null
        ? ''
        : `${p.deltaBytes >= 0 ? '+' : '−'}${formatBytes(Math.abs(p.deltaBytes))}${p.deltaPercent === null ? '' : ` (${p.deltaPercent >= 0 ? '+' : ''}${p.deltaPercent.toFixed(1)} %)`}`;
    rows.push([name, bytesOr(p.aBytes), bytesOr(p.bBytes), delta]);
  }
  rows.push(['steps', String(a.steps), String(b.steps), '']);
  lines.push(
    renderTable(['', label(a), label(b), 'change'], rows)
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  if (diff.warning) lines.push('', style.yellow(`  ⚠ ${diff.warning}`));
  return lines.join('\n');
}

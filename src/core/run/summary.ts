/**
 * What the end of `headroom run` / `watch` and `headroom runs show` say about a recorded run, as
 * data: its headline, each layer's peak and when, the gaps between the layers, the estimate against
 * the peaks, whether memory grew, how it ended, and the warnings it left. src/cli/render-run.ts
 * words it (src/words/run.ts); the figures stay raw here. Pure.
 */
import { estimateError } from '../estimate-error.js';
import type { MessageOf, NoParams } from '../message.js';
import type { RunEvent, RunRecord, RunStatus, StepRecord } from '../run-record.js';
import {
  detectGrowth,
  type Growth,
  type LayerGaps,
  layerGaps,
  perStepPeaks,
  runOutcome,
} from '../run-summary.js';

/** The layers a run's peaks are kept at: torch's two, nvidia-smi's per process, and the whole GPU. */
export const SUMMARY_LAYERS = ['allocated', 'reserved', 'device', 'gpu-used'] as const;
export type SummaryLayer = (typeof SUMMARY_LAYERS)[number];

export interface SummaryPeak {
  readonly layer: SummaryLayer;
  readonly bytes: number;
  /** When it was seen, since the run started. */
  readonly sinceStartMs: number;
  /** The step it belongs to: said for torch's layers only. */
  readonly step: number | null;
  readonly gpu: number | null;
}

/** One level of the scenario's estimate against the run's peak at that level. */
export interface SummaryEstimate {
  readonly level: 'allocated' | 'reserved' | 'device';
  readonly estimatedBytes: number;
  readonly measuredBytes: number | null;
  /** (estimate − measured) / measured (src/core/estimate-error.ts); null when not measured. */
  readonly error: number | null;
}

/** How the run ended, each with its figures. */
export interface RunEndParams {
  /** A CUDA out-of-memory, and where the probe saw it. */
  readonly oom: {
    readonly step: number | null;
    readonly phase: string | null;
    readonly rank: number | null;
    /** The OOM line as torch printed it; null when nothing recorded it. */
    readonly message: string | null;
  };
  /** The command could not be started (the spawn-error event says why). */
  readonly 'not-started': { readonly event: RunEvent };
  /** A non-zero exit; the exception the probe recorded, when it did. */
  readonly failed: { readonly type: string | null; readonly message: string | null };
  readonly killed: { readonly signal: string | null };
  readonly finished: NoParams;
  readonly running: NoParams;
}
export type RunEnd = MessageOf<RunEndParams>;

export interface RunSummary {
  readonly id: number;
  readonly name: string | null;
  readonly status: RunStatus;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly steps: number;
  /** The command run; empty for a run attached with watch, whose log is `watchedLog`. */
  readonly command: readonly string[];
  readonly watchedLog: string | null;
  /** Each layer that was recorded, in SUMMARY_LAYERS order. */
  readonly peaks: readonly SummaryPeak[];
  /** Neither a probe peak nor a step: the script does not call the probe. */
  readonly probeSilent: boolean;
  readonly gaps: LayerGaps;
  readonly estimate: readonly SummaryEstimate[] | null;
  readonly growth: Growth;
  readonly end: RunEnd;
  /** The first warnings from before launch and from the sampler. */
  readonly warnings: readonly RunEvent[];
  /** Probe lines that could not be read. */
  readonly badLines: number;
}

/** How many of the run's warnings the summary repeats. */
export const SUMMARY_WARNINGS = 3;

function runEnd(run: RunRecord, events: readonly RunEvent[]): RunEnd {
  const outcome = runOutcome(run, events);
  const error = outcome.error;
  if (run.status === 'oom' || error?.kind === 'oom') {
    return {
      code: 'oom',
      params: {
        step: error?.step ?? null,
        phase: error?.phase ?? null,
        rank: error?.rank ?? null,
        message: error?.message ? error.message : null,
      },
    };
  }
  const spawn = events.find((e) => e.kind === 'spawn-error');
  if (run.status === 'failed' && spawn) return { code: 'not-started', params: { event: spawn } };
  if (run.status === 'failed') {
    return {
      code: 'failed',
      params: {
        type: error ? (error.type ?? null) : null,
        message: error ? error.message.split('\n')[0]! : null,
      },
    };
  }
  if (run.status === 'killed') return { code: 'killed', params: { signal: run.signal } };
  if (run.status === 'ok') return { code: 'finished', params: {} };
  return { code: 'running', params: {} };
}

/**
 * The summary of a run as data. `now` ends the duration of a run still going. `steps` are its step
 * records, or (a long run, read one row at a time) the growth they show: detectGrowthOf.
 */
export function summarizeRun(
  run: RunRecord,
  steps: readonly StepRecord[] | Growth,
  events: readonly RunEvent[],
  now: number,
): RunSummary {
  const layers = [
    ['allocated', run.peakAllocated, true],
    ['reserved', run.peakReserved, true],
    ['device', run.peakDevice, false],
    ['gpu-used', run.peakGpuUsed, false],
  ] as const;
  const peaks: SummaryPeak[] = [];
  for (const [layer, peak, withStep] of layers) {
    if (!peak) continue;
    peaks.push({
      layer,
      bytes: peak.bytes,
      sinceStartMs: peak.atMs - run.startedAtMs,
      step: withStep ? peak.step : null,
      gpu: peak.gpu,
    });
  }
  const e = run.estimate;
  const estimate: SummaryEstimate[] | null = e
    ? (
        [
          ['allocated', e.allocatedBytes, run.peakAllocated?.bytes ?? null],
          ['reserved', e.reservedBytes, run.peakReserved?.bytes ?? null],
          ['device', e.deviceBytes, run.peakDevice?.bytes ?? null],
        ] as const
      ).map(([level, estimatedBytes, measuredBytes]) => ({
        level,
        estimatedBytes,
        measuredBytes,
        error: estimateError(estimatedBytes, measuredBytes),
      }))
    : null;
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    exitCode: run.exitCode,
    signal: run.signal,
    durationMs: (run.endedAtMs ?? now) - run.startedAtMs,
    steps: run.steps,
    command: run.command,
    watchedLog: run.command.length === 0 ? run.logPath : null,
    peaks,
    probeSilent: !run.peakAllocated && run.steps === 0,
    gaps: layerGaps(run),
    estimate,
    growth: Array.isArray(steps) ? detectGrowth(perStepPeaks(steps)) : (steps as Growth),
    end: runEnd(run, events),
    warnings: events
      .filter((ev) => ev.kind === 'sampler-problem' || ev.kind === 'prelaunch')
      .slice(0, SUMMARY_WARNINGS),
    badLines: events.filter((ev) => ev.kind === 'probe-bad-line').length,
  };
}

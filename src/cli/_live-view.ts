import { fileError } from '../core/file-errors.js';
import type { Ledger } from '../io/ledger.js';
import { RunRecorder } from '../io/recorder.js';
import { DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_SAMPLE_INTERVAL_MS, type QueryResult } from '../io/sampler.js';
import type { Lang } from '../words/lang.js';
import type { CommandContext } from './_command.js';
import type { Style } from './_output.js';
import { StatusBar, type TerminalStream } from './_status-bar.js';
import { renderPlainStatus, renderStatusLine, w } from './render-run.js';

/**
 * A problem of the sampler on stderr: its words and hint are the sampler's (English, src/io/sampler.ts),
 * framed in the command's language.
 */
export function samplerWarning(
  problem: { readonly message: string; readonly hint: string },
  err: Style,
  lang: Lang,
): string {
  return `${err.yellow(w(lang, { code: 'warning', params: { text: problem.message } }))}\n${w(lang, { code: 'try', params: { hint: problem.hint } })}`;
}

function positiveNumber(raw: string | boolean | undefined, flag: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isFinite(n) || n <= 0) {
    throw fileError(
      'flag-value',
      { flag: `--${flag}`, value: String(raw), expected: 'positive', example: String(fallback) },
      `--${flag}`,
      'bad-flag',
    );
  }
  return n;
}

/** The sampling timings `run` and `watch` share: --interval-ms, --status-every and the nvidia-smi timeout. */
export function liveTimings(
  values: Readonly<Record<string, string | boolean | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): { intervalMs: number; statusEveryMs: number; queryTimeoutMs: number } {
  return {
    intervalMs: positiveNumber(values['interval-ms'], 'interval-ms', DEFAULT_SAMPLE_INTERVAL_MS),
    statusEveryMs: positiveNumber(values['status-every'], 'status-every', 30) * 1000,
    queryTimeoutMs: positiveNumber(
      env.HEADROOM_NVIDIA_SMI_TIMEOUT_MS,
      'HEADROOM_NVIDIA_SMI_TIMEOUT_MS',
      DEFAULT_QUERY_TIMEOUT_MS,
    ),
  };
}

export interface LiveView {
  readonly recorder: RunRecorder;
  /** The pinned status line, on a terminal; null otherwise. */
  readonly bar: StatusBar | null;
  /** Redraws the status (call it on a timer); `plainAllowed` false holds back a plain line (mid-line output). */
  readonly tick: (plainAllowed?: boolean) => void;
  /** How often to call tick, ms. */
  readonly tickMs: number;
}

/** Starts recording run `runId` and its status display. */
export function startLiveView(options: {
  readonly ctx: CommandContext;
  readonly err: Style;
  readonly say: (text: string) => void;
  /** The language of the status line and the sampler's warnings. */
  readonly lang: Lang;
  readonly ledger: Ledger;
  readonly runId: number;
  readonly logPath: string;
  readonly query: QueryResult | null;
  readonly intervalMs: number;
  readonly visibleGpus: readonly string[] | null;
  readonly startedAtMs: number;
  readonly statusEveryMs: number;
  readonly pid: number | null;
}): LiveView {
  const { ctx, err, say, query } = options;
  const tty = ctx.stderr.isTTY === true && ctx.env.TERM !== 'dumb';
  const bar = tty ? new StatusBar(ctx.stderr as unknown as TerminalStream) : null;
  const recorder = new RunRecorder({
    ledger: options.ledger,
    runId: options.runId,
    logPath: options.logPath,
    sample: query?.ok === true,
    intervalMs: options.intervalMs,
    ...(query?.ok ? { gpuFields: query.gpuFields } : {}),
    env: ctx.env,
    visibleGpus: options.visibleGpus,
    onProblem: (p) => {
      bar?.stop();
      say(samplerWarning(p, err, options.lang));
      bar?.start();
    },
    onRecordingError: (e) => {
      bar?.stop();
      say(
        err.yellow(
          w(options.lang, { code: 'recording-failed', params: { code: e.code, home: options.ledger.home } }),
        ),
      );
      bar?.start();
    },
  });
  if (options.pid !== null) recorder.addProcess(options.pid);
  recorder.start();
  bar?.start();
  let lastPlainAt = Date.now();
  let lastPlainStep: number | null = null;
  const tick = (plainAllowed = true) => {
    const elapsed = Date.now() - options.startedAtMs;
    if (bar) {
      bar.draw(renderStatusLine(recorder.live, elapsed, bar.columns, err, options.lang));
    } else if (
      plainAllowed &&
      Date.now() - lastPlainAt >= options.statusEveryMs &&
      recorder.live.step !== lastPlainStep
    ) {
      lastPlainAt = Date.now();
      lastPlainStep = recorder.live.step;
      say(renderPlainStatus(recorder.live, elapsed, options.lang));
    }
  };
  return { recorder, bar, tick, tickMs: bar ? 250 : 1000 };
}

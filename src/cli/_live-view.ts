/**
 * The live side of `run` and `watch`: the recorder that samples nvidia-smi and follows the probe log,
 * and the status shown while it records — a pinned line on a terminal, a plain line now and then
 * otherwise. Both commands start one the same way; they differ only in what ends the run.
 */
import type { Ledger } from '../io/ledger.js';
import { RunRecorder } from '../io/recorder.js';
import type { QueryResult } from '../io/sampler.js';
import type { CommandContext } from './_command.js';
import type { Style } from './_output.js';
import { StatusBar, type TerminalStream } from './_status-bar.js';
import { renderPlainStatus, renderStatusLine } from './render-run.js';

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
      say(`${err.yellow(`headroom: ⚠ ${p.message}`)}\n  Try: ${p.hint}`);
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
      bar.draw(renderStatusLine(recorder.live, elapsed, bar.columns, err));
    } else if (
      plainAllowed &&
      Date.now() - lastPlainAt >= options.statusEveryMs &&
      recorder.live.step !== lastPlainStep
    ) {
      lastPlainAt = Date.now();
      lastPlainStep = recorder.live.step;
      say(renderPlainStatus(recorder.live, elapsed));
    }
  };
  return { recorder, bar, tick, tickMs: bar ? 250 : 1000 };
}

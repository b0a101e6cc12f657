/**
 * `headroom run -- COMMAND…`: run a training command and record it on all three layers. This file is
 * the orchestration (flags, the ledger, the process, signals, the live view, where output goes); what
 * it decides is in src/core/run/ (prelaunch.ts: the checks before launch; status.ts: how it ended;
 * summary.ts: what the end says) and its words in src/words/run.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { constants, hostname } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { HeadroomUserError, isUserError } from '../core/errors.js';
import { estimate } from '../core/estimate.js';
import { fileError } from '../core/file-errors.js';
import { requiredDeviceBytes } from '../core/margin.js';
import type { HeadroomEvent } from '../core/run/events.js';
import {
  type AllocatorSetting,
  allocatorSetting,
  type GpuReading,
  launchEnv,
  type PrelaunchVerdict,
  type PrelaunchWarning,
  prelaunchChecks,
  visibleGpus as visibleGpusOf,
} from '../core/run/prelaunch.js';
import { DEFAULT_SNAPSHOT_ENTRIES, type SnapshotRecording, snapshotRecording } from '../core/run/snapshot.js';
import { endEvents, exitCodeOf, type ProcessExit, runStatus, spawnFailure } from '../core/run/status.js';
import type { EstimatedPeak } from '../core/run-record.js';
import { withAllocatorSetting } from '../core/scenario.js';
import { findOomInStderr } from '../core/stderr-oom.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { probeDir } from '../io/probe-path.js';
import { recordingErrorOf } from '../io/recorder.js';
import { DEFAULT_QUERY_TIMEOUT_MS, DEFAULT_SAMPLE_INTERVAL_MS, queryNvidiaSmi } from '../io/sampler.js';
import { StderrRelay } from '../io/stderr-capture.js';
import { refuseFolder, type UserFileKind } from '../io/user-file.js';
import { say as sayWords } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { RUN_PRELAUNCH, RUN_PRELAUNCH_HINTS } from '../words/run.js';
import { RUN_SNAPSHOT } from '../words/run-snapshot.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { liveTimings, startLiveView } from './_live-view.js';
import { type Style, styleFor } from './_output.js';
import { RUN_METRICS_HELP, RUN_METRICS_OPTIONS, startRunMetrics } from './_run-metrics.js';
import { runGrowth } from './_run-steps.js';
import { SCENARIO_FLAGS_HELP, SCENARIO_OPTIONS } from './_scenario-flags.js';
import { countFlag, FROM_HELP, loadScenario, SCENARIO_INPUT_OPTIONS } from './_scenario-input.js';
import { renderRunSummary, runJson, storedEvent, w } from './render-run.js';

export { UNLISTED_USE_BYTES } from '../core/run/prelaunch.js';
export { STDERR_TAIL_EVENT_CHARS } from '../core/run/status.js';

export const help = `headroom run — run a training command and record its GPU memory on three layers

Usage:
  headroom run [options] [scenario flags] -- COMMAND [ARGS…]

Starts COMMAND with HEADROOM_LOG set and the probe importable (PYTHONPATH gets the folder of
headroom_probe.py), samples the GPUs with nvidia-smi, follows the probe's log, and captures the
command's stderr for out-of-memory text while passing all output through unchanged. It exits with
the command's exit code. Before the start it warns about processes that are not this run's on the
GPUs it may use (CUDA_VISIBLE_DEVICES) and, with a scenario, about too little free memory for the
estimate. The run is kept in the ledger: headroom runs.

In the training script (nothing happens without headroom run, or HEADROOM_LOG):
  import headroom_probe
  headroom_probe.step(step, loss=loss.item(), lr=lr, batch_size=bs, seq_len=seq)
  with headroom_probe.phase("eval"): ...
  Trainer(..., callbacks=[headroom_probe.HeadroomCallback()])

Options:
  --name NAME               a name for the run (headroom runs show NAME)
  --strict                  refuse to start when a check fails: other processes on the GPUs, too
                            little free memory for the estimate, nvidia-smi missing or failing
  --interval-ms N           nvidia-smi sampling period in milliseconds        [${DEFAULT_SAMPLE_INTERVAL_MS}]
  --no-smi                  do not run nvidia-smi (probe layer only)
  --status-every S          without a terminal: a status line every S seconds [30]
  --log FILE                where the probe writes (default: the run's folder in HEADROOM_HOME)
  --json                    print the run's record as JSON on stdout, alone: the command's own
                            stdout goes to stderr then (headroom run --json -- … | jq parses)
  --snapshot                record PyTorch's memory history in the training (HEADROOM_SNAPSHOT=1):
                            an out-of-memory writes the allocator snapshot beside the probe log
                            (memory-snapshot[.rankN].pickle), the run points at it, and
                            headroom diagnose RUN says which tensors filled the card
  --snapshot-entries N      the most trace entries kept, a bound on the host memory the history
                            takes (implies --snapshot)                          [${DEFAULT_SNAPSHOT_ENTRIES}]
${RUN_METRICS_HELP}
${LANG_HELP}

${SCENARIO_FLAGS_HELP}
${FROM_HELP}

Environment:
  HEADROOM_HOME             the ledger's folder                               [~/.headroom]
  HEADROOM_NVIDIA_SMI_TIMEOUT_MS   how long a one-off nvidia-smi query may take   [${DEFAULT_QUERY_TIMEOUT_MS}]

Ctrl-C stops the command (a second Ctrl-C sends SIGTERM, a third SIGKILL); the record is kept.

Examples:
  headroom run -- python train.py --batch-size 8
  headroom run --name bs16 --model llama-3.1-8b --method lora --micro-batch 16 -- torchrun --nproc-per-node 2 train.py
  headroom run --from train.yaml --strict -- llamafactory-cli train train.yaml`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...LANG_OPTIONS,
  name: { type: 'string' },
  strict: { type: 'boolean' },
  'interval-ms': { type: 'string' },
  'no-smi': { type: 'boolean' },
  'status-every': { type: 'string' },
  log: { type: 'string' },
  json: { type: 'boolean' },
  snapshot: { type: 'boolean' },
  'snapshot-entries': { type: 'string' },
  ...RUN_METRICS_OPTIONS,
} as const;

/** The probe log, for the messages about --log. */
const PROBE_LOG: UserFileKind = {
  role: 'probe-log',
  advice: 'run-log',
  example: 'probe.jsonl',
};

/**
 * How long the record waits, once the command has exited, for ranks of other hosts (a multi-node run
 * whose nodes write into one shared --log folder) to write their `end` lines.
 */
export const REMOTE_RANKS_GRACE_MS = 30_000;

/** How long the command gets after Ctrl-C before SIGTERM, and after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 10_000;

/** CUDA_VISIBLE_DEVICES as a list of indices or UUIDs; null when unset (every GPU). */
export function visibleGpus(env: NodeJS.ProcessEnv): string[] | null {
  return visibleGpusOf(env.CUDA_VISIBLE_DEVICES);
}

const SIGNALS = constants.signals as Readonly<Record<string, number>>;

type Values = ReturnType<typeof parseFlags<typeof OPTIONS>>['values'];

/** What the run's output needs: the language, the style of stderr, and a line writer on it. */
interface Voice {
  readonly lang: Lang;
  readonly err: Style;
  readonly say: (text: string) => void;
}

/** A warning before launch on stderr: the words and what to try. */
function warn(voice: Voice, warning: PrelaunchWarning): void {
  const text = sayWords(RUN_PRELAUNCH, voice.lang, warning);
  const hint = sayWords(RUN_PRELAUNCH_HINTS, voice.lang, warning);
  voice.say(
    `${voice.err.yellow(w(voice.lang, { code: 'warning', params: { text } }))}\n${w(voice.lang, { code: 'try', params: { hint } })}`,
  );
}

/** A run's scenario, its estimate, and what the estimate needs free on each GPU. */
interface PlannedScenario {
  readonly scenario: Record<string, unknown>;
  readonly estimated: EstimatedPeak;
  readonly neededBytes: number;
}

/**
 * The scenario, when one was given, with the allocator setting the training inherits, and its
 * estimate: what the free memory is checked against.
 */
async function scenarioEstimate(
  values: Values,
  allocator: AllocatorSetting,
  voice: Voice,
): Promise<PlannedScenario | null> {
  const hasScenario =
    values.from !== undefined ||
    Object.keys(SCENARIO_OPTIONS).some((k) => values[k as keyof typeof values] !== undefined);
  if (!hasScenario) return null;
  const loaded = await loadScenario(values, undefined, 'run');
  // The training inherits this environment: an allocator setting there is part of the run's setup.
  const runScenario = withAllocatorSetting(
    loaded.scenario,
    allocator.value,
    values['no-expandable-segments'] === true,
  );
  if (runScenario !== loaded.scenario)
    voice.say(
      voice.err.dim(
        w(voice.lang, { code: 'allocator-expandable', params: { variable: allocator.variable } }),
      ),
    );
  const result = estimate({
    scenario: runScenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    gpu: loaded.gpu,
  });
  return {
    scenario: runScenario as unknown as Record<string, unknown>,
    estimated: {
      allocatedBytes: result.peak.allocatedBytes,
      reservedBytes: result.peak.reservedBytes,
      deviceBytes: result.peak.deviceBytes,
      // Kept with the run: /metrics exposes it as headroom_run_upper_bytes.
      upper: {
        allocatedBytes: result.upper.allocatedBytes,
        reservedBytes: result.upper.reservedBytes,
        deviceBytes: result.upper.deviceBytes,
      },
    },
    neededBytes: requiredDeviceBytes(result),
  };
}

/**
 * Where the command's stdout goes under --json: our stderr's own descriptor when it has one (a terminal
 * stays a terminal, so the training's prints are not held in a pipe's buffer), else a pipe we relay.
 */
function stdoutForJson(ctx: CommandContext): number | 'pipe' {
  const fd = (ctx.stderr as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : 'pipe';
}

/**
 * Ctrl-C reaches the command too (same process group): the first gives it time to stop cleanly, then
 * SIGTERM and SIGKILL follow; a second Ctrl-C sends SIGTERM now, a third SIGKILL. SIGTERM or SIGHUP to
 * headroom is passed on. Returns how many interrupts there were so far and the undo.
 */
function forwardSignals(
  child: { kill: (signal: NodeJS.Signals) => boolean },
  voice: Voice,
): { interrupts: () => number; release: () => void } {
  let interrupts = 0;
  const timers: NodeJS.Timeout[] = [];
  const stopChild = (signal: NodeJS.Signals) => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  };
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      voice.say(voice.err.yellow(w(voice.lang, { code: 'stopping', params: {} })));
      timers.push(setTimeout(() => stopChild('SIGTERM'), STOP_GRACE_MS));
      timers.push(setTimeout(() => stopChild('SIGKILL'), 2 * STOP_GRACE_MS));
    } else if (interrupts === 2) {
      stopChild('SIGTERM');
    } else {
      stopChild('SIGKILL');
    }
  };
  const onTerminate = (signal: NodeJS.Signals) => () => {
    interrupts++;
    stopChild(signal);
    timers.push(setTimeout(() => stopChild('SIGKILL'), STOP_GRACE_MS));
  };
  const onTerm = onTerminate('SIGTERM');
  const onHup = onTerminate('SIGHUP');
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  return {
    interrupts: () => interrupts,
    release: () => {
      for (const t of timers) clearTimeout(t);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
    },
  };
}

/** Warns before launch; refuses to start under --strict; says which GPUs have room for the estimate. */
function checkBeforeLaunch(voice: Voice, verdict: PrelaunchVerdict): void {
  const { lang } = voice;
  for (const warning of verdict.warnings) warn(voice, warning);
  if (verdict.refuse) {
    throw new HeadroomUserError({
      code: 'unsupported',
      message: w(lang, {
        code: 'strict-refusal',
        params: { warnings: verdict.warnings.map((x) => sayWords(RUN_PRELAUNCH, lang, x)) },
      }),
      hint: w(lang, {
        code: 'strict-refusal-hint',
        params: { hint: sayWords(RUN_PRELAUNCH_HINTS, lang, verdict.warnings[0]!) },
      }),
    });
  }
  for (const fit of verdict.fits) voice.say(voice.err.dim(w(lang, { code: 'gpu-fits', params: fit })));
}

/** The run in the ledger before its command starts: its record, its folder, its files, the warnings. */
function recordRun(
  ledger: Ledger,
  options: {
    readonly values: Values;
    readonly command: readonly string[];
    readonly env: NodeJS.ProcessEnv;
    readonly planned: PlannedScenario | null;
    readonly allocator: AllocatorSetting;
    readonly reading: GpuReading | null;
    readonly warnings: readonly PrelaunchWarning[];
  },
): { runId: number; startedAtMs: number; logPath: string; stderrPath: string } {
  const { values, planned } = options;
  const startedAtMs = Date.now();
  const { id: runId } = ledger.createRun({
    name: typeof values.name === 'string' ? values.name : null,
    command: options.command,
    cwd: process.cwd(),
    host: hostname(),
    scenario: planned?.scenario ?? null,
    estimate: planned?.estimated ?? null,
    env: launchEnv({
      platform: process.platform,
      node: process.version,
      cudaVisibleDevices: options.env.CUDA_VISIBLE_DEVICES,
      allocator: options.allocator,
      reading: options.reading,
    }),
    startedAtMs,
    monitorPid: process.pid,
  });
  const runDir = ledger.runDir(runId);
  mkdirSync(runDir, { recursive: true });
  const logPath = typeof values.log === 'string' ? resolve(values.log) : join(runDir, 'probe.jsonl');
  const stderrPath = join(runDir, 'stderr.log');
  ledger.updateRun(runId, { logPath, stderrPath });
  for (const warning of options.warnings) {
    // The English words and hint stay in the event's data, where headroom has always kept them.
    const extra = {
      message: sayWords(RUN_PRELAUNCH, 'en', warning),
      hint: sayWords(RUN_PRELAUNCH_HINTS, 'en', warning),
    };
    ledger.addEvent(runId, {
      tMs: startedAtMs,
      ...storedEvent({ code: 'prelaunch', params: { warning } }, extra),
    });
  }
  return { runId, startedAtMs, logPath, stderrPath };
}

/**
 * Starts the command with the probe's log named and importable, its stderr into a file we relay (it
 * never meets a closed pipe if headroom dies). A command that cannot start is recorded as failed and
 * is the user's error.
 */
async function startCommand(
  ctx: CommandContext,
  ledger: Ledger,
  voice: Voice,
  options: {
    readonly command: readonly string[];
    readonly runId: number;
    readonly logPath: string;
    readonly stderrPath: string;
    readonly json: boolean;
    readonly snapshot: SnapshotRecording | null;
  },
): Promise<ChildProcess> {
  const { command, runId } = options;
  const { lang } = voice;
  const stderrFd = openSync(options.stderrPath, 'a');
  const childEnv: NodeJS.ProcessEnv = {
    ...ctx.env,
    HEADROOM_LOG: options.logPath,
    HEADROOM_RUN_ID: String(runId),
    // --snapshot: the probe records memory history and writes the snapshot on an OOM.
    ...(options.snapshot ? { HEADROOM_SNAPSHOT: options.snapshot.env } : {}),
    PYTHONPATH: [probeDir(), ctx.env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(delimiter),
  };
  // With --json our stdout is the record alone (so `headroom run --json -- … | jq` parses): the
  // command's own stdout goes to our stderr, where the user still sees it.
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['inherit', options.json ? stdoutForJson(ctx) : 'inherit', stderrFd],
    env: childEnv,
  });
  if (options.json && child.stdout) child.stdout.pipe(ctx.stderr, { end: false });
  closeSync(stderrFd);
  const spawnError = await new Promise<NodeJS.ErrnoException | null>((settle) => {
    child.once('spawn', () => settle(null));
    child.once('error', (error) => settle(error));
  });
  if (!spawnError) {
    ledger.updateRun(runId, { childPid: child.pid! });
    return child;
  }
  const event: HeadroomEvent = {
    code: 'spawn-error',
    params: {
      program: command[0]!,
      reason: spawnFailure(spawnError.code),
      detail: spawnError.code ?? spawnError.message,
    },
  };
  ledger.addEvent(runId, {
    tMs: Date.now(),
    ...storedEvent(event, { code: spawnError.code ?? null, command }),
  });
  ledger.updateRun(runId, { status: 'failed', endedAtMs: Date.now() });
  throw new HeadroomUserError({
    code: 'bad-flag',
    where: command[0]!,
    message: w(lang, { code: 'cannot-start', params: { ...event.params, runId } }),
    hint: w(lang, { code: 'cannot-start-hint', params: { runId } }),
  });
}

/** What is known when the command has exited. */
interface Ended {
  readonly exit: ProcessExit;
  readonly interrupts: number;
  readonly stderrTail: string;
  readonly oomSeen: boolean;
}

/** Stores how the run ended (its end events and status) and says so: the summary, or the record as JSON. */
function recordEnd(
  ctx: CommandContext,
  ledger: Ledger,
  voice: Voice,
  runId: number,
  json: boolean,
  ended: Ended,
): number {
  const endedAtMs = Date.now();
  const oomText = findOomInStderr(ended.stderrTail);
  const exitCode = exitCodeOf(ended.exit, (signal) => SIGNALS[signal]);
  const { interrupts } = ended;
  for (const e of endEvents({ endedAtMs, stderrTail: ended.stderrTail, oomText, exitCode, interrupts })) {
    ledger.addEvent(
      runId,
      e.kind === 'interrupted'
        ? { tMs: e.tMs, ...storedEvent({ code: 'interrupted', params: { interrupts } }) }
        : e,
    );
  }
  const signal = ended.exit.signal;
  const status = runStatus({ exitCode, signal, interrupts, oomSeen: ended.oomSeen || oomText !== null });
  ledger.updateRun(runId, { status, exitCode, signal, endedAtMs });
  const final = ledger.getRun(runId)!;
  if (json) {
    ctx.stdout.write(`${JSON.stringify(runJson(final, endedAtMs))}\n`);
  } else {
    voice.say('');
    voice.say(
      renderRunSummary(
        final,
        runGrowth(ledger, final),
        ledger.events(runId),
        voice.err,
        endedAtMs,
        voice.lang,
      ),
    );
    voice.say(voice.err.dim(w(voice.lang, { code: 'recorded-as', params: { runId } })));
  }
  return exitCode;
}

/** Runs the command; returns its exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const sep = args.indexOf('--');
  const own = sep < 0 ? args : args.slice(0, sep);
  const command = sep < 0 ? [] : args.slice(sep + 1);
  const { values } = parseFlags(own, OPTIONS, 'run', 0);
  const lang = langFromFlag(values.lang, ctx.env);
  if (command.length === 0) {
    throw fileError('missing-argument', { command: 'run', needs: 'command', ref: '' }, 'COMMAND', 'bad-flag');
  }
  // The probe writes --log FILE: a folder there would fail in the training, after its start-up.
  if (typeof values.log === 'string') refuseFolder(values.log, PROBE_LOG);
  const snapshot = snapshotRecording({
    snapshot: values.snapshot === true,
    entries: countFlag(values, 'snapshot-entries') ?? null,
  });
  const { intervalMs, statusEveryMs, queryTimeoutMs } = liveTimings(values, ctx.env);
  const err = styleFor(ctx.stderr, ctx.env);
  const voice: Voice = { lang, err, say: (text) => ctx.stderr.write(`${text}\n`) };
  const allocator = allocatorSetting(ctx.env);
  const planned = await scenarioEstimate(values, allocator, voice);

  const ledger = Ledger.open(headroomHome(ctx.env));
  // --metrics-port listens before the command starts: a port in use stops it with nothing recorded.
  const metrics = await startRunMetrics(values['metrics-port'], (text) => voice.say(err.dim(text))).catch(
    (error: unknown) => {
      ledger.close();
      throw error;
    },
  );
  try {
    const visible = visibleGpus(ctx.env);
    const reading = values['no-smi'] ? null : await queryNvidiaSmi({ env: ctx.env }, queryTimeoutMs);
    const verdict: PrelaunchVerdict = reading
      ? prelaunchChecks({
          reading,
          visible,
          neededBytes: planned?.neededBytes ?? null,
          strict: values.strict === true,
        })
      : { warnings: [], fits: [], refuse: false };
    checkBeforeLaunch(voice, verdict);
    const { runId, startedAtMs, logPath, stderrPath } = recordRun(ledger, {
      values,
      command,
      env: ctx.env,
      planned,
      allocator,
      reading,
      warnings: verdict.warnings,
    });
    metrics.follow(ledger.home, runId);
    const json = values.json === true;
    if (snapshot) {
      const note = { entries: snapshot.entries, dir: dirname(logPath) };
      voice.say(err.dim(sayWords(RUN_SNAPSHOT, lang, { code: 'recording', params: note })));
    }
    const child = await startCommand(ctx, ledger, voice, {
      command,
      runId,
      logPath,
      stderrPath,
      json,
      snapshot,
    });
    const exited = new Promise<ProcessExit>((settle) =>
      child.once('exit', (code, signal) => settle({ code, signal })),
    );

    // The live view: a pinned status line on a terminal, a plain line now and then otherwise.
    const { recorder, bar, tick, tickMs } = startLiveView({
      ctx,
      err,
      say: voice.say,
      lang,
      ledger,
      runId,
      logPath,
      query: reading,
      intervalMs,
      visibleGpus: visible,
      startedAtMs,
      statusEveryMs,
      pid: child.pid!,
    });
    const relay = new StderrRelay(stderrPath, ctx.stderr);
    relay.start();
    // A plain line waits until the command's stderr is at a line start.
    const ticker = setInterval(() => tick(relay.atLineStart), tickMs);
    const signals = forwardSignals(child, voice);
    let exit: ProcessExit;
    try {
      exit = await exited;
      // Ranks of other nodes writing into a shared --log folder end a little after this node's.
      await recorder.remoteWritersDone(REMOTE_RANKS_GRACE_MS);
    } finally {
      clearInterval(ticker);
      signals.release();
      bar?.stop();
      relay.stop();
      await recorder.finish();
    }
    const ended: Ended = {
      exit,
      interrupts: signals.interrupts(),
      stderrTail: relay.tail(),
      oomSeen: recorder.live.oomSeen,
    };
    try {
      return recordEnd(ctx, ledger, voice, runId, json, ended);
    } catch (error) {
      // The training is over and its exit code is the user's: a ledger that cannot take the end (a full
      // or read-only disk) is said, not turned into a failure of the run.
      if (isUserError(error)) throw error;
      const failure = recordingErrorOf(error);
      voice.say(
        err.yellow(w(lang, { code: 'recording-failed', params: { code: failure.code, home: ledger.home } })),
      );
      return exitCodeOf(exit, (signal) => SIGNALS[signal]);
    }
  } finally {
    ledger.close();
    await metrics.close();
  }
}

/** `headroom run -- COMMAND…`: run a training command and record it on all three layers. */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { constants, hostname } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { HeadroomUserError } from '../core/errors.js';
import { estimate } from '../core/estimate.js';
import { requiredDeviceBytes } from '../core/margin.js';
import type { SmiComputeApp, SmiGpuRow } from '../core/nvidia-smi.js';
import type { EstimatedPeak, RunStatus } from '../core/run-record.js';
import { withAllocatorSetting } from '../core/scenario.js';
import { findOomInStderr } from '../core/stderr-oom.js';
import { formatBytes, MIB } from '../core/units.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { probeDir } from '../io/probe-path.js';
import {
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_SAMPLE_INTERVAL_MS,
  type QueryResult,
  queryNvidiaSmi,
} from '../io/sampler.js';
import { StderrRelay } from '../io/stderr-capture.js';
import { refuseFolder, type UserFileKind } from '../io/user-file.js';
import { type CommandContext, parseFlags } from './_command.js';
import { liveTimings, startLiveView } from './_live-view.js';
import { styleFor } from './_output.js';
import { RUN_METRICS_HELP, RUN_METRICS_OPTIONS, startRunMetrics } from './_run-metrics.js';
import { SCENARIO_FLAGS_HELP, SCENARIO_OPTIONS } from './_scenario-flags.js';
import { FROM_HELP, loadScenario, SCENARIO_INPUT_OPTIONS } from './_scenario-input.js';
import { renderRunSummary, runJson } from './render-run.js';

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
${RUN_METRICS_HELP}

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
  name: { type: 'string' },
  strict: { type: 'boolean' },
  'interval-ms': { type: 'string' },
  'no-smi': { type: 'boolean' },
  'status-every': { type: 'string' },
  log: { type: 'string' },
  json: { type: 'boolean' },
  ...RUN_METRICS_OPTIONS,
} as const;

/** The probe log, for the messages about --log. */
const PROBE_LOG: UserFileKind = {
  what: 'probe log',
  example: 'probe.jsonl',
  hint: 'give --log a file name (or leave it out: the run gets its own in HEADROOM_HOME)',
};

/** How long the command gets after Ctrl-C before SIGTERM, and after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 10_000;
/** Used memory on a GPU with no process listed that counts as someone else's (a driver alone holds far less). */
export const UNLISTED_USE_BYTES = 1024 * MIB;
/** How much of the end of a failed command's stderr is kept as an event. */
export const STDERR_TAIL_EVENT_CHARS = 16_384;

interface Warning {
  readonly code: string;
  readonly message: string;
  readonly hint: string;
}

/** CUDA_VISIBLE_DEVICES as a list of indices or UUIDs; null when unset (every GPU). */
export function visibleGpus(env: NodeJS.ProcessEnv): string[] | null {
  const raw = env.CUDA_VISIBLE_DEVICES;
  if (raw === undefined) return null;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function targetGpus(gpus: readonly SmiGpuRow[], visible: readonly string[] | null): SmiGpuRow[] {
  if (visible === null) return [...gpus];
  return gpus.filter((g) => visible.some((v) => v === String(g.index) || (g.uuid !== null && v === g.uuid)));
}

/** The checks before launch: other processes on the GPUs, free memory against the estimate. */
export function prelaunchWarnings(
  query: QueryResult,
  visible: readonly string[] | null,
  /** What the estimate must have on the GPU (requiredDeviceBytes), when a scenario was given. */
  neededBytes: number | null,
): Warning[] {
  if (!query.ok) {
    return [
      {
        code: `nvidia-smi-${query.problem.code}`,
        message: `${query.problem.message}; the GPUs could not be checked`,
        hint: query.problem.hint,
      },
    ];
  }
  const warnings: Warning[] = [];
  for (const gpu of targetGpus(query.gpus, visible)) {
    const label = `GPU ${gpu.index}${gpu.name ? ` (${gpu.name})` : ''}`;
    const others: SmiComputeApp[] = query.processes.filter(
      (p) => p.gpuUuid !== null && p.gpuUuid === gpu.uuid,
    );
    if (others.length > 0) {
      const list = others
        .map(
          (p) =>
            `${p.pid ?? '?'} ${p.name ?? '?'}${p.usedMiB === null ? '' : ` ${formatBytes(p.usedMiB * MIB)}`}`,
        )
        .join(', ');
      warnings.push({
        code: 'foreign-processes',
        message: `${label} already has ${others.length} process${others.length === 1 ? '' : 'es'} that ${others.length === 1 ? 'is' : 'are'} not this run's: ${list}`,
        hint: `if ${others.length === 1 ? 'it is a leftover' : 'they are leftovers'} of an earlier run, stop ${others.length === 1 ? 'it' : 'them'} (kill ${others.map((p) => p.pid).join(' ')}); or pick another GPU with CUDA_VISIBLE_DEVICES`,
      });
    } else if (gpu.memoryUsedMiB !== null && gpu.memoryUsedMiB * MIB >= UNLISTED_USE_BYTES) {
      warnings.push({
        code: 'unlisted-use',
        message: `${label} has ${formatBytes(gpu.memoryUsedMiB * MIB)} in use but lists no process: something in another container or PID namespace holds it`,
        hint: 'check nvidia-smi on the host, or pick another GPU with CUDA_VISIBLE_DEVICES',
      });
    }
    if (neededBytes !== null && gpu.memoryFreeMiB !== null && gpu.memoryFreeMiB * MIB < neededBytes) {
      warnings.push({
        code: 'low-free-memory',
        message: `${label} has ${formatBytes(gpu.memoryFreeMiB * MIB)} free; the estimate needs ${formatBytes(neededBytes)} per GPU (nvidia-smi level)`,
        hint: 'free the GPU, or change the setup until headroom estimate fits (smaller micro-batch, checkpointing, LoRA/QLoRA)',
      });
    }
  }
  return warnings;
}

const SIGNALS = constants.signals as Readonly<Record<string, number>>;

/**
 * Where the command's stdout goes under --json: our stderr's own descriptor when it has one (a terminal
 * stays a terminal, so the training's prints are not held in a pipe's buffer), else a pipe we relay.
 */
function stdoutForJson(ctx: CommandContext): number | 'pipe' {
  const fd = (ctx.stderr as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : 'pipe';
}

/** Runs the command; returns its exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const sep = args.indexOf('--');
  const own = sep < 0 ? args : args.slice(0, sep);
  const command = sep < 0 ? [] : args.slice(sep + 1);
  const { values } = parseFlags(own, OPTIONS, 'run', 0);
  if (command.length === 0) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: 'COMMAND',
      message: 'run needs a command after --',
      hint: 'headroom run -- python train.py',
    });
  }
  // The probe writes --log FILE: a folder there would fail in the training, after its start-up.
  if (typeof values.log === 'string') refuseFolder(values.log, PROBE_LOG);
  const { intervalMs, statusEveryMs, queryTimeoutMs } = liveTimings(values, ctx.env);
  const err = styleFor(ctx.stderr, ctx.env);
  const say = (text: string) => ctx.stderr.write(`${text}\n`);

  // A scenario is optional: it gives the estimate to check free memory against.
  const hasScenario =
    values.from !== undefined ||
    Object.keys(SCENARIO_OPTIONS).some((k) => values[k as keyof typeof values] !== undefined);
  let scenario: Record<string, unknown> | null = null;
  let estimated: EstimatedPeak | null = null;
  let neededBytes: number | null = null;
  // PyTorch reads PYTORCH_ALLOC_CONF and falls back to PYTORCH_CUDA_ALLOC_CONF, the name before 2.9,
  // only when it is unset (c10/core/AllocatorConfig.cpp, AllocatorConfig::instance). A torch older
  // than 2.9 reads the old name alone; which torch the training imports is known only later.
  const allocVar =
    ctx.env.PYTORCH_ALLOC_CONF !== undefined ? 'PYTORCH_ALLOC_CONF' : 'PYTORCH_CUDA_ALLOC_CONF';
  const allocConf = ctx.env[allocVar];
  if (hasScenario) {
    const loaded = await loadScenario(values, undefined, 'run');
    // The training inherits this environment: an allocator setting there is part of the run's setup.
    const runScenario = withAllocatorSetting(
      loaded.scenario,
      allocConf,
      values['no-expandable-segments'] === true,
    );
    if (runScenario !== loaded.scenario)
      say(err.dim(`headroom: ${allocVar} sets expandable_segments:True; the estimate counts it`));
    const result = estimate({
      scenario: runScenario,
      shape: loaded.model.shape,
      exactParams: loaded.model.exactParams,
      gpu: loaded.gpu,
    });
    scenario = runScenario as unknown as Record<string, unknown>;
    estimated = {
      allocatedBytes: result.peak.allocatedBytes,
      reservedBytes: result.peak.reservedBytes,
      deviceBytes: result.peak.deviceBytes,
    };
    neededBytes = requiredDeviceBytes(result);
  }

  const ledger = Ledger.open(headroomHome(ctx.env));
  // --metrics-port listens before the command starts: a port in use stops it with nothing recorded.
  const metrics = await startRunMetrics(values['metrics-port'], (text) => say(err.dim(text))).catch(
    (error: unknown) => {
      ledger.close();
      throw error;
    },
  );
  try {
    const visible = visibleGpus(ctx.env);
    const query: QueryResult | null = values['no-smi']
      ? null
      : await queryNvidiaSmi({ env: ctx.env }, queryTimeoutMs);
    const warnings = query ? prelaunchWarnings(query, visible, neededBytes) : [];
    for (const w of warnings) say(`${err.yellow(`headroom: ⚠ ${w.message}`)}\n  Try: ${w.hint}`);
    if (values.strict && warnings.length > 0) {
      throw new HeadroomUserError({
        code: 'unsupported',
        message: `refusing to start (--strict): ${warnings.map((w) => w.message).join('; ')}`,
        hint: `${warnings[0]!.hint}; or run without --strict to start anyway`,
      });
    }
    if (neededBytes !== null && query?.ok) {
      for (const gpu of targetGpus(query.gpus, visible)) {
        if (gpu.memoryFreeMiB !== null && gpu.memoryFreeMiB * MIB >= neededBytes) {
          say(
            err.dim(
              `headroom: GPU ${gpu.index} has ${formatBytes(gpu.memoryFreeMiB * MIB)} free for an estimated ${formatBytes(neededBytes)}`,
            ),
          );
        }
      }
    }

    const startedAtMs = Date.now();
    const record = ledger.createRun({
      name: typeof values.name === 'string' ? values.name : null,
      command,
      cwd: process.cwd(),
      host: hostname(),
      scenario,
      estimate: estimated,
      env: {
        platform: process.platform,
        node: process.version,
        cudaVisibleDevices: ctx.env.CUDA_VISIBLE_DEVICES ?? null,
        pytorchAllocConf: allocConf ?? null,
        pytorchAllocConfVariable: allocConf === undefined ? null : allocVar,
        nvidiaSmi: query === null ? 'off' : query.ok ? 'ok' : query.problem.code,
        gpus: query?.ok
          ? query.gpus.map((g) => ({
              index: g.index,
              name: g.name,
              uuid: g.uuid,
              totalBytes: g.memoryTotalMiB === null ? null : g.memoryTotalMiB * MIB,
              usedBytes: g.memoryUsedMiB === null ? null : g.memoryUsedMiB * MIB,
              freeBytes: g.memoryFreeMiB === null ? null : g.memoryFreeMiB * MIB,
            }))
          : [],
        otherProcesses: query?.ok
          ? query.processes.map((p) => ({ pid: p.pid, name: p.name, gpuUuid: p.gpuUuid, usedMiB: p.usedMiB }))
          : [],
      },
      startedAtMs,
      monitorPid: process.pid,
    });
    const runId = record.id;
    metrics.follow(ledger.home, runId);
    const runDir = ledger.runDir(runId);
    mkdirSync(runDir, { recursive: true });
    const logPath = typeof values.log === 'string' ? resolve(values.log) : join(runDir, 'probe.jsonl');
    const stderrPath = join(runDir, 'stderr.log');
    ledger.updateRun(runId, { logPath, stderrPath });
    for (const w of warnings) {
      ledger.addEvent(runId, {
        tMs: startedAtMs,
        kind: 'prelaunch',
        source: 'headroom',
        message: w.message,
        data: { ...w },
      });
    }

    // The command writes its stderr to a file we relay: it never meets a closed pipe if headroom dies.
    const stderrFd = openSync(stderrPath, 'a');
    const childEnv: NodeJS.ProcessEnv = {
      ...ctx.env,
      HEADROOM_LOG: logPath,
      HEADROOM_RUN_ID: String(runId),
      PYTHONPATH: [probeDir(), ctx.env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(delimiter),
    };
    // With --json our stdout is the record alone (so `headroom run --json -- … | jq` parses): the
    // command's own stdout goes to our stderr, where the user still sees it.
    const child = spawn(command[0]!, command.slice(1), {
      stdio: ['inherit', values.json ? stdoutForJson(ctx) : 'inherit', stderrFd],
      env: childEnv,
    });
    if (values.json && child.stdout) child.stdout.pipe(ctx.stderr, { end: false });
    closeSync(stderrFd);
    const spawnError = await new Promise<NodeJS.ErrnoException | null>((settle) => {
      child.once('spawn', () => settle(null));
      child.once('error', (error) => settle(error));
    });
    if (spawnError) {
      const reason =
        spawnError.code === 'ENOENT'
          ? 'not found (not on PATH, or no such file)'
          : spawnError.code === 'EACCES'
            ? 'not executable (permission denied)'
            : (spawnError.code ?? spawnError.message);
      ledger.addEvent(runId, {
        tMs: Date.now(),
        kind: 'spawn-error',
        source: 'headroom',
        message: `cannot start ${command[0]}: ${reason}`,
        data: { code: spawnError.code ?? null, command },
      });
      ledger.updateRun(runId, { status: 'failed', endedAtMs: Date.now() });
      throw new HeadroomUserError({
        code: 'bad-flag',
        where: command[0]!,
        message: `cannot start "${command[0]}": ${reason} (recorded as run ${runId})`,
        hint: `check the command after --, e.g. headroom run -- python3 train.py; headroom runs rm ${runId} drops the record`,
      });
    }
    const childPid = child.pid!;
    ledger.updateRun(runId, { childPid });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((settle) =>
      child.once('exit', (code, signal) => settle({ code, signal })),
    );

    // The live view: a pinned status line on a terminal, a plain line now and then otherwise.
    const { recorder, bar, tick, tickMs } = startLiveView({
      ctx,
      err,
      say,
      ledger,
      runId,
      logPath,
      query,
      intervalMs,
      visibleGpus: visible,
      startedAtMs,
      statusEveryMs,
      pid: childPid,
    });
    const relay = new StderrRelay(stderrPath, ctx.stderr);
    relay.start();
    // A plain line waits until the command's stderr is at a line start.
    const ticker = setInterval(() => tick(relay.atLineStart), tickMs);

    // Ctrl-C reaches the command too (same process group): give it time to stop cleanly.
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
        say(
          err.yellow(
            '\nheadroom: stopping the command (Ctrl-C again to terminate it now); the record is kept',
          ),
        );
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

    let outcome: { code: number | null; signal: NodeJS.Signals | null };
    try {
      outcome = await exited;
    } finally {
      clearInterval(ticker);
      for (const t of timers) clearTimeout(t);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      bar?.stop();
      relay.stop();
      await recorder.finish();
    }

    const endedAtMs = Date.now();
    const tail = relay.tail();
    const oomText = findOomInStderr(tail);
    if (oomText) {
      ledger.addEvent(runId, {
        tMs: endedAtMs,
        kind: 'oom-text',
        source: 'stderr',
        message: oomText.message,
        data: { ...oomText },
      });
    }
    const exitCode = outcome.code ?? (outcome.signal ? 128 + (SIGNALS[outcome.signal] ?? 0) : 1);
    if (exitCode !== 0 && tail.trim() !== '') {
      ledger.addEvent(runId, {
        tMs: endedAtMs,
        kind: 'stderr-tail',
        source: 'stderr',
        message: null,
        data: { text: tail.slice(-STDERR_TAIL_EVENT_CHARS) },
      });
    }
    if (interrupts > 0) {
      ledger.addEvent(runId, {
        tMs: endedAtMs,
        kind: 'interrupted',
        source: 'headroom',
        message: 'stopped by Ctrl-C or a signal to headroom',
        data: { interrupts },
      });
    }
    const status: RunStatus =
      exitCode === 0
        ? 'ok'
        : interrupts > 0
          ? 'killed'
          : recorder.live.oomSeen || oomText
            ? 'oom'
            : outcome.signal
              ? 'killed'
              : 'failed';
    ledger.updateRun(runId, { status, exitCode, signal: outcome.signal, endedAtMs });
    const final = ledger.getRun(runId)!;
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify(runJson(final, endedAtMs))}\n`);
    } else {
      say('');
      say(renderRunSummary(final, ledger.steps(runId), ledger.events(runId), err, endedAtMs));
      say(err.dim(`  recorded as run ${runId}: headroom runs show ${runId}`));
    }
    return exitCode;
  } finally {
    ledger.close();
    await metrics.close();
  }
}

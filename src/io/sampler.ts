/**
 * The system layer: GPU memory as nvidia-smi reports it, read from two long-lived loops
 * (`--query-gpu=… -lms N` and `--query-compute-apps=… -lms N`, CSV without header or units) rather
 * than one process per sample (data/docs/MONITORING.md §A2: a call costs tens of milliseconds).
 * A missing, failing or hanging nvidia-smi becomes a SamplerProblem, never an exception: the probe
 * layer goes on without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parseComputeApps, parseGpuQuery, type SmiComputeApp, type SmiGpuRow } from '../core/nvidia-smi.js';

/** What the sampler asks for per GPU (`memory.reserved` is dropped on drivers that do not know it). */
export const SAMPLER_GPU_FIELDS = [
  'timestamp',
  'index',
  'uuid',
  'name',
  'memory.total',
  'memory.reserved',
  'memory.used',
  'memory.free',
  'utilization.gpu',
] as const;
/** What the sampler asks for per process. */
export const SAMPLER_APP_FIELDS = [
  'timestamp',
  'gpu_uuid',
  'pid',
  'process_name',
  'used_gpu_memory',
] as const;
export const DEFAULT_SAMPLE_INTERVAL_MS = 500;
/** A one-off query that takes longer than this is reported as hung. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** Times a loop that died or hung is started again before the sampler gives up. */
export const MAX_LOOP_RESTARTS = 3;
/** First wait before a restart (at least one interval); doubles each time. */
export const RESTART_BACKOFF_MS = 250;

export type SamplerProblemCode = 'not-found' | 'failed' | 'hung' | 'bad-output' | 'gave-up';

/** Something wrong with nvidia-smi, as data. */
export interface SamplerProblem {
  readonly code: SamplerProblemCode;
  readonly message: string;
  readonly hint: string;
}

export interface GpuSnapshot {
  /** When it was read (ms since the epoch, this machine's clock). */
  readonly tMs: number;
  readonly gpus: readonly SmiGpuRow[];
}

export interface AppsSnapshot {
  readonly tMs: number;
  readonly processes: readonly SmiComputeApp[];
}

export interface SmiCommand {
  /** The executable (default `nvidia-smi`, looked up on env.PATH). */
  readonly command?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const NOT_FOUND_HINT =
  'install the NVIDIA driver utilities or put nvidia-smi on PATH; the probe layer (torch allocated and reserved) is recorded without it';
const UNSUPPORTED_FIELD = /not a valid field/i;

function spawnProblem(error: NodeJS.ErrnoException, command: string): SamplerProblem {
  if (error.code === 'ENOENT') {
    return {
      code: 'not-found',
      message: `${command} was not found on PATH: GPU memory as the system sees it is not recorded`,
      hint: NOT_FOUND_HINT,
    };
  }
  return {
    code: 'failed',
    message: `${command} could not be started (${error.code ?? error.message})`,
    hint: 'check that nvidia-smi is executable',
  };
}

function exitProblem(
  command: string,
  code: number | null,
  signal: string | null,
  output: string,
): SamplerProblem {
  const said =
    output
      .trim()
      .split('\n')
      .find((l) => l.trim() !== '') ?? '';
  return {
    code: 'failed',
    message: `${command} exited with ${code !== null ? `code ${code}` : `signal ${signal}`}${said ? `: ${said.trim()}` : ''}`,
    hint: 'run nvidia-smi yourself to see what the driver says (a driver/library version mismatch needs a reboot or a driver reinstall)',
  };
}

function hungProblem(command: string, ms: number): SamplerProblem {
  return {
    code: 'hung',
    message: `${command} printed nothing for ${(ms / 1000).toFixed(1)} s and was stopped`,
    hint: 'nvidia-smi hangs when the driver is stuck (check dmesg for Xid errors); the probe layer is still recorded',
  };
}

export type QueryResult =
  | {
      readonly ok: true;
      readonly tMs: number;
      readonly gpus: readonly SmiGpuRow[];
      readonly processes: readonly SmiComputeApp[];
      /** The GPU fields the driver accepted (what the sampler should ask for). */
      readonly gpuFields: readonly string[];
    }
  | { readonly ok: false; readonly problem: SamplerProblem };

function runOnce(
  args: readonly string[],
  cmd: SmiCommand,
  timeoutMs: number,
): Promise<{ ok: true; stdout: string } | { ok: false; problem: SamplerProblem; output: string }> {
  const command = cmd.command ?? 'nvidia-smi';
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, { env: cmd.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ ok: false, problem: spawnProblem(error as NodeJS.ErrnoException, command), output: '' });
      return;
    }
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (value: Awaited<ReturnType<typeof runOnce>>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ ok: false, problem: hungProblem(command, timeoutMs), output: stdout + stderr });
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (error) => finish({ ok: false, problem: spawnProblem(error, command), output: '' }));
    child.on('close', (code, signal) => {
      if (code === 0) finish({ ok: true, stdout });
      else
        finish({
          ok: false,
          problem: exitProblem(command, code, signal, stdout + stderr),
          output: stdout + stderr,
        });
    });
  });
}

/** One reading of every GPU and compute process (for the checks before a launch). */
export async function queryNvidiaSmi(
  cmd: SmiCommand = {},
  timeoutMs: number = DEFAULT_QUERY_TIMEOUT_MS,
): Promise<QueryResult> {
  let gpuFields: string[] = [...SAMPLER_GPU_FIELDS];
  const format = '--format=csv,noheader,nounits';
  let gpu = await runOnce([`--query-gpu=${gpuFields.join(',')}`, format], cmd, timeoutMs);
  if (!gpu.ok && UNSUPPORTED_FIELD.test(gpu.output)) {
    gpuFields = gpuFields.filter((f) => f !== 'memory.reserved');
    gpu = await runOnce([`--query-gpu=${gpuFields.join(',')}`, format], cmd, timeoutMs);
  }
  if (!gpu.ok) return { ok: false, problem: gpu.problem };
  const apps = await runOnce(
    [`--query-compute-apps=${SAMPLER_APP_FIELDS.join(',')}`, format],
    cmd,
    timeoutMs,
  );
  if (!apps.ok) return { ok: false, problem: apps.problem };
  return {
    ok: true,
    tMs: Date.now(),
    gpus: parseGpuQuery(gpu.stdout, gpuFields).gpus,
    processes: parseComputeApps(stripNoProcesses(apps.stdout), SAMPLER_APP_FIELDS).processes,
    gpuFields,
  };
}

function stripNoProcesses(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*No running processes found/i.test(l))
    .join('\n');
}

export interface SamplerOptions extends SmiCommand {
  readonly intervalMs?: number;
  /** GPU fields to ask for (from queryNvidiaSmi's `gpuFields`); default SAMPLER_GPU_FIELDS. */
  readonly gpuFields?: readonly string[];
  /** A loop silent for this long is stopped and reported hung (default max(5 s, 10 intervals)). */
  readonly hangTimeoutMs?: number;
  readonly onGpus: (snapshot: GpuSnapshot) => void;
  readonly onApps: (snapshot: AppsSnapshot) => void;
  readonly onProblem: (problem: SamplerProblem) => void;
}

type LoopKind = 'gpu' | 'apps';

/** A running pair of nvidia-smi loops. */
export class NvidiaSmiSampler {
  private readonly options: SamplerOptions;
  private readonly intervalMs: number;
  private gpuFields: string[];
  private readonly loops = new Map<LoopKind, ChildProcess>();
  private readonly restarts: Record<LoopKind, number> = { gpu: 0, apps: 0 };
  private stopping = false;
  /** nvidia-smi is not there: neither loop starts again. */
  private notFound = false;
  private readonly gaveUp: Record<LoopKind, boolean> = { gpu: false, apps: false };
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Samples delivered so far. */
  readonly counts = { gpu: 0, apps: 0 };

  constructor(options: SamplerOptions) {
    this.options = options;
    this.intervalMs = Math.max(10, Math.round(options.intervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS));
    this.gpuFields = [...(options.gpuFields ?? SAMPLER_GPU_FIELDS)];
  }

  /** PIDs of the nvidia-smi loops (for measuring their cost). */
  pids(): number[] {
    return [...this.loops.values()].map((c) => c.pid).filter((p): p is number => p !== undefined);
  }

  start(): void {
    this.startLoop('gpu');
    this.startLoop('apps');
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private startLoop(kind: LoopKind): void {
    if (this.stopping || this.notFound || this.gaveUp[kind]) return;
    const command = this.options.command ?? 'nvidia-smi';
    const fields = kind === 'gpu' ? this.gpuFields : [...SAMPLER_APP_FIELDS];
    const args = [
      kind === 'gpu' ? `--query-gpu=${fields.join(',')}` : `--query-compute-apps=${fields.join(',')}`,
      '--format=csv,noheader,nounits',
      '-lms',
      String(this.intervalMs),
    ];
    // A process group of its own: the Ctrl-C a terminal sends to headroom's group is for the training,
    // which headroom goes on sampling while it stops; a loop killed by it would read as a driver fault.
    // stop() ends the loops, and a loop that outlives a killed headroom dies on its next write to the
    // closed pipe.
    const child = spawn(command, args, {
      env: this.options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.loops.set(kind, child);
    const hangMs = this.options.hangTimeoutMs ?? Math.max(5000, 10 * this.intervalMs);
    let lastOutput = Date.now();
    let output = '';
    let pending = '';
    let group: string[] = [];
    let groupKeys = new Set<string>();
    let flushTimer: NodeJS.Timeout | null = null;
    let badLines = 0;
    let hung = false;

    const flush = () => {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      if (group.length === 0) return;
      const text = group.join('\n');
      group = [];
      groupKeys = new Set();
      const tMs = Date.now();
      if (kind === 'gpu') {
        const { gpus, problems } = parseGpuQuery(text, fields);
        badLines += problems.length;
        this.reportBad(problems.length, badLines, problems[0]?.text);
        if (gpus.length > 0) {
          this.counts.gpu++;
          this.options.onGpus({ tMs, gpus });
        }
      } else {
        const { processes, problems } = parseComputeApps(text, fields);
        badLines += problems.length;
        this.reportBad(problems.length, badLines, problems[0]?.text);
        this.counts.apps++;
        this.options.onApps({ tMs, processes });
      }
    };

    const watchdog = setInterval(
      () => {
        if (Date.now() - lastOutput > hangMs) {
          hung = true;
          clearInterval(watchdog);
          this.options.onProblem(hungProblem(command, hangMs));
          child.kill('SIGKILL');
        }
      },
      Math.min(1000, hangMs / 4),
    );

    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      lastOutput = Date.now();
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        const line = raw.trim();
        if (line === '' || /^No running processes found/i.test(line)) continue;
        const cells = line.split(', ');
        // nvidia-smi prints its errors on stdout: keep lines that are not rows for the exit message.
        if (cells.length < fields.length && output.length < 4096) output += `${line}\n`;
        // One loop iteration prints each GPU (or each process on each GPU) once: a repeat starts the next.
        const key = kind === 'gpu' ? (cells[1] ?? line) : `${cells[1]}|${cells[2]}`;
        if (groupKeys.has(key)) flush();
        groupKeys.add(key);
        group.push(line);
      }
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = setTimeout(flush, Math.min(100, Math.max(5, this.intervalMs / 4)));
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (output.length < 4096) output += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearInterval(watchdog);
      this.loops.delete(kind);
      const problem = spawnProblem(error, command);
      if (problem.code === 'not-found') {
        // Report once for both loops.
        if (!this.notFound) this.options.onProblem(problem);
        this.notFound = true;
        return;
      }
      this.options.onProblem(problem);
    });
    child.on('close', (code, signal) => {
      clearInterval(watchdog);
      flush();
      if (this.loops.get(kind) === child) this.loops.delete(kind);
      if (this.stopping || this.notFound || this.gaveUp[kind]) return;
      if (kind === 'gpu' && UNSUPPORTED_FIELD.test(output) && this.gpuFields.includes('memory.reserved')) {
        // An older driver without memory.reserved: ask without it.
        this.gpuFields = this.gpuFields.filter((f) => f !== 'memory.reserved');
        this.startLoop(kind);
        return;
      }
      if (!hung) this.options.onProblem(exitProblem(command, code, signal, output));
      if (this.restarts[kind] >= MAX_LOOP_RESTARTS) {
        this.options.onProblem({
          code: 'gave-up',
          message: `${command} ${kind === 'gpu' ? '--query-gpu' : '--query-compute-apps'} stopped ${MAX_LOOP_RESTARTS + 1} times; it is not sampled for the rest of this run`,
          hint: 'the probe layer is still recorded; see the messages above for why nvidia-smi stopped',
        });
        this.gaveUp[kind] = true;
        return;
      }
      const backoff = Math.max(RESTART_BACKOFF_MS, this.intervalMs) * 2 ** this.restarts[kind];
      this.restarts[kind]++;
      this.later(() => this.startLoop(kind), backoff);
    });
  }

  private reportBad(count: number, total: number, example: string | undefined): void {
    // The first few bad lines are reported; a flood of them is not.
    if (count === 0 || total - count >= 3) return;
    this.options.onProblem({
      code: 'bad-output',
      message: `nvidia-smi printed a line headroom cannot read: ${JSON.stringify(example ?? '').slice(0, 200)}`,
      hint: 'please report it with your nvidia-smi --version',
    });
  }

  /** Stops both loops and waits for them to exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const exits = [...this.loops.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          child.once('close', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 2000).unref();
        }),
    );
    await Promise.all(exits);
    this.loops.clear();
  }
}

/**
 * Records one run into the ledger as it happens: follows the probe log (and its rank siblings),
 * runs the nvidia-smi sampler, tells the run's processes from others, and keeps a live view for the
 * status line. Used by `headroom run` and `headroom watch`.
 */
import { hostname } from 'node:os';
import { parseProbeLine } from '../core/probe-log.js';
import { MIB } from '../core/units.js';
import { ProbeLogFollower } from './follow-log.js';
import type { Ledger, ProbeBatch, ProcessSampleInput } from './ledger.js';
import { RunProcesses } from './process-tree.js';
import { type AppsSnapshot, type GpuSnapshot, NvidiaSmiSampler, type SamplerProblem } from './sampler.js';

/** How often the probe log is read. */
export const FOLLOW_POLL_MS = 200;
/** Per-step peaks kept for the live sparkline. */
export const LIVE_PEAKS_KEPT = 48;

export interface Writer {
  readonly pid: number;
  readonly rank: number;
  readonly host: string | null;
  ended: boolean;
}

/** What the status line shows; updated as samples and probe lines arrive. */
export interface LiveState {
  step: number | null;
  loss: number | null;
  phase: string | null;
  /** Latest step's figures, highest device. */
  allocatedBytes: number | null;
  reservedBytes: number | null;
  /** The run's processes per nvidia-smi (highest GPU), else the GPU's memory.used. */
  usedBytes: number | null;
  usedIsOwn: boolean;
  /** Free memory on the run's GPU with the least of it (nvidia-smi), else device total − reserved (probe). */
  headroomBytes: number | null;
  recentPeaks: number[];
  probeLines: number;
  badLines: number;
  oomSeen: boolean;
  gpuSamples: number;
  samplerProblem: SamplerProblem | null;
  /** The first failure to store what was read (the run goes on without it), or null. */
  recordingError: RecordingError | null;
}

export interface RecorderOptions {
  readonly ledger: Ledger;
  readonly runId: number;
  readonly logPath: string;
  /** Sample GPUs (false when nvidia-smi is known to be missing or broken). */
  readonly sample: boolean;
  readonly intervalMs: number;
  readonly gpuFields?: readonly string[];
  readonly hangTimeoutMs?: number;
  readonly env: NodeJS.ProcessEnv;
  /** GPU indices or UUIDs the run may use (CUDA_VISIBLE_DEVICES); null = all. */
  readonly visibleGpus: readonly string[] | null;
  readonly onProblem?: (problem: SamplerProblem) => void;
  /**
   * Recording failed (a full or read-only disk, a locked ledger): told once. The training goes on; the
   * recorder keeps trying, so what it can still store is stored.
   */
  readonly onRecordingError?: (error: RecordingError) => void;
}

/** Why the ledger could not take what was read: the SQLite or file system code, and its message. */
export interface RecordingError {
  readonly code: string;
  readonly message: string;
}

/** The code of a failure to store (SQLITE_FULL, SQLITE_READONLY, ENOSPC …), or 'error'. */
export function recordingErrorOf(error: unknown): RecordingError {
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e?.code === 'string' ? e.code : 'error',
    message: typeof e?.message === 'string' ? e.message : String(error),
  };
}

/** Records a run; call start(), then finish() once the run is over. */
export class RunRecorder {
  readonly live: LiveState = {
    step: null,
    loss: null,
    phase: null,
    allocatedBytes: null,
    reservedBytes: null,
    usedBytes: null,
    usedIsOwn: false,
    headroomBytes: null,
    recentPeaks: [],
    probeLines: 0,
    badLines: 0,
    oomSeen: false,
    gpuSamples: 0,
    samplerProblem: null,
    recordingError: null,
  };
  readonly writers = new Map<number, Writer>();
  private readonly options: RecorderOptions;
  private readonly follower: ProbeLogFollower;
  private readonly processes = new RunProcesses();
  private sampler: NvidiaSmiSampler | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly uuidToIndex = new Map<string, number>();
  private ownByGpu = new Map<number, number>();
  private readonly deviceTotals = new Map<string, number>();
  private lastAppsAtMs = 0;
  private polling = false;

  constructor(options: RecorderOptions) {
    this.options = options;
    this.follower = new ProbeLogFollower(options.logPath, options.ledger.logOffsets(options.runId));
  }

  /** Marks a PID (the command) as the run's; its descendants are too. */
  addProcess(pid: number): void {
    this.processes.addRoot(pid);
  }

  start(): void {
    this.poll();
    this.timer = setInterval(() => this.poll(), FOLLOW_POLL_MS);
    if (this.options.sample) {
      this.sampler = new NvidiaSmiSampler({
        intervalMs: this.options.intervalMs,
        env: this.options.env,
        ...(this.options.gpuFields ? { gpuFields: this.options.gpuFields } : {}),
        ...(this.options.hangTimeoutMs ? { hangTimeoutMs: this.options.hangTimeoutMs } : {}),
        onGpus: (s) => this.guard(() => this.onGpus(s)),
        onApps: (s) => this.guard(() => this.onApps(s)),
        onProblem: (p) => this.guard(() => this.onSamplerProblem(p)),
      });
      this.sampler.start();
    }
  }

  /** PIDs of the sampler's nvidia-smi loops. */
  samplerPids(): number[] {
    return this.sampler?.pids() ?? [];
  }

  /** True once every probe writer has ended (its `end` record, or its process is gone). */
  writersDone(): boolean {
    if (this.writers.size === 0) return false;
    const here = hostname();
    return [...this.writers.values()].every((w) => w.ended || (w.host === here && !alive(w.pid)));
  }

  /**
   * Waits (reading on) until every rank of another host that wrote into this log's folder has ended —
   * a multi-node run's other nodes, through a shared folder — or `timeoutMs` passed; true when they did.
   */
  async remoteWritersDone(timeoutMs: number, pollMs = FOLLOW_POLL_MS): Promise<boolean> {
    const here = hostname();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.readProbe(false);
      const open = [...this.writers.values()].filter((w) => w.host !== null && w.host !== here && !w.ended);
      if (open.length === 0) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /**
   * Stops sampling and reads what is left of the probe log. `final`: the writers are done, so a last
   * line without newline is read (and reported truncated); otherwise it is left for a later reader.
   */
  async finish(final = true): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.sampler) await this.sampler.stop();
    this.sampler = null;
    // Drain the backlog batch by batch (each its own transaction), in bounded memory.
    for (;;) {
      const got = this.guard(() => this.readBatch(final));
      if (!got?.more) break;
    }
  }

  /** One look at the log from the timer; a backlog goes on at once, one batch per turn of the event loop. */
  private poll(): void {
    if (this.polling) return;
    this.polling = true;
    const step = () => {
      const got = this.guard(() => this.readBatch(false));
      if (got?.more && this.timer !== null) setImmediate(step);
      else this.polling = false;
    };
    step();
  }

  /**
   * Runs a ledger write; a failure (disk full, read-only, locked) is kept and told once, never thrown
   * into the timer where it would end the process, and with it the recording of the training.
   */
  private guard<T>(write: () => T): T | undefined {
    try {
      return write();
    } catch (error) {
      if (this.live.recordingError === null) {
        this.live.recordingError = recordingErrorOf(error);
        this.options.onRecordingError?.(this.live.recordingError);
      }
      return undefined;
    }
  }

  /** Reads what the probe appended (everything, in batches) and stores it; returns the number of lines read. */
  readProbe(final: boolean): number {
    let count = 0;
    for (;;) {
      const got = this.readBatch(final);
      count += got.lines;
      if (!got.more) return count;
    }
  }

  /** Reads one batch of what the probe appended and stores it. */
  private readBatch(final: boolean): { readonly lines: number; readonly more: boolean } {
    const files = this.follower.read(final);
    if (files.length === 0) return { lines: 0, more: false };
    const batches: ProbeBatch[] = files.map((f) => ({
      path: f.path,
      endOffset: f.endOffset,
      lines: f.lines.map((l) => {
        const parsed = parseProbeLine(l.text);
        return parsed.ok
          ? { offset: l.offset, event: parsed.event }
          : { offset: l.offset, problem: parsed.problem };
      }),
    }));
    this.options.ledger.ingestProbe(this.options.runId, batches);
    let count = 0;
    for (const batch of batches) {
      for (const line of batch.lines) {
        count++;
        if (!line.event) {
          this.live.badLines++;
          continue;
        }
        this.observe(line.event);
      }
    }
    this.live.probeLines += count;
    return { lines: count, more: files.some((f) => f.more === true) };
  }

  private observe(e: NonNullable<ProbeBatch['lines'][number]['event']>): void {
    if (!this.writers.has(e.pid)) {
      this.writers.set(e.pid, { pid: e.pid, rank: e.rank, host: null, ended: false });
      this.processes.addRoot(e.pid);
    }
    const writer = this.writers.get(e.pid)!;
    switch (e.event) {
      case 'start':
        this.writers.set(e.pid, { ...writer, host: e.host });
        return;
      case 'device':
        if (e.totalBytes !== null) this.deviceTotals.set(`${e.pid}:${e.index}`, e.totalBytes);
        return;
      case 'step': {
        this.live.step = e.step;
        if (e.rank === 0 || this.live.loss === null) this.live.loss = e.loss;
        this.live.phase = e.phase;
        if (e.devices.length > 0) {
          this.live.allocatedBytes = Math.max(...e.devices.map((d) => d.allocatedBytes));
          this.live.reservedBytes = Math.max(...e.devices.map((d) => d.reservedBytes));
          const peak = Math.max(...e.devices.map((d) => d.peakAllocatedBytes));
          const last = this.live.recentPeaks.length;
          // Several ranks report the same step: keep the highest per step.
          if (last > 0 && this.lastPeakStep === e.step) {
            this.live.recentPeaks[last - 1] = Math.max(this.live.recentPeaks[last - 1]!, peak);
          } else {
            this.live.recentPeaks.push(peak);
            if (this.live.recentPeaks.length > LIVE_PEAKS_KEPT) this.live.recentPeaks.shift();
          }
          this.lastPeakStep = e.step;
          if (this.live.gpuSamples === 0) {
            const totals = e.devices
              .map((d) => {
                const total = this.deviceTotals.get(`${e.pid}:${d.index}`);
                return total === undefined ? null : total - d.reservedBytes;
              })
              .filter((x): x is number => x !== null);
            if (totals.length > 0) this.live.headroomBytes = Math.min(...totals);
          }
        }
        return;
      }
      case 'phase':
        this.live.phase = e.phase;
        return;
      case 'oom':
        this.live.oomSeen = true;
        return;
      case 'end':
        writer.ended = true;
        return;
      default:
        return;
    }
  }

  private lastPeakStep: number | null = null;

  private isVisible(index: number, uuid: string | null): boolean {
    const visible = this.options.visibleGpus;
    if (visible === null) return true;
    return visible.some((v) => v === String(index) || (uuid !== null && v === uuid));
  }

  private onGpus(s: GpuSnapshot): void {
    const rows = s.gpus
      .filter((g) => g.index !== null)
      .map((g) => {
        if (g.uuid) this.uuidToIndex.set(g.uuid, g.index!);
        const bytes = (mib: number | null) => (mib === null ? null : Math.round(mib * MIB));
        return {
          gpu: g.index!,
          uuid: g.uuid,
          name: g.name,
          totalBytes: bytes(g.memoryTotalMiB),
          reservedBytes: bytes(g.memoryReservedMiB),
          usedBytes: bytes(g.memoryUsedMiB),
          freeBytes: bytes(g.memoryFreeMiB),
          utilizationPercent: g.utilizationGpuPercent,
          ownBytes:
            s.tMs - this.lastAppsAtMs < 5 * this.options.intervalMs
              ? (this.ownByGpu.get(g.index!) ?? 0)
              : null,
        };
      });
    this.options.ledger.addGpuSamples(this.options.runId, s.tMs, rows);
    this.live.gpuSamples++;
    // The GPUs that matter: those our processes are on, else those the run may use.
    const ours = rows.filter((r) => (this.ownByGpu.get(r.gpu) ?? 0) > 0);
    const relevant = ours.length > 0 ? ours : rows.filter((r) => this.isVisible(r.gpu, r.uuid));
    const free = relevant.map((r) => r.freeBytes).filter((x): x is number => x !== null);
    if (free.length > 0) this.live.headroomBytes = Math.min(...free);
    if (ours.length > 0) {
      this.live.usedBytes = Math.max(...ours.map((r) => r.ownBytes ?? 0));
      this.live.usedIsOwn = true;
    } else {
      const used = relevant.map((r) => r.usedBytes).filter((x): x is number => x !== null);
      this.live.usedBytes = used.length > 0 ? Math.max(...used) : null;
      this.live.usedIsOwn = false;
    }
  }

  private onApps(s: AppsSnapshot): void {
    const rows: ProcessSampleInput[] = s.processes.map((p) => ({
      gpu: p.gpuUuid !== null ? (this.uuidToIndex.get(p.gpuUuid) ?? null) : null,
      gpuUuid: p.gpuUuid,
      pid: p.pid,
      name: p.name,
      usedBytes: p.usedMiB === null ? null : Math.round(p.usedMiB * MIB),
      ours: p.pid !== null && this.processes.isOurs(p.pid),
    }));
    this.options.ledger.addProcessSamples(this.options.runId, s.tMs, rows, hostname());
    const own = new Map<number, number>();
    for (const r of rows)
      if (r.ours && r.gpu !== null && r.usedBytes !== null)
        own.set(r.gpu, (own.get(r.gpu) ?? 0) + r.usedBytes);
    this.ownByGpu = own;
    this.lastAppsAtMs = s.tMs;
  }

  private onSamplerProblem(p: SamplerProblem): void {
    this.live.samplerProblem = p;
    this.options.ledger.addEvent(this.options.runId, {
      tMs: Date.now(),
      kind: 'sampler-problem',
      source: 'sampler',
      message: p.message,
      data: { ...p },
    });
    this.options.onProblem?.(p);
  }
}

/** True when a process with this PID exists (on this machine). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A recorded run as data: what the ledger (src/io/ledger.ts) stores and returns, and what the
 * summaries, diffs and diagnoses read. Times are milliseconds since the Unix epoch; memory in bytes.
 */

export const RUN_STATUSES = ['running', 'ok', 'oom', 'failed', 'killed'] as const;
/**
 * `running` while recorded (or when the recorder was killed: see `RunRecord.monitorPid`); `ok` exit 0;
 * `oom` a CUDA out-of-memory was seen (probe or stderr) and the command failed; `failed` any other
 * non-zero exit or a command that could not start; `killed` ended by a signal or by Ctrl-C.
 */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The estimator's per-GPU peaks for the run's scenario. */
export interface EstimatedPeak {
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number;
  /** The estimate's upper bound at each level (Estimate.upper), when the run was estimated with one. */
  readonly upper?: {
    readonly allocatedBytes: number;
    readonly reservedBytes: number;
    readonly deviceBytes: number;
  };
}

/** The highest figure of one layer and when it was seen. */
export interface LayerPeak {
  readonly bytes: number;
  readonly atMs: number;
  /** The step it belongs to (probe layers: the step whose interval held it); null when not tied to a step. */
  readonly step: number | null;
  /** GPU index (system layer) or device index as the process saw it (probe layers); null if unknown. */
  readonly gpu: number | null;
}

/**
 * One rank of a run as recorded (the ledger's run_ranks table): one process of torchrun, accelerate
 * launch, deepspeed or srun, on one host. Peaks are the highest over the rank's devices; `gpu` is the
 * CUDA ordinal of the device that held its allocated peak (as the process saw it, after
 * CUDA_VISIBLE_DEVICES), `gpuUuid` that card's UUID as NVML spells it; `peakDeviceBytes` is nvidia-smi's
 * figure for the run's processes on that card (the rank's own process where the card is unknown).
 */
export interface RankRecord {
  readonly rank: number;
  readonly localRank: number;
  readonly worldSize: number | null;
  readonly host: string | null;
  readonly pid: number | null;
  readonly gpu: number | null;
  readonly gpuUuid: string | null;
  readonly cudaVisibleDevices: string | null;
  readonly peakAllocatedBytes: number | null;
  /** The step whose interval held the allocated peak, and the phase it was in ("train", "eval"). */
  readonly peakAllocatedStep: number | null;
  readonly peakAllocatedPhase: string | null;
  readonly peakReservedBytes: number | null;
  readonly peakDeviceBytes: number | null;
  /** Steps the rank reported (each step number above its last). */
  readonly steps: number;
  readonly lastStep: number | null;
}

export interface RunRecord {
  readonly id: number;
  readonly name: string | null;
  readonly status: RunStatus;
  /** The command's exit code; 128 + n when it ended by signal n; null while running or when never started. */
  readonly exitCode: number | null;
  /** The signal that ended it (`SIGKILL`), if any. */
  readonly signal: string | null;
  /** argv of the command; empty for a run attached with `headroom watch`. */
  readonly command: readonly string[];
  readonly cwd: string | null;
  readonly host: string | null;
  /** The resolved scenario (SCENARIO.md fields), when one was given. */
  readonly scenario: Readonly<Record<string, unknown>> | null;
  readonly estimate: EstimatedPeak | null;
  /** Environment summary: GPUs seen before launch, CUDA_VISIBLE_DEVICES, versions. */
  readonly env: Readonly<Record<string, unknown>>;
  /** The probe log (HEADROOM_LOG); ranks write siblings `stem.rankN.ext`. */
  readonly logPath: string | null;
  /** The command's stderr as captured (`headroom run` only). */
  readonly stderrPath: string | null;
  readonly startedAtMs: number;
  readonly endedAtMs: number | null;
  /** The process recording it (headroom run / watch); a `running` run whose monitor is gone can be resumed with `headroom watch`. */
  readonly monitorPid: number | null;
  readonly childPid: number | null;
  /** Distinct step numbers recorded. */
  readonly steps: number;
  readonly lastStep: number | null;
  /** Micro-batch size and sequence length: the first step that reported them, else the scenario's. */
  readonly batchSize: number | null;
  readonly seqLen: number | null;
  /** torch.cuda max_memory_allocated over the run, per device. */
  readonly peakAllocated: LayerPeak | null;
  /** torch.cuda max_memory_reserved over the run, per device. */
  readonly peakReserved: LayerPeak | null;
  /** nvidia-smi's per-process figure for the run's processes, summed per GPU (null when nvidia-smi gave none). */
  readonly peakDevice: LayerPeak | null;
  /** nvidia-smi's memory.used of a whole GPU the run used (other processes included). */
  readonly peakGpuUsed: LayerPeak | null;
  /**
   * The package versions the probe found installed when the run started, by the scenario's `versions`
   * names (torch, transformers, peft, bitsandbytes, …); null before a probe start record arrived.
   */
  readonly versions: Readonly<Record<string, string>> | null;
  /** Every rank that wrote a probe file, by rank then host; empty without the probe. */
  readonly ranks: readonly RankRecord[];
  /**
   * The rank whose peak is the run's (the largest allocated, else reserved, else device peak; the
   * lowest such rank on a tie); null without ranks.
   */
  readonly peakRank: number | null;
  /** The allocator snapshots the probe wrote (HEADROOM_SNAPSHOT, headroom run --snapshot), in order. */
  readonly snapshots: readonly RunSnapshot[];
}

/** Why the probe wrote a snapshot: an allocation failed, the process ended, or the script asked. */
export const SNAPSHOT_REASONS = ['oom', 'exit', 'manual'] as const;
export type SnapshotReason = (typeof SNAPSHOT_REASONS)[number];

/** An allocator snapshot a run's probe wrote: the file, whose it is and why (the probe's `snapshot` event). */
export interface RunSnapshot {
  readonly tMs: number;
  readonly pid: number;
  readonly rank: number;
  /** The file as the probe wrote it (absolute: memory-snapshot[.rankN].pickle beside its log). */
  readonly path: string;
  readonly bytes: number;
  readonly reason: SnapshotReason;
  /** The most trace entries kept (HEADROOM_SNAPSHOT); null when the probe did not say. */
  readonly entries: number | null;
  /** The last step recorded before it. */
  readonly step: number | null;
}

/** One device of one rank at one step (a step without device figures has `device` null). */
export interface StepRecord {
  readonly tMs: number;
  readonly pid: number;
  readonly rank: number;
  readonly localRank: number;
  readonly device: number | null;
  readonly step: number;
  readonly phase: string;
  readonly loss: number | null;
  readonly lossText: string | null;
  readonly lr: number | null;
  readonly batchSize: number | null;
  readonly seqLen: number | null;
  readonly durationS: number | null;
  readonly allocatedBytes: number | null;
  readonly reservedBytes: number | null;
  /** Peak within the step (since the previous probe reading). */
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly inactiveSplitBytes: number | null;
  readonly numAllocRetries: number | null;
  readonly numOoms: number | null;
}

/** One GPU in one nvidia-smi sample. */
export interface GpuSampleRecord {
  readonly tMs: number;
  readonly gpu: number;
  readonly uuid: string | null;
  readonly name: string | null;
  readonly totalBytes: number | null;
  readonly reservedBytes: number | null;
  readonly usedBytes: number | null;
  readonly freeBytes: number | null;
  readonly utilizationPercent: number | null;
  /** The run's processes on this GPU at the latest per-process sample; null when unknown. */
  readonly ownBytes: number | null;
}

/** One compute process in one nvidia-smi per-process sample. */
export interface ProcessSampleRecord {
  readonly tMs: number;
  readonly gpu: number | null;
  readonly gpuUuid: string | null;
  readonly pid: number | null;
  readonly name: string | null;
  /** Null where nvidia-smi prints [N/A] (Windows WDDM). */
  readonly usedBytes: number | null;
  /** The run's command or one of its descendants, or a process the probe reported. */
  readonly ours: boolean;
}

/** Where an event came from. */
export type RunEventSource = 'probe' | 'stderr' | 'headroom' | 'sampler';

/**
 * Kinds: from the probe `start`, `device`, `phase`, `oom`, `exception`, `snapshot`, `end`, `other`; from the
 * command's stderr `oom-text` (the out-of-memory message and its traceback) and `stderr-tail`; from
 * headroom `prelaunch` (a warning before start), `probe-bad-line`, `spawn-error`, `interrupted`,
 * `note`; from the sampler `sampler-problem`.
 */
export interface RunEvent {
  readonly id: number;
  readonly tMs: number;
  readonly kind: string;
  readonly source: RunEventSource;
  readonly pid: number | null;
  readonly rank: number | null;
  readonly step: number | null;
  readonly phase: string | null;
  /** One line for people (the OOM message, the warning). */
  readonly message: string | null;
  /** The whole event (the probe's JSON object, or headroom's details). */
  readonly data: Readonly<Record<string, unknown>>;
}

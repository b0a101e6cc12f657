/**
 * What `headroom run` decides before it starts the command, as data: which GPUs the run may use,
 * what to warn about on them (processes that are not this run's, memory held by something unlisted,
 * too little free memory for the estimate, nvidia-smi unusable), whether --strict refuses to start,
 * which allocator setting the training inherits, and the environment summary the ledger keeps.
 * Pure: it reads an nvidia-smi reading and the environment handed in; src/cli/run.ts does the I/O and
 * src/words/run.ts holds the words.
 */
import type { MessageOf } from '../message.js';
import type { SmiComputeApp, SmiGpuRow } from '../nvidia-smi.js';
import { MIB } from '../units.js';

/** Used memory on a GPU with no process listed that counts as someone else's (a driver alone holds far less). */
export const UNLISTED_USE_BYTES = 1024 * MIB;

/** One nvidia-smi reading before launch (src/io/sampler.ts queryNvidiaSmi), or why there is none. */
export type GpuReading =
  | {
      readonly ok: true;
      readonly gpus: readonly SmiGpuRow[];
      readonly processes: readonly SmiComputeApp[];
    }
  | {
      readonly ok: false;
      /** The sampler's problem: its code, its words and its hint (English, from src/io/sampler.ts). */
      readonly problem: { readonly code: string; readonly message: string; readonly hint: string };
    };

/** A GPU as the warnings name it: its index and, when nvidia-smi gave one, its name. */
export interface GpuLabel {
  readonly gpu: number | null;
  readonly gpuName: string | null;
}

/** A process on a GPU that is not this run's. */
export interface ForeignProcess {
  readonly pid: number | null;
  readonly name: string | null;
  /** Null where nvidia-smi prints [N/A] (Windows WDDM). */
  readonly usedBytes: number | null;
}

/** The warnings before launch, each code with its raw figures. */
export interface PrelaunchParams {
  /** nvidia-smi could not be run or read: the GPUs were not checked. */
  readonly 'nvidia-smi': { readonly problem: string; readonly detail: string; readonly hint: string };
  readonly 'foreign-processes': GpuLabel & { readonly processes: readonly ForeignProcess[] };
  readonly 'unlisted-use': GpuLabel & { readonly usedBytes: number };
  readonly 'low-free-memory': GpuLabel & { readonly freeBytes: number; readonly neededBytes: number };
}
export type PrelaunchWarning = MessageOf<PrelaunchParams>;

/** A GPU with room for the estimate. */
export interface GpuFit {
  readonly gpu: number | null;
  readonly freeBytes: number;
  readonly neededBytes: number;
}

export interface PrelaunchVerdict {
  readonly warnings: readonly PrelaunchWarning[];
  /** The GPUs with enough free memory for the estimate (said as reassurance, dimmed). */
  readonly fits: readonly GpuFit[];
  /** --strict and something to warn about: the command is not started. */
  readonly refuse: boolean;
}

/** CUDA_VISIBLE_DEVICES as a list of indices or UUIDs; null when unset (every GPU). */
export function visibleGpus(cudaVisibleDevices: string | undefined): string[] | null {
  if (cudaVisibleDevices === undefined) return null;
  return cudaVisibleDevices
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The GPUs of a reading the run may use. */
export function targetGpus(gpus: readonly SmiGpuRow[], visible: readonly string[] | null): SmiGpuRow[] {
  if (visible === null) return [...gpus];
  return gpus.filter((g) => visible.some((v) => v === String(g.index) || (g.uuid !== null && v === g.uuid)));
}

/**
 * The checks before launch: other processes on the GPUs the run may use, memory held there by
 * nothing listed, free memory against what the estimate needs (`neededBytes`, requiredDeviceBytes;
 * null without a scenario).
 */
export function prelaunchChecks(options: {
  readonly reading: GpuReading;
  readonly visible: readonly string[] | null;
  readonly neededBytes: number | null;
  readonly strict: boolean;
}): PrelaunchVerdict {
  const { reading, visible, neededBytes, strict } = options;
  if (!reading.ok) {
    const warning: PrelaunchWarning = {
      code: 'nvidia-smi',
      params: { problem: reading.problem.code, detail: reading.problem.message, hint: reading.problem.hint },
    };
    return { warnings: [warning], fits: [], refuse: strict };
  }
  const warnings: PrelaunchWarning[] = [];
  const fits: GpuFit[] = [];
  for (const gpu of targetGpus(reading.gpus, visible)) {
    const label: GpuLabel = { gpu: gpu.index, gpuName: gpu.name };
    const others = reading.processes.filter((p) => p.gpuUuid !== null && p.gpuUuid === gpu.uuid);
    if (others.length > 0) {
      warnings.push({
        code: 'foreign-processes',
        params: {
          ...label,
          processes: others.map((p) => ({
            pid: p.pid,
            name: p.name,
            usedBytes: p.usedMiB === null ? null : p.usedMiB * MIB,
          })),
        },
      });
    } else if (gpu.memoryUsedMiB !== null && gpu.memoryUsedMiB * MIB >= UNLISTED_USE_BYTES) {
      warnings.push({ code: 'unlisted-use', params: { ...label, usedBytes: gpu.memoryUsedMiB * MIB } });
    }
    if (neededBytes !== null && gpu.memoryFreeMiB !== null) {
      const freeBytes = gpu.memoryFreeMiB * MIB;
      if (freeBytes < neededBytes)
        warnings.push({ code: 'low-free-memory', params: { ...label, freeBytes, neededBytes } });
      else fits.push({ gpu: gpu.index, freeBytes, neededBytes });
    }
  }
  return { warnings, fits, refuse: strict && warnings.length > 0 };
}

/**
 * The code a warning is stored under in the ledger's prelaunch events (`data.code`): the warning's,
 * or `nvidia-smi-<problem>` for an unusable nvidia-smi (as headroom has always stored it).
 */
export function storedWarningCode(warning: PrelaunchWarning): string {
  return warning.code === 'nvidia-smi' ? `nvidia-smi-${warning.params.problem}` : warning.code;
}

/** The allocator setting the training inherits: the variable torch reads and its value. */
export interface AllocatorSetting {
  readonly variable: 'PYTORCH_ALLOC_CONF' | 'PYTORCH_CUDA_ALLOC_CONF';
  /** Undefined when neither variable is set. */
  readonly value: string | undefined;
}

/**
 * PyTorch reads PYTORCH_ALLOC_CONF and falls back to PYTORCH_CUDA_ALLOC_CONF, the name before 2.9,
 * only when it is unset (c10/core/AllocatorConfig.cpp, AllocatorConfig::instance). A torch older
 * than 2.9 reads the old name alone; which torch the training imports is known only later.
 */
export function allocatorSetting(env: Readonly<Record<string, string | undefined>>): AllocatorSetting {
  const variable = env.PYTORCH_ALLOC_CONF !== undefined ? 'PYTORCH_ALLOC_CONF' : 'PYTORCH_CUDA_ALLOC_CONF';
  return { variable, value: env[variable] };
}

/** What the ledger keeps of the machine a run started on (RunRecord.env). */
export function launchEnv(options: {
  readonly platform: string;
  readonly node: string;
  readonly cudaVisibleDevices: string | undefined;
  readonly allocator: AllocatorSetting;
  /** Null when nvidia-smi was not asked (--no-smi). */
  readonly reading: GpuReading | null;
}): Record<string, unknown> {
  const { reading, allocator } = options;
  return {
    platform: options.platform,
    node: options.node,
    cudaVisibleDevices: options.cudaVisibleDevices ?? null,
    pytorchAllocConf: allocator.value ?? null,
    pytorchAllocConfVariable: allocator.value === undefined ? null : allocator.variable,
    nvidiaSmi: reading === null ? 'off' : reading.ok ? 'ok' : reading.problem.code,
    gpus: reading?.ok
      ? reading.gpus.map((g) => ({
          index: g.index,
          name: g.name,
          uuid: g.uuid,
          totalBytes: g.memoryTotalMiB === null ? null : g.memoryTotalMiB * MIB,
          usedBytes: g.memoryUsedMiB === null ? null : g.memoryUsedMiB * MIB,
          freeBytes: g.memoryFreeMiB === null ? null : g.memoryFreeMiB * MIB,
        }))
      : [],
    otherProcesses: reading?.ok
      ? reading.processes.map((p) => ({ pid: p.pid, name: p.name, gpuUuid: p.gpuUuid, usedMiB: p.usedMiB }))
      : [],
  };
}

/**
 * Moving a working run to other hardware: a checklist of what will break before the run does — memory
 * fit with the margin, bf16 support, the parallel strategy against the interconnect, checkpoint and
 * dataset size against the disk, version drift, checkpoint frequency against preemption — then a
 * two-step plan (a smoke run, then the full run). Each side is a captured environment, or a catalog
 * GPU standing in for one, in which case the items that need the machine say they were not checked.
 */
import type { ModelShape } from './architecture.js';
import { withBitsandbytes } from './bitsandbytes.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import type { EnvGpu, EnvSnapshot } from './env.js';
import { type Estimate, estimate } from './estimate.js';
import { DEFAULT_MARGIN_FRACTION, fitVerdict, targetOf, usableBytes } from './margin.js';
import { type Scenario, usesBitsandbytes } from './scenario.js';
import { type StepTime, stepTime } from './time-model.js';
import { formatBytes } from './units.js';

/**
 * Share of the host's RAM an offload may pin before it is a risk: torchtune's activation offloading
 * warns when more than 60 % of virtual memory is in use (`virtual_memory_safe_pct`).
 */
export const HOST_RAM_SAFE_FRACTION = 0.6;

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'unknown';

export type CheckId =
  | 'memory-fit'
  | 'host-memory'
  | 'gpu-count'
  | 'bf16'
  | 'interconnect'
  | 'checkpoint-disk'
  | 'versions'
  | 'checkpoint-frequency';

export interface CheckItem {
  readonly id: CheckId;
  readonly title: string;
  readonly status: CheckStatus;
  /** Why, with the figures. */
  readonly reason: string;
  /** What the user can do, when not a pass. */
  readonly action?: string;
}

/** One side of the move: a captured environment and/or a catalog GPU. */
export interface MigrateSide {
  /** How the user named it (file name or catalog id). */
  readonly label: string;
  readonly env: EnvSnapshot | null;
  /** The catalog GPU: from --to-gpu/--from-gpu, else matched from the environment's GPU name. */
  readonly gpu: GpuSpec | null;
}

export interface MigrateInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly exactParams?: number | null;
  readonly from: MigrateSide;
  readonly to: MigrateSide;
  readonly marginFraction?: number;
  /** Size of the training data on disk, bytes. */
  readonly datasetBytes?: number | null;
  /** Optimizer steps between checkpoints. */
  readonly saveEverySteps?: number | null;
  /** Checkpoints kept on disk at once (save_total_limit). */
  readonly keepCheckpoints?: number;
  /** Training tokens of the full run. */
  readonly tokens?: number | null;
}

export interface SmokeRun {
  readonly steps: number;
  /** Tokens the smoke run consumes: a small subset of the data. */
  readonly tokens: number;
  /** Per-GPU peak to expect, as nvidia-smi and torch.cuda.max_memory_allocated show it. */
  readonly peakDeviceBytes: number;
  readonly peakAllocatedBytes: number;
  /** Training tokens per second across the job; null when the target GPU's throughput is unknown. */
  readonly tokensPerSecond: number | null;
  readonly seconds: number | null;
}

export interface FullRun {
  readonly tokens: number | null;
  readonly stepSeconds: number | null;
  readonly seconds: number | null;
}

export interface MigrationReport {
  /** The scenario as it runs on the target (its bitsandbytes decides whether 4-bit inputs are kept). */
  readonly scenario: Scenario;
  readonly from: {
    readonly label: string;
    readonly gpu: string | null;
    readonly source: 'env' | 'catalog' | 'env+catalog';
  };
  readonly to: {
    readonly label: string;
    readonly gpu: string | null;
    readonly source: 'env' | 'catalog' | 'env+catalog';
  };
  readonly target: {
    readonly usableBytes: number;
    readonly budgetBytes: number;
    readonly gpus: number;
    readonly marginFraction: number;
  };
  readonly estimate: Estimate;
  readonly items: readonly CheckItem[];
  /** Items that could not be checked, with the side that lacked an environment file. */
  readonly notChecked: readonly string[];
  readonly verdict: 'pass' | 'warn' | 'fail';
  readonly plan: { readonly smoke: SmokeRun; readonly full: FullRun };
}

/** Steps of the smoke run: enough to pass warm-up, the first optimizer steps and allocator growth. */
export const SMOKE_STEPS = 30;
/** A preemption should cost at most this much training (checkpoint interval), seconds. */
export const MAX_LOST_SECONDS = 30 * 60;
/** Checkpoints kept on disk at once unless told otherwise. */
export const DEFAULT_KEEP_CHECKPOINTS = 2;
/** Warn when checkpoints and data would take more than this share of the free disk. */
export const DISK_WARN_SHARE = 0.8;
/** Compute capability from which NVIDIA GPUs have bf16 tensor cores (Ampere, sm_80). */
const BF16_MIN_COMPUTE_CAPABILITY = 8.0;

/** Packages a scenario needs on the target, by what it uses. */
function requiredPackages(s: Scenario): string[] {
  const out = ['torch', 'transformers'];
  if (s.method === 'lora' || s.method === 'qlora') out.push('peft');
  if (usesBitsandbytes(s)) out.push('bitsandbytes');
  if (s.quantizer === 'torchao') out.push('torchao');
  if (s.optimizer.includes('8bit') || s.optimizer.startsWith('paged')) out.push('bitsandbytes');
  if (['zero1', 'zero2', 'zero3'].includes(s.parallelism.strategy) || s.offload.optimizer === 'nvme')
    out.push('deepspeed');
  if (s.attention === 'flash') out.push('flash-attn');
  return [...new Set(out)];
}

/**
 * The scenario as it will run on the target, where the target's own bitsandbytes decides whether a 4-bit
 * base keeps its layers' inputs; with the reason when that differs from what the scenario says.
 */
function scenarioOnTarget(s: Scenario, to: MigrateSide): { scenario: Scenario; note: string | null } {
  const version = to.env?.frameworks.status === 'ok' ? to.env.frameworks.value.packages.bitsandbytes : null;
  const run = withBitsandbytes(s, version ?? null);
  const note =
    run.change === 'kept'
      ? `bitsandbytes ${version} on ${to.label} keeps every 4-bit layer's input (0.43.2 stopped it), counted here for the step; a loop that holds the last step's outputs keeps them into the next forward (--quantized-inputs-kept next-forward)`
      : run.change === 'dropped'
        ? `bitsandbytes ${version} on ${to.label} keeps no 4-bit layer inputs, so they are not counted there`
        : null;
  return { scenario: run.scenario, note };
}

function envGpus(env: EnvSnapshot | null): readonly EnvGpu[] | null {
  return env?.gpus.status === 'ok' ? env.gpus.value : null;
}

/** What a process can use on the target: the smallest GPU, or its smallest MIG instance when MIG is on. */
function targetUsable(side: MigrateSide): { bytes: number; note: string } | null {
  const gpus = envGpus(side.env);
  if (gpus && gpus.length > 0) {
    const sizes = gpus.map((g) => {
      if (g.migMode === 'enabled' && g.migDevicesMemoryBytes.length > 0)
        return { bytes: Math.min(...g.migDevicesMemoryBytes), note: `MIG instance of ${g.name}` };
      return { bytes: g.memoryTotalBytes ?? 0, note: g.name };
    });
    const smallest = sizes.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    if (smallest.bytes > 0) return smallest;
  }
  if (side.gpu) return { bytes: usableBytes(side.gpu), note: `${side.gpu.name} (catalog)` };
  return null;
}

function sourceOf(side: MigrateSide): 'env' | 'catalog' | 'env+catalog' {
  if (side.env && side.gpu) return 'env+catalog';
  return side.env ? 'env' : 'catalog';
}

function majorMinor(version: string | null): [number, number] | null {
  const m = version ? /^(\d+)\.(\d+)/.exec(version) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Bytes one checkpoint takes: model weights as saved, plus optimizer states for full fine-tuning. */
export function checkpointBytes(s: Scenario, totalParams: number, trainableParams: number): number {
  const full = s.method === 'full' || s.method === 'freeze';
  if (!full) {
    // Adapters (and modules_to_save copies) in fp32, with their AdamW states.
    return trainableParams * 4 + trainableParams * (s.optimizer.includes('8bit') ? 2 : 8);
  }
  const deepspeedMixed =
    ['zero1', 'zero2', 'zero3'].includes(s.parallelism.strategy) && s.precision.endsWith('-mixed');
  // DeepSpeed keeps (and saves) the model in 16 bits and the fp32 master copy with the optimizer states.
  const weightBytes = deepspeedMixed ? 2 : s.precision === 'fp32' || s.precision.endsWith('-mixed') ? 4 : 2;
  const stateBytes = s.precision.endsWith('-true') ? 2 : 4;
  const perParamStates: Record<Scenario['optimizer'], number> = {
    adamw: 2 * stateBytes,
    'paged-adamw': 2 * stateBytes,
    'adamw-8bit': 2,
    'paged-adamw-8bit': 2,
    sgd: 0,
    'sgd-momentum': stateBytes,
    lion: stateBytes,
    adafactor: 0.01 * stateBytes,
  };
  // DeepSpeed mixed precision saves the fp32 master copy with the states (zero_pp_rank_*_optim_states.pt).
  const master = deepspeedMixed ? 4 : 0;
  return totalParams * weightBytes + trainableParams * (perParamStates[s.optimizer] + master);
}

const formatSeconds = (s: number): string =>
  s < 90
    ? `${s.toFixed(s < 10 ? 1 : 0)} s`
    : s < 5400
      ? `${(s / 60).toFixed(0)} min`
      : `${(s / 3600).toFixed(1)} h`;

/** What the run pins in host memory per node against the target's RAM (unknown without its env file). */
function hostMemoryCheck(needBytes: number, ramBytes: number | undefined): CheckItem {
  const check = { id: 'host-memory' as const, title: 'host memory holds the offload' };
  const what = `the offload needs ${formatBytes(needBytes)} of CPU RAM per node`;
  if (ramBytes === undefined || !(ramBytes > 0))
    return {
      ...check,
      status: 'unknown',
      reason: `${what}; the target's RAM is unknown`,
      action: 'headroom env capture on the target records it',
    };
  const has = `${what}; the target has ${formatBytes(ramBytes)}`;
  if (needBytes > ramBytes)
    return {
      ...check,
      status: 'fail',
      reason: has,
      action:
        'offload less (headroom plan … --gpu shows the rungs before offload), or a machine with more RAM',
    };
  if (needBytes > HOST_RAM_SAFE_FRACTION * ramBytes)
    return {
      ...check,
      status: 'warn',
      reason: `${what}, ${Math.round((100 * needBytes) / ramBytes)} % of the target's ${formatBytes(ramBytes)}: pinned pages cannot be swapped, and the dataloader workers and the page cache need the rest`,
      action: 'fewer dataloader workers, or offload less',
    };
  return { ...check, status: 'pass', reason: has };
}

/**
 * Checks a scenario that runs on `from` against `to`, and plans the move.
 * @example checkMigration({ scenario, shape, from: { label: 'a.json', env: a, gpu: null }, to: { label: 'h100-sxm', env: null, gpu } })
 */
export function checkMigration(input: MigrateInput): MigrationReport {
  const { scenario, shape, from, to } = input;
  const margin = input.marginFraction ?? DEFAULT_MARGIN_FRACTION;
  const items: CheckItem[] = [];
  const notChecked: string[] = [];
  const usable = targetUsable(to);
  const targetGpu = to.gpu;
  const onTarget = scenarioOnTarget(scenario, to);
  const est = estimate({
    scenario: onTarget.scenario,
    shape,
    exactParams: input.exactParams ?? null,
    gpu: targetGpu,
  });
  // What upgrading bitsandbytes on the target would give back, when an old one keeps the 4-bit inputs.
  const upgradeSaves =
    onTarget.scenario.quantizedInputsKept && onTarget.scenario.quantizedInputsKept !== 'none'
      ? est.peak.deviceBytes -
        estimate({
          scenario: { ...onTarget.scenario, quantizedInputsKept: 'none' },
          shape,
          exactParams: input.exactParams ?? null,
          gpu: targetGpu,
        }).peak.deviceBytes
      : 0;
  const upgrade =
    upgradeSaves > 0
      ? `pip install -U "bitsandbytes>=0.43.2" on the target (−${formatBytes(upgradeSaves)}), or `
      : '';
  const bnbNote = onTarget.note ? `; ${onTarget.note}` : '';
  const usableB = usable?.bytes ?? 0;
  // The one verdict (margin.ts), against the target's usable memory.
  const memoryFit = fitVerdict(est, targetOf(targetGpu?.id ?? '', usable?.note ?? '', usableB, margin));
  const budget = memoryFit.budgetBytes;
  const toGpus = envGpus(to.env);
  const needGpus = scenario.parallelism.gpus;

  // 1. Memory: what must stay on the GPU; paged optimizer states move to host RAM when it fills.
  const peak = memoryFit.requiredBytes;
  const paged = est.breakdown.pagedOptimizerBytes ?? 0;
  const pagedNote =
    paged > 0
      ? `; the ${formatBytes(paged)} of paged optimizer states come on top where there is room and wait in host RAM where there is not`
      : '';
  if (!usable) {
    items.push({
      id: 'memory-fit',
      title: 'peak memory fits the target',
      status: 'unknown',
      reason: 'the target has neither a GPU in its environment file nor a catalog GPU',
      action: 'pass --to-gpu ID (headroom gpus lists them)',
    });
  } else if (memoryFit.ok) {
    items.push({
      id: 'memory-fit',
      title: 'peak memory fits the target',
      status: 'pass',
      reason: `peak ${formatBytes(peak)} per GPU ≤ ${formatBytes(budget)} (${formatBytes(usableB)} on ${usable.note}, less the ${Math.round(margin * 100)} % margin)${pagedNote}${bnbNote}`,
    });
  } else if (peak <= usableB) {
    items.push({
      id: 'memory-fit',
      title: 'peak memory fits the target',
      status: 'warn',
      reason: `peak ${formatBytes(peak)} fits ${formatBytes(usableB)} on ${usable.note} but leaves ${formatBytes(usableB - peak)}, inside the ${Math.round(margin * 100)} % margin: a long batch can run out${pagedNote}${bnbNote}`,
      action: `${upgrade}headroom plan … --gpu for changes that restore the margin`,
    });
  } else {
    items.push({
      id: 'memory-fit',
      title: 'peak memory fits the target',
      status: 'fail',
      reason: `peak ${formatBytes(peak)} per GPU is over the ${formatBytes(usableB)} of ${usable.note} by ${formatBytes(peak - usableB)}${pagedNote}${bnbNote}`,
      action: `${upgrade}headroom plan … --gpu ${targetGpu?.id ?? 'ID'} finds the cheapest change that fits`,
    });
  }

  // 1b. Host memory, when anything is offloaded: states, parameters or activations wait in CPU RAM.
  if (est.host && est.host.cpuBytes > 0)
    items.push(hostMemoryCheck(est.host.cpuBytes, to.env?.host.memoryBytes));

  // 2. GPU count.
  if (toGpus) {
    items.push(
      toGpus.length >= needGpus
        ? {
            id: 'gpu-count',
            title: 'enough GPUs on the target',
            status: 'pass',
            reason: `the scenario uses ${needGpus}, the target has ${toGpus.length}`,
          }
        : {
            id: 'gpu-count',
            title: 'enough GPUs on the target',
            status: 'fail',
            reason: `the scenario uses ${needGpus} GPUs, the target has ${toGpus.length}`,
            action: `headroom plan … --gpus ${toGpus.length} to re-plan for ${toGpus.length} GPU${toGpus.length > 1 ? 's' : ''}`,
          },
    );
  } else {
    notChecked.push(
      `gpu-count: no GPU list for ${to.label} (catalog stands in; ${needGpus} GPU${needGpus > 1 ? 's' : ''} assumed)`,
    );
  }

  // 3. bf16.
  const ccs = toGpus?.map((g) => (g.computeCapability ? Number(g.computeCapability) : null)) ?? [];
  const knownCc = ccs.filter((c): c is number => c !== null && Number.isFinite(c));
  const bf16Supported =
    knownCc.length > 0 ? knownCc.every((c) => c >= BF16_MIN_COMPUTE_CAPABILITY) : (targetGpu?.bf16 ?? null);
  const bf16Source =
    knownCc.length > 0
      ? `compute capability ${Math.min(...knownCc).toFixed(1)}`
      : targetGpu
        ? `${targetGpu.id} (catalog)`
        : null;
  const usesBf16 = scenario.precision.startsWith('bf16');
  if (bf16Supported === null) {
    items.push({
      id: 'bf16',
      title: 'bf16 supported',
      status: 'unknown',
      reason: 'no compute capability and no catalog GPU for the target',
    });
  } else if (usesBf16 && !bf16Supported) {
    // Adapters keep a 16-bit frozen base with fp32 adapters and a GradScaler (QLoRA on T4s); full
    // fine-tuning needs fp32 master weights under fp16 autocast.
    const fp16 = scenario.method === 'lora' || scenario.method === 'qlora' ? 'fp16-true' : 'fp16-mixed';
    items.push({
      id: 'bf16',
      title: 'bf16 supported',
      status: 'fail',
      reason: `${bf16Source} has no bf16 tensor cores (needs ≥ ${BF16_MIN_COMPUTE_CAPABILITY.toFixed(1)}): run ${fp16} with dynamic loss scaling — fp16 overflows above 65504, so gradients are scaled up and checked for inf each step (torch.amp.GradScaler; DeepSpeed fp16.loss_scale 0); ${fp16 === 'fp16-true' ? 'the frozen base can stay 16-bit and the fp32 adapters take the updates, so memory is unchanged' : `trained weights need fp32 masters under fp16${scenario.precision === 'bf16-true' ? ', which adds memory: re-check the fit' : ''}`}`,
      action: `--precision ${fp16}, then re-check: headroom migrate … --precision ${fp16}`,
    });
  } else if (scenario.precision.startsWith('fp16') && bf16Supported) {
    items.push({
      id: 'bf16',
      title: 'bf16 supported',
      status: 'pass',
      reason: `${bf16Source} supports bf16: it needs no loss scaling and has fp32's range, worth switching from ${scenario.precision}`,
    });
  } else {
    items.push({
      id: 'bf16',
      title: 'bf16 supported',
      status: 'pass',
      reason: usesBf16 ? `${bf16Source} has bf16 tensor cores` : `${scenario.precision} does not need bf16`,
    });
  }

  // Time on the target (needs the catalog's throughput and links).
  const topo = to.env?.interconnect.status === 'ok' ? to.env.interconnect.value : null;
  const linkOverride =
    topo && topo.kind !== 'single'
      ? { kind: topo.kind === 'nvlink' ? ('nvlink' as const) : ('pcie' as const) }
      : null;
  const measuredWrite = to.env?.disk.status === 'ok' ? to.env.disk.value.writeBytesPerSecond : null;
  const time: StepTime | null = targetGpu
    ? stepTime({
        scenario: onTarget.scenario,
        shape,
        gpu: targetGpu,
        estimate: est,
        link: linkOverride,
        nvmeGbs: measuredWrite ? measuredWrite / 1e9 : null,
      })
    : null;

  // 4. Interconnect.
  const strategy = scenario.parallelism.strategy;
  if (needGpus <= 1 || strategy === 'single') {
    items.push({
      id: 'interconnect',
      title: 'strategy suits the interconnect',
      status: 'pass',
      reason: 'one GPU: no collectives',
    });
  } else if (!time) {
    items.push({
      id: 'interconnect',
      title: 'strategy suits the interconnect',
      status: 'unknown',
      reason: 'the target GPU is not in the catalog, so its link bandwidth is unknown',
      action: 'pass --to-gpu ID for the closest catalog GPU',
    });
  } else {
    const linkWhere = topo
      ? `nvidia-smi topo: ${topo.kind === 'nvlink' ? 'NVLink between every pair' : topo.kind === 'partial' ? `NVLink on ${topo.nvlinkPairs} pairs only` : 'PCIe only'}`
      : "the catalog's link, no topology captured";
    if (!topo)
      notChecked.push(
        `interconnect: no nvidia-smi topo for ${to.label}; the catalog's link for ${targetGpu?.id} stands in`,
      );
    const comm = `${formatSeconds(time.commSeconds)} of communication per step against ${formatSeconds(time.computeSeconds)} of compute (${formatBytes(time.commBytes)} per GPU over ${time.link.description}; ${linkWhere})`;
    const fullShard = strategy === 'zero3' || strategy === 'fsdp';
    if (fullShard && time.link.kind === 'pcie') {
      items.push({
        id: 'interconnect',
        title: 'strategy suits the interconnect',
        status: 'warn',
        reason: `${strategy} gathers every weight twice per micro-batch over PCIe: ${comm}`,
        action:
          'prefer ZeRO-2 / FSDP SHARD_GRAD_OP if memory allows, larger micro-batches, or NVLink machines',
      });
    } else if (time.commSeconds > time.computeSeconds) {
      items.push({
        id: 'interconnect',
        title: 'strategy suits the interconnect',
        status: 'warn',
        reason: `communication outlasts compute: ${comm}`,
        action: 'more tokens per micro-batch, gradient accumulation, or a faster link',
      });
    } else {
      items.push({
        id: 'interconnect',
        title: 'strategy suits the interconnect',
        status: 'pass',
        reason: comm,
      });
    }
  }

  // 5. Checkpoints and data against the disk.
  const ckpt = checkpointBytes(scenario, est.params.total, est.params.trainable);
  const keep = input.keepCheckpoints ?? DEFAULT_KEEP_CHECKPOINTS;
  const data = input.datasetBytes ?? 0;
  const need = ckpt * keep + data;
  const disk = to.env?.disk.status === 'ok' ? to.env.disk.value : null;
  const saveSeconds = disk?.writeBytesPerSecond ? ckpt / disk.writeBytesPerSecond : null;
  const what = `${keep} checkpoint${keep > 1 ? 's' : ''} of ${formatBytes(ckpt)} (${scenario.method === 'full' || scenario.method === 'freeze' ? 'weights + optimizer states' : 'adapters + their optimizer states'})${data > 0 ? ` + ${formatBytes(data)} of data` : ''}`;
  if (!disk) {
    items.push({
      id: 'checkpoint-disk',
      title: 'checkpoints and data fit the disk',
      status: 'unknown',
      reason: `needs ${formatBytes(need)}: ${what}; no disk figures for ${to.label}`,
      action: 'capture the target: headroom env capture --dir /path/to/checkpoints -o target.json',
    });
    notChecked.push(
      `checkpoint-disk: no environment file for ${to.label} (free disk and write speed unknown)`,
    );
  } else {
    const save =
      saveSeconds === null
        ? 'write speed not measured'
        : `one save takes ${formatSeconds(saveSeconds)} at ${formatBytes(disk.writeBytesPerSecond!)}/s`;
    const status: CheckStatus =
      need > disk.freeBytes ? 'fail' : need > disk.freeBytes * DISK_WARN_SHARE ? 'warn' : 'pass';
    items.push({
      id: 'checkpoint-disk',
      title: 'checkpoints and data fit the disk',
      status,
      reason: `${what} = ${formatBytes(need)} against ${formatBytes(disk.freeBytes)} free on ${disk.path}; ${save}${data === 0 ? ' (data size not given: --dataset-size)' : ''}`,
      ...(status === 'pass'
        ? {}
        : { action: 'keep fewer checkpoints (save_total_limit), save adapters only, or a larger disk' }),
    });
  }

  // 6. Versions.
  if (!from.env || !to.env) {
    const missingSide = !from.env && !to.env ? 'either side' : !from.env ? from.label : to.label;
    items.push({
      id: 'versions',
      title: 'driver, CUDA and framework versions',
      status: 'unknown',
      reason: `no environment file for ${missingSide}: versions not compared`,
      action: 'headroom env capture -o env.json on each machine',
    });
    notChecked.push(`versions: no environment file for ${missingSide}`);
  } else {
    const diffs: string[] = [];
    const problems: string[] = [];
    const fd = from.env.driver.status === 'ok' ? from.env.driver.value : null;
    const td = to.env.driver.status === 'ok' ? to.env.driver.value : null;
    if (fd?.driverVersion !== td?.driverVersion)
      diffs.push(`driver ${fd?.driverVersion ?? '?'} → ${td?.driverVersion ?? '?'}`);
    if (fd?.cudaVersion !== td?.cudaVersion)
      diffs.push(`CUDA (driver) ${fd?.cudaVersion ?? '?'} → ${td?.cudaVersion ?? '?'}`);
    const ff = from.env.frameworks.status === 'ok' ? from.env.frameworks.value : null;
    const tf = to.env.frameworks.status === 'ok' ? to.env.frameworks.value : null;
    if (!tf)
      problems.push(
        `no Python framework versions on ${to.label} (${to.env.frameworks.status === 'missing' ? to.env.frameworks.reason : ''})`,
      );
    if (ff && tf) {
      for (const name of Object.keys(tf.packages)) {
        const a = ff.packages[name] ?? null;
        const b = tf.packages[name] ?? null;
        if (a !== b) diffs.push(`${name} ${a ?? 'absent'} → ${b ?? 'absent'}`);
      }
      if (ff.torchCuda !== tf.torchCuda)
        diffs.push(`torch CUDA build ${ff.torchCuda ?? 'none'} → ${tf.torchCuda ?? 'none'}`);
      if (ff.python.split('.').slice(0, 2).join('.') !== tf.python.split('.').slice(0, 2).join('.'))
        diffs.push(`Python ${ff.python} → ${tf.python}`);
    }
    if (tf) {
      const absent = requiredPackages(scenario).filter((p) => !tf.packages[p]);
      if (absent.length > 0)
        problems.push(
          `${absent.join(', ')} not installed on ${to.label}, and the scenario needs ${absent.length > 1 ? 'them' : 'it'}`,
        );
      const build = majorMinor(tf.torchCuda);
      const driverCuda = majorMinor(td?.cudaVersion ?? null);
      if (build && driverCuda && build[0] > driverCuda[0])
        problems.push(
          `torch is built for CUDA ${tf.torchCuda} but the driver supports CUDA ${td?.cudaVersion}: upgrade the driver or install a cu${driverCuda[0]}x wheel`,
        );
    }
    const status: CheckStatus = problems.length > 0 ? 'fail' : diffs.length > 0 ? 'warn' : 'pass';
    items.push({
      id: 'versions',
      title: 'driver, CUDA and framework versions',
      status,
      reason: [
        ...problems,
        ...(diffs.length > 0 ? [`differs: ${diffs.join('; ')}`] : []),
        ...(status === 'pass' ? ['the same on both sides'] : []),
      ].join('; '),
      ...(status === 'pass'
        ? {}
        : {
            action:
              'pin the source versions on the target (pip install torch==… transformers==…) or run the smoke test first',
          }),
    });
  }

  // 7. Checkpoint frequency against preemption.
  const stepSeconds = time?.stepSeconds ?? null;
  if (stepSeconds === null) {
    items.push({
      id: 'checkpoint-frequency',
      title: 'checkpoints often enough for preemption',
      status: 'unknown',
      reason: 'step time unknown (target GPU not in the catalog)',
    });
  } else {
    const everyMax = Math.max(1, Math.floor(MAX_LOST_SECONDS / stepSeconds));
    const saves = input.saveEverySteps ?? null;
    if (saves === null) {
      items.push({
        id: 'checkpoint-frequency',
        title: 'checkpoints often enough for preemption',
        status: 'warn',
        reason: `save interval not given; at about ${formatSeconds(stepSeconds)} per step, saving every ${everyMax} steps loses at most ${formatSeconds(everyMax * stepSeconds)} to a preemption`,
        action: `--save-steps N to check your setting (save_steps ≤ ${everyMax})`,
      });
    } else {
      const lost = saves * stepSeconds;
      const saveShare = saveSeconds === null ? null : saveSeconds / (lost + saveSeconds);
      const status: CheckStatus =
        lost > MAX_LOST_SECONDS || (saveShare !== null && saveShare > 0.1) ? 'warn' : 'pass';
      items.push({
        id: 'checkpoint-frequency',
        title: 'checkpoints often enough for preemption',
        status,
        reason: `every ${saves} steps ≈ ${formatSeconds(lost)} of training at risk (limit ${formatSeconds(MAX_LOST_SECONDS)})${saveShare === null ? '' : `; saving takes ${(saveShare * 100).toFixed(0)} % of the time`}`,
        ...(status === 'pass'
          ? {}
          : {
              action:
                lost > MAX_LOST_SECONDS
                  ? `save_steps ≤ ${everyMax}`
                  : 'save less often, or to faster storage',
            }),
      });
    }
  }

  const smokeTokens =
    SMOKE_STEPS * scenario.microBatchSize * scenario.seqLen * scenario.gradAccumSteps * needGpus;
  const smoke: SmokeRun = {
    steps: SMOKE_STEPS,
    tokens: smokeTokens,
    peakDeviceBytes: est.peak.deviceBytes,
    peakAllocatedBytes: est.peak.allocatedBytes,
    tokensPerSecond: time?.tokensPerSecond ?? null,
    seconds: time ? SMOKE_STEPS * time.stepSeconds : null,
  };
  const tokens = input.tokens ?? null;
  const full: FullRun = {
    tokens,
    stepSeconds,
    seconds: tokens !== null && time ? tokens / time.tokensPerSecond : null,
  };
  const verdict = items.some((i) => i.status === 'fail')
    ? 'fail'
    : items.some((i) => i.status === 'warn' || i.status === 'unknown')
      ? 'warn'
      : 'pass';
  return {
    scenario: onTarget.scenario,
    from: { label: from.label, gpu: from.gpu?.id ?? null, source: sourceOf(from) },
    to: { label: to.label, gpu: targetGpu?.id ?? null, source: sourceOf(to) },
    target: {
      usableBytes: usableB,
      budgetBytes: budget,
      gpus: toGpus?.length ?? needGpus,
      marginFraction: margin,
    },
    estimate: est,
    items,
    notChecked,
    verdict,
    plan: { smoke, full },
  };
}

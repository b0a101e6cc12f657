/**
 * What every migrate check reads, computed once: the scenario as it runs on the target (its own
 * bitsandbytes), the estimate there, the target's usable memory, its GPUs, the step time over its link
 * and the checkpoint's size. Each side is a captured environment, or a catalog GPU standing in for one.
 */
import type { ModelShape } from '../architecture.js';
import { withBitsandbytes } from '../bitsandbytes.js';
import type { GpuSpec } from '../catalog/gpu-spec.js';
import type { EnvDisk, EnvGpu, EnvInterconnect, EnvSnapshot } from '../env.js';
import { type Estimate, estimate } from '../estimate.js';
import { DEFAULT_MARGIN_FRACTION, type Fit, fitVerdict, targetOf, usableBytes } from '../margin.js';
import type { Scenario } from '../scenario.js';
import { type StepTime, stepTime } from '../time-model.js';
import { checkpointBytes } from './checkpoint-bytes.js';

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

/** Checkpoints kept on disk at once unless told otherwise. */
export const DEFAULT_KEEP_CHECKPOINTS = 2;

/** Where the target's usable memory comes from: a MIG instance, a captured GPU, or the catalog's. */
export interface UsableOn {
  readonly kind: 'mig' | 'gpu' | 'catalog';
  /** The GPU's name as nvidia-smi or the catalog gives it. */
  readonly name: string;
}

/** What the target's bitsandbytes changes in a 4-bit base: its layers keep their inputs there, or drop them. */
export interface BnbOnTarget {
  readonly change: 'kept' | 'dropped';
  readonly version: string;
  /** The target's label. */
  readonly label: string;
}

export interface MigrateContext {
  readonly input: MigrateInput;
  /** The scenario as the user gave it (the checks of precision, strategy and packages read it). */
  readonly scenario: Scenario;
  /** The scenario as it runs on the target (its bitsandbytes decides whether 4-bit inputs are kept). */
  readonly onTarget: Scenario;
  readonly bnb: BnbOnTarget | null;
  readonly from: MigrateSide;
  readonly to: MigrateSide;
  readonly targetGpu: GpuSpec | null;
  readonly marginFraction: number;
  readonly estimate: Estimate;
  /** What upgrading bitsandbytes on the target gives back, when an old one keeps the 4-bit inputs; else 0. */
  readonly upgradeSavesBytes: number;
  /** What a process can use on the target, and where that comes from; null when nothing says. */
  readonly usable: { readonly bytes: number; readonly on: UsableOn } | null;
  /** The one verdict (margin.ts) against the target's usable memory (0 when unknown). */
  readonly fit: Fit;
  /** The target's GPUs from its environment file; null without one. */
  readonly toGpus: readonly EnvGpu[] | null;
  readonly needGpus: number;
  readonly topology: EnvInterconnect | null;
  readonly disk: EnvDisk | null;
  /** The step on the target (needs the catalog's throughput and links); null without a catalog GPU. */
  readonly time: StepTime | null;
  readonly checkpoint: {
    readonly bytes: number;
    readonly keep: number;
    readonly dataBytes: number;
    /** Seconds one save takes at the target's measured write speed; null when not measured. */
    readonly saveSeconds: number | null;
  };
}

export function envGpus(env: EnvSnapshot | null): readonly EnvGpu[] | null {
  return env?.gpus.status === 'ok' ? env.gpus.value : null;
}

/** What a process can use on the target: the smallest GPU, or its smallest MIG instance when MIG is on. */
function targetUsable(side: MigrateSide): MigrateContext['usable'] {
  const gpus = envGpus(side.env);
  if (gpus && gpus.length > 0) {
    const sizes = gpus.map((g) => {
      if (g.migMode === 'enabled' && g.migDevicesMemoryBytes.length > 0)
        return { bytes: Math.min(...g.migDevicesMemoryBytes), on: { kind: 'mig' as const, name: g.name } };
      return { bytes: g.memoryTotalBytes ?? 0, on: { kind: 'gpu' as const, name: g.name } };
    });
    const smallest = sizes.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    if (smallest.bytes > 0) return smallest;
  }
  if (side.gpu) return { bytes: usableBytes(side.gpu), on: { kind: 'catalog', name: side.gpu.name } };
  return null;
}

/**
 * The scenario as it will run on the target, where the target's own bitsandbytes decides whether a
 * 4-bit base keeps its layers' inputs; with what changed when that differs from what the scenario says.
 */
function scenarioOnTarget(s: Scenario, to: MigrateSide): { scenario: Scenario; bnb: BnbOnTarget | null } {
  const version = to.env?.frameworks.status === 'ok' ? to.env.frameworks.value.packages.bitsandbytes : null;
  const run = withBitsandbytes(s, version ?? null);
  return {
    scenario: run.scenario,
    bnb: run.change && version ? { change: run.change, version, label: to.label } : null,
  };
}

/** Everything the checks read, computed once. */
export function migrateContext(input: MigrateInput): MigrateContext {
  const { scenario, shape, to } = input;
  const marginFraction = input.marginFraction ?? DEFAULT_MARGIN_FRACTION;
  const targetGpu = to.gpu;
  const onTarget = scenarioOnTarget(scenario, to);
  const exactParams = input.exactParams ?? null;
  const est = estimate({ scenario: onTarget.scenario, shape, exactParams, gpu: targetGpu });
  const kept = onTarget.scenario.quantizedInputsKept;
  const upgradeSavesBytes =
    kept && kept !== 'none'
      ? est.peak.deviceBytes -
        estimate({
          scenario: { ...onTarget.scenario, quantizedInputsKept: 'none' },
          shape,
          exactParams,
          gpu: targetGpu,
        }).peak.deviceBytes
      : 0;
  const usable = targetUsable(to);
  const fit = fitVerdict(
    est,
    targetOf(targetGpu?.id ?? '', usable?.on.name ?? '', usable?.bytes ?? 0, marginFraction),
  );
  const topology = to.env?.interconnect.status === 'ok' ? to.env.interconnect.value : null;
  const disk = to.env?.disk.status === 'ok' ? to.env.disk.value : null;
  const link =
    topology && topology.kind !== 'single'
      ? { kind: topology.kind === 'nvlink' ? ('nvlink' as const) : ('pcie' as const) }
      : null;
  const measuredWrite = disk?.writeBytesPerSecond ?? null;
  const time = targetGpu
    ? stepTime({
        scenario: onTarget.scenario,
        shape,
        gpu: targetGpu,
        estimate: est,
        link,
        nvmeGbs: measuredWrite ? measuredWrite / 1e9 : null,
      })
    : null;
  const ckpt = checkpointBytes(scenario, est.params.total, est.params.trainable);
  return {
    input,
    scenario,
    onTarget: onTarget.scenario,
    bnb: onTarget.bnb,
    from: input.from,
    to,
    targetGpu,
    marginFraction,
    estimate: est,
    upgradeSavesBytes: Math.max(upgradeSavesBytes, 0),
    usable,
    fit,
    toGpus: envGpus(to.env),
    needGpus: scenario.parallelism.gpus,
    topology,
    disk,
    time,
    checkpoint: {
      bytes: ckpt,
      keep: input.keepCheckpoints ?? DEFAULT_KEEP_CHECKPOINTS,
      dataBytes: input.datasetBytes ?? 0,
      saveSeconds: disk?.writeBytesPerSecond ? ckpt / disk.writeBytesPerSecond : null,
    },
  };
}

/** The two-step plan after the checklist: a short smoke run on the target, then the full run. */
import type { MigrateContext } from './context.js';

/** Steps of the smoke run: enough to pass warm-up, the first optimizer steps and allocator growth. */
export const SMOKE_STEPS = 30;
/** Stop the smoke run when its peak is more than this share above the estimate's. */
export const SMOKE_PEAK_TOLERANCE = 0.1;

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

/** The smoke run and the full run on the target. */
export function movePlan(ctx: MigrateContext): { readonly smoke: SmokeRun; readonly full: FullRun } {
  const { scenario, time, estimate } = ctx;
  const tokens =
    SMOKE_STEPS * scenario.microBatchSize * scenario.seqLen * scenario.gradAccumSteps * ctx.needGpus;
  const smoke: SmokeRun = {
    steps: SMOKE_STEPS,
    tokens,
    peakDeviceBytes: estimate.peak.deviceBytes,
    peakAllocatedBytes: estimate.peak.allocatedBytes,
    tokensPerSecond: time?.tokensPerSecond ?? null,
    seconds: time ? SMOKE_STEPS * time.stepSeconds : null,
  };
  const fullTokens = ctx.input.tokens ?? null;
  const full: FullRun = {
    tokens: fullTokens,
    stepSeconds: time?.stepSeconds ?? null,
    seconds: fullTokens !== null && time ? fullTokens / time.tokensPerSecond : null,
  };
  return { smoke, full };
}

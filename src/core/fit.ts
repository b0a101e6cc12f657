/**
 * The limits of a GPU for a scenario: the largest micro-batch and the longest sequence that fit within
 * the memory margin, found by search on the estimator (memory grows with both). The value found fits;
 * one more does not — unless the search stopped at the model's context length or the search cap.
 */
import type { ModelShape } from './architecture.js';
import { type Calibration, calibratedEstimate } from './calibrate.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import { type Estimate, estimate } from './estimate.js';
import {
  DEFAULT_MARGIN_FRACTION,
  fitVerdict,
  type MemoryTarget,
  memoryTarget,
  requiredDeviceBytes,
} from './margin.js';
import type { Scenario } from './scenario.js';

/** Largest micro-batch searched: far past what any GPU holds for a language model. */
export const MAX_MICRO_BATCH = 4096;
/** Longest sequence searched when the model's context length is unknown. */
export const MAX_SEQ_LEN = 1 << 20;

export interface FitBound {
  /** The largest value that fits; null when even 1 does not. */
  readonly value: number | null;
  /** The estimate at that value. */
  readonly estimate: Estimate | null;
  /**
   * The next value and its peak, which does not fit (null when the search stopped at a limit): the
   * nvidia-smi figure, and what must be on the GPU (less paged optimizer states; requiredDeviceBytes).
   */
  readonly next: {
    readonly value: number;
    readonly deviceBytes: number;
    readonly requiredBytes: number;
  } | null;
  /**
   * What stopped the search: memory, the model's context length, the search cap, or the end of the
   * tokens per micro-batch a calibration is carried to (FitInput.calibratedMaxTokens).
   */
  readonly limit: 'memory' | 'context' | 'cap' | 'calibration';
}

export interface FitResult {
  readonly target: MemoryTarget;
  readonly scenario: Scenario;
  /** Largest micro-batch at the scenario's sequence length. */
  readonly microBatch: FitBound;
  /** Longest sequence at the scenario's micro-batch. */
  readonly seqLen: FitBound;
}

export interface FitInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly exactParams?: number | null;
  readonly gpu: GpuSpec;
  readonly marginFraction?: number;
  /** The model's context length (max_position_embeddings), which caps the sequence search. */
  readonly contextTokens?: number | null;
  /**
   * A measured run's factors (calibrate.ts): each setup is predicted from the measured baseline, and the
   * estimates returned carry the calibrated peaks. Absent or null: the estimator alone.
   */
  readonly calibration?: Calibration | null;
  /**
   * With a calibration: the most tokens per micro-batch it is carried to (run-calibration.ts,
   * calibratedTokenRange); the searches stop there. Absent: no limit besides the caps.
   */
  readonly calibratedMaxTokens?: number;
}

/**
 * The largest n in [1, cap] with fits(n), for a monotone predicate: doubling, then bisection.
 * Returns 0 when fits(1) is false.
 */
export function largestFitting(fits: (n: number) => boolean, cap: number): number {
  if (cap < 1 || !fits(1)) return 0;
  let lo = 1;
  let hi = 2;
  while (hi <= cap && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > cap) {
    if (fits(cap)) return cap;
    hi = cap;
  }
  // fits(lo) and !fits(hi).
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

function bound(
  make: (n: number) => Scenario,
  input: FitInput,
  target: MemoryTarget,
  cap: number,
  capKind: FitBound['limit'],
): FitBound {
  const cache = new Map<number, Estimate>();
  const at = (n: number): Estimate => {
    let est = cache.get(n);
    if (!est) {
      est = estimate({
        scenario: make(n),
        shape: input.shape,
        exactParams: input.exactParams ?? null,
        gpu: input.gpu,
      });
      if (input.calibration) est = calibratedEstimate(est, input.calibration);
      cache.set(n, est);
    }
    return est;
  };
  // The one verdict (margin.ts), as estimate, plan and gpus --for judge it.
  const value = largestFitting((n) => fitVerdict(at(n), target).ok, cap);
  const nextAt = (n: number) => ({
    value: n,
    deviceBytes: at(n).peak.deviceBytes,
    requiredBytes: requiredDeviceBytes(at(n)),
  });
  if (value === 0)
    return {
      value: null,
      estimate: null,
      next: nextAt(1),
      limit: 'memory',
    };
  if (value >= cap) return { value, estimate: at(value), next: null, limit: capKind };
  return {
    value,
    estimate: at(value),
    next: nextAt(value + 1),
    limit: 'memory',
  };
}

/**
 * The largest micro-batch and the longest sequence that fit the GPU with the margin.
 * @example fitLimits({ scenario, shape, gpu: findGpu('a10g')! }).microBatch.value
 */
export function fitLimits(input: FitInput): FitResult {
  const target = memoryTarget(input.gpu, input.marginFraction ?? DEFAULT_MARGIN_FRACTION);
  const scenario: Scenario = { ...input.scenario, gpu: input.gpu.id };
  // A calibration is carried only so far in tokens per micro-batch: past it the search stops.
  const calibrated = input.calibration ? (input.calibratedMaxTokens ?? null) : null;
  const within = (cap: number, kind: FitBound['limit'], per: number): [number, FitBound['limit']] => {
    const most = calibrated === null ? Number.POSITIVE_INFINITY : Math.floor(calibrated / per);
    return most < cap ? [Math.max(1, most), 'calibration'] : [cap, kind];
  };
  const [batchCap, batchKind] = within(MAX_MICRO_BATCH, 'cap', scenario.seqLen);
  const microBatch = bound((n) => ({ ...scenario, microBatchSize: n }), input, target, batchCap, batchKind);
  const context = input.contextTokens ?? null;
  const [seqCap, seqKind] = within(
    context ?? MAX_SEQ_LEN,
    context === null ? 'cap' : 'context',
    scenario.microBatchSize,
  );
  const seqLen = bound((n) => ({ ...scenario, seqLen: n }), input, target, seqCap, seqKind);
  return { target, scenario, microBatch, seqLen };
}

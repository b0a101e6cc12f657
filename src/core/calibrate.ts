/**
 * Calibration from a short run: the run's measured per-step peaks against the estimate for its scenario
 * give the run's own activation factor (how many bytes of activations the run really keeps per byte the
 * model predicts) and allocator factor (how much the caching allocator really holds above allocated), and
 * applyCalibration predicts another setup of the same run (a larger batch, a longer sequence) from them.
 * The estimator itself is unchanged; the factors act on the terms it reports (estimate.ts, docs/memory-model.md
 * §6–7): the activation terms of the peak phase, and reserved − allocated. calibratedEstimate gives fit and
 * plan an Estimate whose peaks are the calibrated ones.
 *
 * A factor is physically bounded (docs/diagnose.md, "What a calibration keeps and refuses"): each acts on one part, and no measured run
 * makes a part smaller than its tensors must hold. Weights, gradients and optimizer states are known
 * exactly from the parameter counts and dtypes and are never scaled; the activations never drop below
 * what every layer's input takes (what full checkpointing keeps); the allocator's cache and the memory
 * outside torch are never negative. A bound that had to act is recorded (`bounds`), and a measurement no
 * bound can reconcile with the scenario is refused instead (run-calibration.ts, CalibrationRefusal).
 */

import {
  ALLOCATOR_BASE_RESERVE_BYTES,
  type Estimate,
  fixedReserve,
  type PeakLevels,
  PHASES,
  type Phase,
  type PhaseFigures,
  type TermBytes,
  type UpperBound,
  upperFromBasis,
} from './estimate.js';
import { estimateError } from './estimate-error.js';
import { maxBy, maxOf, minOf } from './extremes.js';
import { fitVerdict, targetOf } from './margin.js';
import type { Scenario } from './scenario.js';

/** One step's measured peaks (torch.cuda.max_memory_allocated / max_memory_reserved; nvidia-smi when sampled). */
export interface MeasuredStepPeak {
  readonly peakAllocatedBytes: number;
  readonly peakReservedBytes: number;
  /** The process's device memory as nvidia-smi saw it at its highest in the step; null when not sampled. */
  readonly deviceBytes?: number | null;
}

/**
 * How far the run's steps (after the warm-up) spread at each level: the highest step's peak ÷ the lowest
 * one's (1 when every step peaked alike), and how many steps. A calibrated estimate's upper bound is its
 * point times this ratio (calibratedUpper); nvidia-smi's is null without device samples.
 */
export interface StepSpread {
  readonly steps: number;
  readonly allocated: number;
  readonly reserved: number;
  readonly device: number | null;
}

/** The run's peak at each level. */
export interface MeasuredPeaks {
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number | null;
  /** The steps' spread (measuredPeaks sets it); absent on peaks given without their steps. */
  readonly spread?: StepSpread;
}

/** Steps skipped before the peak is read: the first step creates optimizer states and warms the allocator up. */
export const CALIBRATION_WARMUP_STEPS = 1;

/** The highest peak of the steps after the warm-up (all steps when there are no others). */
export function measuredPeaks(
  steps: readonly MeasuredStepPeak[],
  warmupSteps = CALIBRATION_WARMUP_STEPS,
): MeasuredPeaks {
  const used = steps.length > warmupSteps ? steps.slice(warmupSteps) : steps;
  if (used.length === 0) throw new RangeError('measuredPeaks needs at least one step');
  const devices = used.map((s) => s.deviceBytes).filter((d): d is number => typeof d === 'number');
  const ratio = (xs: readonly number[]): number => {
    const low = minOf(xs);
    return low > 0 ? maxOf(xs) / low : 1;
  };
  return {
    allocatedBytes: maxBy(used, (s) => s.peakAllocatedBytes),
    reservedBytes: maxBy(used, (s) => s.peakReservedBytes),
    deviceBytes: devices.length > 0 ? maxOf(devices) : null,
    spread: {
      steps: used.length,
      allocated: ratio(used.map((s) => s.peakAllocatedBytes)),
      reserved: ratio(used.map((s) => s.peakReservedBytes)),
      device: devices.length > 0 ? ratio(devices) : null,
    },
  };
}

/**
 * A bound that acted on a factor: the value the measurement gave (`from`), the value kept (`to`), and
 * the physical floor behind it. Factors are ratios; the memory outside torch is in bytes.
 */
export type CalibrationBound =
  /** The run kept fewer activation bytes than every layer's input takes (full checkpointing's floor). */
  | {
      readonly code: 'activation-floor';
      readonly params: {
        readonly from: number;
        readonly to: number;
        readonly floorBytes: number;
        readonly estimatedBytes: number;
      };
    }
  /** reserved − allocated came out below zero: the allocator's cache is never negative. */
  | { readonly code: 'allocator-floor'; readonly params: { readonly from: number; readonly to: 0 } }
  /**
   * nvidia-smi's highest sample was below torch's reserved peak, which nvidia-smi always contains: the
   * samples missed the peak, so the estimate's own memory outside torch is kept.
   */
  | {
      readonly code: 'non-torch-floor';
      readonly params: { readonly fromBytes: number; readonly toBytes: number };
    };

/**
 * The activation bytes of the peak phase that bound the activation factor, from the estimator's own
 * terms for variants of the run's setup (activationLimitScenarios).
 */
export interface ActivationLimits {
  /**
   * What no run of this model at this micro-batch × sequence can keep less of: every layer's input,
   * saved for backward (what full checkpointing keeps: the estimate's saved activations for the setup
   * with gradientCheckpointing "full"). The activation factor is clamped up to floorBytes ÷ the terms.
   */
  readonly floorBytes: number;
  /**
   * The most this model at this micro-batch × sequence keeps in its most memory-hungry form: fp32, eager
   * attention, no checkpointing, the standard loss, nothing offloaded or compiled. A run above it is not
   * this setup (more tokens, another model): refused, never clamped (a lower factor would under-predict).
   * Null when the variant cannot be estimated.
   */
  readonly ceilingBytes: number | null;
}

export interface Calibration {
  /**
   * Measured activation bytes ÷ estimated, at the peak phase, within its physical range (bounds says when
   * the floor acted); null when the peak holds no activations.
   */
  readonly activationFactor: number | null;
  /** Measured (reserved − allocated) ÷ the model's, once activations are calibrated; never negative. */
  readonly allocatorFactor: number;
  /** Measured device − reserved: CUDA context, NCCL, memory outside torch; null without device samples. */
  readonly nonTorchBytes: number | null;
  /** The estimate's own device − reserved for the calibrated setup (what nonTorchBytes is compared with). */
  readonly estimatedNonTorchBytes: number;
  /** (estimate − measured) ÷ measured per level, before calibration (estimate-error.ts); null without a figure. */
  readonly errors: {
    readonly allocated: number | null;
    readonly reserved: number | null;
    readonly device: number | null;
  };
  readonly measured: MeasuredPeaks;
  /**
   * The spread of the run's own steps (measured.spread), which sets a calibrated estimate's upper bound
   * (calibratedUpper); null when the peaks came without their steps (the table's ratios then stay).
   */
  readonly spread?: StepSpread | null;
  readonly peakPhase: Phase;
  /** The activation factor's physical range at the peak phase: its floor and ceiling as factors; null without one. */
  readonly activationRange: { readonly min: number; readonly max: number | null } | null;
  /** The bounds that acted, each from what to what; empty when the measurement was inside them all. */
  readonly bounds: readonly CalibrationBound[];
}

/** Activation bytes the estimate holds at the high point of a phase (0 for load and the optimizer step). */
export function activationTerms(e: Estimate, phase: Phase): number {
  const b = e.breakdown;
  const resident = (b.activationsSavedBytes ?? 0) + (b.lossResidentBytes ?? 0);
  if (phase === 'forward') return resident;
  if (phase === 'backward') return resident + (b.backwardTransientBytes ?? 0);
  return 0;
}

/**
 * The bytes the estimate's peak holds that are known exactly from the parameter counts and dtypes: the
 * weights (quantized, sharded, offloaded as the scenario says), the optimizer states on the GPU (paged
 * ones live in CUDA managed memory, outside torch's allocator), and the gradients when the peak is the
 * optimizer step. No run of the scenario can peak below them; a calibration never scales them.
 */
export function modelStateBytes(e: Estimate): {
  readonly weightsBytes: number;
  readonly optimizerBytes: number;
  readonly gradientBytes: number;
  readonly totalBytes: number;
} {
  const b = e.breakdown;
  const weightsBytes = b.weightsBytes ?? 0;
  const optimizerBytes = b.optimizerBytes ?? 0;
  const gradientBytes = e.peakPhase === 'optimizer-step' ? (b.gradientsBytes ?? 0) : 0;
  return {
    weightsBytes,
    optimizerBytes,
    gradientBytes,
    totalBytes: weightsBytes + optimizerBytes + gradientBytes,
  };
}

/** Whether the estimate's backward peak is the start of backward (activations and the loss gradients alive). */
function backwardAtStart(e: Estimate): boolean {
  return e.phases.backward >= e.phases.forward + (e.breakdown.backwardTransientBytes ?? 0);
}

/** The bytes that churn (activations, temporaries) at the estimate's peak, as its reserve model counts them. */
function churnOf(e: Estimate): number {
  return e.breakdown.churnBytes ?? 0;
}

interface Scaled {
  readonly allocatedBytes: number;
  readonly gapBytes: number;
  readonly peakPhase: Phase;
  readonly phases: PhaseFigures<number>;
}

/** The estimate's allocated peak and model reserve gap with activations scaled by `k`. */
function scale(e: Estimate, k: number): Scaled {
  const p = e.phases;
  const extraForward = (k - 1) * activationTerms(e, 'forward');
  const extraBackward = (k - 1) * activationTerms(e, 'backward');
  const backward = backwardAtStart(e)
    ? p.backward + extraBackward
    : Math.max(p.backward, p.forward + (e.breakdown.backwardTransientBytes ?? 0) + extraBackward);
  // Evaluation and generation are not the step's activations: the factor leaves them as estimated.
  const phases: PhaseFigures<number> = {
    load: p.load,
    forward: p.forward + extraForward,
    backward,
    'optimizer-step': p['optimizer-step'],
    ...(p.eval === undefined ? {} : { eval: p.eval }),
    ...(p.generate === undefined ? {} : { generate: p.generate }),
  };
  let peakPhase: Phase = 'load';
  for (const phase of PHASES) if ((phases[phase] ?? 0) > phases[peakPhase]!) peakPhase = phase;
  const allocated = phases[peakPhase]!;
  // The churning bytes move with the activations; persistent states pack well (estimate.ts).
  const churn = Math.max(0, churnOf(e) + (allocated - e.peak.allocatedBytes));
  return {
    allocatedBytes: allocated,
    gapBytes:
      ALLOCATOR_BASE_RESERVE_BYTES +
      fixedReserve({
        peakPhase,
        churnBytes: churn,
        share: e.breakdown.allocatorFragmentationShare ?? 0,
        lossBytes: e.breakdown.reserveLossBytes ?? 0,
        stepTempBytes: e.breakdown.optimizerTempBytes ?? 0,
        stepTempElementBytes: e.breakdown.optimizerTempElementBytes ?? 2,
        // The cache backward leaves moves with the activations; with expandable segments there is none.
        stepCacheBytes:
          (e.breakdown.reserveStepCacheBytes ?? 0) > 0
            ? Math.max(0, e.breakdown.reserveStepCacheBytes! + extraBackward)
            : 0,
        statesBytes: e.breakdown.reserveStatesBytes ?? 0,
      }).bytes +
      // FSDP's stream caches do not move with the activations: as estimated, none at load.
      (peakPhase === 'load' ? 0 : (e.breakdown.reserveStreamCacheBytes ?? 0)),
    peakPhase,
    phases,
  };
}

/**
 * The activation factor the measurement gives before any bound: the measured allocated peak less what
 * the estimate holds besides activations, over the estimate's activation terms; null without terms.
 */
export function measuredActivationFactor(estimate: Estimate, measured: MeasuredPeaks): number | null {
  const terms = activationTerms(estimate, estimate.peakPhase);
  return terms > 0 ? 1 + (measured.allocatedBytes - estimate.peak.allocatedBytes) / terms : null;
}

/**
 * The variants of a setup whose activations bound the factor (ActivationLimits): the same model, tokens
 * and layout with full checkpointing (the floor), and in its most memory-hungry form (the ceiling).
 */
export function activationLimitScenarios(scenario: Scenario): { floor: Scenario; ceiling: Scenario } {
  const { torchCompile: _compiled, ...uncompiled } = scenario;
  return {
    floor: { ...scenario, gradientCheckpointing: 'full' },
    ceiling: {
      ...uncompiled,
      precision: 'fp32',
      attention: 'eager',
      gradientCheckpointing: 'none',
      loss: 'standard',
      offload: { optimizer: scenario.offload.optimizer, params: scenario.offload.params },
    },
  };
}

/**
 * The activation limits of the peak phase from the estimates of activationLimitScenarios' variants: the
 * floor variant's saved activations, the ceiling variant's activation terms at the same phase.
 */
export function activationLimits(floor: Estimate, ceiling: Estimate | null, phase: Phase): ActivationLimits {
  return {
    floorBytes:
      phase === 'forward' || phase === 'backward' ? (floor.breakdown.activationsSavedBytes ?? 0) : 0,
    ceilingBytes: ceiling ? activationTerms(ceiling, phase) : null,
  };
}

/**
 * Derives the run's factors from its measured peaks and the estimate of its scenario, within their
 * physical bounds (`limits`: without them the activations are only kept from going negative).
 * @example calibrate(estimate({ scenario, shape }), measuredPeaks(steps)).activationFactor // 1.18
 */
export function calibrate(
  estimate: Estimate,
  measured: MeasuredPeaks,
  limits: ActivationLimits = { floorBytes: 0, ceilingBytes: null },
): Calibration {
  const phase = estimate.peakPhase;
  const terms = activationTerms(estimate, phase);
  const bounds: CalibrationBound[] = [];
  const raw = measuredActivationFactor(estimate, measured);
  const range =
    terms > 0
      ? {
          min: Math.min(1, limits.floorBytes / terms),
          max: limits.ceilingBytes === null ? null : Math.max(1, limits.ceilingBytes / terms),
        }
      : null;
  let activationFactor = raw;
  if (raw !== null && range && raw < range.min) {
    activationFactor = range.min;
    bounds.push({
      code: 'activation-floor',
      params: { from: raw, to: range.min, floorBytes: limits.floorBytes, estimatedBytes: terms },
    });
  }
  const scaled = scale(estimate, activationFactor ?? 1);
  const measuredGap = measured.reservedBytes - measured.allocatedBytes;
  let allocatorFactor = scaled.gapBytes > 0 ? measuredGap / scaled.gapBytes : 1;
  if (allocatorFactor < 0) {
    bounds.push({ code: 'allocator-floor', params: { from: allocatorFactor, to: 0 } });
    allocatorFactor = 0;
  }
  const estimatedNonTorchBytes = estimate.peak.deviceBytes - estimate.peak.reservedBytes;
  let nonTorchBytes = measured.deviceBytes === null ? null : measured.deviceBytes - measured.reservedBytes;
  if (nonTorchBytes !== null && nonTorchBytes < 0) {
    bounds.push({
      code: 'non-torch-floor',
      params: { fromBytes: nonTorchBytes, toBytes: estimatedNonTorchBytes },
    });
    nonTorchBytes = estimatedNonTorchBytes;
  }
  return {
    activationFactor,
    allocatorFactor,
    nonTorchBytes,
    estimatedNonTorchBytes,
    errors: {
      allocated: estimateError(estimate.peak.allocatedBytes, measured.allocatedBytes),
      reserved: estimateError(estimate.peak.reservedBytes, measured.reservedBytes),
      device: estimateError(estimate.peak.deviceBytes, measured.deviceBytes),
    },
    measured,
    spread: measured.spread ?? null,
    peakPhase: phase,
    activationRange: range,
    bounds,
  };
}

export interface CalibratedPeak {
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number;
  readonly peakPhase: Phase;
}

/**
 * Predicts the peaks of an estimate (of the calibrated run or of a changed setup of it: batch, sequence,
 * checkpointing) with the run's own factors. The memory outside torch moves by what the run measured
 * above the estimate's own figure, so a setup that adds NCCL buffers keeps them. With factors of 1 and no
 * measured non-torch bytes it returns the estimate's own peaks.
 */
export function applyCalibration(estimate: Estimate, calibration: Calibration): CalibratedPeak {
  const scaled = scale(estimate, calibration.activationFactor ?? 1);
  const reserved = scaled.allocatedBytes + calibration.allocatorFactor * scaled.gapBytes;
  const ownNonTorch = estimate.peak.deviceBytes - estimate.peak.reservedBytes;
  // Memory outside torch is never negative, whatever the run measured beside its own estimate.
  const nonTorch =
    calibration.nonTorchBytes === null
      ? ownNonTorch
      : Math.max(0, ownNonTorch + calibration.nonTorchBytes - calibration.estimatedNonTorchBytes);
  return {
    allocatedBytes: Math.round(scaled.allocatedBytes),
    reservedBytes: Math.round(reserved),
    deviceBytes: Math.round(reserved + nonTorch),
    peakPhase: scaled.peakPhase,
  };
}

/**
 * The upper bound of a calibrated prediction. A run of the setup was measured, so the estimator's error
 * over other people's runs (the table behind Estimate.upper) no longer speaks for it; what is left is how
 * much this run's own steps differ from each other: each level's bound is the calibrated peak times the
 * highest step ÷ the lowest (the steps after the warm-up), never below 1. nvidia-smi's level takes
 * reserved's spread (its samples can miss a step's peak). A calibration without its steps' spread (stored
 * before it was recorded) keeps the table's ratios. docs/memory-model.md, "The upper bound".
 */
export function calibratedUpper(
  peak: PeakLevels,
  calibration: Pick<Calibration, 'spread'>,
  uncalibrated: UpperBound,
  pagedBytes = 0,
): UpperBound {
  const spread = calibration.spread;
  if (!spread) return upperFromBasis(peak, uncalibrated.basis, pagedBytes);
  const of = (level: keyof UpperBound['basis'], ratio: number) => ({
    kind: uncalibrated.basis[level].kind,
    rows: spread.steps,
    sources: 1,
    ratio: Math.max(1, ratio),
    from: 'calibration' as const,
  });
  return upperFromBasis(
    peak,
    {
      allocated: of('allocated', spread.allocated),
      reserved: of('reserved', spread.reserved),
      // nvidia-smi is sampled and a step's samples can miss its peak, so its spread is the sampling's as
      // much as the run's: reserved's spread stands for it (the levels nest, so the memory outside torch
      // comes on top unscaled).
      device: of('device', spread.reserved),
    },
    pagedBytes,
  );
}

/**
 * The estimate with the calibrated peaks, for code that reads an Estimate (fit, plan): `peak`, `phases`
 * and `peakPhase` are the calibrated ones; the activations part moves with allocated, and the runtime
 * part takes the rest, so the five parts still add up to the device peak.
 * @example calibratedEstimate(estimate({ scenario: { ...s, microBatchSize: 8 }, shape }), c).peak.deviceBytes
 */
export function calibratedEstimate(estimate: Estimate, calibration: Calibration): Estimate {
  const peak = applyCalibration(estimate, calibration);
  const phases = scale(estimate, calibration.activationFactor ?? 1).phases;
  const c = estimate.components;
  const activations = Math.max(0, c.activations + peak.allocatedBytes - estimate.peak.allocatedBytes);
  const runtime = peak.deviceBytes - (c.weights + c.gradients + c.optimizer + activations);
  const upper = calibratedUpper(peak, calibration, estimate.upper, estimate.breakdown.pagedOptimizerBytes);
  const fits = estimate.fits
    ? fitVerdict(
        { peak, upper, breakdown: estimate.breakdown },
        targetOf(
          estimate.fits.gpu,
          estimate.fits.gpu,
          estimate.fits.usableBytes,
          estimate.fits.marginFraction,
        ),
      )
    : undefined;
  const rounded = Object.fromEntries(
    Object.entries(phases).map(([k, v]) => [k, Math.round(v)]),
  ) as unknown as PhaseFigures<number>;
  // Each phase keeps the estimator's terms, and the calibration's difference becomes a term of its own.
  const estimated = estimate.phaseTerms;
  const phaseTerms = estimated
    ? (Object.fromEntries(
        PHASES.filter((phase) => estimated[phase] !== undefined).map((phase) => {
          const terms = estimated[phase]!;
          const delta = rounded[phase]! - terms.reduce((sum, t) => sum + t.bytes, 0);
          // Within a byte a term is the terms' own rounding, not a calibration.
          const calibrated = Math.abs(delta) > terms.length;
          return [phase, calibrated ? [...terms, { term: 'calibration' as const, bytes: delta }] : terms];
        }),
      ) as unknown as PhaseFigures<readonly TermBytes[]>)
    : null;
  return {
    ...estimate,
    peak: {
      allocatedBytes: peak.allocatedBytes,
      reservedBytes: peak.reservedBytes,
      deviceBytes: peak.deviceBytes,
    },
    upper,
    components: { ...c, activations, runtime },
    peakPhase: peak.peakPhase,
    ...(phaseTerms ? { peakTerms: phaseTerms[peak.peakPhase], phaseTerms } : {}),
    phases: rounded,
    ...(fits ? { fits } : {}),
  };
}

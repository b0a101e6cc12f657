/**
 * Calibration from a short run: the run's measured per-step peaks against the estimate for its scenario
 * give the run's own activation factor (how many bytes of activations the run really keeps per byte the
 * model predicts) and allocator factor (how much the caching allocator really holds above allocated), and
 * applyCalibration predicts another setup of the same run (a larger batch, a longer sequence) from them.
 * The estimator itself is unchanged; the factors act on the terms it reports (estimate.ts, docs/memory-model.md
 * §6–7): the activation terms of the peak phase, and reserved − allocated. calibratedEstimate gives fit and
 * plan an Estimate whose peaks are the calibrated ones.
 */
import {
  ALLOCATOR_BASE_RESERVE_BYTES,
  type Estimate,
  PHASES,
  type Phase,
  type TermBytes,
} from './estimate.js';
import { fitVerdict, targetOf } from './margin.js';

/** One step's measured peaks (torch.cuda.max_memory_allocated / max_memory_reserved; nvidia-smi when sampled). */
export interface MeasuredStepPeak {
  readonly peakAllocatedBytes: number;
  readonly peakReservedBytes: number;
  /** The process's device memory as nvidia-smi saw it at its highest in the step; null when not sampled. */
  readonly deviceBytes?: number | null;
}

/** The run's peak at each level. */
export interface MeasuredPeaks {
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number | null;
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
  return {
    allocatedBytes: Math.max(...used.map((s) => s.peakAllocatedBytes)),
    reservedBytes: Math.max(...used.map((s) => s.peakReservedBytes)),
    deviceBytes: devices.length > 0 ? Math.max(...devices) : null,
  };
}

export interface Calibration {
  /** Measured activation bytes ÷ estimated, at the peak phase; null when the peak holds no activations. */
  readonly activationFactor: number | null;
  /** Measured (reserved − allocated) ÷ the model's, once activations are calibrated. */
  readonly allocatorFactor: number;
  /** Measured device − reserved: CUDA context, NCCL, memory outside torch; null without device samples. */
  readonly nonTorchBytes: number | null;
  /** The estimate's own device − reserved for the calibrated setup (what nonTorchBytes is compared with). */
  readonly estimatedNonTorchBytes: number;
  /** (estimate − measured) ÷ measured per level, before calibration. */
  readonly errors: { readonly allocated: number; readonly reserved: number; readonly device: number | null };
  readonly measured: MeasuredPeaks;
  readonly peakPhase: Phase;
}

/** Activation bytes the estimate holds at the high point of a phase (0 for load and the optimizer step). */
export function activationTerms(e: Estimate, phase: Phase): number {
  const b = e.breakdown;
  const resident = (b.activationsSavedBytes ?? 0) + (b.lossResidentBytes ?? 0);
  if (phase === 'forward') return resident;
  if (phase === 'backward') return resident + (b.backwardTransientBytes ?? 0);
  return 0;
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
  readonly phases: Readonly<Record<Phase, number>>;
}

/** The estimate's allocated peak and model reserve gap with activations scaled by `k`. */
function scale(e: Estimate, k: number): Scaled {
  const p = e.phases;
  const extraForward = (k - 1) * activationTerms(e, 'forward');
  const extraBackward = (k - 1) * activationTerms(e, 'backward');
  const backward = backwardAtStart(e)
    ? p.backward + extraBackward
    : Math.max(p.backward, p.forward + (e.breakdown.backwardTransientBytes ?? 0) + extraBackward);
  const phases: Record<Phase, number> = {
    load: p.load,
    forward: p.forward + extraForward,
    backward,
    'optimizer-step': p['optimizer-step'],
  };
  let peakPhase: Phase = 'load';
  for (const phase of ['forward', 'backward', 'optimizer-step'] as const)
    if (phases[phase] > phases[peakPhase]) peakPhase = phase;
  const allocated = phases[peakPhase];
  // The churning bytes move with the activations; persistent states pack well (estimate.ts).
  const churn = Math.max(0, churnOf(e) + (allocated - e.peak.allocatedBytes));
  return {
    allocatedBytes: allocated,
    gapBytes: ALLOCATOR_BASE_RESERVE_BYTES + (e.breakdown.allocatorFragmentationShare ?? 0) * churn,
    peakPhase,
    phases,
  };
}

/**
 * Derives the run's factors from its measured peaks and the estimate of its scenario.
 * @example calibrate(estimate({ scenario, shape }), measuredPeaks(steps)).activationFactor // 1.18
 */
export function calibrate(estimate: Estimate, measured: MeasuredPeaks): Calibration {
  const phase = estimate.peakPhase;
  const terms = activationTerms(estimate, phase);
  const activationFactor =
    terms > 0 ? 1 + (measured.allocatedBytes - estimate.peak.allocatedBytes) / terms : null;
  const scaled = scale(estimate, activationFactor ?? 1);
  const measuredGap = measured.reservedBytes - measured.allocatedBytes;
  const rel = (est: number, real: number) => (est - real) / real;
  return {
    activationFactor,
    allocatorFactor: scaled.gapBytes > 0 ? measuredGap / scaled.gapBytes : 1,
    nonTorchBytes: measured.deviceBytes === null ? null : measured.deviceBytes - measured.reservedBytes,
    estimatedNonTorchBytes: estimate.peak.deviceBytes - estimate.peak.reservedBytes,
    errors: {
      allocated: rel(estimate.peak.allocatedBytes, measured.allocatedBytes),
      reserved: rel(estimate.peak.reservedBytes, measured.reservedBytes),
      device: measured.deviceBytes === null ? null : rel(estimate.peak.deviceBytes, measured.deviceBytes),
    },
    measured,
    peakPhase: phase,
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
  const nonTorch =
    calibration.nonTorchBytes === null
      ? ownNonTorch
      : ownNonTorch + calibration.nonTorchBytes - calibration.estimatedNonTorchBytes;
  return {
    allocatedBytes: Math.round(scaled.allocatedBytes),
    reservedBytes: Math.round(reserved),
    deviceBytes: Math.round(reserved + nonTorch),
    peakPhase: scaled.peakPhase,
  };
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
  const fits = estimate.fits
    ? fitVerdict(
        { peak, breakdown: estimate.breakdown },
        targetOf(
          estimate.fits.gpu,
          estimate.fits.gpu,
          estimate.fits.usableBytes,
          estimate.fits.marginFraction,
        ),
      )
    : undefined;
  const rounded = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v)])) as Record<
    Phase,
    number
  >;
  // Each phase keeps the estimator's terms, and the calibration's difference becomes a term of its own.
  const estimated = estimate.phaseTerms;
  const phaseTerms = estimated
    ? (Object.fromEntries(
        PHASES.map((phase) => {
          const terms = estimated[phase];
          const delta = rounded[phase] - terms.reduce((sum, t) => sum + t.bytes, 0);
          // Within a byte a term is the terms' own rounding, not a calibration.
          const calibrated = Math.abs(delta) > terms.length;
          return [phase, calibrated ? [...terms, { term: 'calibration' as const, bytes: delta }] : terms];
        }),
      ) as Record<Phase, readonly TermBytes[]>)
    : null;
  return {
    ...estimate,
    peak: {
      allocatedBytes: peak.allocatedBytes,
      reservedBytes: peak.reservedBytes,
      deviceBytes: peak.deviceBytes,
    },
    components: { ...c, activations, runtime },
    peakPhase: peak.peakPhase,
    ...(phaseTerms ? { peakTerms: phaseTerms[peak.peakPhase], phaseTerms } : {}),
    phases: rounded,
    ...(fits ? { fits } : {}),
  };
}

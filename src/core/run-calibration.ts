/**
 * A recorded run's calibration (`headroom calibrate RUN`): its measured per-step peaks at the three levels
 * against the estimate of its scenario, the factors calibrate.ts derives from them, and what to tell the
 * user about the record. Stored in the ledger as the run's `calibration` event, which `headroom fit` and
 * `headroom plan` read back for `--calibrated RUN`. Pure: records in, data out.
 */
import {
  activationTerms,
  applyCalibration,
  CALIBRATION_WARMUP_STEPS,
  type CalibratedPeak,
  type Calibration,
  calibrate,
  type MeasuredStepPeak,
  measuredPeaks,
} from './calibrate.js';
import { timelinePhase } from './diagnose/run-timeline.js';
import type { Estimate } from './estimate.js';
import type { EstimatedPeak, ProcessSampleRecord, RunRecord, StepRecord } from './run-record.js';
import type { Scenario } from './scenario.js';

/** Something about the record that bears on the calibration; the CLI words it. */
export type CalibrationNote =
  /** The probe saw another micro-batch or sequence length than the scenario says. */
  | { readonly code: 'batch-differs'; readonly recorded: number; readonly scenario: number }
  | { readonly code: 'seq-len-differs'; readonly recorded: number; readonly scenario: number }
  /** The run ended in an out-of-memory error: its peaks stop at the card. */
  | { readonly code: 'ended-in-oom' }
  /** No nvidia-smi sample fell within a measured step: the device level is the estimate's. */
  | { readonly code: 'no-device-samples' }
  /** Only this many training steps after the warm-up: the peak may not have been reached. */
  | { readonly code: 'few-steps'; readonly steps: number };

/** Fewest steps after the warm-up before a calibration is trusted without a note. */
export const CALIBRATION_MIN_STEPS = 3;

export interface RunCalibration {
  readonly runId: number;
  readonly runName: string | null;
  /** The scenario the estimate was made for (the run's own, or the one given to calibrate). */
  readonly scenario: Scenario;
  /** The estimator's peaks for that scenario, before calibration. */
  readonly estimate: EstimatedPeak;
  readonly calibration: Calibration;
  /** Activation bytes at the peak phase: the estimate's, and the run's (× the activation factor); null without. */
  readonly activationBytes: { readonly estimated: number; readonly measured: number } | null;
  /** The training steps measured: how many, the first and last step numbers, and the warm-up left out. */
  readonly steps: {
    readonly used: number;
    readonly first: number;
    readonly last: number;
    readonly warmup: number;
  };
  readonly notes: readonly CalibrationNote[];
}

/** The step peaks a calibration reads, with the step numbers they belong to. */
export interface RecordedStepPeak extends MeasuredStepPeak {
  readonly step: number;
}

/**
 * Per-step peaks of the training steps: the highest over ranks and devices (the estimate is per GPU),
 * with the run's own processes at their highest per GPU in nvidia-smi samples taken during the step
 * (after the previous step's record, up to this one's).
 */
export function recordedStepPeaks(
  steps: readonly StepRecord[],
  processes: readonly ProcessSampleRecord[],
): RecordedStepPeak[] {
  // nvidia-smi: the run's processes summed per GPU, per sample, oldest first.
  const own = new Map<number, Map<string, number>>();
  for (const p of processes) {
    if (!p.ours || p.usedBytes === null) continue;
    const at = own.get(p.tMs) ?? new Map<string, number>();
    const gpu = p.gpuUuid ?? String(p.gpu);
    at.set(gpu, (at.get(gpu) ?? 0) + p.usedBytes);
    own.set(p.tMs, at);
  }
  const samples = [...own.entries()]
    .map(([tMs, byGpu]) => ({ tMs, bytes: Math.max(...byGpu.values()) }))
    .sort((a, b) => a.tMs - b.tMs);
  const byStep = new Map<number, { tMs: number; allocated: number; reserved: number; train: boolean }>();
  for (const s of steps) {
    if (s.peakAllocatedBytes === null || s.peakReservedBytes === null) continue;
    const seen = byStep.get(s.step);
    byStep.set(s.step, {
      tMs: Math.max(seen?.tMs ?? s.tMs, s.tMs),
      allocated: Math.max(seen?.allocated ?? 0, s.peakAllocatedBytes),
      reserved: Math.max(seen?.reserved ?? 0, s.peakReservedBytes),
      train: (seen?.train ?? true) && timelinePhase(s.phase) === 'train',
    });
  }
  const ordered = [...byStep.entries()].sort((a, b) => a[0] - b[0]);
  const out: RecordedStepPeak[] = [];
  let since = Number.NEGATIVE_INFINITY;
  for (const [step, s] of ordered) {
    const during = samples.filter((x) => x.tMs > since && x.tMs <= s.tMs).map((x) => x.bytes);
    since = s.tMs;
    if (!s.train) continue;
    out.push({
      step,
      peakAllocatedBytes: s.allocated,
      peakReservedBytes: s.reserved,
      deviceBytes: during.length > 0 ? Math.max(...during) : null,
    });
  }
  return out;
}

/**
 * The run's calibration: its measured peaks (after the warm-up) against `estimate`, the estimate of
 * `scenario`. Null when the run recorded no training step with memory figures.
 * @example calibrateRun(run, ledger.steps(run.id), ledger.processSamples(run.id), scenario, est)?.calibration.activationFactor
 */
export function calibrateRun(
  run: RunRecord,
  steps: readonly StepRecord[],
  processes: readonly ProcessSampleRecord[],
  scenario: Scenario,
  estimate: Estimate,
): RunCalibration | null {
  const peaks = recordedStepPeaks(steps, processes);
  if (peaks.length === 0) return null;
  const warmup = peaks.length > CALIBRATION_WARMUP_STEPS ? CALIBRATION_WARMUP_STEPS : 0;
  const used = peaks.slice(warmup);
  const calibration = calibrate(estimate, measuredPeaks(peaks, warmup));
  const notes: CalibrationNote[] = [];
  if (run.batchSize !== null && run.batchSize !== scenario.microBatchSize)
    notes.push({ code: 'batch-differs', recorded: run.batchSize, scenario: scenario.microBatchSize });
  if (run.seqLen !== null && run.seqLen !== scenario.seqLen)
    notes.push({ code: 'seq-len-differs', recorded: run.seqLen, scenario: scenario.seqLen });
  if (run.status === 'oom') notes.push({ code: 'ended-in-oom' });
  if (calibration.measured.deviceBytes === null) notes.push({ code: 'no-device-samples' });
  if (used.length < CALIBRATION_MIN_STEPS) notes.push({ code: 'few-steps', steps: used.length });
  return {
    runId: run.id,
    runName: run.name,
    scenario,
    estimate: {
      allocatedBytes: estimate.peak.allocatedBytes,
      reservedBytes: estimate.peak.reservedBytes,
      deviceBytes: estimate.peak.deviceBytes,
    },
    calibration,
    activationBytes:
      calibration.activationFactor === null
        ? null
        : {
            estimated: activationTerms(estimate, calibration.peakPhase),
            measured: Math.round(
              activationTerms(estimate, calibration.peakPhase) * calibration.activationFactor,
            ),
          },
    steps: { used: used.length, first: used[0]!.step, last: used[used.length - 1]!.step, warmup },
    notes,
  };
}

/** What calibration changes for one setup: the estimate alone, the calibrated prediction, and the move. */
export interface CalibratedPrediction {
  readonly estimated: EstimatedPeak;
  readonly predicted: CalibratedPeak;
  /** predicted − estimated at the nvidia-smi level. */
  readonly movedBytes: number;
}

/** The calibrated prediction of `estimate` (a setup of the calibrated run) beside the estimate alone. */
export function predictCalibrated(estimate: Estimate, calibration: Calibration): CalibratedPrediction {
  const predicted = applyCalibration(estimate, calibration);
  return {
    estimated: {
      allocatedBytes: estimate.peak.allocatedBytes,
      reservedBytes: estimate.peak.reservedBytes,
      deviceBytes: estimate.peak.deviceBytes,
    },
    predicted,
    movedBytes: predicted.deviceBytes - estimate.peak.deviceBytes,
  };
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A calibration as stored in the ledger (the `calibration` event's data), checked; null when the data
 * is not one (another version wrote it, or it was edited by hand).
 */
export function readRunCalibration(data: unknown): RunCalibration | null {
  if (!isObject(data) || !isNumber(data.runId) || !isObject(data.scenario)) return null;
  const c = data.calibration;
  const e = data.estimate;
  const s = data.steps;
  if (!isObject(c) || !isObject(e) || !isObject(s)) return null;
  if (!(c.activationFactor === null || isNumber(c.activationFactor))) return null;
  if (!isNumber(c.allocatorFactor) || !isNumber(c.estimatedNonTorchBytes)) return null;
  if (!(c.nonTorchBytes === null || isNumber(c.nonTorchBytes))) return null;
  if (!isObject(c.measured) || !isObject(c.errors) || typeof c.peakPhase !== 'string') return null;
  if (!isNumber(e.allocatedBytes) || !isNumber(e.reservedBytes) || !isNumber(e.deviceBytes)) return null;
  if (!isNumber(s.used) || !isNumber(s.first) || !isNumber(s.last) || !isNumber(s.warmup)) return null;
  return {
    ...(data as unknown as RunCalibration),
    runName: typeof data.runName === 'string' ? data.runName : null,
    activationBytes: isObject(data.activationBytes)
      ? (data.activationBytes as RunCalibration['activationBytes'])
      : null,
    notes: Array.isArray(data.notes) ? (data.notes as CalibrationNote[]) : [],
  };
}

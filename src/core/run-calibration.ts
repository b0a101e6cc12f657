/**
 * A recorded run's calibration (`headroom calibrate RUN`): its measured per-step peaks at the three levels
 * against the estimate of its scenario, the factors calibrate.ts derives from them, and what to tell the
 * user about the record. Stored in the ledger as the run's `calibration` event, which `headroom fit` and
 * `headroom plan` read back for `--calibrated RUN`. Pure: records in, data out.
 */
import {
  type ActivationLimits,
  activationLimitScenarios,
  activationLimits,
  activationTerms,
  applyCalibration,
  CALIBRATION_WARMUP_STEPS,
  type CalibratedPeak,
  type Calibration,
  calibrate,
  type MeasuredPeaks,
  type MeasuredStepPeak,
  measuredActivationFactor,
  measuredPeaks,
  modelStateBytes,
  type StepSpread,
} from './calibrate.js';
import { timelinePhase } from './diagnose/run-timeline.js';
import type { Estimate } from './estimate.js';
import { maxOf } from './extremes.js';
import type { MessageOf, NoParams } from './message.js';
import type { EstimatedPeak, ProcessSampleRecord, RunRecord, StepRecord } from './run-record.js';
import type { Scenario } from './scenario.js';

/** The figures of each note about the record (src/words/calibration.ts words them). */
export interface CalibrationNoteParams {
  /** The probe saw another micro-batch or sequence length than the scenario says. */
  readonly 'batch-differs': { readonly recorded: number; readonly scenario: number };
  readonly 'seq-len-differs': { readonly recorded: number; readonly scenario: number };
  /** The run ended in an out-of-memory error: its peaks stop at the card. */
  readonly 'ended-in-oom': NoParams;
  /** No nvidia-smi sample fell within a measured step: the device level is the estimate's. */
  readonly 'no-device-samples': NoParams;
  /** Only this many training steps after the warm-up: the peak may not have been reached. */
  readonly 'few-steps': { readonly steps: number };
}

/** Something about the record that bears on the calibration: a code and its figures. */
export type CalibrationNote = MessageOf<CalibrationNoteParams>;

/** Fewest steps after the warm-up before a calibration is trusted without a note. */
export const CALIBRATION_MIN_STEPS = 3;

/**
 * Fewest training steps a calibration is made from: the warm-up step and one more. The first step cannot
 * show the run's peak: torch's optimizers create their states lazily in the first optimizer.step()
 * (torch/optim/adamw.py, _init_group: exp_avg and exp_avg_sq on the first step), so the first forward
 * and backward run without them, and the caching allocator is still growing its segments. The second
 * step is the first whose forward and backward hold everything every later step holds.
 */
export const CALIBRATION_MIN_RECORDED_STEPS = CALIBRATION_WARMUP_STEPS + 1;

/**
 * The largest change in tokens per micro-batch (micro-batch × sequence, either way) a calibration is
 * carried across. Measured on the H200 rows (npm run bench:calibration): calibrated on one setup and
 * predicting the same setup at another token count, the activation factor kept the allocated peak within
 * 2 % at every ratio measured, up to 16× (h200-010 at 512 tokens → h200-005/006 at 8192). Past 16× nothing
 * was measured, and whatever the factor absorbed that does not grow with tokens grows with the ratio.
 */
export const CALIBRATION_MAX_TOKEN_RATIO = 16;

/**
 * What a factor is never carried across, each read from a scenario: the factor measures how this model
 * keeps these tensors, and each of these changes which tensors there are.
 * - model: another architecture has other layers, widths and vocabulary;
 * - method: full, LoRA, QLoRA and freeze save different inputs for backward and keep different states;
 * - quantization: the 4- and 8-bit layers save (or drop) their inputs and dequantize their weights;
 * - strategy: sharding moves the states, buckets and gathered weights the allocator holds.
 */
export const CALIBRATION_FIXED_FIELDS = {
  model: (s: Scenario) => (typeof s.model === 'string' ? s.model : JSON.stringify(s.model)),
  method: (s: Scenario) => s.method,
  quantization: (s: Scenario) => s.quantization,
  strategy: (s: Scenario) => s.parallelism.strategy,
} as const satisfies Readonly<Record<string, (s: Scenario) => string>>;
export type CalibrationFixedField = keyof typeof CALIBRATION_FIXED_FIELDS;

/** Why a run cannot be calibrated from, or a calibration not carried to a setup: a code and its figures. */
export type CalibrationRefusal =
  /** No training step recorded torch's memory figures. */
  | { readonly code: 'no-measured-peak'; readonly params: { readonly steps: number } }
  /** Fewer training steps than CALIBRATION_MIN_RECORDED_STEPS. */
  | { readonly code: 'too-few-steps'; readonly params: { readonly steps: number; readonly needed: number } }
  /** torch's reserved peak below its allocated peak, which a caching allocator cannot show. */
  | {
      readonly code: 'reserved-below-allocated';
      readonly params: { readonly allocatedBytes: number; readonly reservedBytes: number };
    }
  /** The measured peak is below the weights and optimizer states the scenario must hold (modelStateBytes). */
  | {
      readonly code: 'below-model-states';
      readonly params: {
        readonly measuredBytes: number;
        readonly stateBytes: number;
        readonly weightsBytes: number;
        readonly optimizerBytes: number;
        readonly gradientBytes: number;
      };
    }
  /** More activation bytes than the setup's most memory-hungry form keeps (ActivationLimits.ceilingBytes). */
  | {
      readonly code: 'activations-beyond-setup';
      readonly params: {
        readonly factor: number;
        readonly maxFactor: number;
        readonly measuredBytes: number;
        readonly ceilingBytes: number;
      };
    }
  /** The setup to predict changes a field the factor cannot be carried across. */
  | {
      readonly code: 'setup-differs';
      readonly params: {
        readonly field: CalibrationFixedField;
        readonly run: string;
        readonly target: string;
      };
    }
  /** The setup to predict has more (or fewer) tokens per micro-batch than the ratio allows. */
  | {
      readonly code: 'tokens-beyond-range';
      readonly params: {
        readonly runTokens: number;
        readonly targetTokens: number;
        readonly maxRatio: number;
      };
    };

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
  // A stable sort by step keeps each step's rows in the order written, as the ledger reads them by step.
  const byStep = [...steps].sort((a, b) => a.step - b.step);
  return [...recordedStepPeaksOf(groupedSteps(byStep), deviceReadings(ownDeviceReadings(processes)))];
}

/** One step's figures as a calibration reads them: its rows' highest peaks, its latest record, its phase. */
export interface GroupedStep {
  readonly step: number;
  readonly tMs: number;
  readonly allocated: number;
  readonly reserved: number;
  /** Every row of the step was training. */
  readonly train: boolean;
}

/**
 * Step records ordered by step (each step's rows in the order written: Ledger.rows.steps(id, 'step'))
 * as one GroupedStep per step, one step in memory at a time; rows without both peaks are left out.
 */
export function* groupedSteps(steps: Iterable<StepRecord>): Generator<GroupedStep> {
  let current = null as GroupedStep | null;
  for (const s of steps) {
    if (s.peakAllocatedBytes === null || s.peakReservedBytes === null) continue;
    const seen = current !== null && current.step === s.step ? current : null;
    if (current !== null && seen === null) yield current;
    current = {
      step: s.step,
      tMs: Math.max(seen?.tMs ?? s.tMs, s.tMs),
      allocated: Math.max(seen?.allocated ?? 0, s.peakAllocatedBytes),
      reserved: Math.max(seen?.reserved ?? 0, s.peakReservedBytes),
      train: (seen?.train ?? true) && timelinePhase(s.phase) === 'train',
    };
  }
  if (current !== null) yield current;
}

/** nvidia-smi readings of the run's own processes: when, and the fullest GPU's sum of them. */
export interface DeviceReading {
  readonly tMs: number;
  readonly bytes: number;
}

/** The run's processes summed per GPU, per sample time, the fullest GPU's sum, oldest first. */
export function ownDeviceReadings(processes: Iterable<ProcessSampleRecord>): DeviceReading[] {
  const own = new Map<number, Map<string, number>>();
  for (const p of processes) {
    if (!p.ours || p.usedBytes === null) continue;
    const at = own.get(p.tMs) ?? new Map<string, number>();
    const gpu = p.gpuUuid ?? String(p.gpu);
    at.set(gpu, (at.get(gpu) ?? 0) + p.usedBytes);
    own.set(p.tMs, at);
  }
  return [...own.entries()]
    .map(([tMs, byGpu]) => ({ tMs, bytes: maxOf(byGpu.values()) }))
    .sort((a, b) => a.tMs - b.tMs);
}

/** Device readings as two columns of numbers, in time order (16 bytes a reading, not an object). */
export interface DeviceReadings {
  readonly length: number;
  readonly tMs: Float64Array;
  readonly bytes: Float64Array;
}

/** Columns of readings given one at a time, oldest first (one per time: ownDeviceReadings, or SQL's). */
export function deviceReadings(readings: Iterable<DeviceReading>): DeviceReadings {
  let tMs = new Float64Array(1024);
  let bytes = new Float64Array(1024);
  let length = 0;
  for (const r of readings) {
    if (length === tMs.length) {
      const t2 = new Float64Array(length * 2);
      t2.set(tMs);
      tMs = t2;
      const b2 = new Float64Array(length * 2);
      b2.set(bytes);
      bytes = b2;
    }
    tMs[length] = r.tMs;
    bytes[length] = r.bytes;
    length += 1;
  }
  return { length, tMs, bytes };
}

/** The first reading later than `t`. */
function firstAfter(readings: DeviceReadings, t: number): number {
  let lo = 0;
  let hi = readings.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (readings.tMs[mid]! > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The training steps' peaks from grouped steps in step order, each with the highest device reading
 * after the previous step's record and up to its own: the readings of a step are found by halving,
 * so a run of millions of steps and samples takes one pass, not steps × samples.
 */
export function* recordedStepPeaksOf(
  steps: Iterable<GroupedStep>,
  readings: DeviceReadings,
): Generator<RecordedStepPeak> {
  let since = Number.NEGATIVE_INFINITY;
  for (const s of steps) {
    const from = firstAfter(readings, since);
    const to = firstAfter(readings, s.tMs);
    since = s.tMs;
    if (!s.train) continue;
    let device: number | null = null;
    for (let i = from; i < to; i++)
      if (device === null || readings.bytes[i]! > device) device = readings.bytes[i]!;
    yield {
      step: s.step,
      peakAllocatedBytes: s.allocated,
      peakReservedBytes: s.reserved,
      deviceBytes: device,
    };
  }
}

/**
 * What a calibration reads of the recorded step peaks, gathered one peak at a time: how many, and over
 * those after the warm-up the measured peaks (as measuredPeaks gives them) and the first and last step.
 */
export interface RecordedPeaks {
  readonly count: number;
  readonly used: number;
  /** measuredPeaks of the peaks (after the warm-up when there are more); null without any. */
  readonly measured: MeasuredPeaks | null;
  readonly first: number | null;
  readonly last: number | null;
}

export function summarizeRecordedPeaks(
  peaks: Iterable<RecordedStepPeak>,
  warmupSteps = CALIBRATION_WARMUP_STEPS,
): RecordedPeaks {
  const head: RecordedStepPeak[] = [];
  let count = 0;
  let used = 0;
  let maxA = Number.NEGATIVE_INFINITY;
  let minA = Number.POSITIVE_INFINITY;
  let maxR = Number.NEGATIVE_INFINITY;
  let minR = Number.POSITIVE_INFINITY;
  let devices = 0;
  let maxD = Number.NEGATIVE_INFINITY;
  let minD = Number.POSITIVE_INFINITY;
  let first: number | null = null;
  let last: number | null = null;
  for (const p of peaks) {
    count += 1;
    if (count <= warmupSteps) {
      head.push(p);
      continue;
    }
    used += 1;
    first ??= p.step;
    last = p.step;
    maxA = Math.max(maxA, p.peakAllocatedBytes);
    minA = Math.min(minA, p.peakAllocatedBytes);
    maxR = Math.max(maxR, p.peakReservedBytes);
    minR = Math.min(minR, p.peakReservedBytes);
    if (typeof p.deviceBytes === 'number') {
      devices += 1;
      maxD = Math.max(maxD, p.deviceBytes);
      minD = Math.min(minD, p.deviceBytes);
    }
  }
  if (count === 0) return { count, used: 0, measured: null, first: null, last: null };
  // No step after the warm-up: measuredPeaks reads them all.
  if (used === 0)
    return { count, used: 0, measured: measuredPeaks(head, warmupSteps), first: null, last: null };
  const ratio = (hi: number, lo: number) => (lo > 0 ? hi / lo : 1);
  return {
    count,
    used,
    measured: {
      allocatedBytes: maxA,
      reservedBytes: maxR,
      deviceBytes: devices > 0 ? maxD : null,
      spread: {
        steps: used,
        allocated: ratio(maxA, minA),
        reserved: ratio(maxR, minR),
        device: devices > 0 ? ratio(maxD, minD) : null,
      },
    },
    first,
    last,
  };
}

/** A run that cannot be calibrated from: what was measured, and why not. */
export interface RefusedCalibration {
  readonly runId: number;
  readonly runName: string | null;
  readonly scenario: Scenario;
  /** The estimator's peaks for the scenario; null when nothing was measured to compare them with. */
  readonly estimate: EstimatedPeak | null;
  readonly measured: MeasuredPeaks | null;
  /** Training steps with memory figures. */
  readonly steps: number;
  readonly refusals: readonly CalibrationRefusal[];
}

export type CalibrationOutcome =
  | { readonly refused: false; readonly calibration: RunCalibration }
  | { readonly refused: true; readonly refusal: RefusedCalibration };

/**
 * The run's calibration: its measured peaks (after the warm-up) against the estimate of `scenario`,
 * within the physical bounds that the estimates of its variants give (activationLimitScenarios), or
 * the reasons it cannot be made. `estimateOf` estimates a scenario on the run's model.
 * @example calibrateRun(run, ledger.steps(run.id), ledger.processSamples(run.id), scenario, estimateOf)
 */
export function calibrateRun(
  run: RunRecord,
  steps: readonly StepRecord[],
  processes: readonly ProcessSampleRecord[],
  scenario: Scenario,
  estimateOf: (scenario: Scenario) => Estimate,
): CalibrationOutcome {
  return calibrateRecorded(run, recordedStepPeaks(steps, processes), scenario, estimateOf);
}

/**
 * calibrateRun from the recorded step peaks, read one at a time (recordedStepPeaksOf over the ledger's
 * rows by step): a run of millions of steps is calibrated in the memory of a few figures.
 */
export function calibrateRecorded(
  run: RunRecord,
  peaks: Iterable<RecordedStepPeak>,
  scenario: Scenario,
  estimateOf: (scenario: Scenario) => Estimate,
): CalibrationOutcome {
  const warmup = CALIBRATION_WARMUP_STEPS;
  const recorded = summarizeRecordedPeaks(peaks, warmup);
  const refuse = (
    refusals: CalibrationRefusal[],
    est: Estimate | null,
    measured: MeasuredPeaks | null,
  ): CalibrationOutcome => ({
    refused: true,
    refusal: {
      runId: run.id,
      runName: run.name,
      scenario,
      estimate: est ? peakOf(est) : null,
      measured,
      steps: recorded.count,
      refusals,
    },
  });
  if (recorded.count === 0) return refuse([{ code: 'no-measured-peak', params: { steps: 0 } }], null, null);
  if (recorded.count < CALIBRATION_MIN_RECORDED_STEPS || recorded.measured === null)
    return refuse(
      [{ code: 'too-few-steps', params: { steps: recorded.count, needed: CALIBRATION_MIN_RECORDED_STEPS } }],
      null,
      null,
    );
  const measured = recorded.measured;
  const est = estimateOf(scenario);
  const phase = est.peakPhase;
  const variants = activationLimitScenarios(scenario);
  const limits = activationLimits(
    estimateOf(variants.floor),
    tryEstimate(estimateOf, variants.ceiling),
    phase,
  );

  const refusals = measurementRefusals(est, measured, limits);
  if (refusals.length > 0) return refuse(refusals, est, measured);

  const calibration = calibrate(est, measured, limits);
  const terms = activationTerms(est, phase);
  const notes: CalibrationNote[] = [];
  if (run.batchSize !== null && run.batchSize !== scenario.microBatchSize)
    notes.push({
      code: 'batch-differs',
      params: { recorded: run.batchSize, scenario: scenario.microBatchSize },
    });
  if (run.seqLen !== null && run.seqLen !== scenario.seqLen)
    notes.push({ code: 'seq-len-differs', params: { recorded: run.seqLen, scenario: scenario.seqLen } });
  if (run.status === 'oom') notes.push({ code: 'ended-in-oom', params: {} });
  if (calibration.measured.deviceBytes === null) notes.push({ code: 'no-device-samples', params: {} });
  if (recorded.used < CALIBRATION_MIN_STEPS)
    notes.push({ code: 'few-steps', params: { steps: recorded.used } });
  return {
    refused: false,
    calibration: {
      runId: run.id,
      runName: run.name,
      scenario,
      estimate: peakOf(est),
      calibration,
      activationBytes:
        calibration.activationFactor === null
          ? null
          : {
              estimated: terms,
              measured: Math.round(terms * calibration.activationFactor),
            },
      steps: { used: recorded.used, first: recorded.first!, last: recorded.last!, warmup },
      notes,
    },
  };
}

/**
 * Why a measurement cannot calibrate the estimate of its scenario: a reserved peak below the allocated
 * one, an allocated peak below the states the scenario must hold, or more activations than the setup's
 * most memory-hungry form keeps. Empty when it can.
 */
export function measurementRefusals(
  est: Estimate,
  measured: MeasuredPeaks,
  limits: ActivationLimits,
): CalibrationRefusal[] {
  const phase = est.peakPhase;
  const refusals: CalibrationRefusal[] = [];
  if (measured.reservedBytes < measured.allocatedBytes)
    refusals.push({
      code: 'reserved-below-allocated',
      params: { allocatedBytes: measured.allocatedBytes, reservedBytes: measured.reservedBytes },
    });
  const states = modelStateBytes(est);
  if (measured.allocatedBytes < states.totalBytes)
    refusals.push({
      code: 'below-model-states',
      params: {
        measuredBytes: measured.allocatedBytes,
        stateBytes: states.totalBytes,
        weightsBytes: states.weightsBytes,
        optimizerBytes: states.optimizerBytes,
        gradientBytes: states.gradientBytes,
      },
    });
  const raw = measuredActivationFactor(est, measured);
  const terms = activationTerms(est, phase);
  if (raw !== null && limits.ceilingBytes !== null && raw * terms > limits.ceilingBytes)
    refusals.push({
      code: 'activations-beyond-setup',
      params: {
        factor: raw,
        maxFactor: limits.ceilingBytes / terms,
        measuredBytes: Math.round(raw * terms),
        ceilingBytes: limits.ceilingBytes,
      },
    });
  return refusals;
}

function peakOf(e: Estimate): EstimatedPeak {
  return {
    allocatedBytes: e.peak.allocatedBytes,
    reservedBytes: e.peak.reservedBytes,
    deviceBytes: e.peak.deviceBytes,
  };
}

/** An estimate of a variant, or null when the estimator rejects the variant (no ceiling then). */
function tryEstimate(estimateOf: (s: Scenario) => Estimate, scenario: Scenario): Estimate | null {
  try {
    return estimateOf(scenario);
  } catch {
    return null;
  }
}

/** Tokens in one micro-batch of a setup. */
export const tokensPerMicroBatch = (s: Pick<Scenario, 'microBatchSize' | 'seqLen'>): number =>
  s.microBatchSize * s.seqLen;

/** The tokens per micro-batch a calibration of a run at `run` is carried to: within the ratio either way. */
export function calibratedTokenRange(run: Pick<Scenario, 'microBatchSize' | 'seqLen'>): {
  readonly minTokens: number;
  readonly maxTokens: number;
} {
  const tokens = tokensPerMicroBatch(run);
  return {
    minTokens: Math.ceil(tokens / CALIBRATION_MAX_TOKEN_RATIO),
    maxTokens: tokens * CALIBRATION_MAX_TOKEN_RATIO,
  };
}

/**
 * Why a calibration made on `run` cannot be carried to `target`: the fields it is never carried across,
 * and a token count outside the range. Empty when it can.
 */
export function calibrationCarries(run: Scenario, target: Scenario): CalibrationRefusal[] {
  const out: CalibrationRefusal[] = [];
  for (const [field, read] of Object.entries(CALIBRATION_FIXED_FIELDS) as [
    CalibrationFixedField,
    (s: Scenario) => string,
  ][]) {
    if (read(run) !== read(target))
      out.push({ code: 'setup-differs', params: { field, run: read(run), target: read(target) } });
  }
  const range = calibratedTokenRange(run);
  const targetTokens = tokensPerMicroBatch(target);
  if (targetTokens < range.minTokens || targetTokens > range.maxTokens)
    out.push({
      code: 'tokens-beyond-range',
      params: {
        runTokens: tokensPerMicroBatch(run),
        targetTokens,
        maxRatio: CALIBRATION_MAX_TOKEN_RATIO,
      },
    });
  return out;
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

/** Every note code (TypeScript holds it to CalibrationNoteParams). */
const NOTE_CODES: Readonly<Record<keyof CalibrationNoteParams, true>> = {
  'batch-differs': true,
  'seq-len-differs': true,
  'ended-in-oom': true,
  'no-device-samples': true,
  'few-steps': true,
};

/**
 * A stored note as a message; one stored before notes carried `params` (`{ code, recorded, scenario }`)
 * is read into that shape; anything else is left out.
 */
function readNote(raw: unknown): CalibrationNote[] {
  if (!isObject(raw) || typeof raw.code !== 'string' || !Object.hasOwn(NOTE_CODES, raw.code)) return [];
  const { code, params, ...flat } = raw;
  return [{ code, params: isObject(params) ? params : flat } as CalibrationNote];
}

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
  // A factor outside its physical range, or a record from before the bounds (no `bounds`), is not used:
  // the run is measured again (io/calibrate-run.ts, calibrationOf).
  if (!(c.activationFactor === null || (isNumber(c.activationFactor) && c.activationFactor >= 0)))
    return null;
  if (!isNumber(c.allocatorFactor) || c.allocatorFactor < 0 || !isNumber(c.estimatedNonTorchBytes))
    return null;
  if (!Array.isArray(c.bounds)) return null;
  if (!(c.nonTorchBytes === null || isNumber(c.nonTorchBytes))) return null;
  if (!isObject(c.measured) || !isObject(c.errors) || typeof c.peakPhase !== 'string') return null;
  if (!isNumber(e.allocatedBytes) || !isNumber(e.reservedBytes) || !isNumber(e.deviceBytes)) return null;
  if (!isNumber(s.used) || !isNumber(s.first) || !isNumber(s.last) || !isNumber(s.warmup)) return null;
  // The steps' spread sets a calibrated upper bound; one stored before it was recorded, or not a
  // spread of ratios ≥ 1, is left out (the table's ratios then stay).
  const sp = c.spread;
  const ratio = (v: unknown): boolean => isNumber(v) && v >= 1;
  const spread =
    isObject(sp) &&
    isNumber(sp.steps) &&
    ratio(sp.allocated) &&
    ratio(sp.reserved) &&
    (sp.device === null || ratio(sp.device))
      ? (sp as unknown as StepSpread)
      : null;
  return {
    ...(data as unknown as RunCalibration),
    calibration: { ...(c as unknown as Calibration), spread },
    runName: typeof data.runName === 'string' ? data.runName : null,
    activationBytes: isObject(data.activationBytes)
      ? (data.activationBytes as RunCalibration['activationBytes'])
      : null,
    notes: Array.isArray(data.notes) ? data.notes.flatMap(readNote) : [],
  };
}

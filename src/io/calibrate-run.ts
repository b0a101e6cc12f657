/**
 * Calibration of a recorded run against the ledger: measure it (src/core/run-calibration.ts), store the
 * result as the run's `calibration` event, and read it back for `headroom fit|plan --calibrated RUN`.
 */
import { withBitsandbytes } from '../core/bitsandbytes.js';
import type { ScenarioContext } from '../core/diagnose/index.js';
import { estimate } from '../core/estimate.js';
import { fileError } from '../core/file-errors.js';
import {
  type CalibrationOutcome,
  calibrateRecorded,
  deviceReadings,
  groupedSteps,
  type RunCalibration,
  readRunCalibration,
  recordedStepPeaksOf,
} from '../core/run-calibration.js';
import type { RunRecord } from '../core/run-record.js';
import type { Scenario } from '../core/scenario.js';
import { formatBytes } from '../core/units.js';
import type { Ledger } from './ledger.js';
import { recordedBitsandbytes, runScenarioContext, storedScenarioContext } from './run-context.js';

/** The event kind a calibration is stored under. */
export const CALIBRATION_EVENT = 'calibration';

/**
 * Calibrates a recorded run against the estimate of `ctx`, as it ran with the bitsandbytes the probe
 * recorded (an old one keeps the 4-bit inputs, which the factors must not absorb): the calibration, or
 * the reasons the run cannot give one.
 */
export function measureCalibration(ledger: Ledger, run: RunRecord, ctx: ScenarioContext): CalibrationOutcome {
  const scenario = withBitsandbytes(ctx.scenario, recordedBitsandbytes(ledger, run.id)).scenario;
  const estimateOf = (s: Scenario) =>
    estimate({ scenario: s, shape: ctx.shape, exactParams: ctx.exactParams ?? null, gpu: null });
  // The run's rows one at a time (a run of millions of steps is never an array of them): nvidia-smi's
  // readings summed by SQLite into two columns of numbers, the steps grouped as they are read by step.
  const readings = deviceReadings(ledger.rows.ownDeviceSamples(run.id));
  const peaks = recordedStepPeaksOf(groupedSteps(ledger.rows.steps(run.id, 'step')), readings);
  return calibrateRecorded(run, peaks, scenario, estimateOf);
}

/** Stores a calibration as the run's latest `calibration` event. */
export function storeCalibration(ledger: Ledger, calibration: RunCalibration): void {
  const c = calibration.calibration;
  ledger.addEvent(calibration.runId, {
    tMs: Date.now(),
    kind: CALIBRATION_EVENT,
    source: 'headroom',
    message: `activations ${c.activationFactor === null ? '—' : `${c.activationFactor.toFixed(2)}×`}, allocator ${c.allocatorFactor.toFixed(2)}×${c.nonTorchBytes === null ? '' : `, ${formatBytes(c.nonTorchBytes)} outside torch`}`,
    data: calibration as unknown as Record<string, unknown>,
  });
}

/** The run's latest stored calibration; null when it was never calibrated or the record is not usable. */
export function storedCalibration(ledger: Ledger, run: RunRecord): RunCalibration | null {
  const event = ledger.events(run.id, [CALIBRATION_EVENT]).at(-1);
  return event ? readRunCalibration(event.data) : null;
}

/**
 * The calibration `--calibrated RUN` uses: the stored one, else one measured now (not stored) against
 * the scenario a stored record was made for — one written before the physical bounds, or with a factor
 * outside them, is measured again — or the run's own. A user error when there is no scenario to use.
 */
export async function calibrationOf(ledger: Ledger, run: RunRecord): Promise<CalibrationOutcome> {
  const event = ledger.events(run.id, [CALIBRATION_EVENT]).at(-1);
  const stored = event ? readRunCalibration(event.data) : null;
  if (stored) return { refused: false, calibration: stored };
  const earlier = event?.data.scenario;
  const ctx =
    (typeof earlier === 'object' && earlier !== null
      ? await storedScenarioContext(earlier as Record<string, unknown>)
      : null) ?? (await runScenarioContext(run));
  if (!ctx) {
    throw fileError(
      'run-no-scenario',
      { id: run.id, ref: String(run.id), use: 'calibrated' },
      '--calibrated',
      'bad-flag',
    );
  }
  return measureCalibration(ledger, run, ctx);
}

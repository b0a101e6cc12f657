import { describe, expect, it } from 'vitest';
import { startRun, tempHome } from '../../test/ledger-fixture.js';
import { estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import type { CalibrationOutcome } from '../core/run-calibration.js';
import { parseScenario } from '../core/scenario.js';
import { CALIBRATION_EVENT, calibrationOf, measureCalibration } from './calibrate-run.js';
import { recordedBitsandbytes } from './run-context.js';

const QLORA = { model: 'llama-3.2-1b', method: 'qlora', quantization: 'nf4', precision: 'bf16-true' };

/** A recorded QLoRA run whose probe found `bitsandbytes` installed, with a few steady steps. */
function recordRun(home: string, bitsandbytes: string | null) {
  const run = startRun(home, 'trial', QLORA);
  run.started({ bitsandbytes });
  run.steps(
    Array.from({ length: 8 }, (_, i) => ({ step: i + 1, allocatedGiB: 2, peakGiB: 6, reservedGiB: 7 })),
  );
  return run;
}

/** The calibration of an outcome that must not be refused. */
function accepted(outcome: CalibrationOutcome) {
  if (outcome.refused) throw new Error(`refused: ${JSON.stringify(outcome.refusal.refusals)}`);
  return outcome.calibration;
}

describe('calibrating a recorded run', () => {
  it('estimates it as it ran: with the inputs the recorded bitsandbytes keeps', () => {
    const home = tempHome();
    const shape = resolveModelRef('llama-3.2-1b')!.shape;
    const ctx = { scenario: parseScenario(QLORA), shape };
    const old = recordRun(home, '0.42.0');
    const { ledger } = old;
    expect(recordedBitsandbytes(ledger, old.id)).toBe('0.42.0');
    const calibrated = accepted(measureCalibration(ledger, ledger.getRun(old.id)!, ctx));
    expect(calibrated.scenario.quantizedInputsKept).toBe('step');
    const kept = estimate({ scenario: parseScenario({ ...QLORA, quantizedInputsKept: 'step' }), shape });
    expect(calibrated.estimate.allocatedBytes).toBe(kept.peak.allocatedBytes);
    // A current bitsandbytes, or none recorded: the scenario as given.
    const fresh = recordRun(home, '0.45.0');
    expect(
      accepted(measureCalibration(fresh.ledger, fresh.ledger.getRun(fresh.id)!, ctx)).scenario
        .quantizedInputsKept,
    ).toBeUndefined();
    const unknown = recordRun(home, null);
    expect(recordedBitsandbytes(unknown.ledger, unknown.id)).toBeNull();
    for (const run of [old, fresh, unknown]) run.finish('ok', 10);
  });
});

describe('a calibration stored before the physical bounds', () => {
  it('is not used: the run is measured again, and a one-step run is refused', async () => {
    // What an earlier headroom stored for a one-step run: a negative activation factor, no bounds.
    const home = tempHome();
    const scenario = {
      model: 'llama-3.2-1b',
      method: 'full',
      precision: 'bf16-true',
      microBatchSize: 1,
      seqLen: 1024,
    };
    const run = startRun(home, 'short', scenario);
    run.steps([{ step: 1, allocatedGiB: 5, peakGiB: 5.5, reservedGiB: 6 }]);
    const { ledger } = run;
    const stale = {
      runId: run.id,
      runName: 'short',
      scenario: parseScenario(scenario),
      estimate: { allocatedBytes: 1, reservedBytes: 1, deviceBytes: 1 },
      calibration: {
        activationFactor: -0.42,
        allocatorFactor: 1.77,
        nonTorchBytes: null,
        estimatedNonTorchBytes: 0,
        errors: {},
        measured: {},
        peakPhase: 'backward',
      },
      activationBytes: null,
      steps: { used: 1, first: 1, last: 1, warmup: 0 },
      notes: [],
    };
    ledger.addEvent(run.id, {
      tMs: 1,
      kind: CALIBRATION_EVENT,
      source: 'headroom',
      message: null,
      data: stale,
    });
    const outcome = await calibrationOf(ledger, ledger.getRun(run.id)!);
    expect(outcome).toMatchObject({
      refused: true,
      refusal: { runId: run.id, refusals: [{ code: 'too-few-steps', params: { steps: 1, needed: 2 } }] },
    });
    run.finish('ok', 2);
  });
});

import { describe, expect, it } from 'vitest';
import { startRun, tempHome } from '../../test/ledger-fixture.js';
import { estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import { parseScenario } from '../core/scenario.js';
import { measureCalibration } from './calibrate-run.js';
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

describe('calibrating a recorded run', () => {
  it('estimates it as it ran: with the inputs the recorded bitsandbytes keeps', () => {
    const home = tempHome();
    const shape = resolveModelRef('llama-3.2-1b')!.shape;
    const ctx = { scenario: parseScenario(QLORA), shape };
    const old = recordRun(home, '0.42.0');
    const { ledger } = old;
    expect(recordedBitsandbytes(ledger, old.id)).toBe('0.42.0');
    const calibrated = measureCalibration(ledger, ledger.getRun(old.id)!, ctx);
    expect(calibrated.scenario.quantizedInputsKept).toBe('step');
    const kept = estimate({ scenario: parseScenario({ ...QLORA, quantizedInputsKept: 'step' }), shape });
    expect(calibrated.estimate.allocatedBytes).toBe(kept.peak.allocatedBytes);
    // A current bitsandbytes, or none recorded: the scenario as given.
    const fresh = recordRun(home, '0.45.0');
    expect(
      measureCalibration(fresh.ledger, fresh.ledger.getRun(fresh.id)!, ctx).scenario.quantizedInputsKept,
    ).toBeUndefined();
    const unknown = recordRun(home, null);
    expect(recordedBitsandbytes(unknown.ledger, unknown.id)).toBeNull();
    for (const run of [old, fresh, unknown]) run.finish('ok', 10);
  });
});

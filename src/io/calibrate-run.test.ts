import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import { parseProbeLine } from '../core/probe-log.js';
import { parseScenario } from '../core/scenario.js';
import { GIB } from '../core/units.js';
import { measureCalibration } from './calibrate-run.js';
import { Ledger } from './ledger.js';
import { recordedBitsandbytes } from './run-context.js';

const line = (fields: Record<string, unknown>) => {
  const parsed = parseProbeLine(
    JSON.stringify({ v: 1, pid: 42, rank: 0, localRank: 0, worldSize: 1, ...fields }),
  );
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.event;
};

const QLORA = { model: 'llama-3.2-1b', method: 'qlora', quantization: 'nf4', precision: 'bf16-true' };

let ledger: Ledger;
beforeEach(() => {
  ledger = Ledger.open(mkdtempSync(join(tmpdir(), 'headroom-calibrate-')));
});
afterEach(() => ledger.close());

/** A recorded QLoRA run whose probe found `bitsandbytes` installed, with a few steady steps. */
function recordRun(bitsandbytes: string | null): number {
  const { id } = ledger.createRun({
    name: 'trial',
    command: ['python', 'train.py'],
    cwd: '/work',
    host: 'gpu1',
    scenario: QLORA,
    estimate: null,
    env: {},
    startedAtMs: 1_767_225_600_000,
    monitorPid: 1,
  });
  const device = {
    index: 0,
    allocatedBytes: 2 * GIB,
    reservedBytes: 7 * GIB,
    peakAllocatedBytes: 6 * GIB,
    peakReservedBytes: 7 * GIB,
    inactiveSplitBytes: 0,
    numAllocRetries: 0,
    numOoms: 0,
  };
  ledger.ingestProbe(id, [
    {
      path: '/l/probe.jsonl',
      endOffset: 1000,
      lines: [
        { offset: 0, event: line({ event: 'start', t: 0, argv: ['train.py'], bitsandbytes }) },
        ...Array.from({ length: 8 }, (_, i) => ({
          offset: 100 * (i + 1),
          event: line({ event: 'step', t: i + 1, step: i + 1, loss: 1, devices: [device] }),
        })),
      ],
    },
  ]);
  return id;
}

describe('calibrating a recorded run', () => {
  it('estimates it as it ran: with the inputs the recorded bitsandbytes keeps', () => {
    const shape = resolveModelRef('llama-3.2-1b')!.shape;
    const ctx = { scenario: parseScenario(QLORA), shape };
    const old = recordRun('0.42.0');
    expect(recordedBitsandbytes(ledger, old)).toBe('0.42.0');
    const calibrated = measureCalibration(ledger, ledger.getRun(old)!, ctx);
    expect(calibrated.scenario.quantizedInputsKept).toBe('step');
    const kept = estimate({ scenario: parseScenario({ ...QLORA, quantizedInputsKept: 'step' }), shape });
    expect(calibrated.estimate.allocatedBytes).toBe(kept.peak.allocatedBytes);
    // A current bitsandbytes, or none recorded: the scenario as given.
    const fresh = recordRun('0.45.0');
    expect(
      measureCalibration(ledger, ledger.getRun(fresh)!, ctx).scenario.quantizedInputsKept,
    ).toBeUndefined();
    const unknown = recordRun(null);
    expect(recordedBitsandbytes(ledger, unknown)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { findGpu } from '../src/core/catalog/index.js';
import { estimate } from '../src/core/estimate.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import type { AccuracyRow } from './accuracy-lib.js';
import { calibrationOfRun, measuredRuns, transfers } from './calibration-lib.js';

const SCENARIO = { model: 'llama-3.2-1b', method: 'lora', precision: 'bf16-true', seqLen: 1024 };
const gpu = findGpu('h200-sxm')!;
const shape = resolveModelRef('llama-3.2-1b')!.shape;
/** The harness's three rows (id + a|r|d) for a run that used exactly the estimate, times `k` allocated. */
function rowsOf(id: string, microBatchSize: number, k = 1): AccuracyRow[] {
  const raw = { ...SCENARIO, microBatchSize };
  const p = estimate({ scenario: parseScenario(raw), shape, gpu }).peak;
  const level = (metric: 'allocated' | 'reserved' | 'device', bytes: number): AccuracyRow => ({
    id: `${id}${metric[0]}`,
    scenario: raw,
    measured: { metric, peakBytes: Math.round(bytes), outcome: 'ok' },
    source: { quality: 'high' },
  });
  return [
    level('allocated', p.allocatedBytes * k),
    level('reserved', p.reservedBytes * k),
    level('device', p.deviceBytes * k),
  ];
}

describe('calibration benchmark arithmetic', () => {
  it('joins the three rows of a run, and leaves out a run missing a level or out of memory', () => {
    const rows = [...rowsOf('x-001', 2), ...rowsOf('x-002', 4).slice(0, 2)];
    expect(measuredRuns(rows).map((r) => r.id)).toEqual(['x-001']);
    const oom = rowsOf('x-003', 8).map((r) => ({
      ...r,
      measured: { ...r.measured, outcome: 'oom' as const },
    }));
    expect(measuredRuns(oom)).toEqual([]);
  });

  it('a run that matches the estimate carries to another size with the estimate’s own errors', () => {
    const runs = measuredRuns([...rowsOf('x-001', 2), ...rowsOf('x-002', 8)]);
    const list = transfers(runs);
    expect(list.map((t) => [t.from, t.to, t.ratio, t.carried])).toEqual([
      ['x-001', 'x-002', 4, true],
      ['x-002', 'x-001', 0.25, true],
    ]);
    for (const t of list) {
      expect(Math.abs(t.calibrated.allocated)).toBeLessThan(1e-6);
      expect(t.estimated.allocated).toBeCloseTo(0, 6);
    }
    expect(calibrationOfRun(runs[0]!).refusals).toEqual([]);
  });

  it('a run at a fifth of the estimate’s memory is refused: below the weights the scenario must hold', () => {
    const [run] = measuredRuns(rowsOf('x-004', 2, 0.2));
    expect(calibrationOfRun(run!).refusals.map((r) => r.code)).toEqual(['below-model-states']);
  });
});

/**
 * The H200 harness's rows (bench/data/h200-*.jsonl, measured by bench/gpu/measure.py) as facts the
 * estimator must reproduce exactly: the parameter counts PyTorch and PEFT reported for each model and
 * adapter setup, and every row well-formed. The memory figures themselves are for bench:accuracy, but for
 * one: a full fine-tune that peaks at its optimizer step holds only terms known to the byte (weights,
 * gradients, optimizer states, their step temporaries, the cuBLAS workspaces), so there the estimate
 * must match.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESS_ROWS_FILE } from '../bench/accuracy-lib.js';
import { findGpu } from '../src/core/catalog/index.js';
import { estimate } from '../src/core/estimate.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import { REPO_ROOT } from './data.js';

interface HarnessRow {
  id: string;
  scenario: Record<string, unknown>;
  measured: { metric: string; peakBytes: number | null; outcome: string };
  source: {
    harness: {
      totalParams?: number;
      trainableParams?: number;
      phasePeaks?: Record<string, { allocated: number }>;
    };
  };
}

const DATA = join(REPO_ROOT, 'bench', 'data');
const rows: HarnessRow[] = readdirSync(DATA)
  .filter((name) => HARNESS_ROWS_FILE.test(name))
  .flatMap((name) =>
    readFileSync(join(DATA, name), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as HarnessRow),
  );
// One row per scenario that ran (the allocated row carries the same harness facts as the other two).
const ran = rows.filter((r) => r.measured.metric === 'allocated');

describe('the H200 rows', () => {
  it('are there: three runs, every scenario that ran measured at all three levels', () => {
    expect(ran.length).toBeGreaterThanOrEqual(80);
    const ids = new Set(rows.map((r) => r.id));
    for (const r of ran) {
      const base = r.id.slice(0, -1);
      expect(ids.has(`${base}r`) && ids.has(`${base}d`), base).toBe(true);
    }
  });

  it("give PyTorch's and PEFT's parameter counts exactly: base weights, and adapters as PEFT builds them", () => {
    for (const r of ran) {
      const scenario = parseScenario(r.scenario);
      const e = estimate({ scenario, shape: resolveModelRef(scenario.model as string)!.shape });
      const { totalParams, trainableParams } = r.source.harness;
      // PEFT's model counts its adapters among the parameters; the estimate counts the base.
      const adapters = scenario.method === 'lora' ? e.params.trainable : 0;
      expect([r.id, e.params.total + adapters]).toEqual([r.id, totalParams]);
      expect([r.id, e.params.trainable]).toEqual([r.id, trainableParams]);
    }
  });

  it('give the allocated peak of full fine-tunes that peak at the optimizer step, to a few MiB', () => {
    const misses: number[] = [];
    for (const r of ran) {
      const phases = Object.entries(r.source.harness.phasePeaks ?? {});
      const measuredPhase = phases.reduce((a, b) => (b[1].allocated > a[1].allocated ? b : a))[0];
      const scenario = parseScenario(r.scenario);
      if (scenario.method !== 'full' || measuredPhase !== 'optimizer-step') continue;
      const e = estimate({
        scenario,
        shape: resolveModelRef(scenario.model as string)!.shape,
        gpu: findGpu(scenario.gpu as string) ?? null,
      });
      if (e.peakPhase !== 'optimizer-step') continue;
      misses.push(Math.abs(e.peak.allocatedBytes - r.measured.peakBytes!) / 2 ** 20);
    }
    misses.sort((a, b) => a - b);
    expect(misses.length).toBeGreaterThanOrEqual(15);
    // Without the two 32 MiB cuBLAS workspaces every one of these would be 64 MiB short.
    expect(misses[Math.floor(misses.length / 2)]!).toBeLessThan(4);
  });
});

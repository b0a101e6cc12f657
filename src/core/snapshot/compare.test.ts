/** The estimate beside a snapshot: parts at the allocator's level, errors, the worst part, findings. */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../architecture.js';
import { findGpu, findModel } from '../catalog/index.js';
import { estimate } from '../estimate.js';
import { parseScenario } from '../scenario.js';
import { TORCHTUNE_8B_FULL_PAGED } from '../test-helpers/scenarios.js';
import { py, snapshotBytes } from '../test-helpers/snapshot-builder.js';
import { analyseSnapshot } from './analyse.js';
import { allocatedParts, compareWithEstimate } from './compare.js';

const GIB = 2 ** 30;
const est = (fields: Record<string, unknown>, gpu = 'h100-sxm') =>
  estimate({
    scenario: parseScenario({ model: 'llama-3.1-8b', ...fields }),
    shape: shapeFromConfig(findModel('llama-3.1-8b')!),
    gpu: findGpu(gpu)!,
  });

describe('allocatedParts', () => {
  it.each([
    ['LoRA', { method: 'lora' }],
    ['full AdamW', { method: 'full' }],
    ['paged states in host RAM', TORCHTUNE_8B_FULL_PAGED],
  ])('%s: the parts add up to the allocated peak', (_name, fields) => {
    const e = est(fields, _name.startsWith('paged') ? 'rtx-4090' : 'h100-sxm');
    const parts = allocatedParts(e);
    expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBe(e.peak.allocatedBytes);
    expect(parts.weights).toBe(e.components.weights);
    expect(parts.optimizer).toBe(e.components.optimizer - (e.breakdown.pagedOptimizerBytes ?? 0));
  });
});

describe('compareWithEstimate', () => {
  const e = est({ method: 'lora' });
  const parts = allocatedParts(e);
  // A measured peak with the estimate's weights, twice its activations, and 1 GiB nobody recorded.
  const frames = {
    weights: [py('from_pretrained', '/sp/transformers/modeling_utils.py')],
    activations: [py('forward', '/sp/m.py')],
  };
  const report = analyseSnapshot(
    snapshotBytes({
      segments: [
        {
          address: 2 ** 40,
          blocks: [
            { size: parts.weights, frames: frames.weights },
            { size: 2 * parts.activations, frames: frames.activations },
            { size: GIB },
          ],
        },
      ],
    }),
  );
  const c = compareWithEstimate(report, e);

  it('compares part by part: error = (estimate − measured) / measured', () => {
    expect(c.basis).toBe('end-state');
    const byPart = Object.fromEntries(c.parts.map((p) => [p.part, p]));
    expect(byPart.weights).toEqual({
      part: 'weights',
      estimateBytes: parts.weights,
      measuredBytes: parts.weights,
      error: 0,
    });
    expect(byPart.activations!.measuredBytes).toBe(2 * parts.activations);
    expect(byPart.activations!.error).toBeCloseTo(-0.5, 10);
    // Nothing measured: no relative error to give.
    expect(byPart.optimizer!.measuredBytes).toBe(0);
    expect(byPart.optimizer!.error).toBeNull();
    expect(c.unattributedBytes).toBe(GIB);
    expect(c.measuredBytes).toBe(parts.weights + 2 * parts.activations + GIB);
    expect(c.totalError).toBeCloseTo((e.peak.allocatedBytes - c.measuredBytes) / c.measuredBytes, 12);
  });

  it('names the worst part and a finding for each part off by 20 % and 256 MiB', () => {
    expect(c.worst).toBe('activations');
    const low = c.findings.find((f) => f.code === 'estimate-part-low');
    expect(low?.params).toMatchObject({ part: 'activations', estimateBytes: parts.activations });
    expect(c.findings.some((f) => 'part' in f.params && f.params.part === 'weights')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { ADVICE } from '../words/advice.js';
import { say } from '../words/catalog.js';
import { type Advice, type Attack, attackFirst } from './advice.js';
import { shapeFromConfig } from './architecture.js';
import { findModel } from './catalog/index.js';
import { estimate } from './estimate.js';
import { parseScenario } from './scenario.js';

const attacks = (fields: Record<string, unknown>) => {
  const scenario = parseScenario({ model: 'llama-3.1-8b', ...fields });
  const result = estimate({ scenario, shape: shapeFromConfig(findModel('llama-3.1-8b')!), gpu: null });
  return attackFirst(result, scenario).map(inEnglish);
};

/** An attack with its remedies in the catalog's English, as the terminal shows them. */
const inEnglish = (a: Attack) => ({ ...a, remedies: a.remedies.map((r: Advice) => say(ADVICE, 'en', r)) });

describe('attackFirst', () => {
  const qlora = { method: 'qlora', quantization: 'nf4', precision: 'bf16-true', microBatchSize: 2 };

  it('names the two largest parts, largest first, each with remedies the scenario does not use yet', () => {
    const [first, second] = attacks(qlora);
    expect(first!.part).toBe('activations');
    expect(first!.remedies).toEqual([
      'smaller micro-batch with more gradient accumulation',
      'gradient checkpointing',
      'chunked or fused cross-entropy',
      'activation offload to CPU',
      'shorter sequences',
    ]);
    expect(second!.part).toBe('weights');
    expect(first!.bytes).toBeGreaterThan(second!.bytes);
  });

  it('a foreach optimizer whose step temporary is in the peak: its fused kernel first', () => {
    const full = { method: 'full', precision: 'bf16-true', gradientCheckpointing: 'full', loss: 'chunked' };
    const optimizer = (fields: Record<string, unknown>) =>
      attacks(fields).find((a) => a.part === 'optimizer');
    expect(optimizer(full)!.remedies[0]).toBe('fused optimizer kernel (no state-sized step temporary)');
    expect(optimizer({ ...full, fusedOptimizer: true })!.remedies[0]).toBe('8-bit optimizer');
  });

  it('on a bitsandbytes that keeps the 4-bit inputs, the upgrade comes first', () => {
    const [first] = attacks({ ...qlora, quantizedInputsKept: 'next-forward' });
    expect(first!.remedies[0]).toBe('bitsandbytes 0.43.2 or later (4-bit layers stop keeping their inputs)');
    // int8 keeps its input in every version: no upgrade to offer.
    const [int8] = attacks({ ...qlora, quantization: 'int8', quantizedInputsKept: 'step' });
    expect(int8!.remedies[0]).toBe('smaller micro-batch with more gradient accumulation');
  });

  it('offers expandable segments against the runtime part until the scenario sets them', () => {
    const scenario = parseScenario({ model: 'llama-3.1-8b', ...qlora });
    const result = estimate({ scenario, shape: shapeFromConfig(findModel('llama-3.1-8b')!), gpu: null });
    const runtime = (s: typeof scenario) =>
      attackFirst(result, s, 5)
        .map(inEnglish)
        .find((a) => a.part === 'runtime')?.remedies ?? [];
    expect(runtime(scenario)).toEqual([
      'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation',
    ]);
    expect(runtime({ ...scenario, expandableSegments: true })).toEqual([]);
  });
});

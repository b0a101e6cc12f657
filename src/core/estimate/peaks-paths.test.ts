/**
 * An estimate asked for its terms sums the phase records (phasePeaks); one that is not sums the same
 * terms without building the records (stepPeaks, the planners' fast path). Both must give the same
 * estimate, figure for figure, over setups that reach every term: FSDP's root unit and gathered
 * gradients, ZeRO buckets, offload, quantization, the optimizer in backward, evaluation and generation.
 */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../architecture.js';
import { findGpu, findModel } from '../catalog/index.js';
import { parseScenario, type Scenario } from '../scenario.js';
import { estimate } from './pipeline.js';

const SETUPS: readonly Record<string, unknown>[] = [
  { method: 'full' },
  { method: 'full', optimizerInBackward: true, gradAccumSteps: 1 },
  { method: 'full', optimizerInBackward: true, precision: 'fp32', seqLen: 8 },
  { method: 'full', parallelism: { strategy: 'fsdp', gpus: 8 }, gradAccumSteps: 4 },
  { method: 'full', parallelism: { strategy: 'fsdp', gpus: 8, reduceDtype: 'fp32' }, seqLen: 256 },
  {
    method: 'full',
    parallelism: { strategy: 'zero3', gpus: 8 },
    offload: { optimizer: 'cpu', params: 'nvme' },
  },
  { method: 'full', parallelism: { strategy: 'zero2', gpus: 4 }, precision: 'fp16-mixed' },
  { method: 'freeze', trainableLayers: 4, loadDtype: 'fp32', precision: 'bf16-true' },
  { method: 'lora', lora: { rank: 64, targets: 'all-linear', dropout: 0.1, modulesToSave: ['lm_head'] } },
  {
    method: 'lora',
    parallelism: { strategy: 'fsdp', gpus: 2, frozenParamGrads: true },
    gradientCheckpointing: 'full',
  },
  { method: 'qlora', quantization: 'nf4', prepareKbitUpcast: 'kept', quantizedInputsKept: 'next-forward' },
  { method: 'qlora', quantization: 'int8', loss: 'chunked', gradientCheckpointing: 'selective' },
  { method: 'lora', evaluation: { microBatchSize: 8, batches: 4, keepLogits: true } },
  { method: 'full', evaluation: { microBatchSize: 2, generateTokens: 256, generateBatch: 4 }, seqLen: 4096 },
  { method: 'lora', framework: 'hf-trainer', padding: 'longest', offload: { activations: 'cpu' } },
];

describe('the peaks with and without the terms', () => {
  it('are the same estimate', () => {
    const gpu = findGpu('h100-sxm')!;
    let compared = 0;
    for (const model of ['llama-3.1-8b', 'qwen3-30b-a3b', 'gemma-2-2b']) {
      const shape = shapeFromConfig(findModel(model)!);
      for (const setup of SETUPS) {
        const scenario: Scenario = parseScenario({ model, ...setup });
        const { peakTerms, phaseTerms, ...withTerms } = estimate({ scenario, shape, gpu, terms: true });
        expect(peakTerms?.length).toBeGreaterThan(0);
        expect(phaseTerms).toBeDefined();
        expect(estimate({ scenario, shape, gpu })).toStrictEqual(withTerms);
        compared++;
      }
    }
    expect(compared).toBe(45);
  });
});

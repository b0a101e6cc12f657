/**
 * The phases around the training step (load.ts, evaluation.ts): each term against its formula, the
 * phase of the peak, and a scenario that names none of them estimated as before.
 */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../architecture.js';
import { findModel } from '../catalog/index.js';
import { paramBreakdown } from '../params.js';
import { parseScenario } from '../scenario.js';
import { MIB } from '../units.js';
import { ALLOCATOR_BASE_RESERVE_BYTES } from './allocator.js';
import { estimate } from './pipeline.js';
import type { Estimate, PeakTermName } from './types.js';

const LLAMA_3B = shapeFromConfig(findModel('llama-3.2-3b')!);
const LLAMA_8B = shapeFromConfig(findModel('llama-3.1-8b')!);
const LORA = {
  model: 'llama-3.2-3b',
  method: 'lora',
  lora: { rank: 32, targets: ['q_proj', 'v_proj'] },
  microBatchSize: 4,
  seqLen: 768,
} as const;
const QLORA = {
  model: 'llama-3.1-8b',
  method: 'qlora',
  quantization: 'nf4',
  seqLen: 1024,
  gradientCheckpointing: 'full',
} as const;

function run(raw: Record<string, unknown>, shape = LLAMA_3B): Estimate {
  return estimate({ scenario: parseScenario(raw), shape, terms: true });
}

function term(e: Estimate, phase: keyof NonNullable<Estimate['phaseTerms']>, name: PeakTermName): number {
  return e.phaseTerms?.[phase]?.find((t) => t.term === name)?.bytes ?? 0;
}

describe('a scenario that names no phase around the step', () => {
  it('has the four phases of before, and loading holds only the weights', () => {
    const e = run(LORA);
    expect(Object.keys(e.phases)).toEqual(['load', 'forward', 'backward', 'optimizer-step']);
    expect(e.phaseTerms?.load).toEqual([{ term: 'weights', bytes: e.breakdown.weightsBytes }]);
    expect(e.peakPhase).toBe('backward');
  });
});

describe('evaluation (evaluation.ts)', () => {
  const V = LLAMA_3B.vocabSize;
  const h = LLAMA_3B.hiddenSize;
  const f = LLAMA_3B.intermediateSize;

  it('a forward without the graph: one layer, the fp32-upcast loss, the states and no gradients', () => {
    const e = run({ ...LORA, evaluation: { microBatchSize: 4 } });
    const tokens = 4 * 768;
    expect(term(e, 'eval', 'eval-logits-and-loss')).toBe((2 + 4 + 4) * V * tokens);
    expect(term(e, 'eval', 'eval-layer')).toBe(2 * (2 * h + 3 * f) * tokens);
    expect(term(e, 'eval', 'weights')).toBe(e.breakdown.weightsBytes);
    expect(term(e, 'eval', 'optimizer-states')).toBe(e.breakdown.optimizerBytes);
    expect(term(e, 'eval', 'gradients')).toBe(0);
    expect(e.phases.eval).toBe((e.phaseTerms?.eval ?? []).reduce((sum, t) => sum + t.bytes, 0));
    // Below the step's own peak at the training batch: the step stays the peak.
    expect(e.peakPhase).toBe('backward');
    expect(e.phases.generate).toBeUndefined();
    // A chunked loss (litgpt's validate, torchtune) makes no fp32 copy of the whole logits.
    const chunked = run({ ...LORA, loss: 'chunked', evaluation: { microBatchSize: 4 } });
    expect(term(chunked, 'eval', 'eval-logits-and-loss')).toBe((2 + 4) * V * tokens);
  });

  it('kept logits: n − 1 batches beside the n-th forward, or the concatenation of 2n', () => {
    const perBatch = 2 * V * 8 * 768;
    const four = run({ ...LORA, evaluation: { microBatchSize: 8, keepLogits: true, batches: 4 } });
    expect(term(four, 'eval', 'kept-eval-logits')).toBe(3 * perBatch);
    const many = run({ ...LORA, evaluation: { microBatchSize: 8, keepLogits: true, batches: 16 } });
    expect(term(many, 'eval', 'kept-eval-logits')).toBe(32 * perBatch);
    expect(term(many, 'eval', 'eval-layer')).toBe(0);
    expect(many.peakPhase).toBe('eval');
    expect(many.peak.allocatedBytes).toBe(many.phases.eval);
    // 32 batches of 16-bit logits, 50 GB, on top of the 6 GB of weights.
    expect(many.peak.allocatedBytes / 1e9).toBeCloseTo(56.5, 0);
  });

  it('generation: the KV cache of every layer, KV head and cached token', () => {
    const e = run({ ...LORA, evaluation: { microBatchSize: 4, generateTokens: 768 } });
    const perToken = LLAMA_3B.numLayers * LLAMA_3B.numKvHeads * 2 * LLAMA_3B.headDim * 2;
    expect(term(e, 'generate', 'kv-cache')).toBe(perToken * 4 * 768);
    expect(term(e, 'generate', 'generation-logits')).toBe((2 + 4) * V * 4);
    const one = run({ ...LORA, evaluation: { microBatchSize: 4, generateTokens: 768, generateBatch: 1 } });
    expect(term(one, 'generate', 'kv-cache')).toBe(perToken * 768);
  });

  it('reserved is the high-water mark: an evaluation that churns more reserves more', () => {
    const step = run(LORA);
    const big = run({ ...LORA, evaluation: { microBatchSize: 32 } });
    expect(big.peakPhase).toBe('eval');
    expect(big.peak.reservedBytes).toBeGreaterThan(step.peak.reservedBytes);
  });
});

describe('loading (load.ts)', () => {
  const params = paramBreakdown(LLAMA_3B);

  it('a base loaded in fp32 trains in fp32 under autocast unless cast: 4 bytes a weight', () => {
    const e = run({ ...LORA, loadDtype: 'fp32' });
    expect(e.breakdown.autocastCopyBytes).toBeGreaterThan(0);
    expect(e.breakdown.weightsBytes).toBeGreaterThan(4 * params.totalParams);
  });

  it('cast to bf16 after an fp32 load: every weight in fp32 and the first 16-bit copy', () => {
    const small = { ...LORA, microBatchSize: 1, seqLen: 256, precision: 'bf16-true' } as const;
    const e = run({ ...small, loadDtype: 'fp32' });
    const largest = Math.max(
      params.embeddingParams,
      params.lmHeadParams,
      ...params.linears.map((m) => m.inFeatures * m.outFeatures),
    );
    expect(term(e, 'load', 'load-fp32-weights')).toBe(2 * params.totalParams + 2 * largest);
    expect(e.peakPhase).toBe('load');
    expect(run(small).peakPhase).toBe('backward');
    // The cast happens where each rank loads the whole model, not under FSDP (whose loading is its own).
    const fsdp = run({ ...small, loadDtype: 'fp32', parallelism: { strategy: 'fsdp', gpus: 2 } });
    expect(term(fsdp, 'load', 'load-fp32-weights')).toBe(0);
  });

  it('reserved is the high-water mark the other way too: a load peak keeps the step’s larger reserve', () => {
    // Llama-3.2-3B LoRA, b1 × 4096 checkpointed, loaded through fp32 and cast: loading allocates a little
    // more than the step, but the step's cached loss block reserves more than loading does.
    const step = {
      ...LORA,
      microBatchSize: 1,
      seqLen: 4096,
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
    };
    const viaFp32 = run({ ...step, loadDtype: 'fp32' });
    const direct = run(step);
    expect(viaFp32.peakPhase).toBe('load');
    expect(direct.peakPhase).toBe('backward');
    expect(viaFp32.phases.load).toBeGreaterThan(direct.peak.allocatedBytes);
    expect(viaFp32.phases.backward).toBe(direct.phases.backward);
    // The step's own reserved stands: loading's alone is lower.
    expect(direct.peak.reservedBytes).toBeGreaterThan(viaFp32.phases.load + ALLOCATOR_BASE_RESERVE_BYTES);
    expect(viaFp32.peak.reservedBytes).toBe(direct.peak.reservedBytes);
  });

  it('the caching allocator warmup: loading reserves one block, nothing churns at load', () => {
    const small = {
      ...LORA,
      microBatchSize: 1,
      seqLen: 256,
      precision: 'bf16-true',
      loadDtype: 'fp32',
    } as const;
    const warm = run({ ...small, cachingAllocatorWarmup: true });
    expect(warm.peakPhase).toBe('load');
    expect(warm.peak.reservedBytes).toBe(warm.peak.allocatedBytes + ALLOCATOR_BASE_RESERVE_BYTES);
    expect(run(small).peak.reservedBytes).toBeGreaterThan(warm.peak.reservedBytes);
  });

  it('prepare_model_for_kbit_training kept: embeddings, head and norms in fp32 for the run', () => {
    const p8 = paramBreakdown(LLAMA_8B);
    const others = p8.embeddingParams + p8.lmHeadParams + p8.normParams;
    const plain = run(QLORA, LLAMA_8B);
    const kept = run({ ...QLORA, prepareKbitUpcast: 'kept' }, LLAMA_8B);
    expect(kept.breakdown.weightsBytes - plain.breakdown.weightsBytes).toBe(2 * others);
    // The head is cast back to 16 bits by autocast on every call, and that copy is saved for backward.
    expect(kept.breakdown.autocastCopyBytes).toBe(2 * p8.lmHeadParams);
    expect(term(kept, 'load', 'kbit-upcast')).toBe(2 * p8.embeddingParams);
    expect(term(kept, 'load', 'quantization-transient')).toBe(0);
  });

  it('cast back (TRL, Axolotl): all of them in fp32 at load only, which can be the peak', () => {
    const p8 = paramBreakdown(LLAMA_8B);
    const others = p8.embeddingParams + p8.lmHeadParams + p8.normParams;
    const plain = run(QLORA, LLAMA_8B);
    const back = run({ ...QLORA, prepareKbitUpcast: 'cast-back' }, LLAMA_8B);
    expect(back.breakdown.weightsBytes).toBe(plain.breakdown.weightsBytes);
    expect(term(back, 'load', 'kbit-upcast')).toBe(2 * others + 2 * p8.embeddingParams);
    expect(back.peakPhase).toBe('load');
    expect(back.peak.allocatedBytes / MIB).toBeGreaterThan(plain.peak.allocatedBytes / MIB);
    // Not for a base bitsandbytes did not quantize.
    const gptq = run({ ...QLORA, quantization: 'int4-gptq', prepareKbitUpcast: 'cast-back' }, LLAMA_8B);
    expect(term(gptq, 'load', 'kbit-upcast')).toBe(0);
  });
});

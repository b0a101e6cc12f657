import { describe, expect, it } from 'vitest';
import { say } from '../words/catalog.js';
import { ESTIMATE_NOTES } from '../words/estimate-notes.js';
import { shapeFromConfig } from './architecture.js';
import { findGpu, findModel } from './catalog/index.js';
import { HeadroomUserError } from './errors.js';
import { type Estimate, estimate, quantizedBytesPerParam } from './estimate.js';
import { requiredDeviceBytes } from './margin.js';
import { paramBreakdown } from './params.js';
import { parseScenario } from './scenario.js';
import { TORCHTUNE_8B_FULL_PAGED } from './test-helpers/scenarios.js';

/** An estimate's notes in English words, as the CLI shows them (src/words/estimate-notes.ts). */
const english = (e: Pick<Estimate, 'notes'>): string[] => e.notes.map((n) => say(ESTIMATE_NOTES, 'en', n));

const shapeOf = (id: string) => shapeFromConfig(findModel(id)!);
const run = (fields: Record<string, unknown>, gpu?: string) => {
  const scenario = parseScenario({ model: 'llama-3.1-8b', ...fields });
  return estimate({ scenario, shape: shapeOf(scenario.model as string), gpu: gpu ? findGpu(gpu)! : null });
};

describe('estimate: the shape of the answer', () => {
  const r = run({ method: 'lora', precision: 'bf16-true' }, 'a100-sxm-80gb');

  it('has every field SCENARIO.md requires', () => {
    expect(r.perGpu).toBe(true);
    expect(Object.keys(r.peak).sort()).toEqual(['allocatedBytes', 'deviceBytes', 'reservedBytes']);
    expect(Object.keys(r.components).sort()).toEqual([
      'activations',
      'gradients',
      'optimizer',
      'runtime',
      'weights',
    ]);
    expect(['load', 'forward', 'backward', 'optimizer-step']).toContain(r.peakPhase);
    expect(r.fits).toEqual({
      gpu: 'a100-sxm-80gb',
      usableBytes: 85_899_345_920,
      // The one verdict (margin.ts): the usable memory less the default 10 % margin.
      marginFraction: 0.1,
      budgetBytes: Math.floor(85_899_345_920 * 0.9),
      // Judged on the upper bound (upper.ts); the point estimate is the bottom of the range.
      requiredBytes: r.upper.deviceBytes,
      estimatedBytes: r.peak.deviceBytes,
      headroomBytes: 85_899_345_920 - r.upper.deviceBytes,
      ok: true,
      pagedToHostBytes: 0,
    });
  });

  it('carries an upper bound at each level, at or above the point, in the order the levels nest', () => {
    const u = r.upper;
    expect(u.allocatedBytes).toBeGreaterThanOrEqual(r.peak.allocatedBytes);
    expect(u.reservedBytes).toBeGreaterThanOrEqual(Math.max(u.allocatedBytes, r.peak.reservedBytes));
    expect(u.deviceBytes).toBeGreaterThanOrEqual(u.reservedBytes + r.peak.deviceBytes - r.peak.reservedBytes);
    // No framework named: the LoRA rows of every framework speak for it (or all rows, at a level with too few).
    for (const level of ['allocated', 'reserved', 'device'] as const) {
      expect(u.basis[level].kind.framework).toBeNull();
      expect(u.basis[level].ratio).toBeGreaterThanOrEqual(1);
      expect(u.basis[level].rows).toBeGreaterThanOrEqual(10);
      expect(u.basis[level].from).toBe('measured-runs');
    }
    expect(u.allocatedBytes).toBe(Math.round(r.peak.allocatedBytes * u.basis.allocated.ratio));
  });

  it('orders the levels allocated ≤ reserved ≤ device, and the five parts add up to the device level', () => {
    expect(r.peak.allocatedBytes).toBeLessThanOrEqual(r.peak.reservedBytes);
    expect(r.peak.reservedBytes).toBeLessThan(r.peak.deviceBytes);
    const sum = Object.values(r.components).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - r.peak.deviceBytes)).toBeLessThanOrEqual(5);
  });

  it('counts the bf16 base of an 8B LoRA run at 2 bytes per parameter', () => {
    expect(r.breakdown.weightsBytes).toBeGreaterThan(8_030_261_248 * 2);
    expect(r.breakdown.weightsBytes).toBeLessThan(8_030_261_248 * 2 * 1.01);
    expect(r.params.trainable).toBe(32 * 16 * (4096 + 4096) + 32 * 16 * (4096 + 1024));
  });
});

describe('estimate: model states by method and precision', () => {
  it('full fine-tuning with AMP keeps 16 bytes per parameter, pure bf16 8', () => {
    const mixed = run({ method: 'full', precision: 'bf16-mixed' });
    const pure = run({ method: 'full', precision: 'bf16-true' });
    const states = (e: typeof mixed) =>
      e.breakdown.weightsBytes! + e.breakdown.gradientsBytes! + e.breakdown.optimizerBytes!;
    expect(states(mixed)).toBe(8_030_261_248 * 16);
    expect(states(pure)).toBe(8_030_261_248 * 8);
  });

  it('foreach AdamW builds one state-sized temporary in its step; the fused kernel none', () => {
    const foreach = run({ method: 'full', precision: 'bf16-mixed' });
    const fused = run({ method: 'full', precision: 'bf16-mixed', fusedOptimizer: true });
    expect(foreach.breakdown.optimizerTempBytes).toBe(8_030_261_248 * 4);
    expect(fused.breakdown.optimizerTempBytes).toBe(0);
    expect(foreach.phases['optimizer-step'] - fused.phases['optimizer-step']).toBe(8_030_261_248 * 4);
    // The states themselves are the same.
    expect(fused.breakdown.optimizerBytes).toBe(foreach.breakdown.optimizerBytes);
  });

  it('8-bit AdamW states take about 2 bytes per parameter instead of 8', () => {
    const e = run({ method: 'full', precision: 'fp32', optimizer: 'adamw-8bit' });
    expect(e.breakdown.optimizerBytes! / 8_030_261_248).toBeCloseTo(2.0039, 4);
  });

  it('a paged optimizer is seen by nvidia-smi but not by torch allocated', () => {
    const paged = run({ method: 'full', precision: 'bf16-true', optimizer: 'paged-adamw-8bit' });
    expect(paged.breakdown.pagedOptimizerBytes).toBeGreaterThan(16e9);
    expect(paged.breakdown.optimizerBytes).toBe(0);
    expect(paged.peak.deviceBytes - paged.peak.reservedBytes).toBeGreaterThan(16e9);
  });

  it('paged states that do not fit wait in host RAM: the run fits, without headroom', () => {
    // torchtune's Llama 3.1 8B full fine-tune (PagedAdamW8bit, optimizer in backward) runs on a 24 GB
    // RTX 4090 although its 16 GB of weights and 16 GB of states do not fit together. By its point the
    // rest fits the 4090 with the margin; by the upper bound (what the verdict judges) it does not, so
    // the mechanism is shown on a 32 GB RTX 5090.
    const scenario = { ...TORCHTUNE_8B_FULL_PAGED, microBatchSize: 2 };
    const on4090 = run(scenario, 'rtx-4090').fits!;
    expect(on4090.estimatedBytes).toBeLessThanOrEqual(on4090.budgetBytes);
    expect(on4090.ok).toBe(false);
    const e = run(scenario, 'rtx-5090');
    const usable = e.fits!.usableBytes;
    const paged = e.breakdown.pagedOptimizerBytes!;
    expect(e.upper.deviceBytes).toBeGreaterThan(usable);
    // The upper bound scales what is not paged; the paged states are their exact tensor sizes.
    expect(requiredDeviceBytes(e)).toBe(e.upper.deviceBytes - paged);
    expect(requiredDeviceBytes(e, 'point')).toBe(e.peak.deviceBytes - paged);
    expect(e.fits).toEqual({
      gpu: 'rtx-5090',
      usableBytes: usable,
      marginFraction: 0.1,
      budgetBytes: Math.floor(usable * 0.9),
      requiredBytes: e.upper.deviceBytes - paged,
      estimatedBytes: e.peak.deviceBytes - paged,
      headroomBytes: 0,
      // What must stay on the GPU is within the margin, even at the upper bound; the paged states are not.
      ok: true,
      pagedToHostBytes: e.upper.deviceBytes - usable,
    });
    expect(requiredDeviceBytes(e)).toBeLessThanOrEqual(Math.floor(usable * 0.9));
    // What spills waits in host RAM.
    expect(e.host).toEqual({ cpuBytes: e.upper.deviceBytes - usable, nvmeBytes: 0 });
    // On an 80 GB card everything is resident; on a 12 GB one even the rest does not fit.
    expect(run(scenario, 'a100-sxm-80gb').fits).toMatchObject({ ok: true, pagedToHostBytes: 0 });
    const small = run(scenario, 'rtx-3060-12gb').fits!;
    expect(small.ok).toBe(false);
    expect(small.pagedToHostBytes).toBe(paged);
    expect(small.headroomBytes).toBe(small.usableBytes - small.requiredBytes);
    // The same run with an unpaged 8-bit AdamW does not fit the 4090.
    expect(run({ ...scenario, optimizer: 'adamw-8bit' }, 'rtx-4090').fits!.ok).toBe(false);
  });

  it('a LoRA adapter with dropout keeps its dropped-out copy and mask instead of the input', () => {
    const lora = (dropout: number) =>
      run({ method: 'lora', precision: 'bf16-true', lora: { rank: 16, targets: ['q_proj'], dropout } });
    // Without dropout lora_A saves the 2-byte input itself; with it, the 2-byte dropped-out copy and a
    // 1-byte mask: one byte more per hidden element, token and layer (32 × 2048 × 4096).
    expect(lora(0.1).breakdown.activationsSavedBytes! - lora(0).breakdown.activationsSavedBytes!).toBe(
      32 * 2048 * 4096,
    );
  });

  it('FSDP keeps its root unit (embeddings and head) gathered through forward and backward', () => {
    const fsdp = (extra: Record<string, unknown>, method = 'full', fields: Record<string, unknown> = {}) =>
      run({
        method,
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        parallelism: { strategy: 'fsdp', gpus: 8, ...extra },
        ...fields,
      });
    // Llama-3.1-8B has an untied 128,256 × 4,096 embedding and head: both sit in the root, in bf16.
    const root = 2 * 128_256 * 4096 * 2;
    const plain = fsdp({});
    const wrapped = fsdp({ wrapEmbeddings: true });
    expect(plain.breakdown.fsdpRootUnitBytes).toBe(root);
    expect(plain.breakdown.fsdpRootGradientBytes).toBe(root);
    expect(wrapped.breakdown.fsdpRootUnitBytes).toBe(0);
    expect(plain.phases.forward - wrapped.phases.forward).toBe(root);
    // Backward ends with the root's whole gradient held twice for a moment: per parameter, and joined
    // into one flat tensor for the reduce-scatter. (A short sequence and a fused loss make the end the
    // peak with and without the root.)
    const short = { seqLen: 128, loss: 'fused' };
    const plainEnd = fsdp({}, 'full', short);
    const wrappedEnd = fsdp({ wrapEmbeddings: true }, 'full', short);
    expect(plainEnd.phases.backward - wrappedEnd.phases.backward).toBe(root + 2 * root);
    // At that moment: this GPU's gradient shard, one layer's gathered gradient and the root's, each
    // twice (per parameter, and copied into the reduce-scatter input).
    const layer = 218_112_000 * 2; // one Llama-3.1-8B decoder layer in bf16
    expect(plainEnd.components.gradients).toBe(plainEnd.breakdown.gradientsBytes! + 2 * layer + 2 * root);
    // The step runs after the root is resharded; a frozen root has no gradient to build.
    expect(plain.phases['optimizer-step']).toBe(wrapped.phases['optimizer-step']);
    expect(fsdp({}, 'lora').breakdown.fsdpRootGradientBytes).toBe(0);
    // One GPU, or DeepSpeed ZeRO-3, has no such root unit.
    expect(
      run({ method: 'full', parallelism: { strategy: 'zero3', gpus: 8 } }).breakdown.fsdpRootUnitBytes,
    ).toBe(0);
  });

  it("Gemma-2's soft-capped logits keep one more 16-bit copy of the logits", () => {
    const gemma2 = findModel('gemma-2-2b')!;
    const scenario = parseScenario({
      model: 'gemma-2-2b',
      method: 'lora',
      precision: 'bf16-true',
      seqLen: 512,
    });
    const capped = estimate({ scenario, shape: shapeFromConfig(gemma2), gpu: null });
    const uncapped = estimate({
      scenario,
      shape: shapeFromConfig({ ...gemma2, final_logit_softcapping: null }),
      gpu: null,
    });
    expect(shapeFromConfig(gemma2).finalLogitSoftcap).toBe(true);
    expect(shapeOf('llama-3.1-8b').finalLogitSoftcap).toBeUndefined();
    // Gemma2Config's default cap applies when the config omits the key (the catalog's 9B entry does).
    expect(shapeOf('gemma-2-9b').finalLogitSoftcap).toBe(true);
    expect(capped.breakdown.lossResidentBytes! - uncapped.breakdown.lossResidentBytes!).toBe(
      2 * 256_000 * 512,
    );
  });

  it('FSDP accumulates unsharded gradients between syncs unless it reduce-scatters every micro-batch', () => {
    const fsdp = (extra: Record<string, unknown>, accum: number) =>
      run({
        method: 'full',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        gradAccumSteps: accum,
        parallelism: { strategy: 'fsdp', gpus: 4, wrapEmbeddings: true, ...extra },
      });
    const whole = 8_030_261_248 * 2; // every bf16 gradient of Llama-3.1-8B
    const noSync = fsdp({}, 4);
    const synced = fsdp({ syncEachMicroBatch: true }, 4);
    const single = fsdp({}, 1);
    // Through the next forward: the whole gradient inside no_sync(), one shard when synced, none without accumulation.
    expect(noSync.phases.forward - single.phases.forward).toBe(whole);
    expect(synced.phases.forward - single.phases.forward).toBe(whole / 4);
    // The step itself sees sharded gradients either way.
    expect(noSync.phases['optimizer-step']).toBe(synced.phases['optimizer-step']);
  });

  it('a quantized head weighs 4 bits, and dequantizing through fp16 holds two copies of it', () => {
    const qlora = (extra: Record<string, unknown>) =>
      run({ method: 'qlora', quantization: 'nf4', precision: 'bf16-true', ...extra });
    const head = 128_256 * 4096; // Llama-3.1-8B's untied output head
    const plain = qlora({});
    const quantizedHead = qlora({ quantizeHead: true });
    const viaFp16 = qlora({ quantizeHead: true, quantizedFrom: 'fp16' });
    expect(plain.breakdown.weightsBytes! - quantizedHead.breakdown.weightsBytes!).toBeCloseTo(
      head * (2 - 0.5625),
      -1,
    );
    // The largest dequantized weight is the head once it is quantized: one bf16 copy, or fp16 + bf16.
    expect(quantizedHead.breakdown.dequantTransientBytes).toBe(head * 2);
    expect(viaFp16.breakdown.dequantTransientBytes).toBe(head * 4);
    // Without a quantized head the largest is the 14,336 × 4,096 MLP matrix.
    expect(plain.breakdown.dequantTransientBytes).toBe(14_336 * 4096 * 2);
  });

  it('bitsandbytes before 0.43.2 keeps every 4-bit input for the step, or until the next forward', () => {
    const qlora = (extra: Record<string, unknown>) =>
      run({
        method: 'qlora',
        quantization: 'nf4',
        precision: 'bf16-true',
        lora: { rank: 16, dropout: 0.05, targets: ['q_proj', 'v_proj'] },
        microBatchSize: 1,
        seqLen: 2048,
        ...extra,
      }).breakdown;
    const [h, I, layers, tokens] = [4096, 14_336, 32, 2048];
    const none = qlora({});
    const step = qlora({ quantizedInputsKept: 'step' });
    const next = qlora({ quantizedInputsKept: 'next-forward' });
    // Kept for the step: the q/k/v input and the MLP input (norm outputs) and down_proj's input; o_proj's
    // input is attention's own output, saved already.
    expect(step.activationsSavedBytes! - none.activationsSavedBytes!).toBe(layers * tokens * 2 * (2 * h + I));
    expect(none.previousStepBytes).toBe(0);
    expect(step.previousStepBytes).toBe(0);
    // To the next forward: the previous step's inputs, o_proj's included, beside this step's.
    expect(next.previousStepBytes).toBe(layers * tokens * 2 * (3 * h + I));
    expect(next.activationsSavedBytes).toBe(step.activationsSavedBytes);
    // int8's MatMul8bitLt keeps its input by default.
    expect(qlora({ quantization: 'int8' }).activationsSavedBytes).toBe(step.activationsSavedBytes);
    // Reentrant checkpointing builds those inputs in a recomputation whose graph is gone by the next step.
    expect(
      qlora({ quantizedInputsKept: 'next-forward', gradientCheckpointing: 'full' }).previousStepBytes,
    ).toBe(0);
  });

  it("the previous step's inputs raise the forward peak, not backward, which starts after they go", () => {
    const qlora = (kept: string) =>
      run({ method: 'qlora', quantization: 'nf4', precision: 'bf16-true', quantizedInputsKept: kept });
    const step = qlora('step');
    const next = qlora('next-forward');
    expect(next.phases.forward - step.phases.forward).toBe(next.breakdown.previousStepBytes);
    expect(next.phases.backward).toBe(step.phases.backward);
  });

  it('autocast casts a frozen head again for every loss chunk, but a trained head once', () => {
    const copies = (fields: Record<string, unknown>) =>
      run({ precision: 'bf16-mixed', ...fields }).breakdown.autocastCopyBytes!;
    const head = 128_256 * 4096 * 2;
    const lora = { method: 'lora', lora: { rank: 16, targets: ['q_proj', 'v_proj'] } };
    expect(copies({ ...lora, loss: 'chunked' }) - copies({ ...lora, loss: 'standard' })).toBe(7 * head);
    expect(copies({ method: 'full', loss: 'chunked' })).toBe(copies({ method: 'full', loss: 'standard' }));
  });

  it("a trained RMSNorm also keeps its normalized input for the weight's gradient", () => {
    const perLayer = (fields: Record<string, unknown>) =>
      run({ precision: 'bf16-true', ...fields }).breakdown.activationsPerLayerPerTokenBytes!;
    // Full fine-tuning and all-linear LoRA without dropout save the same linear inputs; they differ by
    // the two trained norms' 16-bit normalized tensors and the seven adapters' rank-16 A outputs.
    const full = perLayer({ method: 'full' });
    const lora = perLayer({
      method: 'lora',
      lora: { rank: 16, targets: 'all-linear', dropout: 0, adapterDtype: 'model' },
    });
    expect(full - lora).toBe(2 * 2 * 4096 - 7 * 2 * 16);
  });

  it("PEFT's fp32 adapters on a 16-bit base each keep an fp32 copy of their input", () => {
    const perLayer = (fields: Record<string, unknown>) =>
      run({ method: 'lora', ...fields }).breakdown.activationsPerLayerPerTokenBytes!;
    const allLinear = { rank: 16, targets: 'all-linear', dropout: 0 };
    const h = 4096;
    const f = 14_336;
    // Adapters in the model's dtype read the shared 16-bit inputs: q/k/v's, gate/up's and down's.
    const shared = perLayer({ precision: 'bf16-true', lora: { ...allLinear, adapterDtype: 'model' } });
    // PEFT casts each adapter's input to fp32: q, k, v, o (h each), gate, up (h) and down (f), 4 bytes
    // each, and the seven A outputs are fp32 too.
    const fp32 = perLayer({ precision: 'bf16-true', lora: allLinear });
    expect(fp32 - shared).toBe(4 * (6 * h + f) - 2 * (2 * h + f) + 7 * (4 - 2) * 16);
    // Under autocast each adapter casts its input to 16 bits again: seven 16-bit copies.
    const mixed = perLayer({ precision: 'bf16-mixed', lora: allLinear });
    const mixedShared = perLayer({ precision: 'bf16-mixed', lora: { ...allLinear, adapterDtype: 'model' } });
    expect(mixed).toBe(mixedShared);
    expect(mixed - shared).toBe(2 * (6 * h + f) - 2 * (2 * h + f));
  });

  it('optimizer in backward holds one gradient at a time instead of all of them', () => {
    const fields = { method: 'full', precision: 'bf16-true', gradientCheckpointing: 'full', loss: 'chunked' };
    const plain = run(fields);
    const inBwd = run({ ...fields, optimizerInBackward: true });
    // The largest tensor of Llama-3.1-8B is its 128,256 × 4,096 embedding (and output head): 2 bytes each.
    expect(inBwd.breakdown.gradientsBytes).toBe(128_256 * 4096 * 2);
    expect(plain.breakdown.gradientsBytes).toBe(8_030_261_248 * 2);
    // Without a full gradient set the step phase no longer peaks; the saving is the other gradients.
    expect(inBwd.phases['optimizer-step']).toBeLessThan(inBwd.phases.backward);
    expect(plain.peak.allocatedBytes - inBwd.peak.allocatedBytes).toBeGreaterThan(
      plain.breakdown.gradientsBytes! - 2 * inBwd.breakdown.gradientsBytes!,
    );
    // Weights and optimizer states are untouched.
    expect(inBwd.breakdown.weightsBytes).toBe(plain.breakdown.weightsBytes);
    expect(inBwd.breakdown.optimizerBytes).toBe(plain.breakdown.optimizerBytes);
  });

  it('a QLoRA base weighs less than a LoRA base, and double quantization less than NF4', () => {
    const lora = run({ method: 'lora', precision: 'bf16-true' });
    const nf4 = run({ method: 'qlora', quantization: 'nf4', precision: 'bf16-true' });
    const dq = run({ method: 'qlora', quantization: 'nf4-dq', precision: 'bf16-true' });
    expect(nf4.breakdown.weightsBytes).toBeLessThan(lora.breakdown.weightsBytes! * 0.4);
    expect(dq.breakdown.weightsBytes).toBeLessThan(nf4.breakdown.weightsBytes!);
  });

  it('freeze trains only the top layers, and only they keep activations', () => {
    const two = run({ method: 'freeze', trainableLayers: 2, precision: 'bf16-true' });
    const eight = run({ method: 'freeze', trainableLayers: 8, precision: 'bf16-true' });
    expect(eight.params.trainable).toBe(two.params.trainable * 4);
    expect(eight.breakdown.activationsSavedBytes).toBeGreaterThan(two.breakdown.activationsSavedBytes!);
  });

  it('rejects a LoRA target the architecture does not have, listing the ones it has', () => {
    expect(() => run({ method: 'lora', lora: { targets: ['c_attn'] } })).toThrow(HeadroomUserError);
    expect(() => run({ method: 'lora', lora: { targets: ['c_attn'] } })).toThrow(
      /"c_attn" is not a linear module of llama models/,
    );
  });
});

describe('estimate: properties', () => {
  const bases = [
    { method: 'full', precision: 'bf16-true' },
    { method: 'lora', precision: 'bf16-true', lora: { rank: 16, targets: 'all-linear', dropout: 0.05 } },
    { method: 'qlora', quantization: 'nf4', precision: 'bf16-true' },
  ];

  it.each(bases)('more batch or sequence never lowers activations (%j)', (base) => {
    let previous = 0;
    for (const [b, s] of [
      [1, 512],
      [1, 1024],
      [2, 1024],
      [2, 4096],
      [4, 4096],
      [8, 8192],
    ] as const) {
      const a = run({ ...base, microBatchSize: b, seqLen: s }).breakdown.activationsSavedBytes!;
      expect(a).toBeGreaterThan(previous);
      previous = a;
    }
  });

  it.each(bases)('checkpointing never raises activations (%j)', (base) => {
    for (const attention of ['eager', 'sdpa', 'flash']) {
      const none = run({ ...base, attention, gradientCheckpointing: 'none', seqLen: 4096 });
      const selective = run({ ...base, attention, gradientCheckpointing: 'selective', seqLen: 4096 });
      const full = run({ ...base, attention, gradientCheckpointing: 'full', seqLen: 4096 });
      expect(selective.breakdown.activationsSavedBytes).toBeLessThanOrEqual(
        none.breakdown.activationsSavedBytes!,
      );
      expect(full.breakdown.activationsSavedBytes).toBeLessThanOrEqual(
        selective.breakdown.activationsSavedBytes!,
      );
      expect(full.peak.allocatedBytes).toBeLessThanOrEqual(none.peak.allocatedBytes);
    }
  });

  it.each(bases)('activation offload never raises the GPU peak (%j)', (base) => {
    for (const gradientCheckpointing of ['none', 'selective', 'full']) {
      for (const parallelism of [
        { strategy: 'single', gpus: 1 },
        { strategy: 'fsdp', gpus: 4 },
      ]) {
        const raw = { ...base, gradientCheckpointing, parallelism, seqLen: 4096 };
        const kept = run(raw);
        const off = run({ ...raw, offload: { activations: 'cpu' } });
        expect(off.peak.deviceBytes).toBeLessThanOrEqual(kept.peak.deviceBytes);
        expect(off.host!.cpuBytes).toBeGreaterThan(0);
      }
    }
  });

  it('eager attention grows with s² while sdpa grows with s', () => {
    const ratio = (attention: string) =>
      run({ method: 'lora', attention, seqLen: 8192 }).breakdown.activationsSavedBytes! /
      run({ method: 'lora', attention, seqLen: 4096 }).breakdown.activationsSavedBytes!;
    expect(ratio('sdpa')).toBeCloseTo(2, 5);
    expect(ratio('eager')).toBeGreaterThan(2.5);
  });

  it('per-GPU model states shrink from ZeRO-1 to 2 to 3', () => {
    const states = (strategy: string) => {
      const e = run({ method: 'full', precision: 'bf16-mixed', parallelism: { strategy, gpus: 8 } });
      return e.breakdown.weightsBytes! + e.breakdown.gradientsBytes! + e.breakdown.optimizerBytes!;
    };
    expect(states('zero2')).toBeLessThan(states('zero1'));
    expect(states('zero3')).toBeLessThan(states('zero2'));
    expect(states('zero1')).toBeLessThan(states('ddp'));
  });

  it('chunked and fused losses shrink the logits spike of a 128k vocabulary', () => {
    const peak = (loss: string) =>
      run({ method: 'lora', precision: 'bf16-true', seqLen: 8192, loss }).peak.allocatedBytes;
    expect(peak('chunked')).toBeLessThan(peak('standard'));
    expect(peak('fused')).toBeLessThan(peak('chunked'));
    // Llama-3's V = 128,256 at s = 8192: one fp32 copy of the logits is 4.2 GB (MEMORY-MODEL.md). The
    // standard loss holds three at backward's start (the log-softmax output and two fp32 gradients);
    // the fused loss a few chunks' worth.
    expect(peak('standard') - peak('fused')).toBeGreaterThan(2.5 * 4.2e9);
  });

  it('offloading the optimizer moves its bytes to the host and reports host memory', () => {
    const e = run({
      method: 'full',
      precision: 'bf16-mixed',
      parallelism: { strategy: 'zero3', gpus: 4 },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
    expect(e.breakdown.optimizerBytes).toBe(0);
    expect(e.breakdown.weightsBytes).toBe(0);
    expect(e.host!.cpuBytes).toBeGreaterThan(8_030_261_248 * 16);
  });

  it('the 70B example does not fit a 24 GB card but fits 8 × H100 with FSDP and QLoRA', () => {
    const scenario = parseScenario({
      model: 'llama-3.1-70b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
    });
    const shape = shapeOf('llama-3.1-70b');
    expect(estimate({ scenario, shape, gpu: findGpu('rtx-4090')! }).fits!.ok).toBe(false);
    const sharded = parseScenario({ ...scenario, parallelism: { strategy: 'fsdp', gpus: 8 } });
    expect(estimate({ scenario: sharded, shape, gpu: findGpu('h100-sxm')! }).fits!.ok).toBe(true);
  });

  it('uses an exact parameter count from the weight files when given one', () => {
    const scenario = parseScenario({ model: 'llama-3.1-8b', precision: 'bf16-true', method: 'full' });
    const e = estimate({ scenario, shape: shapeOf('llama-3.1-8b'), exactParams: 8_030_269_440 });
    expect(e.params).toEqual({ total: 8_030_269_440, trainable: 8_030_261_248, exactFromWeights: true });
    expect(e.breakdown.weightsBytes).toBe(8_030_269_440 * 2);
  });
});

describe("estimate: a sequence past the model's context", () => {
  it('reads the context window from the config, under each architecture’s name for it', () => {
    expect(shapeOf('llama-2-7b').contextLength).toBe(4096);
    expect(shapeOf('llama-3.1-8b').contextLength).toBe(131072);
    expect(shapeOf('gpt2').contextLength).toBe(1024);
    expect(
      shapeFromConfig({ ...findModel('llama-2-7b')!, max_position_embeddings: undefined }).contextLength,
    ).toBe(undefined);
  });

  it('notes a RoPE model run past its window, and only then', () => {
    const within = run({ model: 'llama-2-7b', method: 'lora', seqLen: 4096 });
    expect(english(within).some((n) => n.includes('context window'))).toBe(false);
    const past = run({ model: 'llama-2-7b', method: 'lora', seqLen: 8192 });
    expect(english(past)).toContain(
      "sequence 8192 is past the model's 4096-token context window: the memory is for the length as given, but training that long needs RoPE scaling (rope_scaling in config.json) and quality past the window is not assured",
    );
    // The memory is still estimated for the length asked: activations grow with it.
    expect(past.components.activations).toBeGreaterThan(within.components.activations);
  });

  it('says a model with learned positions cannot run past its table at all', () => {
    const past = run({ model: 'gpt2', method: 'full', seqLen: 2048 });
    expect(english(past).find((n) => n.includes('learned positions'))).toMatch(
      /^sequence 2048 is longer than the model's 1024 learned positions: it cannot run at this length/,
    );
    expect(english(past).some((n) => n.includes('RoPE'))).toBe(false);
  });
});

describe('estimate: the logits and the head in backward', () => {
  const V = 128_256;
  const tokens = 2 * 2048;
  const base = {
    method: 'full',
    precision: 'bf16-true',
    gradientCheckpointing: 'full',
    microBatchSize: 2,
  } as const;

  it('a compiled chunked loss keeps the 16-bit logit chunks and no fp32 copy (torchtune PR #1390)', () => {
    const chunked = run({ ...base, loss: 'chunked' });
    const compiled = run({ ...base, loss: 'chunked', torchCompile: true });
    expect(chunked.breakdown.lossResidentBytes).toBe((2 + 4) * V * tokens);
    expect(compiled.breakdown.lossResidentBytes).toBe(2 * V * tokens);
    // The standard loss keeps what it holds: where the upcast runs outside the compiled loss (torchtune's
    // decoder returned fp32 logits), the compiled loss saves that fp32 input in place of the log-softmax.
    const standard = run(base);
    const standardCompiled = run({ ...base, torchCompile: true });
    expect(standardCompiled.breakdown.lossResidentBytes).toBe(standard.breakdown.lossResidentBytes);
    // But its backward makes the logits' fp32 gradient in one kernel, with no gradient of the
    // log-softmax output beside it: 4 bytes per logit instead of 8.
    expect(
      standard.breakdown.backwardTransientBytes! - standardCompiled.breakdown.backwardTransientBytes!,
    ).toBe(4 * V * tokens);
    // The estimate says where it stays high.
    expect(english(standardCompiled)).toEqual([
      "torch.compile's cross-entropy makes the logits' gradient in one kernel, but with the standard loss the fp32 logits stay in the estimate, which is high if the upcast runs inside the compiled model (Hugging Face's does); a chunked loss drops them",
    ]);
    expect(
      english(run({ ...base, loss: 'chunked', torchCompile: true, gradientCheckpointing: 'none' })),
    ).toEqual([
      'torch.compile also recomputes elementwise ops instead of saving them, which the estimate does not count: without checkpointing it is high',
    ]);
    expect(english(compiled)).toEqual([]);
    // Each note is also data: its code and figures, which the words are made from.
    const long = run({ ...base, seqLen: 200_000, attention: 'eager' });
    expect(long.notes).toEqual([
      { code: 'past-context', params: { seqLen: 200_000, context: 131_072 } },
      { code: 'eager-attention', params: {} },
    ]);
  });

  it('the head’s gradient forms first in backward, beside one chunk’s logit gradient', () => {
    // Optimizer in backward frees each gradient as it steps: the head's 128,256 × 4,096 bf16 gradient
    // with the first chunk's bf16 logit gradient is the largest moment, above a recomputed layer.
    const inBwd = run({ ...base, loss: 'chunked', optimizerInBackward: true });
    const head = V * 4096 * 2;
    expect(inBwd.breakdown.backwardTransientBytes).toBe(head + (2 * V * tokens) / 8);
    // A LoRA run's frozen head makes no gradient: the recomputed layer is the transient.
    const lora = run({ ...base, method: 'lora', loss: 'chunked' });
    expect(lora.breakdown.backwardTransientBytes).toBeLessThan(head);
    // With accumulation the head's gradient already exists from the micro-batch before.
    const accum = run({ ...base, loss: 'chunked', gradAccumSteps: 4 });
    expect(accum.breakdown.backwardTransientBytes).toBeLessThan(head);
  });
});

describe('estimate: activation offload', () => {
  const base = {
    model: 'llama-3.1-8b',
    method: 'qlora',
    quantization: 'nf4',
    precision: 'bf16-true',
    seqLen: 8192,
    gradientCheckpointing: 'full',
  };
  const layerInput = 8192 * 4096 * 2; // one checkpointed layer input: tokens × hidden × bf16

  it('moves the checkpointed layer inputs to the host, keeping two layers on the GPU', () => {
    const kept = run(base);
    const off = run({ ...base, offload: { activations: 'cpu' } });
    expect(off.breakdown.activationsOffloadedBytes).toBe(32 * layerInput);
    expect(kept.breakdown.activationsSavedBytes! - off.breakdown.activationsSavedBytes!).toBe(
      30 * layerInput,
    );
    expect(off.host).toEqual({ cpuBytes: 32 * layerInput, nvmeBytes: 0 });
    expect(kept.host).toBeNull();
    // The logits and the loss stay on the GPU: the peak falls by the layer inputs alone.
    expect(off.breakdown.lossResidentBytes).toBe(kept.breakdown.lossResidentBytes);
    expect(kept.peak.allocatedBytes - off.peak.allocatedBytes).toBe(30 * layerInput);
  });

  it('without checkpointing moves every saved layer activation', () => {
    const noCkpt = { ...base, gradientCheckpointing: 'none', seqLen: 2048 };
    const kept = run(noCkpt);
    const off = run({ ...noCkpt, offload: { activations: 'cpu' } });
    const perLayer = off.breakdown.activationsPerLayerPerTokenBytes! * 2048;
    expect(off.breakdown.activationsOffloadedBytes).toBe(32 * perLayer);
    expect(kept.breakdown.activationsSavedBytes! - off.breakdown.activationsSavedBytes!).toBe(30 * perLayer);
  });

  it('leaves on the GPU the inputs an old bitsandbytes keeps on the autograd context', () => {
    const old = { ...base, gradientCheckpointing: 'none', seqLen: 2048, quantizedInputsKept: 'step' };
    const fresh = run({ ...old, quantizedInputsKept: 'none', offload: { activations: 'cpu' } });
    const stale = run({ ...old, offload: { activations: 'cpu' } });
    // 30 layers' inputs of q/k/v, o_proj, the MLP and down_proj: (h + h + h + 14336) × 2 bytes per token.
    const keptPerLayer = (4096 * 3 + 14336) * 2 * 2048;
    const offloadedDiff =
      stale.breakdown.activationsOffloadedBytes! - fresh.breakdown.activationsOffloadedBytes!;
    const savedDiff = stale.breakdown.activationsSavedBytes! - fresh.breakdown.activationsSavedBytes!;
    expect(savedDiff - offloadedDiff * (2 / 32)).toBeCloseTo(30 * keptPerLayer, -3);
  });

  it('counts host memory per node: sixteen GPUs on two nodes need half of what eight on one do', () => {
    const states = {
      model: 'llama-3.1-70b',
      method: 'full',
      gradientCheckpointing: 'full',
      offload: { optimizer: 'cpu', activations: 'cpu' },
    };
    const eight = run({ ...states, parallelism: { strategy: 'zero3', gpus: 8 } });
    const sixteen = run({ ...states, parallelism: { strategy: 'zero3', gpus: 16 } });
    // The optimizer states are sharded over every GPU; the activations are each GPU's own.
    const activations = 8 * eight.breakdown.activationsOffloadedBytes!;
    expect(sixteen.host!.cpuBytes - activations).toBeCloseTo((eight.host!.cpuBytes - activations) / 2, -4);
  });

  it('takes cpu only, and names the field', () => {
    expect(() => parseScenario({ model: 'llama-3.1-8b', offload: { activations: 'nvme' } })).toThrow(
      'offload.activations: "nvme" is not one of none | cpu',
    );
    expect(parseScenario({ model: 'llama-3.1-8b', offload: { activations: 'none' } }).offload).toEqual({
      optimizer: 'none',
      params: 'none',
    });
  });
});

describe('estimate: the terms of each phase', () => {
  const withTerms = (fields: Record<string, unknown>) => {
    const scenario = parseScenario({ model: 'llama-3.1-8b', ...fields });
    return estimate({ scenario, shape: shapeOf('llama-3.1-8b'), terms: true });
  };

  const scenarios: Record<string, unknown>[] = [
    { method: 'full', precision: 'bf16-true' },
    {
      method: 'full',
      precision: 'bf16-mixed',
      gradAccumSteps: 4,
      parallelism: { strategy: 'fsdp', gpus: 8 },
    },
    { method: 'lora', precision: 'bf16-mixed', loss: 'chunked', seqLen: 8192 },
    { method: 'qlora', quantization: 'nf4', precision: 'bf16-true', quantizedInputsKept: 'next-forward' },
    {
      method: 'full',
      optimizer: 'paged-adamw-8bit',
      optimizerInBackward: true,
      gradientCheckpointing: 'full',
    },
    {
      method: 'full',
      parallelism: { strategy: 'zero3', gpus: 16 },
      offload: { optimizer: 'cpu', params: 'cpu', activations: 'cpu' },
      gradientCheckpointing: 'full',
    },
  ];

  it.each(scenarios)('add up to each phase, and the peak terms to the allocated peak (%j)', (raw) => {
    const e = withTerms(raw);
    for (const phase of ['load', 'forward', 'backward', 'optimizer-step'] as const) {
      const terms = e.phaseTerms![phase];
      const sum = terms.reduce((total, t) => total + t.bytes, 0);
      // Each term is rounded on its own: the sum may differ from the rounded phase by a byte a term.
      expect(Math.abs(sum - e.phases[phase])).toBeLessThanOrEqual(terms.length);
      for (const t of terms) expect(t.bytes).toBeGreaterThan(0);
    }
    expect(e.peakTerms).toEqual(e.phaseTerms![e.peakPhase]);
    // The same estimate without asking carries no terms, and the same figures.
    const plain = run(raw);
    expect(plain.peakTerms).toBeUndefined();
    expect(plain.phaseTerms).toBeUndefined();
    expect(plain.phases).toEqual(e.phases);
    expect(plain.peak).toEqual(e.peak);
  });

  it('add up to every phase across 400 random setups, where the phases are computed on their own', () => {
    // The phases are plain sums on the hot path; the terms restate them for --explain. A seeded sweep
    // over methods, precisions, layouts and offloads holds the two together.
    let seed = 20261130;
    const pick = <T>(options: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return options[seed % options.length]!;
    };
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const strategy = pick(['single', 'ddp', 'zero2', 'zero3', 'fsdp'] as const);
      const method = pick(['full', 'lora', 'qlora', 'freeze'] as const);
      const raw: Record<string, unknown> = {
        model: pick(['llama-3.2-1b', 'qwen2.5-7b', 'gemma-2-2b', 'qwen3-30b-a3b', 'phi-3-mini']),
        method,
        ...(method === 'qlora' ? { quantization: pick(['nf4', 'nf4-dq', 'int8']) } : {}),
        ...(method === 'freeze' ? { trainableLayers: 2 } : {}),
        precision: pick(['bf16-true', 'bf16-mixed', 'fp32']),
        optimizer: pick(['adamw', 'adamw-8bit', 'paged-adamw-8bit', 'sgd']),
        microBatchSize: pick([1, 4]),
        seqLen: pick([512, 4096]),
        gradAccumSteps: pick([1, 4]),
        gradientCheckpointing: pick(['none', 'full', 'selective']),
        loss: pick(['standard', 'chunked', 'fused']),
        parallelism: { strategy, gpus: strategy === 'single' ? 1 : 8 },
        offload: {
          optimizer: strategy === 'single' || strategy === 'ddp' ? 'none' : pick(['none', 'cpu']),
          activations: pick(['none', 'cpu']),
        },
      };
      const scenario = parseScenario(raw);
      const e = estimate({ scenario, shape: shapeOf(String(raw.model)), terms: true });
      for (const phase of ['load', 'forward', 'backward', 'optimizer-step'] as const) {
        const terms = e.phaseTerms![phase];
        const total = terms.reduce((sum, t) => sum + t.bytes, 0);
        expect(Math.abs(total - e.phases[phase])).toBeLessThanOrEqual(terms.length);
      }
      checked++;
    }
    expect(checked).toBe(400);
  });

  it('name what the peak is made of: the logits gradients at the start of backward', () => {
    const e = withTerms({
      method: 'lora',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
      seqLen: 8192,
    });
    expect(e.peakPhase).toBe('backward');
    expect(e.peakTerms!.map((t) => t.term)).toEqual([
      'weights',
      'optimizer-states',
      'cublas-workspaces',
      'saved-activations',
      'logits-and-loss',
      'backward-transient',
    ]);
    const term = (name: string) => e.peakTerms!.find((t) => t.term === name)!.bytes;
    expect(term('logits-and-loss')).toBe(e.breakdown.lossResidentBytes);
    expect(term('backward-transient')).toBe(e.breakdown.backwardTransientBytes);
    expect(term('saved-activations')).toBe(e.breakdown.activationsSavedBytes);
  });
});

describe('estimate: what FSDP and ZeRO-3 cannot shard of a quantized base', () => {
  const qlora70 = {
    model: 'llama-2-70b',
    method: 'qlora',
    quantization: 'nf4-dq',
    precision: 'bf16-true',
    lora: { rank: 8, targets: 'all-linear' },
    gradientCheckpointing: 'full',
  };
  const linear = paramBreakdown(shapeOf('llama-2-70b')).linearParams;
  const constantsPerParam = quantizedBytesPerParam('nf4-dq') - 0.5;

  it('keeps every bitsandbytes block constant on each GPU, and torchao shards them with the codes', () => {
    const bnb = run({ ...qlora70, parallelism: { strategy: 'fsdp', gpus: 2 } });
    const torchao = run({ ...qlora70, quantizer: 'torchao', parallelism: { strategy: 'fsdp', gpus: 2 } });
    // The constants are 1/64 + 4/(64·256) bytes per weight: half of them stay on each of the two GPUs.
    expect(bnb.breakdown.weightsBytes! - torchao.breakdown.weightsBytes!).toBeCloseTo(
      (linear * constantsPerParam) / 2,
      -1,
    );
    // Gathering a layer moves only its codes for bitsandbytes, codes and constants for torchao.
    expect(torchao.breakdown.gatheredWeightsBytes! - bnb.breakdown.gatheredWeightsBytes!).toBeCloseTo(
      2 * paramBreakdown(shapeOf('llama-2-70b')).largestLayerParams * constantsPerParam,
      -1,
    );
    // On one GPU nothing is sharded, so the two agree.
    expect(run(qlora70).breakdown.weightsBytes).toBe(
      run({ ...qlora70, quantizer: 'torchao' }).breakdown.weightsBytes,
    );
  });

  it('keeps the constants on the GPU when the parameters are offloaded', () => {
    const offloaded = run({
      ...qlora70,
      parallelism: { strategy: 'fsdp', gpus: 2 },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
    expect(offloaded.breakdown.weightsBytes).toBeCloseTo(linear * constantsPerParam, -1);
  });

  it('shards none of a GPTQ base: its weights are buffers', () => {
    const gptq = { ...qlora70, quantization: 'int4-gptq', precision: 'fp16-true' };
    const one = run(gptq);
    const four = run({ ...gptq, parallelism: { strategy: 'zero3', gpus: 4 } });
    const quantized = linear * quantizedBytesPerParam('int4-gptq');
    // Only the 16-bit rest (embeddings, head, norms) and the adapters divide by four.
    expect(one.breakdown.weightsBytes! - four.breakdown.weightsBytes!).toBeCloseTo(
      ((one.breakdown.weightsBytes! - quantized) * 3) / 4,
      -1,
    );
  });
});

describe("estimate: the LoRA adapters' dtype", () => {
  const lora = { method: 'lora', lora: { rank: 64, targets: 'all-linear' }, gradientCheckpointing: 'full' };

  it('keeps adapters, their gradients and their AdamW states in the model\'s 16 bits with "model", in fp32 by default', () => {
    const peft = run({ ...lora, precision: 'bf16-true' });
    const torchtune = run({ ...lora, precision: 'bf16-true', lora: { ...lora.lora, adapterDtype: 'model' } });
    const n = peft.params.trainable;
    expect(peft.breakdown.weightsBytes! - torchtune.breakdown.weightsBytes!).toBe(n * 2);
    expect(peft.breakdown.gradientsBytes! - torchtune.breakdown.gradientsBytes!).toBe(n * 2);
    expect(peft.breakdown.optimizerBytes! - torchtune.breakdown.optimizerBytes!).toBe(n * 2 * 2);
    // Under a -mixed precision the model's own dtype is fp32: nothing changes.
    const mixed = (extra: Record<string, unknown>) =>
      run({ ...lora, precision: 'bf16-mixed', lora: { ...lora.lora, ...extra } }).peak.deviceBytes;
    expect(mixed({ adapterDtype: 'model' })).toBe(mixed({}));
  });
});

describe("estimate: DeepSpeed's reduce bucket", () => {
  const lora = { method: 'lora', precision: 'bf16-true', gradientCheckpointing: 'full' };
  const bucket = (parallelism: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    run({ ...lora, ...extra, parallelism }).breakdown.commBufferBytes;

  it('is reduce_bucket_size 16-bit elements however little trains: 5e8 by default, hidden² for "auto"', () => {
    // LoRA trains 6.8M parameters here; DeepSpeed still allocates the whole bucket.
    expect(bucket({ strategy: 'zero3', gpus: 2 })).toBe(5e8 * 2);
    expect(bucket({ strategy: 'zero3', gpus: 2, reduceBucketSize: 'auto' })).toBe(4096 * 4096 * 2);
    expect(bucket({ strategy: 'zero2', gpus: 2, reduceBucketSize: 2e8 })).toBe(2e8 * 2);
  });

  it('doubles under ZeRO-1/2 with overlap_comm, not under ZeRO-3', () => {
    expect(bucket({ strategy: 'zero2', gpus: 2, reduceBucketSize: 2e8, overlapComm: true })).toBe(
      2 * 2e8 * 2,
    );
    expect(bucket({ strategy: 'zero1', gpus: 2, overlapComm: true })).toBe(2 * 5e8 * 2);
    expect(bucket({ strategy: 'zero3', gpus: 2, overlapComm: true })).toBe(5e8 * 2);
  });

  it('says what the default costs against "auto" when the scenario names no bucket', () => {
    const dflt = run({ ...lora, parallelism: { strategy: 'zero3', gpus: 2 } });
    expect(dflt.notes).toContainEqual({
      code: 'zero-default-bucket',
      params: { bytes: 5e8 * 2, autoBytes: 4096 * 4096 * 2 },
    });
    expect(english(dflt)).toContain(
      'DeepSpeed\'s default reduce bucket (5e8 elements) takes 954 MiB on every GPU; "auto" (hidden², what the Hugging Face integration fills in) would take 32.0 MiB: say which your config uses with --reduce-bucket-size',
    );
    const named = run({ ...lora, parallelism: { strategy: 'zero3', gpus: 2, reduceBucketSize: 5e8 } });
    expect(named.notes.map((n) => n.code)).not.toContain('zero-default-bucket');
  });

  it('is in fp32 when the run is fp32, and absent when nothing trains through DeepSpeed', () => {
    expect(bucket({ strategy: 'zero2', gpus: 2 }, { precision: 'fp32' })).toBe(5e8 * 4);
    expect(bucket({ strategy: 'fsdp', gpus: 2 })).toBe(0);
  });
});

describe('estimate: what ZeRO-3 keeps gathered at the turn into backward', () => {
  const turn = (model: string, raw: Record<string, unknown>) => {
    const e = estimate({
      scenario: parseScenario({ model, method: 'lora', precision: 'bf16-true', ...raw }),
      shape: shapeOf(model),
      terms: true,
    });
    return e.phaseTerms!.backward.find((t) => t.term === 'zero3-turn-weights')?.bytes ?? 0;
  };
  // Llama-2-7B: a layer is 4·4096² + 3·4096·11008 + 2·4096 = 202,383,360 elements, the head 32,000·4096.
  const layer7b = 4 * 4096 ** 2 + 3 * 4096 * 11008 + 2 * 4096;
  const head7b = 32000 * 4096;

  it('is the head alone when the layer two behind the last comes back past stage3_max_reuse_distance', () => {
    // Layer L−2 returns after 2 layers forward and 2 × 2 backward uses (checkpointed) plus the head
    // twice: 6 × 202.4M + 262.1M elements, past 1e9, so only the head stays beyond the working set.
    expect(6 * layer7b + 2 * head7b).toBeGreaterThan(1e9);
    expect(
      turn('llama-2-7b', { gradientCheckpointing: 'full', parallelism: { strategy: 'zero3', gpus: 2 } }),
    ).toBe(head7b * 2);
  });

  it("keeps a small model's layers too: Llama-3.2-1B keeps its tied head and one more layer", () => {
    // A layer: q and o 2048², k and v 2048·512, the MLP 3·2048·8192, two norms: 60,821,504 elements;
    // the head (the tied embedding) 128,256·2048. L−2: 6 × 60.8M + 2 × 262.7M < 1e9; L−3: 9 × 60.8M + … > 1e9.
    const layer = 2 * 2048 ** 2 + 2 * 2048 * 512 + 3 * 2048 * 8192 + 2 * 2048;
    const head = 128256 * 2048;
    expect(6 * layer + 2 * head).toBeLessThan(1e9);
    expect(9 * layer + 2 * head).toBeGreaterThan(1e9);
    expect(
      turn('llama-3.2-1b', { gradientCheckpointing: 'full', parallelism: { strategy: 'zero3', gpus: 2 } }),
    ).toBe((head + layer) * 2);
  });

  it('counts one backward use per layer without checkpointing, and nothing outside ZeRO-3', () => {
    // Llama-2-7B without recomputation: L−2 returns after 2·2 layer uses + the head twice = 1.07e9.
    expect(4 * layer7b + 2 * head7b).toBeGreaterThan(1e9);
    expect(turn('llama-2-7b', { parallelism: { strategy: 'zero3', gpus: 2 } })).toBe(head7b * 2);
    expect(turn('llama-2-7b', { parallelism: { strategy: 'fsdp', gpus: 2 } })).toBe(0);
    expect(turn('llama-2-7b', { parallelism: { strategy: 'zero2', gpus: 2 } })).toBe(0);
    expect(turn('llama-2-7b', { parallelism: { strategy: 'zero3', gpus: 1 } })).toBe(0);
  });
});

describe('estimate: what the H200 harness measured (bench/gpu)', () => {
  it('fp32 SDPA with grouped KV heads runs the math path and saves the fp32 softmax output', () => {
    const perLayer = (fields: Record<string, unknown>) =>
      run({ model: 'llama-3.2-1b', method: 'full', ...fields }).breakdown.activationsPerLayerPerTokenBytes!;
    // Llama-3.2-1B: 32 query heads over 8 KV heads. At s = 2048 the softmax output is 4 × 32 × 2048
    // bytes per token; eager attention and 16-bit SDPA are unchanged.
    const math =
      perLayer({ precision: 'fp32', seqLen: 2048 }) - perLayer({ precision: 'fp32', seqLen: 1024 });
    expect(math).toBe(4 * 32 * (2048 - 1024));
    expect(perLayer({ precision: 'bf16-true', seqLen: 2048 })).toBe(
      perLayer({ precision: 'bf16-true', seqLen: 1024 }),
    );
    // The estimate says so, with the bytes: 4 × 32 heads × 2,048² × 16 layers.
    const fp32 = run({ model: 'llama-3.2-1b', method: 'full', precision: 'fp32', seqLen: 2048 });
    expect(fp32.notes).toEqual([
      { code: 'fp32-math-attention', params: { bytes: 4 * 32 * 2048 * 2048 * 16 } },
    ]);
    expect(english(fp32)[0]).toMatch(
      /^fp32 attention over grouped KV heads runs SDPA's math path .*: 8\.00 GiB here;/,
    );
    expect(
      run({ model: 'llama-3.2-1b', method: 'full', precision: 'bf16-true', seqLen: 2048 }).notes,
    ).toEqual([]);
    // A model with as many KV heads as query heads keeps the memory-efficient kernel.
    const phi = (seqLen: number) =>
      run({ model: 'phi-3-mini', method: 'full', precision: 'fp32', seqLen }).breakdown
        .activationsPerLayerPerTokenBytes!;
    expect(phi(2048)).toBe(phi(1024));
  });

  it('the standard loss keeps only the fp32 log-softmax into backward: the caller dropped the logits', () => {
    const tokens = 2048;
    const e = run({ method: 'lora', precision: 'bf16-true', seqLen: tokens });
    expect(e.breakdown.lossResidentBytes).toBe(4 * 128_256 * tokens);
    expect(e.breakdown.backwardTransientBytes).toBe(8 * 128_256 * tokens);
  });

  it('under autocast and full checkpointing a frozen base is cast one layer at a time', () => {
    const copies = (gradientCheckpointing: string) =>
      run({ method: 'lora', precision: 'bf16-mixed', gradientCheckpointing }).breakdown.autocastCopyBytes!;
    const { linearParams } = paramBreakdown(shapeOf('llama-3.1-8b'));
    const head = 128_256 * 4096;
    expect(copies('none')).toBe(2 * (linearParams + head));
    // One layer's frozen linears (the one running or being recomputed) and the head.
    expect(copies('full')).toBe(2 * (linearParams / 32 + head));
    // Trained weights stay in autocast's cache through the forward pass, checkpointed or not.
    const full = (gradientCheckpointing: string) =>
      run({ method: 'full', precision: 'bf16-mixed', gradientCheckpointing }).breakdown.autocastCopyBytes!;
    expect(full('full')).toBe(full('none'));
  });

  it("Gemma-2's soft-capped scores keep their tanh output under eager attention only", () => {
    const perLayer = (model: string, attention: string, seqLen: number) =>
      run({ model, method: 'full', precision: 'bf16-true', attention, seqLen }).breakdown
        .activationsPerLayerPerTokenBytes!;
    // Per token and layer, eager keeps (4 + 2) bytes per score; Gemma-2 adds 2 for the tanh output.
    const slope = (model: string) => perLayer(model, 'eager', 2048) - perLayer(model, 'eager', 1024);
    expect(slope('gemma-2-2b')).toBe((4 + 2 + 2) * 8 * 1024);
    expect(slope('gemma-2b')).toBe((4 + 2) * 8 * 1024);
    expect(perLayer('gemma-2-2b', 'sdpa', 2048)).toBe(perLayer('gemma-2-2b', 'sdpa', 1024));
  });

  it("a fused qkv projection's output stays alive through v's view, unless eager copies grouped v", () => {
    const perLayer = (shape: ReturnType<typeof shapeOf>, attention = 'sdpa') =>
      estimate({
        scenario: parseScenario({ model: 'phi-3-mini', method: 'full', precision: 'bf16-true', attention }),
        shape,
        gpu: null,
      }).breakdown.activationsPerLayerPerTokenBytes!;
    const phi3 = shapeOf('phi-3-mini');
    // The same dimensions laid out as Llama's separate q/k/v projections.
    const separate = shapeFromConfig({ ...findModel('phi-3-mini')!, model_type: 'llama' });
    expect(phi3.fusedQkv).toBe(true);
    expect(separate.fusedQkv).toBeUndefined();
    // Phi-3-mini: 32 heads of 96 over 32 KV heads: the q and k parts of the output, 2 bytes each.
    expect(perLayer(phi3) - perLayer(separate)).toBe(2 * (3072 + 3072));
    expect(perLayer(phi3, 'eager') - perLayer(separate, 'eager')).toBe(2 * (3072 + 3072));
    const falcon = shapeOf('falcon-7b');
    const falconRun = (attention: string) =>
      estimate({ scenario: parseScenario({ model: 'falcon-7b', attention }), shape: falcon, gpu: null })
        .breakdown.activationsPerLayerPerTokenBytes!;
    const falconSeparate = shapeFromConfig({ ...findModel('falcon-7b')!, model_type: 'llama' });
    const separateRun = (attention: string) =>
      estimate({
        scenario: parseScenario({ model: 'falcon-7b', attention }),
        shape: falconSeparate,
        gpu: null,
      }).breakdown.activationsPerLayerPerTokenBytes!;
    expect(falcon.fusedQkv).toBe(true);
    // Falcon-7B: 71 heads of 64 over one KV head; SDPA keeps the q and k parts, eager does not.
    expect(falconRun('sdpa') - separateRun('sdpa') - (falconRun('eager') - separateRun('eager'))).toBe(
      2 * (71 * 64 + 64),
    );
  });

  it("litgpt's own layers: one dropout for q/k/v, zero_pad's kept B output, and v's view of the qkv output", () => {
    const perLayer = (model: string, extra: Record<string, unknown>, lora: Record<string, unknown> = {}) =>
      run({
        model,
        method: 'lora',
        precision: 'bf16-true',
        lora: { rank: 8, targets: ['q_proj', 'v_proj'], adapterDtype: 'model', ...lora },
        ...extra,
      }).breakdown.activationsPerLayerPerTokenBytes!;
    const h = 4096;
    // Llama-2-7B, multi-head (32 heads of 128 over 32 KV heads), dropout 0: both read the shared input.
    // litgpt adds the kept B output (q and v: 2h elements) and the q and k parts of the qkv output.
    const hf = perLayer('llama-2-7b', {});
    const lit = perLayer('llama-2-7b', { modelCode: 'litgpt' });
    expect(lit - hf).toBe(2 * (h + h) + 2 * (h + h));
    // With dropout, PEFT keeps a dropped-out copy and mask per adapter; litgpt one for both.
    const hfDrop = perLayer('llama-2-7b', {}, { dropout: 0.05 });
    const litDrop = perLayer('llama-2-7b', { modelCode: 'litgpt' }, { dropout: 0.05 });
    expect(hfDrop - hf).toBe(2 * (2 + 1) * h - 2 * h);
    expect(litDrop - lit).toBe((2 + 1) * h - 2 * h);
    // Adapting all three of q, k and v: no zero_pad, so no kept B output.
    const all = (extra: Record<string, unknown>) =>
      perLayer('llama-2-7b', extra, { targets: ['q_proj', 'k_proj', 'v_proj'] });
    expect(all({ modelCode: 'litgpt' }) - all({})).toBe(2 * (h + h));
    // Grouped KV heads (Llama-3.1-8B: 8 of 32): repeat_interleave copies v, so only the B output is kept.
    const kv = 8 * 128;
    expect(perLayer('llama-3.1-8b', { modelCode: 'litgpt' }) - perLayer('llama-3.1-8b', {})).toBe(
      2 * (h + kv),
    );
    // Gemma-2's soft-capped attention never goes through SDPA in litgpt: the eager tensors, tanh included.
    const gemma2 = (extra: Record<string, unknown>, seqLen: number) =>
      run({ model: 'gemma-2-2b', method: 'full', precision: 'bf16-true', seqLen, ...extra }).breakdown
        .activationsPerLayerPerTokenBytes!;
    const slope = (extra: Record<string, unknown>) => gemma2(extra, 2048) - gemma2(extra, 1024);
    expect(slope({ modelCode: 'litgpt' })).toBe(slope({ attention: 'eager' }));
    expect(slope({ modelCode: 'litgpt' })).toBe((4 + 2 + 2) * 8 * 1024);
    expect(slope({})).toBe(0);
    // fp32 over grouped heads: HF's SDPA falls back to its math path (the fp32 softmax kept); litgpt
    // repeats K/V first, so the memory-efficient kernel takes it and keeps no scores.
    const fp32 = (extra: Record<string, unknown>, seqLen: number) =>
      run({ model: 'llama-3.2-1b', method: 'full', precision: 'fp32', seqLen, ...extra }).breakdown
        .activationsPerLayerPerTokenBytes!;
    expect(fp32({ modelCode: 'litgpt' }, 2048)).toBe(fp32({ modelCode: 'litgpt' }, 1024));
    expect(fp32({}, 2048) - fp32({}, 1024)).toBe(4 * 32 * 1024);
    // The litgpt profile sets it, with litgpt's default dropout when the user gives none.
    const profiled = parseScenario({ model: 'llama-2-7b', method: 'lora', framework: 'litgpt' });
    expect([profiled.modelCode, profiled.lora?.dropout]).toEqual(['litgpt', 0.05]);
    const given = parseScenario({
      model: 'llama-2-7b',
      method: 'lora',
      framework: 'litgpt',
      lora: { dropout: 0 },
    });
    expect(given.lora?.dropout).toBe(0);
  });

  it('under autocast a trained RMSNorm keeps its normalized input in fp32, the residual stream’s dtype', () => {
    const perLayer = (precision: string) =>
      run({ model: 'llama-3.2-1b', method: 'full', precision }).breakdown.activationsPerLayerPerTokenBytes!;
    const lora = (precision: string) =>
      run({
        model: 'llama-3.2-1b',
        method: 'lora',
        precision,
        lora: { rank: 16, targets: ['q_proj'], adapterDtype: 'model' },
      }).breakdown.activationsPerLayerPerTokenBytes!;
    // Two norms per layer, 2 more bytes each per hidden element; frozen norms keep nothing extra.
    expect(perLayer('bf16-mixed') - perLayer('bf16-true')).toBe(2 * 2 * 2048);
    expect(lora('bf16-mixed')).toBe(lora('bf16-true') + 2 * 2048 - 2 * 2048);
  });

  it("a Hopper GPU's CUDA context is the 758 MiB measured on the H200; others keep 500 MiB", () => {
    const context = (gpu: string) => run({ method: 'lora' }, gpu).breakdown.cudaContextBytes;
    expect(context('h200-sxm')).toBe(758 * 2 ** 20);
    expect(context('h100-sxm')).toBe(758 * 2 ** 20);
    expect(context('a100-sxm-80gb')).toBe(500 * 2 ** 20);
    expect(run({ method: 'lora' }).breakdown.cudaContextBytes).toBe(500 * 2 ** 20);
  });

  it('with expandable segments keeps 7.8 % of the churning bytes as reserve instead of 12 %; allocated is the same', () => {
    const fields = { method: 'lora', precision: 'bf16-true', seqLen: 4096 };
    const plain = run(fields, 'a100-sxm-80gb');
    const expandable = run({ ...fields, expandableSegments: true }, 'a100-sxm-80gb');
    expect(expandable.peak.allocatedBytes).toBe(plain.peak.allocatedBytes);
    expect(expandable.breakdown.churnBytes).toBe(plain.breakdown.churnBytes);
    expect(plain.breakdown.churnBytes!).toBeGreaterThan(2 ** 30);
    const reserve = (e: typeof plain) => e.peak.reservedBytes - e.peak.allocatedBytes - 64 * 2 ** 20;
    expect(reserve(plain)).toBeCloseTo(0.12 * plain.breakdown.churnBytes!, -1);
    expect(reserve(expandable)).toBeCloseTo(0.078 * plain.breakdown.churnBytes!, -1);
    expect(plain.peak.deviceBytes - expandable.peak.deviceBytes).toBe(
      plain.peak.reservedBytes - expandable.peak.reservedBytes,
    );
    expect(expandable.breakdown.allocatorFragmentationShare).toBe(0.078);
  });

  it('at a load peak, churn is the quantization transient alone: nothing else is held yet', () => {
    // Llama-2-70B QLoRA on 16 tokens: quantizing the largest linear (28,672 × 8,192) at load, with its
    // 4 bytes an element of transient, outweighs everything a 16-token step adds.
    const e = run(
      {
        model: 'llama-2-70b',
        method: 'qlora',
        quantization: 'nf4',
        precision: 'bf16-true',
        seqLen: 16,
        gradientCheckpointing: 'full',
        loss: 'chunked',
      },
      'a100-sxm-80gb',
    );
    expect(e.peakPhase).toBe('load');
    expect(e.breakdown.churnBytes).toBe(28_672 * 8_192 * 4);
    expect(e.peak.reservedBytes - e.peak.allocatedBytes - 64 * 2 ** 20).toBeCloseTo(
      0.12 * 28_672 * 8_192 * 4,
      -1,
    );
  });

  it('keeps two cuBLAS workspaces allocated after the first matmul: 32 MiB each on Hopper and Blackwell', () => {
    const workspaces = (gpu?: string) => run({ method: 'full' }, gpu).breakdown.cublasWorkspaceBytes;
    expect(workspaces('h200-sxm')).toBe(64 * 2 ** 20);
    expect(workspaces('b200')).toBe(64 * 2 ** 20);
    // 4096 KiB × 2 + 16 KiB × 8 per handle, the 8,519,680 bytes pytorch/pytorch#95668 saw on an A10G.
    expect(workspaces('a10g')).toBe(2 * 8_519_680);
    expect(workspaces()).toBe(2 * 8_519_680);
    // hipBLAS on ROCm: 32 MiB a handle, 128 MiB on gfx942 (MI300X).
    expect(workspaces('mi250x')).toBe(64 * 2 ** 20);
    expect(workspaces('mi300x')).toBe(256 * 2 ** 20);

    const scenario = parseScenario({ model: 'llama-3.1-8b', method: 'full' });
    const e = estimate({ scenario, shape: shapeOf('llama-3.1-8b'), gpu: findGpu('h200-sxm')!, terms: true });
    const termBytes = (phase: 'load' | 'forward' | 'backward' | 'optimizer-step', name: string) =>
      e.phaseTerms![phase].find((t) => t.term === name)?.bytes;
    // Not at load: no matmul has run. In every phase after it, the same bytes.
    expect(termBytes('load', 'cublas-workspaces')).toBeUndefined();
    for (const phase of ['forward', 'backward', 'optimizer-step'] as const) {
      expect([phase, termBytes(phase, 'cublas-workspaces')]).toEqual([phase, 64 * 2 ** 20]);
    }
    // They are runtime buffers, not activations: runtime is them, the reserve and the CUDA context.
    const { peak, components, breakdown } = e;
    expect(e.peakPhase).toBe('optimizer-step');
    expect(components.runtime).toBe(
      64 * 2 ** 20 + (peak.reservedBytes - peak.allocatedBytes) + breakdown.cudaContextBytes!,
    );
    expect(components.weights + components.gradients + components.optimizer + components.activations).toBe(
      peak.allocatedBytes - 64 * 2 ** 20,
    );
  });
});

describe('FSDP with its parameters offloaded', () => {
  const fields = {
    model: 'llama-3.1-8b',
    method: 'lora',
    precision: 'bf16-true',
    microBatchSize: 1,
    seqLen: 1024,
    parallelism: { strategy: 'fsdp', gpus: 2 },
  };
  it('runs the optimizer step on the CPU: no states, gradients or step temporary on the GPU; ZeRO-3 keeps them', () => {
    const onGpu = run(fields);
    const offloaded = run({ ...fields, offload: { params: 'cpu' } });
    expect(onGpu.breakdown.optimizerBytes).toBeGreaterThan(0);
    expect(offloaded.breakdown.weightsBytes).toBeLessThan(onGpu.breakdown.weightsBytes);
    expect(offloaded.breakdown.optimizerBytes).toBe(0);
    expect(offloaded.breakdown.optimizerTempBytes).toBe(0);
    // The states wait in host memory instead, with the weight shards.
    expect(offloaded.host!.cpuBytes).toBeGreaterThanOrEqual(onGpu.breakdown.optimizerBytes);
    // DeepSpeed's offload_param alone leaves the optimizer where it is.
    const zero3 = { ...fields, parallelism: { strategy: 'zero3', gpus: 2 } };
    expect(run({ ...zero3, offload: { params: 'cpu' } }).breakdown.optimizerBytes).toBe(
      run(zero3).breakdown.optimizerBytes,
    );
  });
});

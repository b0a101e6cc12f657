/**
 * The FSDP mechanism fields (fsdpVersion, frozenParamGrads, gatherDtype, reduceDtype) and checkpointing
 * by op (selective-op) and by layer (every-nth), each against the bytes its source says, set by hand
 * and through the framework profiles (behaviourDefaults / withFrameworkDefaults).
 */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from './architecture.js';
import { findModel } from './catalog/index.js';
import { estimate } from './estimate.js';
import { withFrameworkDefaults } from './frameworks/profiles.js';
import { paramBreakdown } from './params.js';
import { parseScenario } from './scenario.js';

const shapeOf = (id: string) => shapeFromConfig(findModel(id)!);
const run = (fields: Record<string, unknown>) => {
  const scenario = parseScenario({ model: 'llama-3.1-8b', ...fields });
  return estimate({ scenario, shape: shapeOf(scenario.model as string), gpu: null, terms: true });
};
const term = (r: ReturnType<typeof run>, phase: 'backward', name: string): number =>
  r.phaseTerms?.[phase].find((t) => t.term === name)?.bytes ?? 0;

// Llama-3.1-8B: h 4096, 32 heads of 128, 8 KV heads, MLP 14336, 32 layers.
const h = 4096;
const kv = 8 * 128;
const f = 14336;
const L = 32;

describe('selective-op: torchtitan op-level checkpointing', () => {
  const base = { precision: 'bf16-true', microBatchSize: 2, seqLen: 1024 };
  const T = 2 * 1024;
  it('keeps the block input, every other matmul output (q, v, gate, down), SDPA output and log-sum-exp', () => {
    const op = run({ ...base, gradientCheckpointing: 'selective-op' });
    const full = run({ ...base, gradientCheckpointing: 'full' });
    // Same tail (final norm, logits) in both: the difference is the layers' saved bytes.
    const perLayer = 2 * (4 * h + kv + f) + 4 * 32;
    expect(perLayer).toBe(63_616);
    expect(op.breakdown.activationsSavedBytes! - full.breakdown.activationsSavedBytes!).toBe(
      L * T * (perLayer - 2 * h),
    );
    // Backward recomputes one layer at a time, as full checkpointing does.
    expect(op.breakdown.backwardTransientBytes).toBe(full.breakdown.backwardTransientBytes);
    // Fewer than the estimator's selective: it keeps two norms' outputs, k and v repeated to every
    // head (HF repeat_kv, 2h), o's input and up, where the op policy keeps v grouped: 6h + 2f − (4h + kv + f).
    const selective = run({ ...base, gradientCheckpointing: 'selective' });
    expect(selective.breakdown.activationsSavedBytes! - op.breakdown.activationsSavedBytes!).toBe(
      L * T * 2 * (2 * h + f - kv),
    );
  });

  it('keeps nothing of eager attention (bmm and softmax are not in the saved list)', () => {
    const sdpa = run({ ...base, gradientCheckpointing: 'selective-op' });
    const eager = run({ ...base, gradientCheckpointing: 'selective-op', attention: 'eager' });
    expect(sdpa.breakdown.activationsSavedBytes! - eager.breakdown.activationsSavedBytes!).toBe(
      L * T * (2 * h + 4 * 32),
    );
  });

  it('counts a LoRA adapter two matmuls after its base layer', () => {
    const lora = { ...base, method: 'lora', lora: { rank: 16, targets: ['q_proj'] } };
    const op = run({ ...lora, gradientCheckpointing: 'selective-op' });
    const full = run({ ...lora, gradientCheckpointing: 'full' });
    // q, A(q), B(q), k, v, o, gate, up, down: kept 1st, 3rd, 5th, 7th, 9th = q, B(q)=h, v, gate, down.
    const perLayer = 2 * (h + h + h + kv + f + h) + 2 * h + 4 * 32;
    expect(op.breakdown.activationsSavedBytes! - full.breakdown.activationsSavedBytes!).toBe(
      L * T * (perLayer - 2 * h),
    );
  });
});

describe('every-nth: per-layer checkpointing', () => {
  const base = { precision: 'bf16-true', microBatchSize: 1, seqLen: 1024 };
  const T = 1024;
  it('checkpoints every Nth layer fully and keeps everything of the others', () => {
    const none = run(base);
    const full = run({ ...base, gradientCheckpointing: 'full' });
    const every4 = run({ ...base, gradientCheckpointing: 'every-nth', checkpointEvery: 4 });
    const perLayer = none.breakdown.activationsPerLayerPerTokenBytes!;
    expect(every4.breakdown.activationsSavedBytes! - full.breakdown.activationsSavedBytes!).toBe(
      (L - L / 4) * T * (perLayer - 2 * h),
    );
    expect(run({ ...base, gradientCheckpointing: 'every-nth', checkpointEvery: 1 }).breakdown).toEqual(
      full.breakdown,
    );
    // Absent: every second layer (torchtitan's "2").
    const every2 = run({ ...base, gradientCheckpointing: 'every-nth' });
    expect(every2.breakdown.activationsSavedBytes! - full.breakdown.activationsSavedBytes!).toBe(
      (L / 2) * T * (perLayer - 2 * h),
    );
  });
});

describe('FSDP1 frozen-parameter gradients', () => {
  const lora = {
    model: 'llama-2-7b',
    method: 'lora',
    lora: { rank: 8, targets: ['q_proj', 'v_proj'], adapterDtype: 'model' },
    precision: 'bf16-true',
    gradientCheckpointing: 'full',
    parallelism: { strategy: 'fsdp', gpus: 2 },
  };
  const p = paramBreakdown(shapeOf('llama-2-7b'));
  const blocks = p.totalParams - p.embeddingParams - p.lmHeadParams;
  const withGrads = { ...lora, parallelism: { ...lora.parallelism, frozenParamGrads: true } };

  it('gives the blocks’ frozen weights a sharded bf16 gradient, and a unit gradient in backward', () => {
    const off = run(lora);
    const on = run(withGrads);
    expect(on.breakdown.gradientsBytes! - off.breakdown.gradientsBytes!).toBe(Math.round(blocks));
    expect(term(off, 'backward', 'gathered-gradients')).toBe(0);
    expect(term(on, 'backward', 'gathered-gradients')).toBe(2 * 2 * p.largestLayerParams);
  });

  it('keeps them unsharded through the next forward under no_sync accumulation', () => {
    const on = run({ ...withGrads, gradAccumSteps: 32 });
    const forward = on.phaseTerms!.forward.find((t) => t.term === 'accumulated-gradients')!.bytes;
    expect(forward).toBeGreaterThanOrEqual(2 * blocks);
    expect(on.peak.allocatedBytes - run({ ...lora, gradAccumSteps: 32 }).peak.allocatedBytes).toBeGreaterThan(
      2 * blocks - 1e6,
    );
  });

  it('does nothing under FSDP2, which never gives a frozen parameter a gradient', () => {
    const fsdp2 = { ...withGrads, parallelism: { ...withGrads.parallelism, fsdpVersion: 2 } };
    const plain = { ...lora, parallelism: { ...lora.parallelism, fsdpVersion: 2 } };
    expect(run(fsdp2).peak).toEqual(run(plain).peak);
    expect(run(fsdp2).breakdown.gradientsBytes).toBe(run(plain).breakdown.gradientsBytes);
  });

  it('comes from the litgpt profile on the 2023 rows as they give it (torch 2.1.0)', () => {
    const row = { ...lora, framework: 'litgpt', versions: { torch: '2.1.0' } };
    const { scenario } = withFrameworkDefaults(row);
    expect(scenario.parallelism).toMatchObject({ fsdpVersion: 1, frozenParamGrads: true });
    expect(run(scenario).breakdown.gradientsBytes).toBe(run(withGrads).breakdown.gradientsBytes);
  });
});

describe('FSDP mixed-precision dtypes', () => {
  const full = {
    method: 'full',
    precision: 'bf16-mixed',
    gradientCheckpointing: 'full',
    parallelism: { strategy: 'fsdp', gpus: 8 },
  };
  const P = paramBreakdown(shapeOf('llama-3.1-8b')).largestLayerParams;
  const withPar = (extra: Record<string, unknown>) => ({
    ...full,
    parallelism: { ...full.parallelism, ...extra },
  });

  it('defaults keep today’s numbers: FSDP1, compute-dtype gathers and reductions', () => {
    expect(run(withPar({ fsdpVersion: 1, gatherDtype: 'compute', reduceDtype: 'compute' })).peak).toEqual(
      run(full).peak,
    );
    // FSDP2 allocates the same; its all-gather output's pool (one unit, in the copy-in stream) is reserved beside.
    const v2 = run(withPar({ fsdpVersion: 2 }));
    expect(v2.peak.allocatedBytes).toBe(run(full).peak.allocatedBytes);
    expect(v2.breakdown.reserveStreamCacheBytes! - run(full).breakdown.reserveStreamCacheBytes!).toBe(2 * P);
    expect(v2.peak.reservedBytes - run(full).peak.reservedBytes).toBe(2 * P);
    expect(term(run(full), 'backward', 'gathered-gradients')).toBe(2 * 2 * P);
  });

  it('reduceDtype fp32: FSDP2 holds a unit’s bf16 gradient and the last fp32 reduce input, FSDP1 adds the cast', () => {
    expect(
      term(run(withPar({ fsdpVersion: 2, reduceDtype: 'fp32' })), 'backward', 'gathered-gradients'),
    ).toBe((2 + 4) * P);
    expect(term(run(withPar({ reduceDtype: 'fp32' })), 'backward', 'gathered-gradients')).toBe(
      (2 * 2 + 4) * P,
    );
  });

  it('gatherDtype fp32 unshards the units and the root in 4 bytes', () => {
    const compute = run(full).breakdown;
    const fp32 = run(withPar({ gatherDtype: 'fp32' })).breakdown;
    expect(fp32.gatheredWeightsBytes).toBe(2 * compute.gatheredWeightsBytes!);
    expect(fp32.fsdpRootUnitBytes).toBe(2 * compute.fsdpRootUnitBytes!);
  });

  it('comes from the torchtitan profile: FSDP2, fp32 reduction, op-level checkpointing', () => {
    const { scenario } = withFrameworkDefaults({
      model: 'llama-3.1-8b',
      framework: 'torchtitan',
      microBatchSize: 2,
      seqLen: 8192,
      parallelism: { strategy: 'fsdp', gpus: 8 },
    });
    const s = parseScenario(scenario);
    expect([s.gradientCheckpointing, s.parallelism.fsdpVersion, s.parallelism.reduceDtype]).toEqual([
      'selective-op',
      2,
      'fp32',
    ]);
    // 32 layers × 16384 tokens × 63,616 B (the residual stream is bf16: FSDP unshards in bf16).
    const r = run(scenario);
    const fullCkpt = run({ ...scenario, gradientCheckpointing: 'full' });
    expect(r.breakdown.activationsSavedBytes! - fullCkpt.breakdown.activationsSavedBytes!).toBe(
      L * 16384 * (63_616 - 2 * h),
    );
  });
});

describe("FSDP's communication streams' caches in reserved", () => {
  const full = {
    method: 'full',
    precision: 'bf16-mixed',
    gradientCheckpointing: 'full',
    microBatchSize: 2,
    seqLen: 2048,
  };
  const P = paramBreakdown(shapeOf('llama-3.1-8b')).largestLayerParams;
  const at = (parallelism: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    run({ ...full, ...extra, parallelism });
  const streams = (r: ReturnType<typeof run>) => r.breakdown.reserveStreamCacheBytes!;

  it('FSDP2 at a backward peak before the gradients: every sharded gradient block and one unit’s all-gather output', () => {
    const r = at({ strategy: 'fsdp', gpus: 8, fsdpVersion: 2 });
    expect(r.peakPhase).toBe('backward');
    expect(streams(r)).toBe(r.breakdown.gradientsBytes! + 2 * P);
    // In reserved beside the reserve proper, not allocated.
    const without = r.peak.reservedBytes - streams(r);
    expect(without).toBeGreaterThan(r.peak.allocatedBytes);
  });

  it('FSDP1 has no all-gather pool of a side stream: only the sharded gradients', () => {
    const r = at({ strategy: 'fsdp', gpus: 8, fsdpVersion: 1 });
    expect(streams(r)).toBe(r.breakdown.gradientsBytes!);
    expect(r.breakdown.gradientsBytes!).toBeGreaterThan(0);
  });

  it('no_sync accumulation keeps whole gradients in the compute stream: the sharded pool stays cached beside them', () => {
    const r = at({ strategy: 'fsdp', gpus: 8, fsdpVersion: 1 }, { gradAccumSteps: 4 });
    expect(streams(r)).toBe(r.breakdown.gradientsBytes!);
  });

  it('accumulating sharded gradients (synced every micro-batch) holds them: only the all-gather pool is extra', () => {
    const r = at(
      { strategy: 'fsdp', gpus: 8, fsdpVersion: 2, syncEachMicroBatch: true },
      { gradAccumSteps: 4 },
    );
    expect(streams(r)).toBe(2 * P);
  });

  it('none on one GPU, under DDP or under ZeRO-3', () => {
    expect(streams(at({ strategy: 'fsdp', gpus: 1, fsdpVersion: 2 }))).toBe(0);
    expect(streams(at({ strategy: 'ddp', gpus: 8 }))).toBe(0);
    expect(streams(at({ strategy: 'zero3', gpus: 8 }))).toBe(0);
  });
});

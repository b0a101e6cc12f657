import { describe, expect, it, vi } from 'vitest';
import { say } from '../words/catalog.js';
import { PLAN_RISKS } from '../words/plan-risks.js';
import { PLAN_RUNGS } from '../words/plan-rungs.js';
import { calibrate, calibratedEstimate } from './calibrate.js';
import { findGpu } from './catalog/index.js';
import { ALLOCATOR_BASE_RESERVE_BYTES, estimate } from './estimate.js';
import { memoryTarget } from './margin.js';
import { resolveModelRef } from './model-ref.js';
import type { Risk, RungChange } from './plan.js';
import { makePlan, type Plan, SEQ_LEN_STEP } from './plan.js';
import { parseScenario } from './scenario.js';
import { LORA_8B_ZERO3_DEFAULT_BUCKET } from './test-helpers/scenarios.js';

// The search's mechanics at a point upper bound (ratio 1): its boundaries stay put when the table is
// regenerated. The verdict on the real upper bound is tested in margin, estimate, fit and capacity.
vi.mock('./estimate/upper-table.js', () => import('./test-helpers/point-upper.js'));

/** A rung's change and risk in English, as the catalog words them (src/words/plan-rungs.ts, plan-risks.ts). */
const summary = (change: RungChange) => say(PLAN_RUNGS, 'en', change);
const note = (risk: Risk) => say(PLAN_RISKS, 'en', risk);

const shapeOf = (id: string) => resolveModelRef(id)!.shape;
const plan = (
  raw: Record<string, unknown>,
  gpu: string,
  extra: { marginFraction?: number; allowShorter?: boolean } = {},
) =>
  makePlan({ scenario: parseScenario(raw), shape: shapeOf(String(raw.model)), gpu: findGpu(gpu)!, ...extra });

/** The rung `id` of a plan: shown, or as the climb applied it where the ladder shown dropped it. */
const rungOf = (p: Plan, id: string) =>
  p.rungs.find((r) => r.change.id === id) ?? p.dropped.find((d) => d.rung.change.id === id)!.rung;

/** Llama-3.1-8B QLoRA (NF4, bf16, full checkpointing): the setup a 24 GB card is sized for. */
const QLORA_8B = {
  model: 'llama-3.1-8b',
  method: 'qlora',
  quantization: 'nf4',
  precision: 'bf16-true',
  gradientCheckpointing: 'full',
} as const;

describe('makePlan: the ladder', () => {
  const fullOn4090 = plan({ model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 }, 'rtx-4090');

  it('applies rungs cheapest first: the changes that cost no quality before those that may', () => {
    expect(fullOn4090.rungs.map((r) => r.change.id)).toEqual([
      'smaller-micro-batch',
      'full-checkpointing',
      'pure-bf16',
      'lora',
    ]);
    // The climb applied six more on the way, in ladder order; LoRA made them pointless.
    expect(fullOn4090.dropped.map((d) => d.rung.change.id)).toEqual([
      'expandable-segments',
      'selective-checkpointing',
      'fused-optimizer',
      'chunked-loss',
      'compile-loss',
      '8bit-optimizer',
    ]);
    // The 8-bit optimizer is bitsandbytes' own kernel: torch's fused flag does not follow it.
    const eightBit = rungOf(fullOn4090, '8bit-optimizer');
    expect(eightBit.scenario.optimizer).toBe('adamw-8bit');
    expect('fusedOptimizer' in eightBit.scenario).toBe(false);
  });

  it('retries a rung that saved nothing once it would', () => {
    // A 70B full fine-tune with a fused AdamW kernel peaks where its fp32 states and gradients all
    // exist: full checkpointing saves nothing there (no step temporaries sit beside the activation
    // cache, allocator.ts OPTIMIZER_STEP_RESERVE) and is applied once LoRA has shrunk the step.
    const raw = { model: 'llama-3.1-70b', method: 'full', fusedOptimizer: true };
    const peak = (s: Record<string, unknown>) =>
      estimate({ scenario: parseScenario(s), shape: shapeOf('llama-3.1-70b'), gpu: findGpu('rtx-4090')! })
        .peak.deviceBytes;
    expect(peak({ ...raw, gradientCheckpointing: 'full' })).toBe(peak(raw));
    const big = plan(raw, 'rtx-4090');
    expect(big.rungs.map((r) => r.change.id)).toEqual([
      'lora',
      'full-checkpointing',
      'qlora',
      'offload-params-cpu',
    ]);
    // Lion has no fused kernel here: the climb applies selective checkpointing, then full
    // checkpointing; by the end of the climb neither it nor expandable segments saves much, and no
    // one rung after either took most of its saving (after: null).
    const lion = plan(
      { model: 'llama-3.1-8b', method: 'full', microBatchSize: 4, optimizer: 'lion' },
      'rtx-4090',
    );
    expect(lion.rungs.map((r) => r.change.id)).toEqual([
      'smaller-micro-batch',
      'full-checkpointing',
      'pure-bf16',
      'lora',
    ]);
    expect(lion.dropped.map((d) => [d.rung.change.id, d.after])).toEqual([
      ['expandable-segments', null],
      ['selective-checkpointing', null],
    ]);
  });

  it('a fused optimizer kernel drops the step temporary, one state’s size', () => {
    const fused = rungOf(fullOn4090, 'fused-optimizer');
    expect(fused.risk.level).toBe('none');
    expect(summary(fused.change)).toBe('fused AdamW kernel (torch fused=True; HF optim adamw_torch_fused)');
    const from = fullOn4090.dropped.find((d) => d.rung === fused)!.from;
    const before = estimate({ scenario: from, shape: shapeOf('llama-3.1-8b'), gpu: findGpu('rtx-4090')! });
    // bf16-mixed AdamW: fp32 states, 4 bytes a parameter each.
    expect(before.breakdown.optimizerTempBytes).toBe(8_030_261_248 * 4);
    expect(fused.estimate.breakdown.optimizerTempBytes).toBe(0);
  });

  it('stops at the first rung that fits, and each rung builds on the ones before', () => {
    const fits = fullOn4090.rungs.map((r) => r.fits);
    expect(fits).toEqual([false, false, false, true]);
    const last = fullOn4090.rungs.at(-1)!;
    // The 8-bit optimizer and the chunked loss the climb applied are not needed with LoRA.
    expect(last.scenario).toMatchObject({
      method: 'lora',
      microBatchSize: 1,
      gradAccumSteps: 4,
      precision: 'bf16-true',
      optimizer: 'adamw',
      gradientCheckpointing: 'full',
      loss: 'standard',
      lora: { rank: 16, targets: 'all-linear' },
    });
    expect(last.estimate.peak.deviceBytes).toBeLessThanOrEqual(fullOn4090.target.budgetBytes);
    const before = fullOn4090.rungs.at(-2)!;
    expect(before.estimate.peak.deviceBytes).toBeGreaterThan(fullOn4090.target.budgetBytes);
  });

  it('reports each rung’s saving against the one before, and the estimator agrees', () => {
    let previous = fullOn4090.target.startPeakBytes;
    for (const rung of fullOn4090.rungs) {
      expect(rung.savedBytes).toBe(previous - rung.estimate.peak.deviceBytes);
      expect(rung.savedBytes).toBeGreaterThan(0);
      const again = estimate({
        scenario: rung.scenario,
        shape: shapeOf('llama-3.1-8b'),
        gpu: findGpu('rtx-4090')!,
      });
      expect(rung.estimate.peak).toEqual(again.peak);
      previous = rung.estimate.peak.deviceBytes;
    }
  });

  it('keeps the effective batch when it shrinks the micro-batch', () => {
    const smaller = fullOn4090.rungs.find((r) => r.change.id === 'smaller-micro-batch')!;
    expect(summary(smaller.change)).toBe('micro-batch 4 → 1, accumulation 1 → 4');
    expect(smaller.scenario.microBatchSize * smaller.scenario.gradAccumSteps).toBe(4);
    expect(smaller.relativeStepTime).toBe(1);
  });

  it('sets expandable segments first: less allocator reserve, the same allocated bytes and step time', () => {
    const first = fullOn4090.dropped[0]!.rung;
    expect(first.change.id).toBe('expandable-segments');
    expect(fullOn4090.dropped[0]!.from).toEqual(fullOn4090.scenario);
    expect(first.scenario.expandableSegments).toBe(true);
    expect(first.risk.level).toBe('none');
    expect(first.relativeStepTime).toBe(1);
    const before = estimate({
      scenario: parseScenario({ model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 }),
      shape: shapeOf('llama-3.1-8b'),
      gpu: findGpu('rtx-4090')!,
    });
    expect(first.estimate.peak.allocatedBytes).toBe(before.peak.allocatedBytes);
    // The reserve falls to 7.8 % of the bytes that churn: neither the loss's block nor the blocks the
    // first step's states took stay cached beside what the peak uses (allocator.ts fixedReserve).
    expect(before.reserveBasis).toBe('optimizer-states');
    expect(first.estimate.reserveBasis).toBe('churn-share');
    expect(first.savedBytes).toBeCloseTo(
      before.peak.reservedBytes -
        before.peak.allocatedBytes -
        (ALLOCATOR_BASE_RESERVE_BYTES + 0.078 * before.breakdown.churnBytes!),
      -2,
    );
    // A run that already sets it starts the ladder at the next rung.
    const set = plan(
      { model: 'llama-3.1-8b', method: 'full', microBatchSize: 4, expandableSegments: true },
      'rtx-4090',
    );
    expect(set.rungs[0]!.change.id).toBe('smaller-micro-batch');
    // Alone it is enough when the reserve is what stands over the budget.
    const near = plan({ ...QLORA_8B, microBatchSize: 4 }, 'rtx-4090');
    expect(near.rungs.map((r) => [r.change.id, r.fits])).toEqual([['expandable-segments', true]]);
  });

  it('prices recomputation in time and quantization in risk', () => {
    const byId = new Map(
      [...fullOn4090.dropped.map((d) => d.rung), ...fullOn4090.rungs].map((r) => [r.change.id, r]),
    );
    expect(byId.get('full-checkpointing')!.risk.level).toBe('none');
    expect(byId.get('full-checkpointing')!.relativeStepTime).toBeGreaterThan(
      byId.get('fused-optimizer')!.relativeStepTime,
    );
    expect(byId.get('pure-bf16')!.risk).toMatchObject({ level: 'medium' });
    const q = plan({ model: 'llama-3.1-70b', method: 'full' }, 'rtx-4090').rungs.find(
      (r) => r.change.id === 'qlora',
    )!;
    expect(q.risk.level).toBe('medium');
    expect(note(q.risk)).toMatch(/^quality: 4-bit base weights/);
  });

  it('lists the next best alternatives: other rungs instead of the winning one, risk-free first', () => {
    const four = plan(
      { model: 'llama-3.1-8b', method: 'full', microBatchSize: 4, parallelism: { strategy: 'ddp', gpus: 4 } },
      'a100-sxm-80gb',
    );
    expect(four.rungs.map((r) => r.change.id)).toEqual([
      'expandable-segments',
      'smaller-micro-batch',
      'selective-checkpointing',
      'pure-bf16',
      '8bit-optimizer',
    ]);
    expect(four.alternatives.map((a) => a.change.id)).toEqual(['zero2', 'zero3', 'offload-optimizer-cpu']);
    for (const a of four.alternatives) {
      expect(a.fits).toBe(true);
      // Applied to the scenario before the winning rung (the 8-bit optimizer), not after it: the ladder
      // shown, without the checkpointing it does not need.
      expect(a.scenario.optimizer).toBe('adamw');
      expect(a.scenario.gradientCheckpointing).toBe('selective');
    }
  });

  it('compiles a chunked loss, which drops its fp32 copy of the logits, at low risk', () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'lora',
      // torchtune's setup, where compiling the loss comes from: adapters in the model's dtype.
      lora: { rank: 8, targets: ['q_proj', 'v_proj'], adapterDtype: 'model' },
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
      loss: 'chunked',
      seqLen: 8192,
    };
    const p = plan(raw, 'rtx-4090');
    expect(p.rungs.map((r) => [r.change.id, r.fits])).toEqual([['compile-loss', true]]);
    const rung = p.rungs[0]!;
    expect(rung.scenario.torchCompile).toBe(true);
    const before = estimate({ scenario: parseScenario(raw), shape: shapeOf('llama-3.1-8b'), gpu: null });
    expect(before.breakdown.lossResidentBytes! - rung.estimate.breakdown.lossResidentBytes!).toBe(
      4 * 128_256 * 8192,
    );
    expect(rung.risk.level).toBe('low');
  });

  it('does not shorten sequences unless allowed, and then to the longest multiple of 64 that fits', () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'lora',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
      seqLen: 32768,
    };
    expect(plan(raw, 'rtx-4090').rungs.map((r) => r.change.id)).not.toContain('shorter-sequence');
    const allowed = plan(raw, 'rtx-4090', { allowShorter: true });
    expect(allowed.rungs.map((r) => r.change.id)).toEqual([
      'expandable-segments',
      'chunked-loss',
      'compile-loss',
      'shorter-sequence',
    ]);
    const rung = allowed.rungs[3]!;
    expect(rung.scenario.seqLen).toBe(8256);
    // Each rung before it lets the sequence stay longer: without any of them it would be cut shorter
    // still, so the ladder keeps them all.
    expect(allowed.dropped).toEqual([]);
    expect(rung.scenario.seqLen % SEQ_LEN_STEP).toBe(0);
    expect(rung.fits).toBe(true);
    // One step longer does not fit.
    const longer = estimate({
      scenario: { ...rung.scenario, seqLen: rung.scenario.seqLen + SEQ_LEN_STEP },
      shape: shapeOf('llama-3.1-8b'),
      gpu: findGpu('rtx-4090')!,
    });
    expect(longer.peak.deviceBytes).toBeGreaterThan(allowed.target.budgetBytes);
    expect(note(rung.risk)).toBe('quality: samples longer than 8256 tokens are truncated (or must be split)');
  });
});

describe('makePlan: the stopping rule and the margin', () => {
  it('says a scenario already fits, with its headroom, and changes nothing', () => {
    const p = plan(QLORA_8B, 'rtx-4090');
    expect(p.fitsAlready).toBe(true);
    expect(p.rungs).toEqual([]);
    expect(p.alternatives).toEqual([]);
    const usable = memoryTarget(findGpu('rtx-4090')!).usableBytes;
    expect(p.target.headroomBytes).toBe(usable - p.target.startPeakBytes);
    expect(p.target.headroomBytes).toBeGreaterThan(usable * 0.1);
  });

  it('a peak between the budget and the whole card does not fit: the margin is enforced', () => {
    const raw = { ...QLORA_8B, seqLen: 8600 };
    const usable = memoryTarget(findGpu('rtx-4090')!).usableBytes;
    const peak = estimate({
      scenario: parseScenario(raw),
      shape: shapeOf('llama-3.1-8b'),
      gpu: findGpu('rtx-4090')!,
    }).peak.deviceBytes;
    expect(peak).toBeGreaterThan(usable * 0.9);
    expect(peak).toBeLessThan(usable);
    expect(plan(raw, 'rtx-4090', { marginFraction: 0 }).fitsAlready).toBe(true);
    const tight = plan(raw, 'rtx-4090', { marginFraction: 0.1 });
    expect(tight.fitsAlready).toBe(false);
    expect(tight.rungs.map((r) => [r.change.id, r.fits])).toEqual([['chunked-loss', true]]);
  });

  it('shrinks the micro-batch to the largest divisor that fits, keeping the effective batch', () => {
    const raw = {
      ...QLORA_8B,
      microBatchSize: 4,
      // Set already: without it, expandable segments alone would make this fit.
      expandableSegments: true,
      seqLen: 2304,
    };
    const p = plan(raw, 'rtx-4090');
    // 3 would fit too (18.99 GiB) but is not a divisor of 4: the effective batch would change.
    expect(p.rungs.map((r) => summary(r.change))).toEqual(['micro-batch 4 → 2, accumulation 1 → 2']);
    expect(p.rungs[0]!.scenario).toMatchObject({ microBatchSize: 2, gradAccumSteps: 2 });
    expect(p.rungs[0]!.fits).toBe(true);
  });

  it('when nothing on the ladder fits, offers hardware that runs the risk-free version instead', () => {
    const p = plan({ model: 'llama-3.1-8b', method: 'full', seqLen: 65536 }, 'rtx-3060-12gb');
    expect(p.rungs.every((r) => !r.fits)).toBe(true);
    expect(p.alternatives.map((a) => [a.change.id, a.scenario.gpu, a.scenario.parallelism])).toEqual([
      ['hardware', 'mi300x', { strategy: 'single', gpus: 1 }],
      ['hardware', 'h200-sxm', { strategy: 'zero3', gpus: 2 }],
      ['hardware', 'h200-nvl', { strategy: 'zero3', gpus: 2 }],
    ]);
    // Risk-free rungs only: same method, precision and optimizer, checkpointing and a compiled chunked
    // loss applied (the 65k-token logits' fp32 copy alone is 34 GB).
    expect(p.alternatives[0]!.scenario).toMatchObject({
      method: 'full',
      precision: 'bf16-mixed',
      optimizer: 'adamw',
      gradientCheckpointing: 'full',
      loss: 'chunked',
      torchCompile: true,
    });
    expect(summary(p.alternatives[0]!.change)).toBe('run on 1 × mi300x (AMD Instinct MI300X 192GB)');
  });
});

describe('makePlan with a calibration', () => {
  const raw = {
    model: 'llama-3.2-1b',
    method: 'lora',
    precision: 'bf16-true',
    seqLen: 1024,
    microBatchSize: 8,
  };
  const scenario = parseScenario(raw);
  const shape = shapeOf('llama-3.2-1b');
  const gpu = findGpu('a10g')!;
  const e = estimate({ scenario: { ...scenario, microBatchSize: 2 }, shape });
  const calibration = calibrate(e, {
    ...e.peak,
    allocatedBytes: e.peak.allocatedBytes + 2 * 2 ** 30,
    deviceBytes: null,
  });

  it('starts from the calibrated peak and prices every rung with it', () => {
    const p = makePlan({ scenario, shape, gpu, calibration });
    const start = calibratedEstimate(estimate({ scenario, shape, gpu }), calibration);
    expect(p.target.startPeakBytes).toBe(start.peak.deviceBytes);
    for (const r of p.rungs)
      expect(r.estimate.peak).toEqual(
        calibratedEstimate(estimate({ scenario: r.scenario, shape, gpu }), calibration).peak,
      );
    expect(p.rungs.at(-1)!.fits).toBe(true);
  });

  it('without one (null) it is the estimator’s own plan', () => {
    expect(makePlan({ scenario, shape, gpu, calibration: null })).toEqual(makePlan({ scenario, shape, gpu }));
  });
});

describe('makePlan: FSDP rungs', () => {
  it('reduce-scatters every micro-batch, then wraps the embeddings, before touching the training', () => {
    // 8B full fine-tune in bf16 over 4 × A10G with accumulation: no_sync's whole gradients and the root
    // unit's gathered embeddings and head are what a free change can remove.
    const p = plan(
      {
        model: 'llama-3.1-8b',
        method: 'full',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        loss: 'chunked',
        seqLen: 1024,
        gradAccumSteps: 8,
        parallelism: { strategy: 'fsdp', gpus: 4 },
      },
      'a10g',
    );
    const ids = p.rungs.map((r) => r.change.id);
    expect(ids).toEqual(['fsdp-sync-each-micro-batch', 'fsdp-wrap-embeddings']);
    expect(p.rungs.map((r) => r.fits)).toEqual([false, true]);
    expect(p.rungs[0]!.risk.level).toBe('none');
    expect(p.rungs[1]!.scenario.parallelism).toEqual({
      strategy: 'fsdp',
      gpus: 4,
      syncEachMicroBatch: true,
      wrapEmbeddings: true,
    });
    expect(p.rungs[1]!.fits).toBe(true);
  });

  it('upgrading bitsandbytes is a free rung, right after the allocator setting, when an old one keeps the 4-bit inputs', () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      microBatchSize: 2,
      quantizedInputsKept: 'next-forward',
    };
    const p = plan(raw, 'rtx-4090');
    // The climb applies both; the smaller micro-batch and selective checkpointing it needs after them fit
    // without either (the upgrade still saves 1.45 GiB there: worth doing, not needed to fit).
    expect(p.rungs.map((r) => r.change.id)).toEqual(['smaller-micro-batch', 'selective-checkpointing']);
    expect(p.dropped.map((d) => d.rung.change.id)).toEqual(['expandable-segments', 'bitsandbytes-upgrade']);
    const [allocator, upgrade] = p.dropped;
    const first = upgrade!.rung;
    expect(upgrade!.from).toEqual(allocator!.rung.scenario);
    expect(first.scenario.quantizedInputsKept).toBe('none');
    expect(first.risk.level).toBe('none');
    expect(first.relativeStepTime).toBe(1);
    const before = allocator!.rung.estimate;
    expect(first.savedBytes).toBe(before.peak.deviceBytes - first.estimate.peak.deviceBytes);
    expect(first.savedBytes).toBeGreaterThan(0);
    expect(upgrade!.savingBytes).toBeGreaterThan(2 ** 30);
    // int8 keeps its input in every bitsandbytes version: nothing to upgrade.
    const int8 = plan({ ...raw, quantization: 'int8', quantizedInputsKept: 'step' }, 'rtx-4090');
    expect(int8.rungs.map((r) => r.change.id)).not.toContain('bitsandbytes-upgrade');
  });

  it('offloads activations before the optimizer and the parameters, keeping what later rungs add', () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      optimizer: 'adamw-8bit',
      gradientCheckpointing: 'full',
      loss: 'chunked',
      torchCompile: true,
      seqLen: 32768,
    };
    const p = plan(raw, 'rtx-4090');
    const ids = p.rungs.map((r) => r.change.id);
    expect(ids[0]).toBe('offload-activations-cpu');
    const rung = p.rungs[0]!;
    expect(rung.scenario.offload).toEqual({ optimizer: 'none', params: 'none', activations: 'cpu' });
    expect(summary(rung.change)).toBe('activation offload to CPU (the checkpointed layer inputs)');
    const before = estimate({
      scenario: parseScenario(raw),
      shape: shapeOf('llama-3.1-8b'),
      gpu: findGpu('rtx-4090')!,
    });
    expect(before.peak.allocatedBytes - rung.estimate.peak.allocatedBytes).toBe(30 * 32768 * 4096 * 2);
    expect(rung.savedBytes).toBe(before.peak.deviceBytes - rung.estimate.peak.deviceBytes);
    expect(note(rung.risk)).toBe(
      'needs 8.00 GiB of pinned CPU RAM per node; the saved activations cross PCIe twice per micro-batch',
    );
    // Later offload rungs keep the activations offloaded.
    for (const later of p.rungs.slice(1)) expect(later.scenario.offload.activations).toBe('cpu');
    // Optimizer offload is no rung here: ZeRO-Offload's 1 GB reduce bucket (DeepSpeed allocates all
    // reduce_bucket_size = 5e8 bf16 elements) outweighs the adapters' 8-bit states it would move.
    expect(ids.slice(1)).toEqual(['offload-params-cpu']);
  });
});

describe("makePlan: DeepSpeed's reduce bucket", () => {
  const lora = LORA_8B_ZERO3_DEFAULT_BUCKET;

  it('offers "auto" (hidden²) when the default 5e8-element bucket is what stands between a ZeRO run and the card', () => {
    const p = plan(lora, 'rtx-3060-12gb');
    expect(p.rungs.map((r) => [r.change.id, r.fits])).toEqual([['zero-reduce-bucket', true]]);
    const rung = p.rungs[0]!;
    expect(summary(rung.change)).toBe('DeepSpeed reduce_bucket_size 5e8 → auto (hidden² = 16.8M)');
    expect(rung.scenario.parallelism).toEqual({ strategy: 'zero3', gpus: 2, reduceBucketSize: 'auto' });
    // 5e8 − 4,096² bf16 elements, on every GPU.
    expect(rung.savedBytes).toBe((5e8 - 4096 * 4096) * 2);
    expect(rung.risk.level).toBe('none');
  });

  it('has nothing to offer a bucket already "auto", or a run that is not ZeRO', () => {
    const ids = (parallelism: Record<string, unknown>) =>
      plan({ ...lora, parallelism }, 'rtx-3060-12gb').rungs.map((r) => r.change.id);
    expect(ids({ strategy: 'zero3', gpus: 2, reduceBucketSize: 'auto' })).not.toContain('zero-reduce-bucket');
    expect(ids({ strategy: 'fsdp', gpus: 2 })).not.toContain('zero-reduce-bucket');
  });

  it('keeps DeepSpeed settings when a rung moves ZeRO-2 to ZeRO-3 or offloads', () => {
    const p = plan(
      {
        model: 'llama-3.1-8b',
        method: 'full',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        parallelism: { strategy: 'zero2', gpus: 8, reduceBucketSize: 'auto', overlapComm: true },
      },
      // On a 4090 the ladder shown (an 8-bit optimizer, a chunked loss) leaves activation offload, not
      // parameter offload, among the three alternatives; the A10G's ladder leaves all three DeepSpeed moves.
      'a10g',
    );
    // Here they are alternatives to the winning rung; each keeps what the run said about DeepSpeed.
    const kept = { reduceBucketSize: 'auto', overlapComm: true };
    const moved = Object.fromEntries(p.alternatives.map((a) => [a.change.id, a.scenario.parallelism]));
    expect(moved).toEqual({
      zero3: { strategy: 'zero3', gpus: 8, ...kept },
      'offload-optimizer-cpu': { strategy: 'zero2', gpus: 8, ...kept },
      'offload-params-cpu': { strategy: 'zero3', gpus: 8, ...kept },
    });
  });
});

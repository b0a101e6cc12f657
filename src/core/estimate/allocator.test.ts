import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  atOptimizerStep,
  inTrainingStep,
  optimizerStatesFactor,
  optimizerStepFactor,
  optimizerSweep,
} from '../allocator/optimizer-sweep.js';
import {
  fixedReserveTerm,
  reserveGrowthTerm,
  runSweepCase,
  type SweepCase,
  sweepCases,
} from '../allocator/sweep.js';
import { findGpu } from '../catalog/index.js';
import { estimate } from '../estimate.js';
import { resolveModelRef } from '../model-ref.js';
import { parseScenario } from '../scenario.js';
import {
  ALLOCATOR_BASE_RESERVE_BYTES,
  ALLOCATOR_FRAGMENTATION,
  FIXED_RESERVE,
  fixedReserve,
  OPTIMIZER_STATES_RESERVE,
  OPTIMIZER_STEP_RESERVE,
  RESERVE_GROWTH,
  reserveGrowthBytes,
  stepReserveFactor,
  stepReuseBytes,
  streamCacheBytes,
} from './allocator.js';
import type { Phase } from './types.js';

interface StoredRun {
  readonly index: number;
  readonly case: SweepCase;
  readonly lossBytes: number;
  readonly plain: {
    readonly churnBytes: number;
    readonly fixedShare: number;
    readonly extraAt: readonly number[];
    readonly pressureExtraShare: number;
  };
  readonly expandable: {
    readonly churnBytes: number;
    readonly extraAt: readonly number[];
    readonly pressureExtraShare: number;
  };
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const runs = JSON.parse(
  readFileSync(join(root, 'bench', 'results', 'allocator-runs.json'), 'utf8'),
) as StoredRun[];

function run(fields: Record<string, unknown>) {
  const scenario = parseScenario({
    model: 'llama-3.2-3b',
    method: 'lora',
    precision: 'bf16-true',
    ...fields,
  });
  return estimate({
    scenario,
    shape: resolveModelRef('llama-3.2-3b')!.shape,
    gpu: findGpu('a100-sxm-80gb')!,
  });
}

describe('the variable-length reserve term', () => {
  it('is the one read off the stored allocator runs (bench:allocator), to three decimals', () => {
    expect(runs).toHaveLength(sweepCases().length);
    const term = reserveGrowthTerm(
      runs.map((r) => ({
        churnBytes: r.plain.churnBytes,
        lossBytes: r.lossBytes,
        fixedShare: r.plain.fixedShare,
        extraShare: r.plain.extraAt.at(-1)!,
        expandableExtraShare: r.expandable.extraAt.at(-1)!,
        pressureExtraShare: r.plain.pressureExtraShare,
        expandablePressureShare: r.expandable.pressureExtraShare,
      })),
    );
    expect(term.lossFactor).toBeCloseTo(RESERVE_GROWTH.lossFactor, 3);
    expect(term.layerFactor).toBeCloseTo(RESERVE_GROWTH.layerFactor, 3);
    expect(term.expandableShare).toBeCloseTo(RESERVE_GROWTH.expandableShare, 3);
    expect(term.pressureLossFactor).toBeCloseTo(RESERVE_GROWTH.pressureLossFactor, 3);
    expect(term.pressureLayerFactor).toBeCloseTo(RESERVE_GROWTH.pressureLayerFactor, 3);
    expect(term.expandablePressureShare).toBeCloseTo(RESERVE_GROWTH.expandablePressureShare, 3);
    const fixed = fixedReserveTerm(
      runs.map((r) => ({
        churnBytes: r.plain.churnBytes,
        lossBytes: r.lossBytes,
        fixedShare: r.plain.fixedShare,
        extraShare: 0,
        expandableExtraShare: 0,
        pressureExtraShare: 0,
        expandablePressureShare: 0,
      })),
    );
    expect(fixed.lossFactor).toBeCloseTo(FIXED_RESERVE.lossFactor, 3);
    expect(fixed.layerFactor).toBeCloseTo(FIXED_RESERVE.layerFactor, 3);
    // A full card holds far less of the climb than a card with room shows: the cache goes back first.
    expect(RESERVE_GROWTH.pressureLossFactor).toBeLessThan(RESERVE_GROWTH.lossFactor / 4);
    expect(RESERVE_GROWTH.pressureLayerFactor).toBeLessThan(RESERVE_GROWTH.layerFactor);
  });

  it('the stored runs come from this simulator: one replayed again gives the same climb', () => {
    const stored = runs.find(
      (r) => r.case.model === 'qwen2.5-0.5b' && r.case.loss === 'fused' && r.case.checkpointing,
    )!;
    const again = runSweepCase(resolveModelRef(stored.case.model)!.shape, stored.case, false);
    expect(again.churnBytes).toBe(stored.plain.churnBytes);
    expect(again.extraShareByStep.at(-1)).toBeCloseTo(stored.plain.extraAt.at(-1)!, 12);
    expect(again.pressureExtraShare).toBeCloseTo(stored.plain.pressureExtraShare, 12);
  }, 20_000);

  it('adds α per byte of the loss tensors and β per byte of the rest of the churn, only for padding longest', () => {
    const peak = { peakPhase: 'backward' as const, lossBytes: 4e9 };
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'longest' })).toBeCloseTo(2.104 * 4e9 + 0.408 * 6e9, -3);
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'longest', expandableSegments: true })).toBeCloseTo(
      0.064 * 10e9,
      -3,
    );
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'max-length' })).toBe(0);
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'packed' })).toBe(0);
    expect(reserveGrowthBytes({ ...peak, peakPhase: 'load' }, 10e9, { padding: 'longest' })).toBe(0);
    // The loss's tensors are part of the churn: never counted beyond it.
    expect(reserveGrowthBytes(peak, 3e9, { padding: 'longest' })).toBeCloseTo(2.104 * 3e9, -3);
  });

  it('on a card without room: what stays of the climb, by the pressure factors; none with expandable segments', () => {
    const peak = { peakPhase: 'backward' as const, lossBytes: 4e9 };
    const { pressureLossFactor: a, pressureLayerFactor: b } = RESERVE_GROWTH;
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'longest' }, false)).toBeCloseTo(a * 4e9 + b * 6e9, -3);
    // Expandable segments unmap free pages under pressure: the sweep's padded runs need no more than
    // their fixed-length twins under a limit (bench:allocator), though with room they climb 6.4 %.
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'longest', expandableSegments: true }, false)).toBe(0);
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'longest', expandableSegments: true })).toBeCloseTo(
      0.064 * 10e9,
      -3,
    );
    expect(reserveGrowthBytes(peak, 10e9, { padding: 'packed' }, false)).toBe(0);
  });

  it('is reported beside the point (for upper), and leaves every level of the point alone', () => {
    const fields = { microBatchSize: 4, seqLen: 768 };
    const fixed = run(fields);
    const padded = run({ ...fields, padding: 'longest' });
    expect(padded.peak.allocatedBytes).toBe(fixed.peak.allocatedBytes);
    const growth = padded.breakdown.variableLengthReserveBytes;
    expect(fixed.breakdown.variableLengthReserveBytes).toBe(0);
    // Standard loss: 4 + 8 bytes per logit of 128,256 × 3,072 tokens are the loss's tensors.
    const loss = 12 * 128_256 * 3072;
    const churn = padded.breakdown.churnBytes;
    expect(growth).toBeCloseTo(2.104 * loss + 0.408 * (churn - loss), -2);
    expect(growth).toBeGreaterThan(0);
    const need = padded.breakdown.variableLengthNeedBytes;
    const { pressureLossFactor: a, pressureLayerFactor: b } = RESERVE_GROWTH;
    expect(need).toBeCloseTo(Math.min(growth, a * loss + b * (churn - loss)), -2);
    // The upper bound carries what a full card needs of the climb, on top of the point's reserve.
    expect(padded.upper.reservedBytes).toBeGreaterThanOrEqual(padded.peak.reservedBytes + need - 1);
    expect(padded.peak.reservedBytes).toBe(fixed.peak.reservedBytes);
    expect(padded.peak.deviceBytes).toBe(fixed.peak.deviceBytes);
    expect(run({ ...fields, padding: 'packed' }).peak).toEqual(fixed.peak);
  });

  it('judges the fit on what the card must hold: a climb past the margin that the allocator gives back still fits', () => {
    const scenario = parseScenario({
      model: 'llama-3.2-3b',
      method: 'lora',
      precision: 'bf16-true',
      microBatchSize: 2,
      seqLen: 768,
      padding: 'longest',
    });
    const shape = resolveModelRef('llama-3.2-3b')!.shape;
    const e = estimate({ scenario, shape, gpu: findGpu('a10g')! });
    const fits = e.fits!;
    // With room the reserve could climb past the A10G's 10 % margin …
    expect(e.upper.deviceBytes).toBeGreaterThan(fits.budgetBytes);
    expect(e.upper.deviceBytes).toBeLessThanOrEqual(fits.usableBytes);
    // … but the card must hold only the need, and the verdict judges that.
    expect(e.upper.neededDeviceBytes).toBeLessThan(e.upper.deviceBytes);
    expect(fits.requiredBytes).toBe(e.upper.neededDeviceBytes);
    expect(fits.ok).toBe(true);
    // On a T4 the climb cannot pass the card: the bound is held to it, or to the need above it.
    const t4 = estimate({ scenario, shape, gpu: findGpu('t4')! });
    expect(t4.upper.deviceBytes).toBe(Math.max(t4.fits!.usableBytes, t4.upper.neededDeviceBytes));
    expect(t4.upper.deviceBytes).toBeLessThan(e.upper.deviceBytes);
  });
});

describe('the fixed-length reserve', () => {
  it("holds the larger of the measured share of the churn and the replay's loss-block term", () => {
    const at = (churnBytes: number, lossBytes: number, share: number, peakPhase: Phase = 'backward') =>
      fixedReserve({
        peakPhase,
        churnBytes,
        share,
        lossBytes,
        stepTempBytes: 0,
        stepTempElementBytes: 2,
        stepCacheBytes: 0,
        statesBytes: 0,
      });
    // Churn of activations alone: the share wins.
    expect(at(10e9, 0, ALLOCATOR_FRAGMENTATION)).toEqual({ bytes: 0.12 * 10e9, basis: 'churn-share' });
    // A churn the loss's tensors dominate (checkpointed layers): the loss's cached block wins.
    expect(at(10e9, 9e9, ALLOCATOR_FRAGMENTATION).bytes).toBeCloseTo(0.1728 * 9e9 + 0.0034 * 1e9, -3);
    expect(at(10e9, 9e9, ALLOCATOR_FRAGMENTATION).basis).toBe('loss-block');
    // The loss's tensors never count beyond the churn.
    expect(at(3e9, 9e9, 0).bytes).toBeCloseTo(0.1728 * 3e9, -3);
    // Nor at a load peak, before any batch ran, nor at the optimizer step, whose cache they are part of.
    expect(at(10e9, 9e9, ALLOCATOR_FRAGMENTATION, 'load').basis).toBe('churn-share');
    expect(at(10e9, 9e9, ALLOCATOR_FRAGMENTATION, 'optimizer-step').basis).toBe('churn-share');
  });

  it('raises a checkpointed LoRA step at a long sequence, where the logits are most of what churns', () => {
    const e = run({ microBatchSize: 1, seqLen: 8192, gradientCheckpointing: 'full' });
    const b = e.breakdown;
    // Standard loss: 4 + 8 bytes per logit of 128,256 × 8,192 tokens.
    expect(b.reserveLossBytes).toBe(12 * 128_256 * 8192);
    const byShare = b.allocatorFragmentationShare * b.churnBytes;
    // LoRA's states are small: the adapters' alone, carved out of the cache at the first step.
    expect(b.reserveStatesBytes).toBe(b.optimizerBytes);
    expect(b.reserveStatesBytes).toBeLessThan(0.01 * b.reserveStepCacheBytes);
    const byLoss =
      FIXED_RESERVE.lossFactor * b.reserveLossBytes +
      FIXED_RESERVE.layerFactor * (b.churnBytes - b.reserveLossBytes) +
      OPTIMIZER_STATES_RESERVE * b.reserveStatesBytes;
    expect(byLoss).toBeGreaterThan(byShare);
    expect(e.reserveBasis).toBe('loss-block');
    expect(e.peak.reservedBytes - e.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES + byLoss,
      -2,
    );
  });

  it('leaves a full-sequence step without checkpointing on the share, and expandable segments on theirs', () => {
    const e = run({ microBatchSize: 1, seqLen: 4096 });
    const b = e.breakdown;
    expect(e.peak.reservedBytes - e.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES + ALLOCATOR_FRAGMENTATION * b.churnBytes,
      -2,
    );
    const x = run({
      microBatchSize: 1,
      seqLen: 8192,
      gradientCheckpointing: 'full',
      expandableSegments: true,
    });
    expect(x.breakdown.reserveLossBytes).toBe(0);
    expect(x.peak.reservedBytes - x.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES + x.breakdown.allocatorFragmentationShare * x.breakdown.churnBytes,
      -2,
    );
  });
});

/** A bf16 full fine-tune with AdamW, one 2,048-token sequence, on an H200, with `fields` over it. */
function fullFineTune(fields: Record<string, unknown>, model: string) {
  const scenario = parseScenario({
    model,
    method: 'full',
    precision: 'bf16-true',
    optimizer: 'adamw',
    microBatchSize: 1,
    seqLen: 2048,
    ...fields,
  });
  return estimate({ scenario, shape: resolveModelRef(model)!.shape, gpu: findGpu('h200-sxm')! });
}

/** The replayed full fine-tunes, once for the file (about a second). */
let sweepRows: ReturnType<typeof optimizerSweep> | null = null;
const sweep = () => {
  sweepRows ??= optimizerSweep();
  return sweepRows;
};

describe("the optimizer states' reserve at a training-step peak", () => {
  it('is the factor the replayed full fine-tunes give, to three decimals, refit from this simulator', () => {
    const rows = sweep();
    const train = inTrainingStep(rows);
    expect(train.length).toBeGreaterThan(80);
    expect(train.every((r) => r.statesReuseBytes > 0 && r.gapBytes >= 0)).toBe(true);
    expect(optimizerStatesFactor(rows)).toBeCloseTo(OPTIMIZER_STATES_RESERVE, 3);
  }, 30_000);

  const fullFt = (fields: Record<string, unknown>) => fullFineTune(fields, 'qwen2.5-1.5b');

  it('adds γ × the smaller of the states and the cache to the loss block, where the states are made lazily', () => {
    const e = fullFt({});
    expect(e.peakPhase).toBe('backward');
    const b = e.breakdown;
    // AdamW's two states of every trained bf16 weight: 4 bytes per parameter.
    expect(b.reserveStatesBytes).toBe(b.optimizerBytes);
    const loss = Math.min(b.reserveLossBytes, b.churnBytes);
    const lossBlock = FIXED_RESERVE.lossFactor * loss + FIXED_RESERVE.layerFactor * (b.churnBytes - loss);
    const carved = OPTIMIZER_STATES_RESERVE * stepReuseBytes(b.reserveStatesBytes, b.reserveStepCacheBytes);
    expect(carved).toBeGreaterThan(lossBlock);
    expect(e.reserveBasis).toBe('optimizer-states');
    expect(e.peak.reservedBytes - e.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES + lossBlock + carved,
      -3,
    );
  });

  it('reads no states DeepSpeed makes before training, none with expandable segments, none at the step', () => {
    const zero = fullFt({ parallelism: { strategy: 'zero2', gpus: 2 } });
    expect(zero.breakdown.optimizerBytes).toBeGreaterThan(0);
    expect(zero.breakdown.reserveStatesBytes).toBe(0);
    expect(zero.reserveBasis).not.toBe('optimizer-states');
    const expandable = fullFt({ expandableSegments: true });
    expect(expandable.breakdown.reserveStatesBytes).toBe(0);
    const input = {
      churnBytes: 10e9,
      share: 0,
      lossBytes: 0,
      stepTempBytes: 0,
      stepTempElementBytes: 2,
      stepCacheBytes: 8e9,
      statesBytes: 6e9,
    };
    expect(fixedReserve({ ...input, peakPhase: 'backward' }).bytes).toBeCloseTo(
      FIXED_RESERVE.layerFactor * 10e9 + OPTIMIZER_STATES_RESERVE * 6e9,
      -3,
    );
    expect(fixedReserve({ ...input, peakPhase: 'load' }).basis).toBe('loss-block');
    expect(fixedReserve({ ...input, peakPhase: 'load' }).bytes).toBeCloseTo(
      FIXED_RESERVE.layerFactor * 10e9,
      -3,
    );
    // At the step, the step's own term reads that cache: the states add nothing to it.
    expect(fixedReserve({ ...input, peakPhase: 'optimizer-step' }).bytes).toBeCloseTo(
      FIXED_RESERVE.layerFactor * 10e9,
      -3,
    );
  });
});

describe("the optimizer step's reserve", () => {
  it('is the factor the replayed full fine-tunes give, to three decimals, refit from this simulator', () => {
    const rows = sweep();
    // Every case kept peaks at the optimizer step, and is a real replay: the reserve is never negative.
    expect(atOptimizerStep(rows).length).toBeGreaterThan(80);
    expect(atOptimizerStep(rows).every((r) => r.reuseBytes > 0 && r.gapBytes >= 0)).toBe(true);
    // One factor per element size of the temporaries: bf16 states (bf16-true) and fp32 ones (bf16-mixed).
    const of = (precision: string) => optimizerStepFactor(rows.filter((r) => r.precision === precision));
    expect(of('bf16-true')).toBeCloseTo(OPTIMIZER_STEP_RESERVE.sixteenBit, 3);
    expect(of('bf16-mixed')).toBeCloseTo(OPTIMIZER_STEP_RESERVE.fp32, 3);
    expect(stepReserveFactor(2)).toBe(OPTIMIZER_STEP_RESERVE.sixteenBit);
    expect(stepReserveFactor(4)).toBe(OPTIMIZER_STEP_RESERVE.fp32);
  }, 30_000);

  const full = (fields: Record<string, unknown>) => fullFineTune(fields, 'qwen2.5-7b');

  it("keeps k × the smaller of the step's temporaries and the cache backward left, at an optimizer-step peak", () => {
    const e = full({});
    expect(e.peakPhase).toBe('optimizer-step');
    const b = e.breakdown;
    const cache = b.activationsSavedBytes + b.lossResidentBytes + b.backwardTransientBytes;
    expect(b.reserveStepCacheBytes).toBeCloseTo(cache, -2);
    // 14.2 GiB of foreach temporaries against about 16 GiB of cache: the temporaries bound it.
    expect(stepReuseBytes(b.optimizerTempBytes, b.reserveStepCacheBytes)).toBe(b.optimizerTempBytes);
    // The loss's block is not read at the step: its blocks are part of that cache.
    expect(e.reserveBasis).toBe('step-temporaries');
    expect(e.peak.reservedBytes - e.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES + OPTIMIZER_STEP_RESERVE.sixteenBit * b.optimizerTempBytes,
      -3,
    );
    // bf16-mixed keeps fp32 states: twice the temporaries, and the fp32 factor.
    const mixed = full({ precision: 'bf16-mixed' });
    expect(mixed.peakPhase).toBe('optimizer-step');
    expect(mixed.breakdown.optimizerTempElementBytes).toBe(4);
    expect(b.optimizerTempElementBytes).toBe(2);
    expect(mixed.reserveBasis).toBe('step-temporaries');
  });

  it('adds nothing for a fused optimizer (no temporaries), a LoRA step, or expandable segments', () => {
    const fused = full({ fusedOptimizer: true });
    expect(fused.breakdown.optimizerTempBytes).toBe(0);
    expect(stepReuseBytes(fused.breakdown.optimizerTempBytes, fused.breakdown.reserveStepCacheBytes)).toBe(0);
    const lora = run({ microBatchSize: 1, seqLen: 2048 });
    expect(lora.peakPhase).not.toBe('optimizer-step');
    // The cache is recorded, but a backward peak's reserve does not read it.
    expect(lora.breakdown.reserveStepCacheBytes).toBeGreaterThan(lora.breakdown.optimizerTempBytes);
    expect(lora.reserveBasis).not.toBe('step-temporaries');
    const expandable = full({ expandableSegments: true });
    expect(expandable.peakPhase).toBe('optimizer-step');
    expect(expandable.breakdown.reserveStepCacheBytes).toBe(0);
    expect(expandable.peak.reservedBytes - expandable.peak.allocatedBytes).toBeCloseTo(
      ALLOCATOR_BASE_RESERVE_BYTES +
        expandable.breakdown.allocatorFragmentationShare * expandable.breakdown.churnBytes,
      -2,
    );
  });
});

describe("FSDP's communication streams' cached blocks", () => {
  const caches = { streamGradientBytes: 4e9, streamGatherBytes: 0.4e9 };
  it('counts none at load: no step has filled the side streams’ pools yet', () => {
    expect(streamCacheBytes('load', caches, 0)).toBe(0);
  });
  it('counts the gradient blocks a peak does not hold, and the all-gather output always after load', () => {
    expect(streamCacheBytes('forward', caches, 0)).toBe(4.4e9);
    expect(streamCacheBytes('backward', caches, 1e9)).toBe(3.4e9);
    expect(streamCacheBytes('optimizer-step', caches, 4e9)).toBe(0.4e9);
    // Holding more than the pool caches (whole gradients of the compute stream) frees none of it.
    expect(streamCacheBytes('eval', caches, 9e9)).toBe(0.4e9);
  });
});

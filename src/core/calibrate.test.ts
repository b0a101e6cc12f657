import { describe, expect, it } from 'vitest';
import {
  activationLimitScenarios,
  activationLimits,
  activationTerms,
  applyCalibration,
  calibrate,
  calibratedEstimate,
  measuredPeaks,
  modelStateBytes,
} from './calibrate.js';
import { findGpu } from './catalog/index.js';
import {
  ALLOCATOR_BASE_RESERVE_BYTES,
  ALLOCATOR_FRAGMENTATION,
  type Estimate,
  estimate,
} from './estimate.js';
import { resolveModelRef } from './model-ref.js';
import { parseScenario } from './scenario.js';
import { GIB, MIB } from './units.js';

const estimateFor = (raw: Record<string, unknown>): Estimate => {
  const scenario = parseScenario(raw);
  return estimate({ scenario, shape: resolveModelRef(scenario.model)!.shape });
};

/**
 * A stand-in run that keeps `k` times the activations the model predicts at the start of backward, and
 * whose allocator holds `f` times the model's reserve, with `nonTorch` bytes outside torch. Written from
 * the estimate's reported terms, independently of calibrate.ts.
 */
function standIn(e: Estimate, k: number, f: number, nonTorch: number) {
  const b = e.breakdown;
  const activations = b.activationsSavedBytes! + b.lossResidentBytes! + b.backwardTransientBytes!;
  const allocated = e.phases.backward + (k - 1) * activations;
  const churn =
    (e.peak.reservedBytes - e.peak.allocatedBytes - ALLOCATOR_BASE_RESERVE_BYTES) / ALLOCATOR_FRAGMENTATION;
  const reserved =
    allocated +
    f *
      (ALLOCATOR_BASE_RESERVE_BYTES + ALLOCATOR_FRAGMENTATION * (churn + allocated - e.peak.allocatedBytes));
  return { allocatedBytes: allocated, reservedBytes: reserved, deviceBytes: reserved + nonTorch };
}

const BASE = { model: 'llama-3.2-1b', method: 'lora', precision: 'bf16-true', seqLen: 1024 };

describe('measuredPeaks', () => {
  it('takes the highest peak after the first step, and nvidia-smi only where sampled', () => {
    expect(
      measuredPeaks([
        { peakAllocatedBytes: 9 * GIB, peakReservedBytes: 12 * GIB, deviceBytes: 13 * GIB },
        { peakAllocatedBytes: 5 * GIB, peakReservedBytes: 6 * GIB },
        { peakAllocatedBytes: 6 * GIB, peakReservedBytes: 6.5 * GIB, deviceBytes: 7 * GIB },
      ]),
    ).toEqual({
      allocatedBytes: 6 * GIB,
      reservedBytes: 6.5 * GIB,
      deviceBytes: 7 * GIB,
      // The two steps after the warm-up: 6 ÷ 5 allocated, 6.5 ÷ 6 reserved, one device sample.
      spread: { steps: 2, allocated: 1.2, reserved: 6.5 / 6, device: 1 },
    });
    expect(measuredPeaks([{ peakAllocatedBytes: 1, peakReservedBytes: 2 }])).toEqual({
      allocatedBytes: 1,
      reservedBytes: 2,
      deviceBytes: null,
      spread: { steps: 1, allocated: 1, reserved: 1, device: null },
    });
    expect(() => measuredPeaks([])).toThrow(RangeError);
  });
});

describe('calibrate', () => {
  it('a run that matches the estimate has factors of 1 and changes nothing', () => {
    const e = estimateFor({ ...BASE, microBatchSize: 2 });
    const c = calibrate(e, e.peak);
    expect(c.activationFactor).toBe(1);
    expect(c.allocatorFactor).toBeCloseTo(1, 9);
    expect(c.errors).toEqual({ allocated: 0, reserved: 0, device: 0 });
    expect(c.bounds).toEqual([]);
    const p = applyCalibration(e, c);
    expect(Math.abs(p.allocatedBytes - e.peak.allocatedBytes)).toBeLessThanOrEqual(1);
    expect(Math.abs(p.reservedBytes - e.peak.reservedBytes)).toBeLessThanOrEqual(1);
    expect(Math.abs(p.deviceBytes - e.peak.deviceBytes)).toBeLessThanOrEqual(1);
    expect(p.peakPhase).toBe(e.peakPhase);
  });

  it('reads a stand-in run’s own factors and predicts a 4× larger batch within 2 %', () => {
    const small = estimateFor({ ...BASE, microBatchSize: 2 });
    const large = estimateFor({ ...BASE, microBatchSize: 8 });
    expect([small.peakPhase, large.peakPhase]).toEqual(['backward', 'backward']);
    const measured = standIn(small, 1.3, 1.5, 700 * MIB);
    const c = calibrate(small, measured);
    expect(c.activationFactor).toBeCloseTo(1.3, 9);
    expect(c.allocatorFactor).toBeCloseTo(1.5, 9);
    expect(c.nonTorchBytes).toBe(700 * MIB);
    expect(c.errors.allocated).toBeCloseTo(
      (small.peak.allocatedBytes - measured.allocatedBytes) / measured.allocatedBytes,
      12,
    );
    const truth = standIn(large, 1.3, 1.5, 700 * MIB);
    const predicted = applyCalibration(large, c);
    for (const level of ['allocatedBytes', 'reservedBytes', 'deviceBytes'] as const)
      expect(Math.abs(predicted[level] - truth[level]) / truth[level]).toBeLessThan(0.02);
    // The uncalibrated estimate misses the truth by far more: calibration moved the prediction.
    expect((truth.deviceBytes - large.peak.deviceBytes) / truth.deviceBytes).toBeGreaterThan(0.1);
  });

  it('an optimizer-step peak with its temporaries’ reserve: a matching run changes nothing', () => {
    const e = estimateFor({ model: 'qwen2.5-7b', method: 'full', precision: 'bf16-true', seqLen: 2048 });
    expect(e.peakPhase).toBe('optimizer-step');
    expect(e.reserveBasis).toBe('step-temporaries');
    const c = calibrate(e, e.peak);
    expect(c.allocatorFactor).toBeCloseTo(1, 9);
    const p = applyCalibration(e, c);
    expect(Math.abs(p.reservedBytes - e.peak.reservedBytes)).toBeLessThanOrEqual(1);
    expect(Math.abs(p.deviceBytes - e.peak.deviceBytes)).toBeLessThanOrEqual(1);
  });

  it('an FSDP2 run with its streams’ cached blocks: a matching run changes nothing, and they stay as estimated', () => {
    const e = estimateFor({
      model: 'llama-3.1-8b',
      method: 'full',
      precision: 'bf16-mixed',
      gradientCheckpointing: 'full',
      seqLen: 2048,
      microBatchSize: 2,
      parallelism: { strategy: 'fsdp', gpus: 8, fsdpVersion: 2 },
    });
    expect(e.breakdown.reserveStreamCacheBytes).toBeGreaterThan(GIB);
    const c = calibrate(e, e.peak);
    expect(c.allocatorFactor).toBeCloseTo(1, 9);
    const p = applyCalibration(e, c);
    expect(Math.abs(p.reservedBytes - e.peak.reservedBytes)).toBeLessThanOrEqual(1);
  });

  it('has no activation factor when the estimate peaks in the optimizer step', () => {
    const e = estimateFor({ model: 'llama-3.2-1b', method: 'full', precision: 'fp32', seqLen: 128 });
    expect(e.peakPhase).toBe('optimizer-step');
    expect(
      calibrate(e, { ...e.peak, allocatedBytes: e.peak.allocatedBytes * 1.1 }).activationFactor,
    ).toBeNull();
  });
});

describe('calibrate: physical bounds', () => {
  const shape = resolveModelRef('llama-3.2-1b')!.shape;
  const scenario = parseScenario({ ...BASE, microBatchSize: 2 });
  const e = estimate({ scenario, shape });
  const variants = activationLimitScenarios(scenario);
  const limits = activationLimits(
    estimate({ scenario: variants.floor, shape }),
    estimate({ scenario: variants.ceiling, shape }),
    e.peakPhase,
  );
  const terms = activationTerms(e, 'backward');

  it('the floor is every layer’s input, what full checkpointing keeps: a small share of the activations', () => {
    // 16 layers × 2048 tokens × 2048 wide × 2 bytes is 128 MiB, with the final norm's inputs.
    expect(limits.floorBytes).toBe(
      estimate({ scenario: variants.floor, shape }).breakdown.activationsSavedBytes,
    );
    expect(limits.floorBytes).toBeGreaterThanOrEqual(16 * 2048 * 2048 * 2);
    expect(limits.floorBytes / terms).toBeGreaterThan(0.01);
    expect(limits.floorBytes / terms).toBeLessThan(0.05);
    // The ceiling: fp32, eager attention, no checkpointing, the standard loss keep more than this setup.
    expect(limits.ceilingBytes! / terms).toBeGreaterThan(1.3);
    const c = calibrate(e, e.peak, limits);
    expect(c.activationRange).toEqual({ min: limits.floorBytes / terms, max: limits.ceilingBytes! / terms });
    expect(c.bounds).toEqual([]);
  });

  it('holds the activation factor at its floor when the run kept less than every layer’s input', () => {
    // The states and the rest are there, and almost no activations: a factor of 0.005 measured.
    const allocated = e.peak.allocatedBytes - terms + 0.005 * terms;
    const c = calibrate(
      e,
      { allocatedBytes: allocated, reservedBytes: allocated + GIB, deviceBytes: null },
      limits,
    );
    const floor = limits.floorBytes / terms;
    expect(c.activationFactor).toBe(floor);
    expect(c.bounds).toHaveLength(1);
    expect(c.bounds[0]!.code).toBe('activation-floor');
    expect(c.bounds[0]!.params).toMatchObject({
      to: floor,
      floorBytes: limits.floorBytes,
      estimatedBytes: terms,
    });
    expect((c.bounds[0]!.params as { from: number }).from).toBeCloseTo(0.005, 6);
    // Held there, the activations still grow with the tokens: 8× the micro-batch keeps more.
    const large = estimateFor({ ...BASE, microBatchSize: 16 });
    const p = applyCalibration(large, c);
    // (16 − 2) / 2 = 7 times the floor's bytes more: the floor scales with the tokens.
    expect(p.allocatedBytes - applyCalibration(e, c).allocatedBytes).toBeGreaterThanOrEqual(
      7 * limits.floorBytes - 1,
    );
  });

  it('never scales the weights, gradients or optimizer states, whatever the factor', () => {
    const allocated = e.peak.allocatedBytes - terms + 0.005 * terms;
    const c = calibrate(
      e,
      { allocatedBytes: allocated, reservedBytes: allocated + GIB, deviceBytes: null },
      limits,
    );
    const large = estimateFor({ ...BASE, microBatchSize: 8 });
    const out = calibratedEstimate(large, c);
    expect([out.components.weights, out.components.gradients, out.components.optimizer]).toEqual([
      large.components.weights,
      large.components.gradients,
      large.components.optimizer,
    ]);
    expect(out.components.activations).toBeGreaterThan(0);
    expect(modelStateBytes(e)).toEqual({
      weightsBytes: e.breakdown.weightsBytes,
      optimizerBytes: e.breakdown.optimizerBytes,
      gradientBytes: 0,
      totalBytes: e.breakdown.weightsBytes! + e.breakdown.optimizerBytes!,
    });
  });

  it('keeps the allocator’s cache and the memory outside torch from going negative', () => {
    // reserved below allocated (run-calibration refuses such a record; calibrate alone clamps it).
    const odd = calibrate(e, {
      allocatedBytes: e.peak.allocatedBytes,
      reservedBytes: e.peak.allocatedBytes - GIB,
      deviceBytes: null,
    });
    expect(odd.allocatorFactor).toBe(0);
    expect(odd.bounds.map((b) => b.code)).toEqual(['allocator-floor']);
    expect(applyCalibration(e, odd).reservedBytes).toBe(applyCalibration(e, odd).allocatedBytes);
    // nvidia-smi's highest sample 200 MiB below reserved: the samples missed the peak.
    const missed = calibrate(e, { ...e.peak, deviceBytes: e.peak.reservedBytes - 200 * MIB });
    expect(missed.bounds).toEqual([
      {
        code: 'non-torch-floor',
        params: { fromBytes: -200 * MIB, toBytes: e.peak.deviceBytes - e.peak.reservedBytes },
      },
    ]);
    expect(missed.nonTorchBytes).toBe(e.peak.deviceBytes - e.peak.reservedBytes);
    // A run that measured little outside torch, carried to a setup the estimate gives less: never below 0.
    const little = calibrate(
      estimateFor({ ...BASE, microBatchSize: 2, parallelism: { strategy: 'ddp', gpus: 2 } }),
      { ...e.peak, deviceBytes: e.peak.reservedBytes + 10 * MIB },
    );
    const p = applyCalibration(e, little);
    expect(p.deviceBytes).toBe(p.reservedBytes);
  });
});

describe('calibratedEstimate', () => {
  const small = estimateFor({ ...BASE, microBatchSize: 2 });
  const c = calibrate(small, standIn(small, 1.3, 1.5, 700 * MIB));

  it('carries the calibrated peaks, phases and parts, which still add up to the device peak', () => {
    const large = estimateFor({ ...BASE, microBatchSize: 8 });
    const e = calibratedEstimate(large, c);
    const p = applyCalibration(large, c);
    expect(e.peak).toEqual({
      allocatedBytes: p.allocatedBytes,
      reservedBytes: p.reservedBytes,
      deviceBytes: p.deviceBytes,
    });
    expect(e.peakPhase).toBe('backward');
    expect(e.phases.backward).toBe(p.allocatedBytes);
    expect(e.phases.load).toBe(large.phases.load);
    const parts = e.components;
    expect(parts.weights + parts.gradients + parts.optimizer + parts.activations + parts.runtime).toBe(
      e.peak.deviceBytes,
    );
    expect(parts.activations - large.components.activations).toBe(
      p.allocatedBytes - large.peak.allocatedBytes,
    );
  });

  it('keeps the estimator’s terms and adds the calibration’s difference as a term of its own', () => {
    const raw = parseScenario({ ...BASE, microBatchSize: 8 });
    const large = estimate({ scenario: raw, shape: resolveModelRef(raw.model)!.shape, terms: true });
    const e = calibratedEstimate(large, c);
    const sum = (terms: readonly { bytes: number }[]) => terms.reduce((total, t) => total + t.bytes, 0);
    expect(sum(e.peakTerms!)).toBe(e.peak.allocatedBytes);
    const calibration = e.peakTerms!.at(-1)!;
    expect(calibration.term).toBe('calibration');
    expect(calibration.bytes).toBe(e.peak.allocatedBytes - sum(large.phaseTerms!.backward));
    expect(e.peakTerms!.slice(0, -1)).toEqual(large.phaseTerms!.backward);
    // A phase the calibration does not move keeps its terms as they were.
    expect(e.phaseTerms!.load).toEqual(large.phaseTerms!.load);
    // An estimate asked without its terms gets none from the calibration either.
    expect(calibratedEstimate(estimateFor({ ...BASE, microBatchSize: 8 }), c).peakTerms).toBeUndefined();
  });

  it('says whether the card holds it by the calibrated peak', () => {
    const scenario = parseScenario({ ...BASE, microBatchSize: 4 });
    const gpu = findGpu('a10g')!;
    const e = estimate({ scenario, shape: resolveModelRef(scenario.model)!.shape, gpu });
    const calibrated = calibratedEstimate(e, c);
    expect(calibrated.fits).toEqual({
      ...e.fits!,
      requiredBytes: calibrated.upper.deviceBytes,
      estimatedBytes: calibrated.peak.deviceBytes,
      headroomBytes: e.fits!.usableBytes - calibrated.upper.deviceBytes,
      ok: calibrated.upper.deviceBytes <= e.fits!.budgetBytes,
      pagedToHostBytes: 0,
    });
    // Peaks given without their steps carry no spread: the table's ratios stay, on the calibrated peak.
    expect(c.spread).toBeNull();
    expect(calibrated.upper.basis).toEqual(e.upper.basis);
    expect(calibrated.upper.allocatedBytes).toBe(
      Math.round(calibrated.peak.allocatedBytes * e.upper.basis.allocated.ratio),
    );
  });

  it('narrows the range to the spread of the run’s own steps', () => {
    const measured = measuredPeaks([
      { peakAllocatedBytes: 9 * GIB, peakReservedBytes: 12 * GIB, deviceBytes: 13 * GIB },
      { peakAllocatedBytes: 5 * GIB, peakReservedBytes: 6 * GIB, deviceBytes: 6.5 * GIB },
      { peakAllocatedBytes: 5.1 * GIB, peakReservedBytes: 6.3 * GIB, deviceBytes: 6.9 * GIB },
    ]);
    const spread = calibrate(small, measured);
    expect(spread.spread).toEqual(measured.spread);
    const large = estimateFor({ ...BASE, microBatchSize: 8 });
    const e = calibratedEstimate(large, spread);
    expect(e.upper.basis.allocated).toEqual({
      kind: large.upper.basis.allocated.kind,
      rows: 2,
      // One run is one source: its own steps are the only evidence.
      sources: 1,
      ratio: 1.02,
      from: 'calibration',
    });
    expect(e.upper.basis.reserved.ratio).toBeCloseTo(1.05, 9);
    // nvidia-smi's samples can miss a step's peak: reserved's spread stands for its level.
    expect(e.upper.basis.device.ratio).toBeCloseTo(1.05, 9);
    expect(e.upper.allocatedBytes).toBe(Math.round(e.peak.allocatedBytes * 1.02));
    expect(e.upper.reservedBytes).toBe(Math.round(e.peak.reservedBytes * 1.05));
    // Narrower than the estimator's error over other runs of the kind.
    expect(e.upper.deviceBytes / e.peak.deviceBytes).toBeLessThan(
      large.upper.deviceBytes / large.peak.deviceBytes,
    );
    // A run whose steps all peaked alike: the bound is the calibrated point.
    const flat = calibrate(small, measuredPeaks([{ peakAllocatedBytes: 1, peakReservedBytes: 2 }]));
    const point = calibratedEstimate(large, flat);
    expect(point.upper.allocatedBytes).toBe(point.peak.allocatedBytes);
    expect(point.upper.deviceBytes).toBe(point.peak.deviceBytes);
  });

  it('moves the memory outside torch by what the run measured above the estimate, so NCCL stays', () => {
    const ddp = estimateFor({ ...BASE, microBatchSize: 2, parallelism: { strategy: 'ddp', gpus: 2 } });
    const own = ddp.peak.deviceBytes - ddp.peak.reservedBytes;
    const p = applyCalibration(ddp, c);
    // The run measured 700 MiB outside torch where its (single-GPU) estimate had 500 MiB: +200 MiB.
    expect(p.deviceBytes - p.reservedBytes).toBe(own + 200 * MIB);
  });
});

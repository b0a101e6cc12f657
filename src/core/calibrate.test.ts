import { describe, expect, it } from 'vitest';
import { applyCalibration, calibrate, calibratedEstimate, measuredPeaks } from './calibrate.js';
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
    ).toEqual({ allocatedBytes: 6 * GIB, reservedBytes: 6.5 * GIB, deviceBytes: 7 * GIB });
    expect(measuredPeaks([{ peakAllocatedBytes: 1, peakReservedBytes: 2 }])).toEqual({
      allocatedBytes: 1,
      reservedBytes: 2,
      deviceBytes: null,
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

  it('has no activation factor when the estimate peaks in the optimizer step', () => {
    const e = estimateFor({ model: 'llama-3.2-1b', method: 'full', precision: 'fp32', seqLen: 128 });
    expect(e.peakPhase).toBe('optimizer-step');
    expect(
      calibrate(e, { ...e.peak, allocatedBytes: e.peak.allocatedBytes * 1.1 }).activationFactor,
    ).toBeNull();
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
      requiredBytes: calibrated.peak.deviceBytes,
      headroomBytes: e.fits!.usableBytes - calibrated.peak.deviceBytes,
      ok: calibrated.peak.deviceBytes <= e.fits!.budgetBytes,
      pagedToHostBytes: 0,
    });
  });

  it('moves the memory outside torch by what the run measured above the estimate, so NCCL stays', () => {
    const ddp = estimateFor({ ...BASE, microBatchSize: 2, parallelism: { strategy: 'ddp', gpus: 2 } });
    const own = ddp.peak.deviceBytes - ddp.peak.reservedBytes;
    const p = applyCalibration(ddp, c);
    // The run measured 700 MiB outside torch where its (single-GPU) estimate had 500 MiB: +200 MiB.
    expect(p.deviceBytes - p.reservedBytes).toBe(own + 200 * MIB);
  });
});

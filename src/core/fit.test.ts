import { describe, expect, it } from 'vitest';
import { calibrate, calibratedEstimate } from './calibrate.js';
import { findGpu, findModel } from './catalog/index.js';
import { estimate } from './estimate.js';
import { fitLimits, largestFitting, MAX_MICRO_BATCH } from './fit.js';
import { resolveModelRef } from './model-ref.js';
import { parseScenario } from './scenario.js';

describe('largestFitting', () => {
  it('finds the boundary of a monotone predicate', () => {
    expect(largestFitting((n) => n <= 37, 1000)).toBe(37);
    expect(largestFitting((n) => n <= 1, 1000)).toBe(1);
    expect(largestFitting((n) => n <= 64, 1000)).toBe(64);
    expect(largestFitting((n) => n <= 65, 1000)).toBe(65);
  });
  it('returns 0 when nothing fits and the cap when everything does', () => {
    expect(largestFitting(() => false, 1000)).toBe(0);
    expect(largestFitting(() => true, 1000)).toBe(1000);
    expect(largestFitting((n) => n <= 999, 1000)).toBe(999);
  });
  it('asks about O(log n) values', () => {
    let calls = 0;
    largestFitting((n) => {
      calls++;
      return n <= 123_456;
    }, 1 << 20);
    expect(calls).toBeLessThan(45);
  });
});

describe('fitLimits', () => {
  const shape = resolveModelRef('llama-3.1-8b')!.shape;
  const qlora = parseScenario({
    model: 'llama-3.1-8b',
    method: 'qlora',
    quantization: 'nf4',
    precision: 'bf16-true',
    gradientCheckpointing: 'full',
  });
  const gpu = findGpu('rtx-4090')!;
  const result = fitLimits({ scenario: qlora, shape, gpu, contextTokens: 131072 });
  const at = (raw: Record<string, unknown>) => estimate({ scenario: { ...qlora, ...raw }, shape, gpu });
  const peakAt = (raw: Record<string, unknown>) => at(raw).peak.deviceBytes;
  // The verdict judges the upper bound (margin.ts), so the limits are where the upper bound fits.
  const upperAt = (raw: Record<string, unknown>) => at(raw).upper.deviceBytes;

  // The values move when `npm run upper:build` regenerates the table; the boundary is what is tested.
  it('finds the largest micro-batch: it fits with the margin, one more does not', () => {
    const b = result.microBatch.value!;
    expect(b).toBeGreaterThanOrEqual(1);
    expect(upperAt({ microBatchSize: b })).toBeLessThanOrEqual(result.target.budgetBytes);
    expect(upperAt({ microBatchSize: b + 1 })).toBeGreaterThan(result.target.budgetBytes);
    expect(result.microBatch.next).toEqual({
      value: b + 1,
      deviceBytes: peakAt({ microBatchSize: b + 1 }),
      requiredBytes: upperAt({ microBatchSize: b + 1 }),
    });
    expect(result.microBatch.limit).toBe('memory');
  });

  it('finds the longest sequence: it fits with the margin, one token more does not', () => {
    const n = result.seqLen.value!;
    expect(n).toBeGreaterThan(2048);
    expect(upperAt({ seqLen: n })).toBeLessThanOrEqual(result.target.budgetBytes);
    expect(upperAt({ seqLen: n + 1 })).toBeGreaterThan(result.target.budgetBytes);
    expect(result.seqLen.estimate!.peak.deviceBytes).toBe(peakAt({ seqLen: n }));
  });

  it('keeps the margin: with none, the card holds more', () => {
    const loose = fitLimits({ scenario: qlora, shape, gpu, marginFraction: 0, contextTokens: 131072 });
    expect(loose.target.budgetBytes).toBe(loose.target.usableBytes);
    expect(loose.seqLen.value!).toBeGreaterThan(result.seqLen.value!);
  });

  it('stops at the model’s context length, and says so', () => {
    const small = parseScenario({
      model: 'qwen2.5-0.5b',
      method: 'lora',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
    });
    const context = findModel('qwen2.5-0.5b')!.max_position_embeddings!;
    const r = fitLimits({
      scenario: small,
      shape: resolveModelRef('qwen2.5-0.5b')!.shape,
      gpu: findGpu('h200-sxm')!,
      contextTokens: context,
    });
    expect(r.seqLen).toMatchObject({ value: context, next: null, limit: 'context' });
  });

  it('reports null when even one sample does not fit', () => {
    const big = parseScenario({ model: 'llama-3.1-70b', method: 'full' });
    const r = fitLimits({ scenario: big, shape: resolveModelRef('llama-3.1-70b')!.shape, gpu });
    expect(r.microBatch.value).toBeNull();
    expect(r.microBatch.next!.value).toBe(1);
    expect(r.seqLen.value).toBeNull();
    expect(MAX_MICRO_BATCH).toBe(4096);
  });
});

describe('fitLimits with a calibration', () => {
  const shape = resolveModelRef('llama-3.2-1b')!.shape;
  const scenario = parseScenario({
    model: 'llama-3.2-1b',
    method: 'lora',
    precision: 'bf16-true',
    seqLen: 1024,
  });
  const gpu = findGpu('a10g')!;
  const at = (n: number) => estimate({ scenario: { ...scenario, microBatchSize: n }, shape, gpu });
  // A run at micro-batch 2 that kept 30 % more activations and a 20 % larger cache than estimated.
  const e2 = at(2);
  const calibration = calibrate(e2, {
    allocatedBytes:
      e2.peak.allocatedBytes +
      0.3 *
        (e2.breakdown.activationsSavedBytes! +
          e2.breakdown.lossResidentBytes! +
          e2.breakdown.backwardTransientBytes!),
    reservedBytes: e2.peak.reservedBytes * 1.35,
    deviceBytes: null,
  });

  it('searches the calibrated peaks: the bound fits calibrated, one more does not', () => {
    const plain = fitLimits({ scenario, shape, gpu });
    const r = fitLimits({ scenario, shape, gpu, calibration });
    const b = r.microBatch.value!;
    // The run kept more than estimated: fewer samples fit by it.
    expect(b).toBeLessThan(plain.microBatch.value!);
    const budget = r.target.budgetBytes;
    // Judged on the calibrated upper bound (these peaks came without their steps: the table's ratios).
    expect(calibratedEstimate(at(b), calibration).upper.deviceBytes).toBeLessThanOrEqual(budget);
    expect(calibratedEstimate(at(b + 1), calibration).upper.deviceBytes).toBeGreaterThan(budget);
    expect(r.microBatch.estimate!.peak).toEqual(calibratedEstimate(at(b), calibration).peak);
    expect(r.microBatch.next!.deviceBytes).toBe(calibratedEstimate(at(b + 1), calibration).peak.deviceBytes);
    expect(r.microBatch.next!.requiredBytes).toBe(
      calibratedEstimate(at(b + 1), calibration).upper.deviceBytes,
    );
  });

  it('stops where the calibration ends: at the most tokens per micro-batch it is carried to', () => {
    // On an H200 the search would go far; a calibration carried to 8192 tokens stops at b8×1024 and 8192.
    const h200 = findGpu('h200-sxm')!;
    const onH200 = calibrate(estimate({ scenario: { ...scenario, microBatchSize: 2 }, shape, gpu: h200 }), {
      ...e2.peak,
    });
    const r = fitLimits({
      scenario: { ...scenario, microBatchSize: 2 },
      shape,
      gpu: h200,
      calibration: onH200,
      calibratedMaxTokens: 8192,
    });
    expect([r.microBatch.value, r.microBatch.limit, r.microBatch.next]).toEqual([8, 'calibration', null]);
    expect([r.seqLen.value, r.seqLen.limit]).toEqual([4096, 'calibration']);
    // The limit applies only with a calibration.
    const plain = fitLimits({ scenario, shape, gpu: h200, calibratedMaxTokens: 8192 });
    expect(plain.microBatch.limit).toBe('memory');
  });

  it('without one (null) it is the estimator’s own search', () => {
    expect(fitLimits({ scenario, shape, gpu, calibration: null })).toEqual(
      fitLimits({ scenario, shape, gpu }),
    );
  });
});

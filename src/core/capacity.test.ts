import { describe, expect, it } from 'vitest';
import { planCapacity } from './capacity.js';
import { findGpu, GPUS, searchGpus } from './catalog/index.js';
import { estimate } from './estimate.js';
import { memoryTarget } from './margin.js';
import { resolveModelRef } from './model-ref.js';
import { parseScenario } from './scenario.js';

const shape70 = resolveModelRef('llama-3.1-70b')!.shape;
const full70 = parseScenario({ model: 'llama-3.1-70b', method: 'full', gradientCheckpointing: 'full' });

describe('planCapacity', () => {
  it('finds the fewest GPUs of each kind, with the sharding that needs', () => {
    const r = planCapacity({ scenario: full70, shape: shape70, gpus: searchGpus('h100-sxm') });
    expect(r.options.map((o) => [o.gpu, o.gpus, o.strategy])).toEqual([['h100-sxm', 32, 'zero3']]);
    // 16 do not fit with the margin; 32 do.
    const at = (gpus: number) =>
      estimate({
        scenario: { ...full70, parallelism: { strategy: 'zero3', gpus } },
        shape: shape70,
        gpu: findGpu('h100-sxm')!,
      }).upper.deviceBytes;
    // Judged on the upper bound (margin.ts), as every verdict is.
    const budget = memoryTarget(findGpu('h100-sxm')!).budgetBytes;
    expect(at(16)).toBeGreaterThan(budget);
    expect(at(32)).toBeLessThanOrEqual(budget);
    expect(r.options[0]!.headroomBytes).toBe(memoryTarget(findGpu('h100-sxm')!).usableBytes - at(32));
  });

  // Regression: the foreach-AdamW step temporary was sized for the whole model, not this GPU's shard,
  // so no ZeRO layout of llama-3.1-70b full fine-tuning fitted any GPU (315 GiB per GPU at 64 × H100).
  it('llama-3.1-70b full fine-tuning with ZeRO-3 × 64: the optimizer temporary is per shard', () => {
    const scenario = { ...full70, parallelism: { strategy: 'zero3' as const, gpus: 64 } };
    const est = estimate({ scenario, shape: shape70, gpu: findGpu('h100-sxm')! });
    expect(est.breakdown.optimizerTempBytes).toBe(Math.round(est.breakdown.optimizerBytes! / 2 / 2));
    expect(est.peak.deviceBytes).toBeLessThan(40 * 1024 ** 3);
  });

  it('ranks the cheapest first by memory bought, then the older generation', () => {
    const qlora = parseScenario({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
    });
    const r = planCapacity({ scenario: qlora, shape: resolveModelRef('llama-3.1-8b')!.shape, gpus: GPUS });
    // The cheapest holds it on one card by its upper bound (the card sizes move with the table).
    const first = r.options[0]!;
    expect(first.gpus).toBe(1);
    const upper = estimate({ scenario: qlora, shape: resolveModelRef('llama-3.1-8b')!.shape }).upper;
    expect(first.memoryBoughtGB * 1e9).toBeGreaterThan(upper.deviceBytes);
    // Between equal memory bought on as many cards, the older generation first.
    let ties = 0;
    for (let i = 1; i < r.options.length; i++) {
      const [a, b] = [r.options[i - 1]!, r.options[i]!];
      if (a.memoryBoughtGB !== b.memoryBoughtGB || a.gpus !== b.gpus) continue;
      ties++;
      expect(findGpu(a.gpu)!.releaseYear!).toBeLessThanOrEqual(findGpu(b.gpu)!.releaseYear!);
    }
    expect(ties).toBeGreaterThan(0);
    const bought = r.options.map((o) => o.memoryBoughtGB);
    expect(bought).toEqual([...bought].sort((a, b) => a - b));
    // The 12 GB RTX 3060 needs several, sharded; the 10 GB RTX 3080 fits no count of them. What ZeRO-3
    // cannot shard stays on each GPU: its reduce bucket (5e8 bf16 elements, 1 GB), the NF4 block
    // constants, and the 128k-token head it keeps gathered from forward into backward (1.05 GB).
    const rtx3060 = r.options.find((o) => o.gpu === 'rtx-3060-12gb')!;
    expect(rtx3060.strategy).toBe('zero3');
    expect(rtx3060.gpus).toBeGreaterThanOrEqual(4);
    expect(r.options.find((o) => o.gpu === 'rtx-3080')).toBeUndefined();
    expect(r.misses.map((m) => m.gpu)).toEqual(['rtx-3080']);
    expect(r.misses[0]!.bestPeakBytes).toBeGreaterThan(memoryTarget(findGpu('rtx-3080')!).budgetBytes);
  });

  it('sorts fastest first on request, caps the count, and estimates the whole run', () => {
    const r = planCapacity({
      scenario: full70,
      shape: shape70,
      gpus: searchGpus('h100').concat(searchGpus('rtx-4090')),
      maxGpus: 16,
      tokens: 1e9,
      sort: 'time',
    });
    expect(r.options).toEqual([]);
    expect(r.misses.map((m) => m.gpu)).toEqual(['h100-sxm', 'h100-pcie', 'h100-nvl', 'rtx-4090']);
    const ok = planCapacity({
      scenario: full70,
      shape: shape70,
      gpus: searchGpus('h200').concat(searchGpus('b200')),
      tokens: 1e9,
      sort: 'time',
    });
    const rates = ok.options.map((o) => o.time.tokensPerSecond);
    expect(rates).toEqual([...rates].sort((a, b) => b - a));
    for (const o of ok.options) expect(o.runSeconds).toBeCloseTo(1e9 / o.time.tokensPerSecond, 6);
  });
});

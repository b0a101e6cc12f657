/**
 * Capacity planning: for each catalog GPU, the fewest of it that run a scenario within the memory
 * margin, with the sharding strategy that needs, the per-GPU peak and a rough step time. The catalog
 * carries no prices, so "cheapest" is ranked by the memory bought (GPU count × marketed size): the
 * smallest card, and the fewest of them, that does the job; between equals, the older generation.
 */
import type { ModelShape } from './architecture.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import { type Estimate, estimate } from './estimate.js';
import { DEFAULT_MARGIN_FRACTION, fitVerdict, memoryTarget, requiredDeviceBytes } from './margin.js';
import type { Scenario, Strategy } from './scenario.js';
import { type StepTime, stepTime } from './time-model.js';

/** GPU counts tried, in order: one node of up to 8, then whole nodes. */
export const GPU_COUNTS: readonly number[] = [1, 2, 4, 8, 16, 32, 64];

export interface CapacityOption {
  readonly gpu: string;
  readonly gpuName: string;
  readonly gpus: number;
  readonly strategy: Strategy;
  readonly scenario: Scenario;
  readonly estimate: Estimate;
  /** usable − what one GPU holds at the estimate's upper bound (the verdict's figure, Fit.headroomBytes). */
  readonly headroomBytes: number;
  readonly time: StepTime;
  /** Seconds to train `tokens` tokens, when given. */
  readonly runSeconds: number | null;
  /** GPU count × marketed GB: the cost proxy. */
  readonly memoryBoughtGB: number;
}

export interface CapacityMiss {
  readonly gpu: string;
  readonly gpuName: string;
  /** The lowest per-GPU peak reached at the largest count tried. */
  readonly bestPeakBytes: number;
  readonly usableBytes: number;
}

export interface CapacityResult {
  /** Workable choices, cheapest first (or fastest first with sort 'time'). */
  readonly options: readonly CapacityOption[];
  /** GPUs on which no count up to maxGpus fits. */
  readonly misses: readonly CapacityMiss[];
}

export interface CapacityInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly exactParams?: number | null;
  readonly gpus: readonly GpuSpec[];
  readonly marginFraction?: number;
  readonly maxGpus?: number;
  /** Training tokens of the whole run, for runSeconds. */
  readonly tokens?: number | null;
  readonly sort?: 'cost' | 'time';
}

/** Strategies tried for a count, cheapest communication first; DDP never lowers per-GPU memory. */
function strategiesFor(count: number, scenario: Scenario): Strategy[] {
  const fsdpFamily = scenario.parallelism.strategy.startsWith('fsdp');
  const paramsOffloaded = scenario.offload.params !== 'none';
  const optimizerOffloaded = scenario.offload.optimizer !== 'none';
  const partial: Strategy = fsdpFamily ? 'fsdp-grad-op' : 'zero2';
  const fullShard: Strategy = fsdpFamily ? 'fsdp' : 'zero3';
  if (paramsOffloaded) return [fullShard];
  if (count === 1) return optimizerOffloaded ? [partial] : ['single'];
  return [partial, fullShard];
}

/**
 * The fewest GPUs of each kind that run the scenario, sorted cheapest first.
 * @example planCapacity({ scenario, shape, gpus: searchGpus('h100') }).options[0]
 */
export function planCapacity(input: CapacityInput): CapacityResult {
  const margin = input.marginFraction ?? DEFAULT_MARGIN_FRACTION;
  const maxGpus = input.maxGpus ?? GPU_COUNTS[GPU_COUNTS.length - 1]!;
  const counts = GPU_COUNTS.filter((n) => n <= maxGpus);
  const options: CapacityOption[] = [];
  const misses: CapacityMiss[] = [];
  for (const gpu of input.gpus) {
    const target = memoryTarget(gpu, margin);
    let found: CapacityOption | null = null;
    let best = Number.POSITIVE_INFINITY;
    for (const count of counts) {
      for (const strategy of strategiesFor(count, input.scenario)) {
        const scenario: Scenario = {
          ...input.scenario,
          parallelism: { strategy, gpus: count },
          gpu: gpu.id,
        };
        const est = estimate({ scenario, shape: input.shape, exactParams: input.exactParams ?? null, gpu });
        best = Math.min(best, requiredDeviceBytes(est));
        const verdict = fitVerdict(est, target);
        if (!verdict.ok) continue;
        const time = stepTime({ scenario, shape: input.shape, gpu, estimate: est });
        found = {
          gpu: gpu.id,
          gpuName: gpu.name,
          gpus: count,
          strategy,
          scenario,
          estimate: est,
          headroomBytes: verdict.headroomBytes,
          time,
          runSeconds: input.tokens ? input.tokens / time.tokensPerSecond : null,
          memoryBoughtGB: count * gpu.memoryGiB,
        };
        break;
      }
      if (found) break;
    }
    if (found) options.push(found);
    else
      misses.push({ gpu: gpu.id, gpuName: gpu.name, bestPeakBytes: best, usableBytes: target.usableBytes });
  }
  const byTime = (a: CapacityOption, b: CapacityOption) => b.time.tokensPerSecond - a.time.tokensPerSecond;
  // Between equal memory, the older generation rents and sells for less.
  const year = new Map(input.gpus.map((g) => [g.id, g.releaseYear ?? 9999]));
  const released = (o: CapacityOption) => year.get(o.gpu) ?? 9999;
  options.sort(
    input.sort === 'time'
      ? (a, b) => byTime(a, b) || a.memoryBoughtGB - b.memoryBoughtGB
      : (a, b) =>
          a.memoryBoughtGB - b.memoryBoughtGB || a.gpus - b.gpus || released(a) - released(b) || byTime(a, b),
  );
  return { options, misses };
}

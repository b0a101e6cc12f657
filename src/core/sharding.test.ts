import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import { fullTrainingModelStates } from './estimate.js';
import {
  deepspeedZero2Estimate,
  deepspeedZero3Estimate,
  placeModelStates,
  STRATEGY_TRAITS,
  shardingStrategyFor,
  shardModelStates,
  strategiesWhere,
  strategyOffload,
} from './sharding.js';

interface Oracle {
  tool: string;
  input: Record<string, number | string>;
  expected: unknown;
}
const oracles = readFileSync(dataFile('validation', 'oracles.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Oracle);

/** DeepSpeed prints GB as bytes / 2^30 with two decimals. */
const dsGB = (bytes: number) => Number((bytes / 2 ** 30).toFixed(2));
/** accelerate's convert_bytes: divides by 1024 and labels MB/GB, two decimals. */
const accel = (bytes: number) =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GB` : `${(bytes / 2 ** 20).toFixed(2)} MB`;

describe('DeepSpeed ZeRO-2 oracle (oracles.jsonl)', () => {
  const oracle = oracles.find((o) => o.tool.includes('zero2'))!;
  const expected = oracle.expected as Record<string, { per_cpu_GB: number; per_gpu_GB: number }>;
  const base = {
    totalParams: Number(oracle.input.total_params),
    gpusPerNode: Number(oracle.input.num_gpus_per_node),
    nodes: Number(oracle.input.num_nodes),
  };

  it('reproduces the optimizer-offload row: GPU 2P', () => {
    const r = deepspeedZero2Estimate({ ...base, offloadOptimizer: true, formula: 'current' });
    expect(dsGB(r.gpuBytes)).toBe(expected['offload_optimizer=cpu']!.per_gpu_GB);
    expect(dsGB(r.cpuBytes)).toBe(expected['offload_optimizer=cpu']!.per_cpu_GB);
  });
  it('reproduces the current code (2P + 18P/N) and the documented table (4P + 16P/N)', () => {
    const current = deepspeedZero2Estimate({ ...base, offloadOptimizer: false, formula: 'current' });
    const docs = deepspeedZero2Estimate({ ...base, offloadOptimizer: false, formula: 'docs' });
    const currentKey = Object.keys(expected).find((k) => k.includes('current'))!;
    const docsKey = Object.keys(expected).find((k) => k.includes('docs'))!;
    expect(dsGB(current.gpuBytes)).toBe(expected[currentKey]!.per_gpu_GB);
    expect(dsGB(docs.gpuBytes)).toBe(expected[docsKey]!.per_gpu_GB);
    expect(dsGB(current.cpuBytes)).toBe(expected[currentKey]!.per_cpu_GB);
  });
});

describe('DeepSpeed ZeRO-3 oracle (oracles.jsonl)', () => {
  const oracle = oracles.find((o) => o.tool.includes('zero3'))!;
  const rows = oracle.expected as {
    offload_param: string;
    offload_optimizer: string;
    zero_init: number;
    per_cpu_GB: number;
    per_gpu_GB: number;
  }[];
  it.each(rows)(
    'offload_param=$offload_param offload_optimizer=$offload_optimizer zero_init=$zero_init',
    (row) => {
      const r = deepspeedZero3Estimate({
        totalParams: Number(oracle.input.total_params),
        largestLayerParams: Number(oracle.input.largest_layer_params),
        gpusPerNode: Number(oracle.input.num_gpus_per_node),
        nodes: Number(oracle.input.num_nodes),
        offloadOptimizer: row.offload_optimizer === 'cpu',
        offloadParams: row.offload_param === 'cpu',
        zeroInit: row.zero_init === 1,
      });
      expect(dsGB(r.gpuBytes)).toBe(row.per_gpu_GB);
      expect(dsGB(r.cpuBytes)).toBe(row.per_cpu_GB);
    },
  );

  it('reproduces the t5-large discussion example (MB = bytes >> 20)', () => {
    const o = oracles.find((x) => x.tool.includes('discussion'))!;
    const e = o.expected as Record<string, number>;
    const P = Number(o.input.total_params);
    const LL = Number(o.input.largest_layer_params);
    const N = Number(o.input.total_gpus);
    const mb = (bytes: number) => Math.floor(bytes / 2 ** 20);
    const common = { totalParams: P, largestLayerParams: LL, gpusPerNode: N, nodes: 1, zeroInit: true };
    expect(mb(4 * LL)).toBe(e.largest_layer_memory_MB);
    expect(
      mb(deepspeedZero3Estimate({ ...common, offloadOptimizer: false, offloadParams: false }).gpuBytes),
    ).toBe(e.case1_gpu_MB);
    expect(
      mb(deepspeedZero3Estimate({ ...common, offloadOptimizer: true, offloadParams: true }).gpuBytes),
    ).toBe(e.case2_gpu_MB);
    expect(
      mb(deepspeedZero3Estimate({ ...common, offloadOptimizer: true, offloadParams: false }).gpuBytes),
    ).toBe(e.case3_gpu_MB);
  });
});

describe('accelerate estimate-memory oracle: bert-base-cased (oracles.jsonl)', () => {
  const o = oracles.find((x) => x.tool.includes('accelerate') && x.input.model === 'bert-base-cased')!;
  const e = o.expected as {
    total_size_bytes_fp32: number;
    table_current_code: Record<string, { total: string; training_adam: string }>;
  };
  const params = e.total_size_bytes_fp32 / 4;
  const single = {
    method: 'full' as const,
    parallelism: { strategy: 'single' as const, gpus: 1 },
    optimizer: 'adamw' as const,
  };

  it('fp32: weights 413.18 MB, training with Adam 1.61 GB (weights + grads + two fp32 states)', () => {
    const states = shardModelStates(
      fullTrainingModelStates(params, { ...single, precision: 'fp32' }),
      'single',
      1,
    );
    expect(accel(states.weights)).toBe(e.table_current_code.float32!.total);
    expect(accel(states.weights + states.gradients + states.optimizer)).toBe(
      e.table_current_code.float32!.training_adam,
    );
  });
  it('fp16: weights 206.59 MB, training 826.36 MB (everything in 16 bits)', () => {
    const states = shardModelStates(
      fullTrainingModelStates(params, { ...single, precision: 'fp16-true' }),
      'single',
      1,
    );
    expect(accel(states.weights)).toBe(e.table_current_code.float16!.total);
    expect(accel(states.weights + states.gradients + states.optimizer)).toBe(
      e.table_current_code.float16!.training_adam,
    );
  });
});

describe('shardModelStates and placeModelStates', () => {
  const whole = { weights: 800, gradients: 400, optimizer: 1600 };
  it('shards more parts at each ZeRO stage', () => {
    expect(shardModelStates(whole, 'ddp', 4)).toEqual(whole);
    expect(shardModelStates(whole, 'zero1', 4)).toEqual({ weights: 800, gradients: 400, optimizer: 400 });
    expect(shardModelStates(whole, 'zero2', 4)).toEqual({ weights: 800, gradients: 100, optimizer: 400 });
    expect(shardModelStates(whole, 'zero3', 4)).toEqual({ weights: 200, gradients: 100, optimizer: 400 });
    expect(shardModelStates(whole, 'fsdp', 4)).toEqual(shardModelStates(whole, 'zero3', 4));
  });
  it('moves optimizer states with their gradients, and weights only for parameter offload', () => {
    const placed = placeModelStates(whole, { optimizer: 'cpu', params: 'nvme' });
    expect(placed.gpu).toEqual({ weights: 0, gradients: 0, optimizer: 0 });
    expect(placed.host).toEqual({ weights: 0, gradients: 400, optimizer: 1600 });
    expect(placed.nvme).toEqual({ weights: 800, gradients: 0, optimizer: 0 });
  });
});

describe('STRATEGY_TRAITS', () => {
  it('names each family and what it shards (ZeRO paper §5; FSDP FULL_SHARD / SHARD_GRAD_OP)', () => {
    expect(strategiesWhere((t) => t.family === 'deepspeed')).toEqual(['zero1', 'zero2', 'zero3']);
    expect(strategiesWhere((t) => t.family === 'fsdp')).toEqual(['fsdp-grad-op', 'fsdp']);
    expect(strategiesWhere((t) => t.shards.optimizer)).toEqual([
      'zero1',
      'zero2',
      'zero3',
      'fsdp-grad-op',
      'fsdp',
    ]);
    expect(strategiesWhere((t) => t.shards.gradients)).toEqual(['zero2', 'zero3', 'fsdp-grad-op', 'fsdp']);
    expect(strategiesWhere((t) => t.shards.weights)).toEqual(['zero3', 'fsdp']);
    expect(strategiesWhere((t) => !t.multiGpu)).toEqual(['single']);
  });

  it('offloads parameters under ZeRO-3 and FSDP FULL_SHARD, optimizer states under every sharding strategy', () => {
    expect(strategiesWhere((t) => t.offloads.params)).toEqual(['zero3', 'fsdp']);
    expect(strategiesWhere((t) => t.offloads.optimizer)).toEqual([
      'zero1',
      'zero2',
      'zero3',
      'fsdp-grad-op',
      'fsdp',
    ]);
  });

  it('keeps the root unit gathered and holds two gradient units under FSDP FULL_SHARD only', () => {
    expect(strategiesWhere((t) => t.rootUnitGathered)).toEqual(['fsdp']);
    expect(STRATEGY_TRAITS.fsdp.gatheredGradientUnits).toBe(2);
    expect(STRATEGY_TRAITS.zero3.gatheredGradientUnits).toBe(1);
    expect(strategiesWhere((t) => t.gatheredGradientUnits > 0)).toEqual(
      strategiesWhere((t) => t.shards.weights),
    );
  });

  it('buckets: DDP copies gradients, ZeRO reduces through a bucket (doubled by overlap_comm in stages 1–2)', () => {
    expect(strategiesWhere((t) => t.buckets === 'gradient-copies')).toEqual(['ddp']);
    expect(strategiesWhere((t) => t.buckets === 'reduce-bucket')).toEqual(['zero1', 'zero2', 'zero3']);
    expect(strategiesWhere((t) => t.overlapDoublesBucket)).toEqual(['zero1', 'zero2']);
  });

  it('accumulates unsharded gradients in no_sync() under FSDP; DeepSpeed keeps fp32 masters in the optimizer', () => {
    expect(strategiesWhere((t) => t.accumulatesUnshardedInNoSync)).toEqual(['fsdp-grad-op', 'fsdp']);
    expect(strategiesWhere((t) => t.fp32MasterInOptimizer)).toEqual(['zero1', 'zero2', 'zero3']);
  });

  it('moves a run to a sharding strategy of its own library', () => {
    expect(shardingStrategyFor('fsdp-grad-op', 'weights')).toBe('fsdp');
    expect(shardingStrategyFor('fsdp', 'gradients')).toBe('fsdp-grad-op');
    expect(shardingStrategyFor('ddp', 'gradients')).toBe('zero2');
    expect(shardingStrategyFor('single', 'weights')).toBe('zero3');
    expect(shardingStrategyFor('zero1', 'weights')).toBe('zero3');
  });
});

describe('strategyOffload', () => {
  const none = 'none' as const;
  const cpu = 'cpu' as const;
  it('under FSDP, a parameter offload takes the gradients and optimizer states with it (CPUOffload has one switch)', () => {
    expect(strategyOffload('fsdp', { optimizer: none, params: cpu })).toEqual({
      optimizer: cpu,
      params: cpu,
    });
    expect(strategyOffload('fsdp-grad-op', { optimizer: none, params: cpu })).toEqual({
      optimizer: cpu,
      params: cpu,
    });
  });
  it('leaves DeepSpeed’s two switches apart, and what was set', () => {
    const paramsOnly = { optimizer: none, params: cpu };
    expect(strategyOffload('zero3', paramsOnly)).toBe(paramsOnly);
    const both = { optimizer: 'nvme' as const, params: cpu };
    expect(strategyOffload('fsdp', both)).toBe(both);
    const neither = { optimizer: none, params: none };
    expect(strategyOffload('fsdp', neither)).toBe(neither);
  });
});

/**
 * The scenario flags from the field table: the merge keeps where each field came from, and errors name
 * the field the way it was set; what a flag makes meaningless in a file goes; help speaks both languages.
 */
import { describe, expect, it } from 'vitest';
import { HeadroomUserError } from '../core/errors.js';
import { fieldError } from '../core/scenario/field-errors.js';
import { parseScenario } from '../core/scenario.js';
import { userErrorOf } from '../core/test-helpers/user-error.js';
import { userErrorWords } from '../words/errors.js';
import {
  mergeScenarioFlags,
  named,
  SCENARIO_FLAGS_HELP,
  SCENARIO_OPTIONS,
  scenarioFlagsHelp,
} from './_scenario-flags.js';

const file = () => ({ kind: 'file', file: 'run.json' }) as const;

/** The error parsing a merge raises, named as the CLI names it. */
function errorOf(
  base: Record<string, unknown>,
  values: Record<string, string | boolean>,
  baseSource?: () => ReturnType<typeof file> | { kind: 'import'; file: string; key: string },
): HeadroomUserError {
  const { raw, sources } = mergeScenarioFlags(base, values, undefined, baseSource ? { baseSource } : {});
  return named(
    userErrorOf(() => parseScenario(raw)),
    sources,
    'plan',
  ) as HeadroomUserError;
}

describe('where a field came from', () => {
  it('a flag: named as typed, the flag its where and its code', () => {
    const error = errorOf({ model: 'x' }, { 'seq-len': '1e12' });
    expect([error.code, error.where, error.path, error.source]).toEqual([
      'out-of-range',
      '--seq-len',
      ['seqLen'],
      { kind: 'flag', flag: 'seq-len', typed: '1e12', example: '4096 (or 4k)' },
    ]);
    expect(error.message).toBe(
      "--seq-len 1e12 is more than 10485760 tokens, the most Headroom takes (Llama 4 Scout's 10M-token context, the longest of any model)",
    );
    const choice = errorOf({ model: 'x' }, { precision: 'fp8' });
    expect([choice.code, choice.hint]).toEqual([
      'bad-flag',
      'headroom plan --help says what each value of --precision means',
    ]);
    expect(choice.params).toEqual({
      value: '"fp8"',
      accepted: ['fp32', 'fp16-mixed', 'bf16-mixed', 'fp16-true', 'bf16-true'],
    });
  });

  it('a scenario file: named with the file and the field, and where to fix it', () => {
    const error = errorOf({ model: 'x', microBatchSize: -2 }, {}, file);
    expect([error.where, error.message, error.hint]).toEqual([
      'run.json: microBatchSize',
      'run.json: microBatchSize: -2 must be a whole number from 1 to 65536',
      'fix microBatchSize in run.json; docs/scenario.md lists every field and the values it takes',
    ]);
    // The flag that overrides the file's field is the one at fault.
    expect(errorOf({ model: 'x', microBatchSize: 4 }, { 'micro-batch': '0' }, file).message).toBe(
      '--micro-batch 0 must be a whole number from 1 to 65536',
    );
  });

  it('an imported config: named by the key the importer read', () => {
    const source = () =>
      ({ kind: 'import', file: 'config.yaml', key: 'per_device_train_batch_size' }) as const;
    const error = errorOf({ model: 'x', microBatchSize: 100_000 }, {}, source);
    expect(error.message).toBe(
      'config.yaml (per_device_train_batch_size): 100000 is more than 65536 sequences, the most Headroom takes (far past any per-GPU batch a fine-tuning recipe uses)',
    );
    expect(error.hint).toBe(
      'fix per_device_train_batch_size in config.yaml, or override it with a flag (flags win over the config)',
    );
  });

  it('a field nobody set keeps its own name; a group the flags filled is named by its first flag', () => {
    expect(errorOf({ model: 'x' }, { method: 'qlora' }).message).toBe(
      'quantization: method "qlora" needs a quantized base, but quantization is "none"',
    );
    expect(errorOf({ model: 'x' }, { 'lora-rank': '8' }).message).toBe(
      '--lora-rank 8 is only used with method lora or qlora, not "full"',
    );
  });

  it('the same error in Chinese, from the same data', () => {
    const error = errorOf({ model: 'x' }, { 'micro-batch': '-2' });
    expect(userErrorWords(error, 'zh')).toEqual({
      message: '--micro-batch -2 必须是 1 到 65536 之间的整数',
      hint: '例如 --micro-batch 4',
    });
  });

  it("the estimator's target error reads the same whether it carries a reason or only its English", () => {
    const { sources } = mergeScenarioFlags({}, { model: 'x', method: 'lora', 'lora-targets': 'c_attn' });
    const reasoned = fieldError('not-a-linear-module', ['lora', 'targets'], {
      value: '"c_attn"',
      modelType: 'llama',
      known: ['q_proj', 'v_proj'],
    });
    expect([reasoned.message, reasoned.hint]).toEqual([
      'lora.targets: "c_attn" is not a linear module of llama models',
      'use "all-linear" or some of: q_proj, v_proj',
    ]);
    // As src/core/estimate.ts raises it today: a where and a message, no reason.
    const legacy = new HeadroomUserError({
      code: 'invalid-field',
      where: 'lora.targets',
      message: 'lora.targets: "c_attn" is not a linear module of llama models',
      hint: 'use "all-linear" or some of: q_proj, v_proj',
    });
    for (const error of [reasoned, legacy]) {
      const shown = named(error, sources, 'estimate') as HeadroomUserError;
      expect([shown.where, shown.message]).toEqual([
        '--lora-targets',
        '--lora-targets c_attn is not a linear module of llama models',
      ]);
    }
  });

  it('leaves alone an error that is about no field', () => {
    const gpu = new HeadroomUserError({
      code: 'unknown-gpu',
      where: 'gpu',
      message: 'gpu "a100" is not in the catalog',
    });
    const { sources } = mergeScenarioFlags({}, { gpu: 'a100' });
    expect(named(gpu, sources, 'estimate')).toBe(gpu);
    const bug = new TypeError('x is undefined');
    expect(named(bug, sources, 'estimate')).toBe(bug);
  });
});

describe('what a flag makes meaningless in a file', () => {
  const merge = (base: Record<string, unknown>, values: Record<string, string | boolean>) =>
    mergeScenarioFlags(base, values, undefined, { baseSource: file }).raw;

  it('a method change drops the LoRA settings and a quantized base; another quantization drops torchao', () => {
    const qlora = {
      model: 'x',
      method: 'qlora',
      quantization: 'nf4-dq',
      quantizer: 'torchao',
      lora: { rank: 8 },
    };
    expect(merge(qlora, { method: 'full' })).toEqual({ model: 'x', method: 'full' });
    expect(merge(qlora, { quantization: 'int8' })).toEqual({
      ...qlora,
      quantization: 'int8',
      quantizer: undefined,
    });
    expect(merge({ model: 'x', method: 'freeze', trainableLayers: 4 }, { method: 'lora' })).toEqual({
      model: 'x',
      method: 'lora',
    });
  });

  it('a strategy change drops FSDP and ZeRO options and offload it cannot do; the flags’ own stay, to be refused', () => {
    const fsdp = {
      model: 'x',
      parallelism: { strategy: 'fsdp', gpus: 4, wrapEmbeddings: true },
      offload: { params: 'cpu' },
    };
    expect(merge(fsdp, { strategy: 'zero2' })).toEqual({
      model: 'x',
      parallelism: { strategy: 'zero2', gpus: 4 },
      offload: {},
    });
    const both = merge(fsdp, { strategy: 'zero2', 'wrap-embeddings': true });
    expect(userErrorOf(() => parseScenario(both)).reason).toBe('wrap-needs-fsdp');
  });

  it('--gpus 4 alone means ddp; a contradiction in the file stays the file’s error', () => {
    expect(mergeScenarioFlags({ model: 'x' }, { gpus: '4' }).raw.parallelism).toEqual({
      strategy: 'ddp',
      gpus: 4,
    });
    const contradiction = { model: 'x', parallelism: { strategy: 'ddp', gpus: 2, wrapEmbeddings: true } };
    expect(merge(contradiction, { 'seq-len': '4k' })).toEqual({ ...contradiction, seqLen: 4096 });
  });
});

describe('the flags and their help', () => {
  it('declares every flag the table has, with its kind', () => {
    expect(SCENARIO_OPTIONS['micro-batch']).toEqual({ type: 'string' });
    expect(SCENARIO_OPTIONS['no-fused-optimizer']).toEqual({ type: 'boolean' });
    expect(SCENARIO_OPTIONS.scenario).toEqual({ type: 'string' });
    // The flags the hand-written table had, every one.
    expect(Object.keys(SCENARIO_OPTIONS).sort()).toEqual(
      [
        'model',
        'method',
        'lora-rank',
        'lora-alpha',
        'lora-dropout',
        'lora-targets',
        'lora-adapter-dtype',
        'modules-to-save',
        'trainable-layers',
        'quantization',
        'quantize-head',
        'quantized-from',
        'quantized-inputs-kept',
        'quantizer',
        'precision',
        'load-dtype',
        'prepare-kbit-upcast',
        'model-code',
        'caching-allocator-warmup',
        'no-caching-allocator-warmup',
        'optimizer',
        'micro-batch',
        'seq-len',
        'grad-accum',
        'optimizer-in-backward',
        'fused-optimizer',
        'no-fused-optimizer',
        'gradient-checkpointing',
        'checkpoint-every',
        'attention',
        'torch-compile',
        'no-torch-compile',
        'loss',
        'strategy',
        'gpus',
        'wrap-embeddings',
        'sync-each-micro-batch',
        'fsdp-version',
        'frozen-param-grads',
        'fsdp-gather-dtype',
        'fsdp-reduce-dtype',
        'reduce-bucket-size',
        'overlap-comm',
        'offload-optimizer',
        'offload-params',
        'offload-activations',
        'expandable-segments',
        'no-expandable-segments',
        'gpu',
        'framework',
        'versions',
        'padding',
        'eval-batch',
        'eval-batches',
        'eval-keep-logits',
        'eval-generate-tokens',
        'eval-generate-batch',
        'scenario',
      ].sort(),
    );
  });

  it('helps in English and in Chinese: the same flags, values and defaults', () => {
    const zh = scenarioFlagsHelp('zh');
    const flags = (help: string) => [...help.matchAll(/^ {2}(?:MODEL \| )?(--[\w-]+)/gm)].map((m) => m[1]);
    expect(flags(zh)).toEqual(flags(SCENARIO_FLAGS_HELP));
    expect(flags(zh)).toHaveLength(58);
    expect(SCENARIO_FLAGS_HELP).toMatch(/^ {2}--method M {16}full \| lora \| qlora \| freeze +\[full\]$/m);
    expect(zh).toMatch(/^ {2}--micro-batch N {11}每块 GPU 每步的序列数 +\[1\]$/m);
    expect(zh.split('\n')[0]).toBe('场景（参数覆盖 --scenario 中的设置；默认值见 docs/scenario.md）：');
  });
});

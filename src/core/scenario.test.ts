import { describe, expect, it } from 'vitest';
import {
  allocConfExpandsSegments,
  parseScenario,
  SCENARIO_LIMITS,
  withAllocatorSetting,
} from './scenario.js';
import { userErrorOf } from './test-helpers/user-error.js';

const errorOf = (input: unknown) => userErrorOf(() => parseScenario(input));

describe('parseScenario', () => {
  it('fills every default of SCENARIO.md', () => {
    expect(parseScenario({ model: 'llama-3.1-8b' })).toEqual({
      model: 'llama-3.1-8b',
      method: 'full',
      quantization: 'none',
      precision: 'bf16-mixed',
      optimizer: 'adamw',
      microBatchSize: 1,
      seqLen: 2048,
      gradAccumSteps: 1,
      gradientCheckpointing: 'none',
      attention: 'sdpa',
      loss: 'standard',
      parallelism: { strategy: 'single', gpus: 1 },
      offload: { optimizer: 'none', params: 'none' },
      padding: 'max-length',
    });
  });

  it.each([
    ['full', 'bf16-mixed'],
    ['freeze', 'bf16-mixed'],
    ['lora', 'bf16-true'],
    ['qlora', 'bf16-true'],
  ] as const)('a %s scenario that names no precision takes %s (docs/scenario.md)', (method, precision) => {
    const s = parseScenario({ model: 'x', method, ...(method === 'qlora' ? { quantization: 'nf4' } : {}) });
    expect(s.precision).toBe(precision);
    // A stated precision always wins.
    expect(
      parseScenario({
        model: 'x',
        method,
        precision: 'fp32',
        ...(method === 'qlora' ? { quantization: 'nf4' } : {}),
      }).precision,
    ).toBe('fp32');
  });

  it('loads framework, versions and padding as the measurement rows carry them', () => {
    const s = parseScenario({
      model: 'x',
      framework: 'hf-trainer',
      versions: { torch: '2.5.1+cu121', transformers: '4.46.0.dev0', bitsandbytes: '0.44.1' },
      padding: 'longest',
    });
    expect(s.framework).toBe('hf-trainer');
    expect(s.versions).toEqual({ torch: '2.5.1+cu121', transformers: '4.46.0.dev0', bitsandbytes: '0.44.1' });
    expect(s.padding).toBe('longest');
    expect(parseScenario({ model: 'x', versions: {} }).versions).toBeUndefined();
  });

  it.each([
    [{ model: 'x', framework: 'keras' }, 'framework', /"keras" is not one of hf-trainer \| axolotl/],
    [
      { model: 'x', padding: 'dynamic' },
      'padding',
      /"dynamic" is not one of longest \| max-length \| packed/,
    ],
    [{ model: 'x', versions: { pytorch: '2.5' } }, 'versions.pytorch', /is not a package headroom knows/],
    [{ model: 'x', versions: { torch: 2.5 } }, 'versions.torch', /2.5 must be a version string/],
    [{ model: 'x', versions: { torch: 'latest' } }, 'versions.torch', /"latest" must be a version string/],
    [{ model: 'x', versions: ['2.5'] }, 'versions', /must be an object/],
  ])('refuses %j at %s', (input, where, message) => {
    const error = errorOf(input);
    expect(error.where).toBe(where);
    expect(error.message).toMatch(message);
  });

  it('keeps LoRA settings and defaults dropout and modulesToSave', () => {
    const s = parseScenario({
      model: 'x',
      method: 'qlora',
      quantization: 'nf4',
      lora: { rank: 64, alpha: 16, targets: 'all-linear' },
    });
    expect(s.lora).toEqual({ rank: 64, alpha: 16, dropout: 0, targets: 'all-linear', modulesToSave: [] });
  });

  it.each([
    [{ model: 'x', method: 'dora' }, 'method', /"dora" is not one of full \| lora \| qlora \| freeze/],
    [{ model: 'x', microBatchSize: -2 }, 'microBatchSize', /-2 must be a whole number from 1 to 65536/],
    [{ model: 'x', seqLen: 1.5 }, 'seqLen', /must be a whole number/],
    [{ model: 'x', method: 'qlora' }, 'quantization', /needs a quantized base, but quantization is "none"/],
    [
      { model: 'x', method: 'lora', lora: { rank: 0 } },
      'lora.rank',
      /0 must be a whole number from 1 to 65536/,
    ],
    [
      { model: 'x', precision: 'bf16' },
      'precision',
      /one of fp32 \| fp16-mixed \| bf16-mixed \| fp16-true \| bf16-true/,
    ],
    [
      { model: 'x', parallelism: { strategy: 'zero4', gpus: 2 } },
      'parallelism.strategy',
      /"zero4" is not one of/,
    ],
    [{ model: 'x', parallelism: { gpus: 4 } }, 'parallelism.gpus', /strategy "single" runs on one GPU/],
    [{ model: 'x', offload: { optimizer: 'cpu' } }, 'offload.optimizer', /needs a ZeRO or FSDP strategy/],
    [{ model: 'x', batch: 4 }, 'batch', /is not a scenario field/],
    [{ model: 'x', method: 'full', quantization: 'nf4' }, 'quantization', /cannot be nf4-quantized/],
    [{ model: 'x', method: 'lora', lora: { dropout: 1.5 } }, 'lora.dropout', /from 0 up to/],
    [{}, 'model', /model: is missing/],
    [
      { model: 'x', parallelism: { strategy: 'zero3', gpus: 4, wrapEmbeddings: true } },
      'parallelism.wrapEmbeddings',
      /strategy is "zero3"/,
    ],
    [
      { model: 'x', parallelism: { strategy: 'ddp', gpus: 2, syncEachMicroBatch: true } },
      'parallelism.syncEachMicroBatch',
      /how FSDP accumulates gradients, but the strategy is "ddp"/,
    ],
    [
      { model: 'x', method: 'lora', quantizeHead: true },
      'quantizeHead',
      /with a bitsandbytes base, but quantization is "none"/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'int4-gptq', quantizedFrom: 'fp16' },
      'quantizedFrom',
      /how a bitsandbytes base was quantized, but quantization is "int4-gptq"/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'nf4', quantizedFrom: 'int8' },
      'quantizedFrom',
      /"int8" is not one of fp16 \| bf16 \| fp32/,
    ],
    [
      { model: 'x', method: 'lora', quantizedInputsKept: 'step' },
      'quantizedInputsKept',
      /how long a bitsandbytes layer keeps its input, but quantization is "none"/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'nf4', quantizedInputsKept: 'always' },
      'quantizedInputsKept',
      /"always" is not one of none \| step \| next-forward/,
    ],
    [
      { model: 'x', method: 'lora', lora: { adapterDtype: 'bf16' } },
      'lora.adapterDtype',
      /"bf16" is not one of fp32 \| model/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'int8', quantizer: 'torchao' },
      'quantizer',
      /torchao quantizes to NF4 \(torchtune's QLoRA\), but quantization is "int8"/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'int4-gptq', quantizer: 'bitsandbytes' },
      'quantizer',
      /bitsandbytes quantizes to int8, nf4, nf4-dq or fp4, but quantization is "int4-gptq"/,
    ],
    [
      { model: 'x', method: 'qlora', quantization: 'nf4', quantizer: 'hqq' },
      'quantizer',
      /"hqq" is not one of bitsandbytes \| torchao/,
    ],
    [
      {
        model: 'x',
        method: 'qlora',
        quantization: 'nf4-dq',
        quantizer: 'torchao',
        quantizedInputsKept: 'step',
      },
      'quantizedInputsKept',
      /keeps its input, but the base is quantized by torchao/,
    ],
    [
      { model: 'x', parallelism: { strategy: 'fsdp', gpus: 2, reduceBucketSize: 'auto' } },
      'parallelism.reduceBucketSize',
      /a DeepSpeed ZeRO setting, but the strategy is "fsdp"/,
    ],
    [
      { model: 'x', parallelism: { strategy: 'zero2', gpus: 2, reduceBucketSize: -5 } },
      'parallelism.reduceBucketSize',
      /-5 must be a whole number of elements \(at least 1\) or "auto"/,
    ],
    [
      { model: 'x', parallelism: { strategy: 'ddp', gpus: 2, overlapComm: true } },
      'parallelism.overlapComm',
      /a DeepSpeed ZeRO setting, but the strategy is "ddp"/,
    ],
    [{ model: 'x', optimizerInBackward: 'yes' }, 'optimizerInBackward', /"yes" must be true or false/],
    [{ model: 'x', torchCompile: 1 }, 'torchCompile', /1 must be true or false/],
    [{ model: 'x', expandableSegments: 'True' }, 'expandableSegments', /"True" must be true or false/],
    [
      { model: 'x', optimizer: 'adamw-8bit', fusedOptimizer: true },
      'fusedOptimizer',
      /applies to torch's AdamW and SGD only; "adamw-8bit" is one kernel already/,
    ],
    [
      { model: 'x', optimizerInBackward: true, gradAccumSteps: 4 },
      'optimizerInBackward',
      /cannot accumulate 4 micro-batches/,
    ],
    [
      { model: 'x', optimizerInBackward: true, parallelism: { strategy: 'zero2', gpus: 2 } },
      'optimizerInBackward',
      /DeepSpeed's zero2 steps its own partitioned optimizer/,
    ],
  ])('rejects %j naming %s', (input, where, message) => {
    const error = errorOf(input);
    expect(error.where).toBe(where);
    expect(error.message).toMatch(message);
  });

  it('keeps optimizerInBackward only when it is true', () => {
    expect(parseScenario({ model: 'x', optimizerInBackward: true }).optimizerInBackward).toBe(true);
    expect('optimizerInBackward' in parseScenario({ model: 'x', optimizerInBackward: false })).toBe(false);
  });

  it('keeps torchCompile only when it is true', () => {
    expect(parseScenario({ model: 'x', torchCompile: true }).torchCompile).toBe(true);
    expect('torchCompile' in parseScenario({ model: 'x', torchCompile: false })).toBe(false);
  });

  it('keeps expandableSegments only when it is true', () => {
    expect(parseScenario({ model: 'x', expandableSegments: true }).expandableSegments).toBe(true);
    expect('expandableSegments' in parseScenario({ model: 'x', expandableSegments: false })).toBe(false);
  });

  it('reads expandable segments from PYTORCH_CUDA_ALLOC_CONF as torch does: exactly True, among other pairs', () => {
    expect(allocConfExpandsSegments('expandable_segments:True')).toBe(true);
    expect(allocConfExpandsSegments('max_split_size_mb:128, expandable_segments:True')).toBe(true);
    expect(allocConfExpandsSegments('expandable_segments:False')).toBe(false);
    // torch rejects anything but True and False, so "true" turns nothing on.
    expect(allocConfExpandsSegments('expandable_segments:true')).toBe(false);
    expect(allocConfExpandsSegments('max_split_size_mb:128')).toBe(false);
    expect(allocConfExpandsSegments('')).toBe(false);
    expect(allocConfExpandsSegments(undefined)).toBe(false);
  });

  it('turns expandable segments on from a run’s allocator setting unless declined, and leaves set ones alone', () => {
    const base = parseScenario({ model: 'x' });
    expect(withAllocatorSetting(base, 'expandable_segments:True', false).expandableSegments).toBe(true);
    expect(withAllocatorSetting(base, 'expandable_segments:True', true)).toBe(base);
    expect(withAllocatorSetting(base, 'garbage_collection_threshold:0.6', false)).toBe(base);
    const set = parseScenario({ model: 'x', expandableSegments: true });
    expect(withAllocatorSetting(set, undefined, false)).toBe(set);
  });

  it("keeps lora.adapterDtype only for 'model': fp32 is PEFT's default", () => {
    const lora = (adapterDtype: string) =>
      parseScenario({ model: 'x', method: 'lora', lora: { adapterDtype } }).lora!;
    expect(lora('model').adapterDtype).toBe('model');
    expect('adapterDtype' in lora('fp32')).toBe(false);
  });

  it('keeps quantizer only for torchao: bitsandbytes is what a quantized base means without it', () => {
    const nf4 = { model: 'x', method: 'qlora', quantization: 'nf4-dq' };
    expect(parseScenario({ ...nf4, quantizer: 'torchao' }).quantizer).toBe('torchao');
    expect('quantizer' in parseScenario({ ...nf4, quantizer: 'bitsandbytes' })).toBe(false);
  });

  it("keeps DeepSpeed's reduce bucket as given, and overlapComm only when it is true", () => {
    const zero = (p: Record<string, unknown>) =>
      parseScenario({ model: 'x', parallelism: { strategy: 'zero2', gpus: 2, ...p } }).parallelism;
    expect(zero({ reduceBucketSize: 200000000, overlapComm: true })).toEqual({
      strategy: 'zero2',
      gpus: 2,
      reduceBucketSize: 200000000,
      overlapComm: true,
    });
    expect(zero({ reduceBucketSize: 'auto', overlapComm: false })).toEqual({
      strategy: 'zero2',
      gpus: 2,
      reduceBucketSize: 'auto',
    });
  });

  it('declines peft-other rows with a clear message', () => {
    expect(errorOf({ model: 'x', method: 'peft-other' }).code).toBe('unsupported');
  });
});

describe('the count limits: each field refuses a value past its limit and names it', () => {
  /** A scenario with `value` at `field` (a SCENARIO.md path), and what the field needs to mean anything. */
  const withField = (field: keyof typeof SCENARIO_LIMITS, value: number): Record<string, unknown> => {
    if (field === 'lora.rank') return { model: 'x', method: 'lora', lora: { rank: value } };
    if (field === 'trainableLayers') return { model: 'x', method: 'freeze', trainableLayers: value };
    if (field === 'parallelism.gpus') return { model: 'x', parallelism: { strategy: 'ddp', gpus: value } };
    if (field.startsWith('evaluation.')) {
      return { model: 'x', evaluation: { microBatchSize: 8, [field.slice('evaluation.'.length)]: value } };
    }
    if (field === 'checkpointEvery')
      return { model: 'x', gradientCheckpointing: 'every-nth', checkpointEvery: value };
    return { model: 'x', [field]: value };
  };

  it.each(Object.keys(SCENARIO_LIMITS) as (keyof typeof SCENARIO_LIMITS)[])(
    '%s: its limit is accepted, one more is out of range with the limit in the message and the params',
    (field) => {
      const { max } = SCENARIO_LIMITS[field];
      expect(() => parseScenario(withField(field, max))).not.toThrow();
      const error = errorOf(withField(field, max + 1));
      expect([error.code, error.where]).toEqual(['out-of-range', field]);
      expect(error.message).toMatch(
        new RegExp(`^${field}: ${max + 1} is more than ${max}\\b.*, the most Headroom takes \\(`),
      );
      expect(error.params).toEqual({ value: max + 1, min: 1, max });
      const below = errorOf(withField(field, -2));
      expect([below.code, below.message]).toEqual([
        'out-of-range',
        `${field}: -2 must be a whole number from 1 to ${max}`,
      ]);
    },
  );

  it('seqLen 1e12 (a typo for 1e4) is refused, naming the longest context of any model', () => {
    expect(errorOf({ model: 'x', seqLen: 1e12 }).message).toBe(
      "seqLen: 1000000000000 is more than 10485760 tokens, the most Headroom takes (Llama 4 Scout's 10M-token context, the longest of any model)",
    );
  });
});

describe('the FSDP mechanism fields and checkpointing by op and by layer', () => {
  it('parse as given, fsdpVersion from a number or its text', () => {
    const s = parseScenario({
      model: 'x',
      gradientCheckpointing: 'selective-op',
      parallelism: { strategy: 'fsdp', gpus: 8, fsdpVersion: '2', reduceDtype: 'fp32' },
    });
    expect(s.gradientCheckpointing).toBe('selective-op');
    expect(s.parallelism).toEqual({ strategy: 'fsdp', gpus: 8, fsdpVersion: 2, reduceDtype: 'fp32' });
    // "compute" is the default and is not kept.
    const c = parseScenario({
      model: 'x',
      parallelism: { strategy: 'fsdp', gpus: 2, gatherDtype: 'compute' },
    });
    expect(c.parallelism).toEqual({ strategy: 'fsdp', gpus: 2 });
  });

  it('refuse an FSDP field under another strategy, a version FSDP does not have, a period without every-nth', () => {
    const refused = (raw: Record<string, unknown>): string => {
      try {
        parseScenario(raw);
      } catch (error) {
        return String((error as Error).message);
      }
      return 'accepted';
    };
    expect(refused({ model: 'x', parallelism: { strategy: 'zero3', gpus: 2, fsdpVersion: 2 } })).toContain(
      'parallelism.fsdpVersion: is a PyTorch FSDP setting, but the strategy is "zero3"',
    );
    expect(refused({ model: 'x', parallelism: { strategy: 'fsdp', gpus: 2, fsdpVersion: 3 } })).toContain(
      'parallelism.fsdpVersion',
    );
    expect(
      refused({ model: 'x', parallelism: { strategy: 'ddp', gpus: 2, frozenParamGrads: true } }),
    ).toContain('is a PyTorch FSDP setting');
    expect(refused({ model: 'x', gradientCheckpointing: 'full', checkpointEvery: 2 })).toContain(
      'checkpointEvery: is the period of gradientCheckpointing "every-nth", but checkpointing is "full"',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { say } from '../../words/catalog.js';
import { IMPORT_REASONS } from '../../words/import-reasons.js';
import { parseScenario } from '../scenario.js';
import { mapDeepSpeedConfig } from './deepspeed.js';
import { deepspeedReference, detectConfigFormat, importConfig } from './import-config.js';
import { catalogIdForTorchtuneModel } from './torchtune.js';

describe('catalogIdForTorchtuneModel', () => {
  it.each([
    ['torchtune.models.llama3_1.lora_llama3_1_8b', 'llama-3.1-8b'],
    ['torchtune.models.llama3_2.llama3_2_3b', 'llama-3.2-3b'],
    ['torchtune.models.llama3.llama3_8b', 'llama-3-8b'],
    ['torchtune.models.llama2.qlora_llama2_7b', 'llama-2-7b'],
    ['torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct', 'qwen2.5-7b'],
    ['torchtune.models.qwen3.qwen3_8b', 'qwen3-8b'],
    ['torchtune.models.gemma2.gemma2_9b', 'gemma-2-9b'],
    ['torchtune.models.gemma.gemma_2b', 'gemma-2b'],
    ['torchtune.models.phi3.lora_phi3_mini', 'phi-3-mini'],
    ['torchtune.models.mistral.mistral_7b', 'mistral-7b-v0.1'],
    ['torchtune.models.qwen2.qwen2_7b', null],
    ['my.own.model_builder', null],
  ])('%s → %s', (component, id) => {
    expect(catalogIdForTorchtuneModel(component)).toBe(id);
  });
});

describe('detectConfigFormat', () => {
  it.each([
    [{ zero_optimization: { stage: 2 } }, 'deepspeed'],
    [{ distributed_type: 'FSDP', num_processes: 8 }, 'accelerate'],
    [{ model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' } }, 'torchtune'],
    [{ base_model: 'x', micro_batch_size: 1 }, 'axolotl'],
    [{ model_name_or_path: 'x', finetuning_type: 'lora' }, 'llama-factory'],
    [{ model_name_or_path: 'x', per_device_train_batch_size: 2 }, 'hf-trainer'],
    [{ name: 'my app' }, null],
  ] as const)('%o → %s', (config, format) => {
    expect(detectConfigFormat(config)).toBe(format);
  });
});

describe('importConfig', () => {
  it('turns a torchtune QLoRA builder into qlora on an NF4 base', () => {
    const r = importConfig({
      config: { model: { _component_: 'torchtune.models.llama3_1.qlora_llama3_1_8b', lora_rank: 8 } },
    });
    expect(r.scenario).toMatchObject({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4-dq',
      quantizer: 'torchao',
      lora: { rank: 8, adapterDtype: 'model' },
    });
    // Parsed, it is a torchao base: nothing bitsandbytes-only applies.
    expect(parseScenario(r.scenario).quantizer).toBe('torchao');
  });

  it("says an accelerate DeepSpeed config without a file runs DeepSpeed's default reduce bucket", () => {
    // PEFT's examples/sft/configs/deepspeed_config_z3_qlora.yaml, the guide's 70B QLoRA run.
    const r = importConfig({
      config: {
        distributed_type: 'DEEPSPEED',
        num_processes: 2,
        deepspeed_config: { zero_stage: 3, offload_optimizer_device: 'none', offload_param_device: 'none' },
      },
    });
    expect(r.scenario.parallelism).toEqual({ gpus: 2, strategy: 'zero3', reduceBucketSize: 5e8 });
    expect(r.assumed.map((a) => a.field)).toContain('parallelism.reduceBucketSize');
  });

  it("maps DeepSpeed's reduce bucket and overlap_comm, auto included, under a ZeRO stage only", () => {
    const zero2 = mapDeepSpeedConfig({
      zero_optimization: { stage: 2, reduce_bucket_size: 2e8, overlap_comm: true },
    });
    expect(zero2.scenario.parallelism).toEqual({
      strategy: 'zero2',
      reduceBucketSize: 200000000,
      overlapComm: true,
    });
    const auto = mapDeepSpeedConfig({ zero_optimization: { stage: 3, reduce_bucket_size: 'auto' } });
    expect(auto.scenario.parallelism).toEqual({ strategy: 'zero3', reduceBucketSize: 'auto' });
    // DeepSpeed reads "5e8" written as a string too; a word is reported, never guessed.
    expect(
      mapDeepSpeedConfig({ zero_optimization: { stage: 1, reduce_bucket_size: '5e8' } }).scenario.parallelism,
    ).toEqual({ strategy: 'zero1', reduceBucketSize: 500000000 });
    const odd = mapDeepSpeedConfig({ zero_optimization: { stage: 2, reduce_bucket_size: 'big' } });
    expect(odd.unmapped.map((u) => [u.key, u.kind])).toEqual([
      ['zero_optimization.reduce_bucket_size', 'unresolved'],
    ]);
    // Stage 0 runs no ZeRO: its bucket settings mean nothing there.
    const stage0 = mapDeepSpeedConfig({
      zero_optimization: { stage: 0, reduce_bucket_size: 5e8, overlap_comm: true },
    });
    expect(stage0.scenario.parallelism).toEqual({ strategy: 'ddp' });
    expect(stage0.unmapped.map((u) => [u.key, u.kind])).toEqual([
      ['zero_optimization.reduce_bucket_size', 'no-field'],
    ]);
  });

  it.each([
    [
      'torchtune',
      {
        model: { _component_: 'torchtune.models.llama3_1.lora_llama3_1_8b' },
        enable_activation_offloading: true,
      },
      'enable_activation_offloading',
    ],
    [
      'Axolotl offloaded checkpointing',
      { base_model: 'x', gradient_checkpointing: 'offload' },
      'gradient_checkpointing',
    ],
    [
      'Axolotl Unsloth checkpointing',
      { base_model: 'x', gradient_checkpointing: 'unsloth' },
      'gradient_checkpointing',
    ],
    [
      'Axolotl',
      { base_model: 'x', micro_batch_size: 1, activation_offloading: 'legacy' },
      'activation_offloading',
    ],
    [
      'TrainingArguments',
      {
        model_name_or_path: 'x',
        gradient_checkpointing: true,
        gradient_checkpointing_kwargs: { offload: true },
      },
      'gradient_checkpointing_kwargs.offload',
    ],
    [
      'TRL SFTConfig',
      { model_name_or_path: 'x', max_length: 1024, activation_offloading: true },
      'activation_offloading',
    ],
    [
      'LLaMA-Factory',
      { model_name_or_path: 'x', finetuning_type: 'lora', use_unsloth_gc: true },
      'use_unsloth_gc',
    ],
  ] as const)('maps %s activation offload to offload.activations: cpu', (_name, config, key) => {
    const r = importConfig({ config });
    expect(r.scenario).toMatchObject({ offload: { activations: 'cpu' } });
    expect(r.mapped).toContainEqual(
      expect.objectContaining({ key, field: 'offload.activations', to: 'cpu' }),
    );
    expect(r.unmapped.map((u) => u.key)).not.toContain(key);
  });

  it.each([
    ['TrainingArguments', { model_name_or_path: 'x', torch_compile: true }, 'torch_compile', true],
    ['Axolotl', { base_model: 'x', micro_batch_size: 1, torch_compile: true }, 'torch_compile', true],
    [
      'LLaMA-Factory',
      { model_name_or_path: 'x', finetuning_type: 'lora', torch_compile: true },
      'torch_compile',
      true,
    ],
    [
      'torchtune',
      { model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' }, compile: true },
      'compile',
      true,
    ],
    [
      'torchtune (per part)',
      {
        model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' },
        compile: { model: true, loss: false },
      },
      'compile.loss',
      false,
    ],
  ] as const)('maps %s torch.compile to torchCompile', (_name, config, key, on) => {
    const r = importConfig({ config });
    expect(r.mapped).toContainEqual(expect.objectContaining({ key, field: 'torchCompile', to: on }));
    expect(parseScenario({ model: 'x', ...r.scenario }).torchCompile).toBe(on ? true : undefined);
    expect(r.unmapped.map((u) => u.key)).not.toContain(key);
  });

  it.each([
    ['TrainingArguments', { model_name_or_path: 'x', optim: 'adamw_torch_fused' }, 'optim', true],
    ['TrainingArguments (foreach)', { model_name_or_path: 'x', optim: 'adamw_torch' }, 'optim', false],
    ['Axolotl', { base_model: 'x', micro_batch_size: 1, optimizer: 'adamw_torch_fused' }, 'optimizer', true],
    [
      'torchtune',
      {
        model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' },
        optimizer: { _component_: 'torch.optim.AdamW', fused: true },
      },
      'optimizer.fused',
      true,
    ],
  ] as const)('maps %s fused optimizer kernels to fusedOptimizer', (_name, config, key, fused) => {
    const r = importConfig({ config });
    expect(r.scenario.optimizer).toBe('adamw');
    if (fused)
      expect(r.mapped).toContainEqual(expect.objectContaining({ key, field: 'fusedOptimizer', to: true }));
    expect(parseScenario({ model: 'x', ...r.scenario }).fusedOptimizer).toBe(fused ? true : undefined);
  });

  it('assumes the fused AdamW that Hugging Face and Axolotl pick when no optimizer is named', () => {
    for (const config of [{ model_name_or_path: 'x' }, { base_model: 'x', micro_batch_size: 1 }]) {
      const r = importConfig({ config });
      expect(r.assumed.filter((a) => a.field.endsWith('ptimizer')).map((a) => [a.field, a.value])).toEqual([
        ['optimizer', 'adamw'],
        ['fusedOptimizer', true],
      ]);
    }
  });

  it('maps how each trainer batches: packed, padded to the cap, or (left to the profile) padded per batch', () => {
    const padding = (config: Record<string, unknown>) => {
      const r = importConfig({ config });
      return { padding: r.scenario.padding, framework: r.scenario.framework, assumed: r.assumed };
    };
    const axolotl = { base_model: 'x', micro_batch_size: 1, sequence_len: 2048 };
    expect(padding({ ...axolotl, sample_packing: true, pad_to_sequence_len: true }).padding).toBe('packed');
    expect(padding({ ...axolotl, pad_to_sequence_len: true }).padding).toBe('max-length');
    // Neither: the collator pads to the batch's longest, which the axolotl profile says.
    const plain = padding(axolotl);
    expect(plain.padding).toBeUndefined();
    expect(parseScenario({ model: 'x', ...importConfig({ config: axolotl }).scenario }).padding).toBe(
      'longest',
    );

    const lf = { model_name_or_path: 'x', finetuning_type: 'lora', stage: 'sft' };
    expect(padding({ ...lf, packing: true }).padding).toBe('packed');
    expect(padding({ ...lf, neat_packing: true }).padding).toBe('packed');
    expect(padding({ ...lf, packing: false }).padding).toBe('longest');
    expect(parseScenario({ model: 'x', ...importConfig({ config: lf }).scenario }).padding).toBe('longest');
    // Pre-training packs unless the file says otherwise (LLaMA-Factory's hparams/parser.py).
    const pt = padding({ ...lf, stage: 'pt' });
    expect(pt.padding).toBe('packed');
    expect(pt.assumed.find((a) => a.field === 'padding')?.reason).toEqual({
      code: 'trainer-default',
      params: { key: 'packing', trainer: 'LLaMA-Factory', value: 'true (stage pt)' },
    });

    expect(padding({ model_name_or_path: 'x', per_device_train_batch_size: 2, packing: true }).padding).toBe(
      'packed',
    );
    const tune = { model: { _component_: 'torchtune.models.llama3_1.lora_llama3_1_8b' } };
    expect(padding({ ...tune, dataset: { packed: true } }).padding).toBe('packed');
    expect(padding({ ...tune, dataset: { packed: false } }).padding).toBe('longest');
  });

  it('leaves activation offload off where the config turns it off, and names what it cannot hold', () => {
    const off = importConfig({
      config: {
        model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' },
        enable_activation_offloading: false,
      },
    });
    expect(off.mapped).toContainEqual(
      expect.objectContaining({
        key: 'enable_activation_offloading',
        field: 'offload.activations',
        to: 'none',
      }),
    );
    // LLaMA-Factory's Unsloth checkpointer does nothing when checkpointing is off.
    const noCkpt = importConfig({
      config: {
        model_name_or_path: 'x',
        finetuning_type: 'lora',
        use_unsloth_gc: true,
        disable_gradient_checkpointing: true,
      },
    });
    expect(noCkpt.scenario.offload).toBeUndefined();
    const disk = importConfig({
      config: { base_model: 'x', micro_batch_size: 1, activation_offloading: 'disk' },
    });
    expect(disk.scenario.offload).toBeUndefined();
    const toDisk = disk.unmapped.find((u) => u.key === 'activation_offloading')!;
    expect(toDisk.reason).toEqual({ code: 'activations-to-disk', params: {} });
    expect(say(IMPORT_REASONS, 'en', toDisk.reason)).toBe('activations offloaded to disk, not CPU memory');
  });

  it('keeps an unknown model as the config names it', () => {
    const r = importConfig({ config: { base_model: 'acme/secret-13b', adapter: 'lora' } });
    expect(r.scenario.model).toBe('acme/secret-13b');
    const t = importConfig({ config: { model: { _component_: 'torchtune.models.qwen2.qwen2_7b' } } });
    expect(t.scenario.model).toBe('torchtune.models.qwen2.qwen2_7b');
  });

  it('reads the legacy DeepSpeed offload keys and ignores parameter offload below stage 3', () => {
    expect(
      mapDeepSpeedConfig({ zero_optimization: { stage: 3, cpu_offload: true, cpu_offload_params: true } })
        .scenario,
    ).toEqual({
      parallelism: { strategy: 'zero3' },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
    const r = mapDeepSpeedConfig({ zero_optimization: { stage: 2, offload_param: { device: 'cpu' } } });
    expect(r.scenario).toEqual({
      parallelism: { strategy: 'zero2' },
      offload: { optimizer: 'none', params: 'none' },
    });
    expect(r.unmapped[0]).toMatchObject({ key: 'zero_optimization.offload_param', kind: 'unresolved' });
  });

  it('reports DeepSpeed "auto" and odd values without guessing', () => {
    const r = mapDeepSpeedConfig({
      zero_optimization: { stage: 'auto', offload_optimizer: { device: 'gpu' } },
    });
    expect(r.scenario).toEqual({ offload: { params: 'none' } });
    expect(r.unmapped.map((u) => [u.key, u.kind])).toEqual([
      ['zero_optimization.stage', 'auto'],
      ['zero_optimization.offload_optimizer.device', 'unresolved'],
    ]);
    // No zero_optimization at all is stage 0: plain data parallelism.
    expect(mapDeepSpeedConfig({ train_micro_batch_size_per_gpu: 4 }).scenario.parallelism).toEqual({
      strategy: 'ddp',
    });
  });

  it('finds the DeepSpeed reference of each format', () => {
    expect(deepspeedReference({ deepspeed: 'examples/deepspeed/ds_z3_config.json' }, 'llama-factory')).toBe(
      'examples/deepspeed/ds_z3_config.json',
    );
    expect(deepspeedReference({ deepspeed_config: { deepspeed_config_file: 'ds.json' } }, 'accelerate')).toBe(
      'ds.json',
    );
    expect(deepspeedReference({ deepspeed: { zero_optimization: {} } }, 'hf-trainer')).toBeNull();
  });

  it('fills LLaMA-Factory defaults the file leaves unset and says so', () => {
    const r = importConfig({ config: { model_name_or_path: 'meta-llama/Llama-3.1-8B', stage: 'sft' } });
    expect(r.assumed.map((a) => [a.field, a.value])).toEqual([
      ['method', 'lora'],
      ['lora.rank', 8],
      ['lora.alpha', 16],
      ['lora.dropout', 0],
      ['lora.targets', 'all-linear'],
      ['microBatchSize', 8],
      ['seqLen', 2048],
      ['gradientCheckpointing', 'full'],
      ['attention', 'sdpa'],
      ['optimizer', 'adamw'],
      ['fusedOptimizer', true],
      // The file is a LLaMA-Factory config: its framework profile applies (src/core/frameworks).
      ['framework', 'llama-factory'],
    ]);
  });

  it('maps accelerate DeepSpeed plugin settings and multi-node GPU counts', () => {
    const r = importConfig({
      config: {
        distributed_type: 'DEEPSPEED',
        num_machines: 2,
        num_processes: 8,
        mixed_precision: 'bf16',
        deepspeed_config: { zero_stage: 2, offload_optimizer_device: 'cpu', offload_param_device: 'none' },
      },
    });
    expect(r.scenario).toEqual({
      parallelism: { gpus: 16, strategy: 'zero2', reduceBucketSize: 5e8 },
      offload: { optimizer: 'cpu', params: 'none' },
      precision: 'bf16-mixed',
      framework: 'accelerate',
    });
  });

  it('rejects what is not a config, naming the file', () => {
    expect(() => importConfig({ config: [1, 2], fileName: 'x.yaml' })).toThrow(
      'x.yaml: a trainer config must be a mapping of keys to values, not a list',
    );
    expect(() => importConfig({ config: null, fileName: 'x.yaml' })).toThrow('not null');
    expect(() => importConfig({ config: 'text', fileName: 'x.yaml' })).toThrow('not a string');
    expect(() => importConfig({ config: { port: 80 }, fileName: 'x.yaml' })).toThrow(
      /x\.yaml: not a trainer config Headroom recognises/,
    );
  });

  it('does not trust hostile values: wrong types are reported or ignored, never thrown', () => {
    const r = importConfig({
      config: {
        base_model: 42,
        adapter: 'lora',
        lora_r: 'sixteen',
        lora_target_modules: [1, 2],
        micro_batch_size: -3,
        sequence_len: 1.5,
        optimizer: { nested: true },
        fsdp: 'full_shard',
        fsdp_config: 'not an object',
      },
    });
    expect(r.scenario).toEqual({
      method: 'lora',
      parallelism: { strategy: 'fsdp' },
      offload: { optimizer: 'none', params: 'none' },
      framework: 'axolotl',
    });
  });
});

describe('the reasons of an import', () => {
  it('are codes with their figures, worded from the catalog in English and Chinese', () => {
    const r = importConfig({
      config: { model_name_or_path: 'x', finetuning_type: 'lora', deepspeed: 'ds_z3.json' },
      deepspeed: { path: 'ds_z3.json', searched: ['here', 'up', 'up2', 'cwd'] },
    });
    const rank = r.assumed.find((a) => a.field === 'lora.rank')!;
    expect(rank.reason).toEqual({
      code: 'trainer-default',
      params: { key: 'lora_rank', trainer: 'LLaMA-Factory', value: 8 },
    });
    expect(say(IMPORT_REASONS, 'en', rank.reason)).toBe('lora_rank not set: LLaMA-Factory defaults to 8');
    expect(say(IMPORT_REASONS, 'zh', rank.reason)).toBe('未设置 lora_rank：LLaMA-Factory 默认为 8');
    const ds = r.unmapped.find((u) => u.key === 'deepspeed')!;
    expect(ds.reason).toEqual({ code: 'deepspeed-not-found', params: { folders: 3 } });
    expect(say(IMPORT_REASONS, 'en', ds.reason)).toBe(
      'DeepSpeed file not found beside the config, in the 3 folders above it or in the working directory: parallelism and offload left out (pass --strategy)',
    );
    // A ZeRO key written "auto" says so in its words.
    const zero = mapDeepSpeedConfig({ zero_optimization: { stage: 3, stage3_prefetch_bucket_size: 'auto' } });
    const prefetch = zero.unmapped.find((u) => u.key === 'zero_optimization.stage3_prefetch_bucket_size')!;
    expect(prefetch.reason).toEqual({ code: 'prefetch-bucket', params: { auto: true } });
    expect(say(IMPORT_REASONS, 'en', prefetch.reason)).toMatch(
      /; "auto": sized from the model's hidden size at launch$/,
    );
  });
});

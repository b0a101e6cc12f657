/**
 * Facts of the stacks with their own training loops: litgpt (Lightning Fabric), torchtune, torchtitan
 * and a plain PyTorch loop. Each was read in the named file at the named ref (docs/frameworks.md).
 */
import { BNB_4BIT, CURRENT, inputsKeptNone, src } from './facts-kit.js';
import type { Fact, Pin, Source, VersionCondition } from './types.js';

const FSDP = ['fsdp', 'fsdp-grad-op'] as const;
/** lit-gpt at the commit its 2023 resource tables were measured with (before versioned releases). */
const LITGPT_2023 = '8641822b3249bb94f068c254aa5d13decbc9f0a0';
const LITGPT_HEAD = '26857050fe3ff627cd714fe92f5838f51a3d5efa';
/** The Lightning commit lit-gpt 8641822 pinned (requirements.txt). */
const LIGHTNING_2023 = '71aed751f7f0ca8422ddca256e602099070f490b';
const TORCHTUNE_HEAD = 'bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1';
/** torchtitan at its 2024-12 H100 benchmarks (benchmarks/llama3_h100_202412_torchtitan.md). */
const TORCHTITAN_2024 = '9dec370ad26b5f8e9a7333a0e36165018262644b';

/** A 4-bit layer's input outlives backward until the next forward returns (bitsandbytes < 0.43.2). */
function inputsKeptNextForward(id: string, source: Source, reason: string): Fact[] {
  return [
    {
      id: `${id}.inputs-kept-next-forward`,
      kind: 'sets',
      field: 'quantizedInputsKept',
      value: 'next-forward',
      when: [{ package: 'bitsandbytes', below: '0.43.2' }],
      applies: { quantizedBy: 'bitsandbytes', quantizations: BNB_4BIT },
      source,
      reason,
    },
    inputsKeptNone(`${id}.inputs-kept-none`),
  ];
}

export const LITGPT_PINS: readonly Pin[] = [
  {
    when: { package: 'litgpt', below: '0.5.5' },
    package: 'bitsandbytes',
    version: '0.42.0',
    source: src('Lightning-AI/litgpt', 'pyproject.toml', 'v0.5.4', 'optional-dependencies.all'),
  },
];

/** lit-gpt before 0.5.11 ran Lightning Fabric's FSDPStrategy (FSDP1); 0.5.11 requires torch >= 2.6. */
const LITGPT_FSDP1_VERSIONS: readonly (readonly VersionCondition[])[] = [
  [{ package: 'litgpt', below: '0.5.11' }],
  [{ package: 'torch', below: '2.6' }],
];

/**
 * litgpt's FSDP: FSDP1 through Lightning's FSDPStrategy before 0.5.11 (told by the litgpt version, or
 * by a torch below 2.6, which litgpt 0.5.11 requires: pyproject.toml @v0.5.11 `torch>=2.6`), and then
 * its frozen-parameter gradients and fp32 gathers; fully_shard from 0.5.11.
 */
function litgptFsdpFacts(): Fact[] {
  const fsdp1Source = src(
    'Lightning-AI/pytorch-lightning',
    'src/lightning/fabric/strategies/fsdp.py',
    LIGHTNING_2023,
    'FSDPStrategy.__init__',
  );
  const byVersion = (id: string, when: readonly VersionCondition[]): Fact[] => [
    {
      id: `litgpt.fsdp1${id}`,
      kind: 'sets',
      field: 'parallelism.fsdpVersion',
      value: 1,
      when,
      ifUnknown: { assume: false },
      applies: { strategies: FSDP },
      source: src('Lightning-AI/litgpt', 'finetune/lora.py', LITGPT_2023, 'setup'),
      reason:
        'FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block}): FullyShardedDataParallel',
    },
    {
      id: `litgpt.fsdp1-frozen-grads${id}`,
      kind: 'sets',
      field: 'parallelism.frozenParamGrads',
      value: true,
      when: [...when, { package: 'torch', atLeast: '2.0' }],
      ifUnknown: { assume: false },
      applies: { methods: ['lora'], strategies: FSDP },
      source: fsdp1Source,
      reason:
        'Lightning sets use_orig_params=True on torch >= 2.0 and litgpt wraps each Block whole, so each flat parameter mixes LoRA and frozen weights and its gradient covers all of them; under no_backward_sync (accumulation) those gradients stay unsharded',
    },
    {
      id: `litgpt.fsdp-mixed-fp32-gather${id}`,
      kind: 'sets',
      field: 'parallelism.gatherDtype',
      value: 'fp32',
      when: [...when, { package: 'torch', atLeast: '2.0' }],
      ifUnknown: { assume: false },
      applies: { strategies: FSDP, precisions: ['bf16-mixed', 'fp16-mixed'] },
      source: src(
        'Lightning-AI/pytorch-lightning',
        'src/lightning/fabric/plugins/precision/fsdp.py',
        LIGHTNING_2023,
        'FSDPPrecision.mixed_precision_config',
      ),
      reason:
        'bf16-mixed maps to MixedPrecision(param_dtype=fp32, reduce_dtype=bf16) on torch >= 2.0, with autocast for compute',
    },
  ];
  const [byLitgpt, byTorch] = LITGPT_FSDP1_VERSIONS;
  return [
    ...byVersion('', byLitgpt!),
    ...byVersion('-torch', byTorch!),
    {
      id: 'litgpt.fsdp2',
      kind: 'sets',
      field: 'parallelism.fsdpVersion',
      value: 2,
      when: [{ package: 'litgpt', atLeast: '0.5.11' }],
      ifUnknown: CURRENT,
      applies: { strategies: FSDP },
      source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'parallelize_fn'),
      reason:
        'ModelParallelStrategy + fully_shard per trainable Linear, CheckpointWrapper, Block and the root since PR #2086 (5ac69b06, first in v0.5.11)',
    },
  ];
}

export const LITGPT_FACTS: readonly Fact[] = [
  {
    id: 'litgpt.untied-head',
    kind: 'sets',
    field: 'modelConfig.tie_word_embeddings',
    value: false,
    source: src('Lightning-AI/litgpt', 'litgpt/model.py', LITGPT_HEAD, 'GPT.__init__'),
    reason: 'lm_head = nn.Linear and wte = nn.Embedding are separate tensors (the same at lit-gpt 8641822)',
  },
  {
    id: 'litgpt.default-precision',
    kind: 'sets',
    field: 'precision',
    value: 'bf16-mixed',
    source: src('Lightning-AI/litgpt', 'litgpt/utils.py', LITGPT_HEAD, 'get_default_supported_precision'),
    reason:
      'without --precision, training uses "bf16-mixed" on a bf16 GPU ("16-mixed" otherwise); config_hub files set bf16-true',
  },
  {
    id: 'litgpt.adapters-model-dtype',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    applies: { methods: ['lora', 'qlora'] },
    source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'main'),
    reason:
      'GPT(config) with its LoRA layers is built inside fabric.init_module, whose precision context sets the default dtype (bf16 under bf16-true); the same at 8641822',
  },
  {
    id: 'litgpt.lora-dropout',
    kind: 'sets',
    field: 'lora.dropout',
    value: 0.05,
    applies: { methods: ['lora', 'qlora'] },
    source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'setup'),
    reason:
      'setup(lora_dropout: float = 0.05); the 2023 script set the module constant lora_dropout = 0.05 (finetune/lora.py @8641822)',
  },
  {
    id: 'litgpt.model-code',
    kind: 'sets',
    field: 'modelCode',
    value: 'litgpt',
    source: src('Lightning-AI/litgpt', 'litgpt/model.py', LITGPT_HEAD, 'CausalSelfAttention'),
    reason:
      'litgpt builds its own GPT, never the transformers model: one qkv linear (lit_gpt/model.py @8641822: attn), LoRA on it as one LoRAQKVLinear (litgpt/lora.py)',
  },
  {
    id: 'litgpt.chunked-loss',
    kind: 'sets',
    field: 'loss',
    value: 'chunked',
    source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'fit'),
    reason: 'model(input_ids, lm_head_chunk_size=128) then chunked_cross_entropy; the same at 8641822',
  },
  {
    id: 'litgpt.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    source: src('Lightning-AI/litgpt', 'litgpt/data/base.py', LITGPT_HEAD, '_sft_collate_fn'),
    reason:
      'pad_sequence to the longest sample of the batch, then truncate to max_seq_length (8641822: get_batch pads to max_len)',
  },
  {
    id: 'litgpt.quantize-head',
    kind: 'sets',
    field: 'quantizeHead',
    value: true,
    applies: { methods: ['qlora'], quantizedBy: 'bitsandbytes' },
    source: src(
      'Lightning-AI/pytorch-lightning',
      'src/lightning/fabric/plugins/precision/bitsandbytes.py',
      LIGHTNING_2023,
      'BitsandbytesPrecision.module_init_context',
    ),
    reason:
      '_ClassReplacementContextManager({"torch.nn.Linear": ...}) replaces every Linear, lm_head included',
  },
  {
    id: 'litgpt.quantized-from-fp16',
    kind: 'sets',
    field: 'quantizedFrom',
    value: 'fp16',
    applies: { methods: ['qlora'], quantizedBy: 'bitsandbytes' },
    source: src(
      'Lightning-AI/pytorch-lightning',
      'src/lightning/fabric/plugins/precision/bitsandbytes.py',
      LIGHTNING_2023,
      '_Linear4bit.quantize',
    ),
    reason: 'w = weight.contiguous().to(device="cuda", dtype=torch.half) before quantize_4bit',
  },
  ...inputsKeptNextForward(
    'litgpt',
    src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'fit'),
    'logits and loss of the last step stay bound until the next model(...) returns, so the old graph (and MatMul4Bit ctx.tensors) lives through the next forward',
  ),
  {
    id: 'litgpt.fsdp-checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    applies: { strategies: FSDP },
    source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_2023, 'setup'),
    reason:
      'devices > 1: FSDPStrategy(activation_checkpointing_policy={Block}); since 0.5.11 parallelize_fn(activation_checkpointing=True) wraps each Block',
  },
  ...litgptFsdpFacts(),
  {
    id: 'litgpt.eval-batch',
    kind: 'sets',
    field: 'evaluation.microBatchSize',
    value: { sameAs: 'microBatchSize' },
    source: src('Lightning-AI/litgpt', 'litgpt/finetune/lora.py', LITGPT_HEAD, 'validate'),
    reason:
      'validate runs at the initial sanity check and every eval.interval steps, on the training micro-batch, with logits = model(input_ids) without lm_head_chunk_size and chunked_cross_entropy(..., chunk_size=0): the unchunked forward evaluation.ts counts',
  },
  {
    id: 'litgpt.generation-cache',
    kind: 'sets',
    field: 'evaluation.generateTokens',
    value: { sameAs: 'seqLen' },
    source: src('Lightning-AI/litgpt', 'finetune/lora.py', LITGPT_2023, 'validate'),
    reason:
      'model.set_kv_cache(batch_size=1) sized for model.max_seq_length, the longest training sample: "do not set max_seq_length=max_returned_token because memory is not a concern here", then generate (HEAD: generate_example, only when the prompt fits)',
  },
  {
    id: 'litgpt.generation-batch',
    kind: 'sets',
    field: 'evaluation.generateBatch',
    value: 1,
    source: src('Lightning-AI/litgpt', 'finetune/lora.py', LITGPT_2023, 'validate'),
    reason: 'the sample is generated alone: set_kv_cache(batch_size=1)',
  },
];

export const TORCHTUNE_FACTS: readonly Fact[] = [
  {
    id: 'torchtune.torchao-nf4',
    kind: 'sets',
    field: 'quantizer',
    value: 'torchao',
    applies: { methods: ['qlora'], quantizations: ['nf4', 'nf4-dq'] },
    source: src(
      'pytorch/torchtune',
      'torchtune/training/_distributed.py',
      TORCHTUNE_HEAD,
      'load_from_full_model_state_dict',
    ),
    reason: 'QLoRA bases are torchao NF4Tensor (to_nf4), sharded with their scales',
  },
  {
    id: 'torchtune.precision',
    kind: 'sets',
    field: 'precision',
    value: 'bf16-true',
    source: src(
      'pytorch/torchtune',
      'recipes/full_finetune_single_device.py',
      TORCHTUNE_HEAD,
      '_setup_model',
    ),
    reason:
      'the model is built under training.set_default_dtype(self._dtype) (configs: dtype: bf16) and trained without autocast or fp32 master weights',
  },
  {
    id: 'torchtune.adapters-model-dtype',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'pytorch/torchtune',
      'recipes/lora_finetune_single_device.py',
      TORCHTUNE_HEAD,
      '_setup_model',
    ),
    reason: 'validate_expected_param_dtype(self.adapter_params.items(), dtype=self._dtype)',
  },
  {
    id: 'torchtune.fused-adamw',
    kind: 'sets',
    field: 'fusedOptimizer',
    value: true,
    when: [{ package: 'torchtune', atLeast: '0.4.0' }],
    ifUnknown: CURRENT,
    applies: { optimizers: ['adamw'] },
    source: src(
      'pytorch/torchtune',
      'recipes/configs/llama3_1/8B_lora_single_device.yaml',
      'v0.4.0',
      'optimizer.fused',
    ),
    reason: 'the shipped configs write optimizer.fused: True from v0.4.0 (a config default, not recipe code)',
  },
  {
    id: 'torchtune.checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    source: src(
      'pytorch/torchtune',
      'recipes/configs/llama3_1/8B_lora_single_device.yaml',
      TORCHTUNE_HEAD,
      'enable_activation_checkpointing',
    ),
    reason: 'the shipped configs write enable_activation_checkpointing: True (v0.2.1 on)',
  },
  {
    id: 'torchtune.chunked-ce',
    kind: 'sets',
    field: 'loss',
    value: 'chunked',
    when: [{ package: 'torchtune', atLeast: '0.3.0' }],
    ifUnknown: CURRENT,
    source: src('pytorch/torchtune', 'recipes/configs/llama3_1/8B_lora_single_device.yaml', 'v0.3.0', 'loss'),
    reason:
      'CEWithChunkedOutputLoss in the shipped configs v0.3.0–v0.6.x (LinearCrossEntropyLoss on main); torch.nn.CrossEntropyLoss at v0.2.1',
  },
  {
    id: 'torchtune.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    source: src('pytorch/torchtune', 'torchtune/data/_collate.py', TORCHTUNE_HEAD, 'padded_collate_sft'),
    reason: 'the recipes default collate_fn; pad_sequence to the batch maximum',
  },
  {
    id: 'torchtune.reduce-each-micro-batch',
    kind: 'sets',
    field: 'parallelism.syncEachMicroBatch',
    value: true,
    applies: { strategies: FSDP },
    source: src('pytorch/torchtune', 'recipes/full_finetune_distributed.py', TORCHTUNE_HEAD, 'train'),
    reason: 'the FSDP2 recipes never call no_sync or set_requires_gradient_sync(False)',
  },
  {
    id: 'torchtune.expandable-segments',
    kind: 'sets',
    field: 'expandableSegments',
    value: true,
    when: [{ package: 'torchtune', atLeast: '0.7.0' }],
    source: src('pytorch/torchtune', 'torchtune/__init__.py', TORCHTUNE_HEAD),
    reason: 'sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True when unset (commit 9d91fe39, 2025-06-20)',
    unverified:
      'the commit is in no release tag of the snapshot (last: v0.6.1); 0.7.0 is the first version that could carry it',
  },
  {
    id: 'torchtune.fsdp2',
    kind: 'sets',
    field: 'parallelism.fsdpVersion',
    value: 2,
    applies: { strategies: FSDP },
    source: src('pytorch/torchtune', 'torchtune/training/_distributed.py', TORCHTUNE_HEAD, 'shard_model'),
    reason:
      'fully_shard per TransformerSelfAttentionLayer (and custom_sharded_layers), reshard_after_forward=True; frozen base and LoRA params are separate DTensors',
  },
  {
    id: 'torchtune.load-per-param',
    kind: 'mechanism',
    mechanism: 'fsdp-load-per-unit',
    params: { unit: 'parameter', where: 'every rank', dtype: 'model' },
    applies: { strategies: FSDP },
    source: src(
      'pytorch/torchtune',
      'torchtune/training/_distributed.py',
      TORCHTUNE_HEAD,
      'load_from_full_model_state_dict',
    ),
    reason:
      "each full tensor is moved to the GPU (full_tensor.to(dtype).to(device)) and then distribute_tensor keeps this rank's chunk",
  },
];

export const TORCHTITAN_FACTS: readonly Fact[] = [
  {
    id: 'torchtitan.precision',
    kind: 'sets',
    field: 'precision',
    value: 'bf16-mixed',
    source: src(
      'pytorch/torchtitan',
      'torchtitan/config_manager.py',
      TORCHTITAN_2024,
      'training.mixed_precision_param',
    ),
    reason:
      'fp32 parameters sharded by fully_shard with MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)',
  },
  {
    id: 'torchtitan.selective',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'selective-op',
    source: src(
      'pytorch/torchtitan',
      'train_configs/llama3_8b.toml',
      TORCHTITAN_2024,
      'activation_checkpoint',
    ),
    reason:
      'mode = "selective", selective_ac_option = "op" in the Llama 3 8B config (70B/405B configs: full); the policy (parallelisms/parallelize_llama.py, _apply_ac_to_transformer_block) saves _save_list outputs except every second aten.mm per block: wq, wv, w1, w2 of wq wk wv wo w1 w3 w2',
  },
  {
    id: 'torchtitan.packed',
    kind: 'sets',
    field: 'padding',
    value: 'packed',
    source: src(
      'pytorch/torchtitan',
      'torchtitan/datasets/hf_datasets.py',
      TORCHTITAN_2024,
      'HuggingFaceDataset.__iter__',
    ),
    reason: 'tokens are buffered and cut into seq_len + 1 windows: every batch is exactly seq_len',
  },
  {
    id: 'torchtitan.reduce-each-micro-batch',
    kind: 'sets',
    field: 'parallelism.syncEachMicroBatch',
    value: true,
    applies: { strategies: FSDP },
    source: src('pytorch/torchtitan', 'torchtitan/train.py', 'b5bcd76c66d0acb1a08b176d9639425bc55e0b2a'),
    reason: 'FSDP2 reduce-scatters in every backward; the trainer never disables gradient sync',
    unverified: 'checked by the absence of no_sync/set_requires_gradient_sync in the trainer at HEAD',
  },
  {
    id: 'torchtitan.expandable-segments',
    kind: 'sets',
    field: 'expandableSegments',
    value: true,
    source: src('pytorch/torchtitan', 'run_llama_train.sh', TORCHTITAN_2024),
    reason:
      'the launch script exports PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True" (run_train.sh: PYTORCH_ALLOC_CONF at HEAD)',
  },
  {
    id: 'torchtitan.fsdp2',
    kind: 'sets',
    field: 'parallelism.fsdpVersion',
    value: 2,
    applies: { strategies: FSDP },
    source: src(
      'pytorch/torchtitan',
      'torchtitan/parallelisms/parallelize_llama.py',
      TORCHTITAN_2024,
      'apply_fsdp',
    ),
    reason:
      'fully_shard(transformer_block, mp_policy=MixedPrecisionPolicy(...)) per block, then the root; the last block is not resharded after forward (reshard_after_forward = int(layer_id) < len(model.layers) - 1), one of the two units the estimator holds gathered; model built on meta, to_empty + init_weights after sharding: no load peak',
  },
  {
    id: 'torchtitan.reduce-fp32',
    kind: 'sets',
    field: 'parallelism.reduceDtype',
    value: 'fp32',
    applies: { strategies: FSDP },
    source: src(
      'pytorch/torchtitan',
      'torchtitan/config_manager.py',
      TORCHTITAN_2024,
      'training.mixed_precision_reduce',
    ),
    reason: 'mixed_precision_reduce = "float32": the bf16 unsharded gradient of a block is reduced in fp32',
  },
];

/** A plain PyTorch loop (`loss = model(**batch).loss; loss.backward()`), with or without PEFT. */
export const PYTORCH_FACTS: readonly Fact[] = [
  ...inputsKeptNextForward(
    'pytorch',
    src(
      'bitsandbytes-foundation/bitsandbytes',
      'bitsandbytes/autograd/_functions.py',
      '0.42.0',
      'MatMul4Bit.forward',
    ),
    "a loop that rebinds loss = model(...) keeps the previous step's graph, and its ctx.tensors, alive until the new forward returns",
  ),
];

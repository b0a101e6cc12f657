/**
 * Facts of the Hugging Face stack (PEFT, bitsandbytes' integration, the Trainer, TRL, Accelerate,
 * DeepSpeed) and of the trainers built on it (Axolotl, LLaMA-Factory, ms-swift, Unsloth). Each was read
 * in the named file at the named ref (docs/frameworks.md has the same table in prose).
 */
import { BNB_4BIT, CURRENT, inputsKeptNone, src } from './facts-kit.js';
import { LLAMA_FACTORY_LORA, MS_SWIFT_LORA } from './trainer-defaults.js';
import type { Fact, IfUnknown } from './types.js';

const SKIP: IfUnknown = { assume: false };

/**
 * PEFT's LoRA adapter dtype by version. `assumeWhenUnknown`: trainers that always run PEFT for LoRA
 * assume today's release; a plain loop or Accelerate script may not use PEFT at all.
 */
export function peftFacts(assumeWhenUnknown: boolean): Fact[] {
  return [
    {
      id: 'peft.adapters-fp32',
      kind: 'sets',
      field: 'lora.adapterDtype',
      value: 'fp32',
      when: [{ package: 'peft', atLeast: '0.12.0' }],
      ifUnknown: assumeWhenUnknown ? CURRENT : SKIP,
      applies: { methods: ['lora', 'qlora'] },
      source: src(
        'huggingface/peft',
        'src/peft/tuners/tuners_utils.py',
        'v0.12.0',
        'BaseTuner._cast_adapter_dtype',
      ),
      reason:
        'get_peft_model(autocast_adapter_dtype=True) upcasts fp16/bf16 adapters to fp32 (PR #1706, first in v0.12.0)',
    },
    {
      id: 'peft.adapters-base-dtype',
      kind: 'sets',
      field: 'lora.adapterDtype',
      value: 'model',
      when: [{ package: 'peft', atLeast: '0.6.0', below: '0.12.0' }],
      applies: { methods: ['lora'] },
      source: src('huggingface/peft', 'src/peft/tuners/lora/layer.py', 'v0.11.1', 'LoraLayer.update_layer'),
      reason:
        'update_layer moves the adapters to the base weight with self.to(weight.device, dtype=weight.dtype) when that weight is floating point (PR #915, first in v0.6.0); a 4-bit base (uint8 storage) keeps them fp32',
    },
    {
      id: 'peft.adapters-fp32-before-0.6',
      kind: 'sets',
      field: 'lora.adapterDtype',
      value: 'fp32',
      when: [{ package: 'peft', below: '0.6.0' }],
      applies: { methods: ['lora', 'qlora'] },
      source: src('huggingface/peft', 'src/peft/tuners/lora.py', 'v0.5.0', 'LoraLayer.update_layer'),
      reason:
        'adapters are created under the default dtype (fp32) and moved with self.to(self.weight.device) only',
    },
  ];
}

/** bitsandbytes 4-bit layers as the Hugging Face Trainer (or any loop that frees the graph after backward) runs them. */
export const BNB_TRAINER_FACTS: readonly Fact[] = [
  {
    id: 'bnb.inputs-kept-step',
    kind: 'sets',
    field: 'quantizedInputsKept',
    value: 'step',
    when: [{ package: 'bitsandbytes', below: '0.43.2' }],
    applies: { quantizedBy: 'bitsandbytes', quantizations: BNB_4BIT },
    source: src(
      'bitsandbytes-foundation/bitsandbytes',
      'bitsandbytes/autograd/_functions.py',
      '0.42.0',
      'MatMul4Bit.forward',
    ),
    reason:
      'ctx.tensors = (A, B) keeps every 4-bit layer input on the autograd context until the graph is freed after backward',
  },
  inputsKeptNone('bnb.inputs-kept-none'),
];

/** The Hugging Face Trainer's defaults (transformers). */
export const HF_TRAINER_FACTS: readonly Fact[] = [
  {
    id: 'transformers.fused-adamw',
    kind: 'sets',
    field: 'fusedOptimizer',
    value: true,
    when: [
      { package: 'transformers', atLeast: '4.54.0' },
      { package: 'torch', atLeast: '2.8.0' },
    ],
    ifUnknown: CURRENT,
    applies: { optimizers: ['adamw'] },
    source: src(
      'huggingface/transformers',
      'src/transformers/training_args.py',
      '00349ae87eddc872ffa21a8a54f264375a0056a8',
      'TrainingArguments.default_optim',
    ),
    reason: 'default_optim = "adamw_torch_fused" when is_torch_greater_or_equal_than_2_8',
    unverified:
      'the transformers version is inferred: PR #37358 merged 2025-07-10, after 4.53.0 (2025-06-26); the file was read at one commit only',
  },
  {
    id: 'transformers.adamw-hf-loop',
    kind: 'mechanism',
    mechanism: 'optimizer-per-param-loop',
    params: { optim: 'adamw_hf' },
    when: [{ package: 'transformers', below: '4.32.0' }],
    applies: { optimizers: ['adamw'] },
    source: src('huggingface/transformers', 'src/transformers/training_args.py', 'PR #25109'),
    reason:
      'the default was adamw_hf (transformers.optimization.AdamW, a per-parameter loop) before PR #25109',
    unverified: 'read in the PR thread (merged 2023-07-26, so in 4.32.0), not in the file at a tag',
  },
  {
    id: 'transformers.load-dtype-fp32',
    kind: 'sets',
    field: 'loadDtype',
    value: 'fp32',
    when: [{ package: 'transformers', below: '5.0.0' }],
    // A bitsandbytes base loads in float16 when no torch_dtype is given (quantizedFrom's default).
    applies: { quantizations: ['none'] },
    source: src('huggingface/transformers', 'src/transformers/modeling_utils.py', 'PR #42805'),
    reason:
      'from_pretrained without torch_dtype loads in fp32: a LoRA base is then fp32 and the Trainer\'s bf16=True autocasts over it (precision "bf16-mixed" unless the scenario says "-true", a run that casts it: then the whole base is fp32 at load)',
    unverified: 'read in PR #42805 and TRL PR #4770, not in modeling_utils.py at a tag',
  },
  {
    id: 'transformers.load-dtype-auto',
    kind: 'sets',
    field: 'loadDtype',
    value: 'auto',
    when: [{ package: 'transformers', atLeast: '5.0.0' }],
    applies: { quantizations: ['none'] },
    source: src('huggingface/transformers', 'src/transformers/modeling_utils.py', 'PR #42805'),
    reason: 'v5 defaults dtype to "auto": the checkpoint dtype (bf16 for most LLMs)',
    unverified: 'read in PR #42805 and TRL PR #4770, not in modeling_utils.py at a tag',
  },
  {
    id: 'transformers.eval-batch',
    kind: 'sets',
    field: 'evaluation.microBatchSize',
    value: 8,
    // eval_strategy defaults to "no": only a scenario that says it evaluates gets the batch.
    applies: { evaluates: true },
    source: src(
      'huggingface/transformers',
      'src/transformers/trainer.py',
      '000945a9b726d87a93e61e873b88ff8f3cd411b5',
      'Trainer.prediction_step',
    ),
    reason:
      'prediction_step runs compute_loss under torch.no_grad() (the forward evaluation.ts counts, loss upcast to fp32 in ForCausalLMLoss); per_device_eval_batch_size defaults to 8 (training_args.py)',
  },
  {
    id: 'transformers.allocator-warmup',
    kind: 'sets',
    field: 'cachingAllocatorWarmup',
    value: true,
    source: src(
      'huggingface/transformers',
      'src/transformers/modeling_utils.py',
      'copy',
      'caching_allocator_warmup',
    ),
    reason:
      'torch.empty(byte_count // 2, dtype=float16) on each device before loading: reserved memory reaches the model size at load',
    unverified:
      'read in a copy of modeling_utils.py ("as of 18/03/2025"); the first transformers version is not known',
  },
];

/** TRL's SFTTrainer: applied only when a TRL version is given (the user runs SFTTrainer). */
export const TRL_FACTS: readonly Fact[] = [
  {
    id: 'trl.qlora-adapters-bf16',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    when: [{ package: 'trl', atLeast: '0.26.0' }],
    applies: { methods: ['qlora'] },
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_trainer.py',
      'f2cd57710ae345ea6428ae95363267fcf38a3dc8',
      'SFTTrainer.__init__',
    ),
    reason:
      "a quantized model's trainable parameters are cast to bf16 after get_peft_model (PR #4577, first in v0.26.0)",
  },
  {
    id: 'trl.sharded-qlora-adapters-model',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    when: [{ package: 'trl', atLeast: '0.9.3', below: '0.26.0' }],
    applies: { methods: ['qlora'], strategies: ['fsdp', 'fsdp-grad-op', 'zero3'] },
    source: src('huggingface/trl', 'trl/trainer/sft_trainer.py', 'v0.19.0', 'SFTTrainer._prepare_peft_model'),
    reason:
      'FSDP/ZeRO-3 QLoRA (Params4bit on cpu or meta) calls get_peft_model(autocast_adapter_dtype=False) (PR #1654, first in v0.9.3)',
  },
  {
    id: 'trl.zero3-lora-adapters-model',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    when: [{ package: 'trl', atLeast: '1.7.0' }],
    applies: { methods: ['lora'], strategies: ['zero3'] },
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_trainer.py',
      'f2cd57710ae345ea6428ae95363267fcf38a3dc8',
      'SFTTrainer.__init__',
    ),
    reason:
      'ZeRO-3 with a non-quantized base passes autocast_adapter_dtype=False (PR #6091, first in v1.7.0)',
  },
  {
    id: 'trl.prepare-kbit',
    kind: 'sets',
    field: 'prepareKbitUpcast',
    value: 'cast-back',
    when: [{ package: 'trl', atLeast: '0.7.2', below: '0.22.0' }],
    applies: {
      methods: ['qlora'],
      strategies: ['single', 'ddp'],
      precisions: ['bf16-true', 'bf16-mixed'],
    },
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_trainer.py',
      'v0.19.0',
      'SFTTrainer._prepare_model_for_kbit_training',
    ),
    reason:
      'non-sharded QLoRA runs PEFT prepare_model_for_kbit_training (all 16-bit params to fp32), then peft_module_casting_to_bf16 casts head and embeddings back when bf16',
  },
  {
    id: 'trl.prepare-kbit-fp16',
    kind: 'sets',
    field: 'prepareKbitUpcast',
    value: 'kept',
    when: [{ package: 'trl', atLeast: '0.7.2', below: '0.22.0' }],
    applies: { methods: ['qlora'], strategies: ['single', 'ddp'], precisions: ['fp16-true', 'fp16-mixed'] },
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_trainer.py',
      'v0.19.0',
      'SFTTrainer._prepare_model_for_kbit_training',
    ),
    reason:
      'without bf16, peft_module_casting_to_bf16 is not called: embeddings, head and norms stay fp32 for the run',
  },
  {
    id: 'trl.gradient-checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    when: [{ package: 'trl', atLeast: '0.22.0' }],
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_config.py',
      'v0.22.0',
      'SFTConfig.gradient_checkpointing',
    ),
    reason: 'SFTConfig overrides the Trainer default: gradient_checkpointing=True (PR #3510)',
  },
  {
    id: 'trl.chunked-nll',
    kind: 'sets',
    field: 'loss',
    value: 'chunked',
    when: [{ package: 'trl', atLeast: '1.4.0' }],
    source: src('huggingface/trl', 'trl/trainer/sft_config.py', 'v1.9.0', 'SFTConfig.loss_type'),
    reason:
      'loss_type defaults to "chunked_nll": lm_head on non-ignored tokens only, cross-entropy in chunks (PR #5575); "nll" with use_liger_kernel',
  },
  {
    id: 'trl.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    when: [{ package: 'trl', atLeast: '0.19.0' }],
    source: src(
      'huggingface/trl',
      'trl/trainer/sft_trainer.py',
      'f2cd57710ae345ea6428ae95363267fcf38a3dc8',
      'DataCollatorForLanguageModeling',
    ),
    reason:
      'labels and inputs are padded to the longest sequence of the batch; packing and padding_free default to False',
  },
];

/** Accelerate's FSDP integration. */
export const ACCELERATE_FACTS: readonly Fact[] = [
  {
    id: 'accelerate.fsdp2-upcast',
    kind: 'mechanism',
    mechanism: 'fsdp2-trainable-upcast-fp32',
    params: { fsdpVersion: 2, condition: 'mixed_precision != "no" and no Params4bit' },
    applies: { strategies: ['fsdp', 'fsdp-grad-op'] },
    source: src(
      'huggingface/accelerate',
      'src/accelerate/utils/fsdp_utils.py',
      '16cb6eb80dd9aa8b4df1a63ef57863e455d53b83',
      'fsdp2_prepare_model',
    ),
    reason:
      'trainable params not in fp32 are cast to fp32 (master weights); MixedPrecisionPolicy.param_dtype casts for compute',
    unverified: 'read at one commit (after v1.14.0); the first version is not known',
  },
];

/** DeepSpeed's ZeRO defaults (deepspeed/runtime/zero/config.py). */
export const DEEPSPEED_FACTS: readonly Fact[] = [
  {
    id: 'deepspeed.reduce-bucket',
    kind: 'sets',
    field: 'parallelism.reduceBucketSize',
    value: 500_000_000,
    applies: { strategies: ['zero1', 'zero2', 'zero3'] },
    source: src(
      'microsoft/DeepSpeed',
      'deepspeed/runtime/zero/config.py',
      '38327e07f6cd39b63418f60cedd1651b0be3e7c3',
      'DeepSpeedZeroConfig.reduce_bucket_size',
    ),
    reason:
      'reduce_bucket_size = 5e8 elements; overlap_comm defaults to True only for stage 3 (overlap_comm_valid)',
  },
];

export const AXOLOTL_FACTS: readonly Fact[] = [
  {
    id: 'axolotl.fused-adamw',
    kind: 'sets',
    field: 'fusedOptimizer',
    value: true,
    applies: { optimizers: ['adamw'] },
    source: src(
      'axolotl-ai-cloud/axolotl',
      'src/axolotl/utils/schemas/training.py',
      '067b021c8b87a9e5e380b9173c704cf7340e30f5',
      'optimizer',
    ),
    reason: 'optimizer defaults to "adamw_torch_fused" (PR #2425)',
    unverified: 'read at v0.18.0+9 only; older releases defaulted to adamw_hf/adamw_torch',
  },
  {
    id: 'axolotl.kbit-upcast',
    kind: 'sets',
    field: 'prepareKbitUpcast',
    value: 'cast-back',
    applies: { methods: ['qlora'], strategies: ['single', 'ddp'] },
    source: src(
      'axolotl-ai-cloud/axolotl',
      'src/axolotl/loaders/model.py',
      '067b021c8b87a9e5e380b9173c704cf7340e30f5',
      'ModelLoader._prepare_model_for_quantization',
    ),
    reason:
      'embeddings are upcast to fp32, prepare_model_for_kbit_training runs (skipped under FSDP QLoRA and ZeRO-3), then embeddings and norms go back to torch_dtype',
  },
  {
    id: 'axolotl.eval-batch',
    kind: 'sets',
    field: 'evaluation.microBatchSize',
    value: { sameAs: 'microBatchSize' },
    // Only with a validation set (val_set_size > 0): a scenario that says it evaluates.
    applies: { evaluates: true },
    source: src(
      'axolotl-ai-cloud/axolotl',
      'src/axolotl/utils/schemas/training.py',
      '067b021c8b87a9e5e380b9173c704cf7340e30f5',
      'eval_batch_size',
    ),
    reason: "eval_batch_size defaults to micro_batch_size (not the Trainer's 8)",
  },
  {
    id: 'axolotl.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    source: src(
      'axolotl-ai-cloud/axolotl',
      'src/axolotl/core/builders/causal.py',
      '067b021c8b87a9e5e380b9173c704cf7340e30f5',
      'HFCausalTrainerBuilder.build',
    ),
    reason:
      'the collator pads to the longest of the batch (padding=True, a multiple of 64) unless sample_packing or pad_to_sequence_len, both off by default (utils/schemas/config.py); the importer maps them',
  },
];

export const LLAMA_FACTORY_FACTS: readonly Fact[] = [
  {
    id: 'llamafactory.lora-targets',
    kind: 'sets',
    field: 'lora.targets',
    value: 'all-linear',
    when: [{ package: 'llamaFactory', atLeast: '0.6.0' }],
    ifUnknown: CURRENT,
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/hparams/finetuning_args.py',
      '00577a85775a2a78b14641ff8f68c58c6f46b027',
      'LoraArguments.lora_target',
    ),
    reason: `lora_target defaults to "${LLAMA_FACTORY_LORA.target}", every linear layer but the head (src/llmtuner/hparams/finetuning_args.py at v0.6.0 already)`,
  },
  {
    id: 'llamafactory.lora-rank',
    kind: 'sets',
    field: 'lora.rank',
    value: LLAMA_FACTORY_LORA.rank,
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/hparams/finetuning_args.py',
      '00577a85775a2a78b14641ff8f68c58c6f46b027',
      'LoraArguments.lora_rank',
    ),
    reason: 'lora_rank: int = 8 (lora_alpha defaults to twice the rank, lora_dropout to 0)',
  },
  {
    id: 'llamafactory.zero3-adapters-model',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'model',
    applies: { methods: ['lora'], strategies: ['zero3'] },
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/model/adapter.py',
      'ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30',
      'init_adapter',
    ),
    reason:
      'cast_trainable_params_to_fp32 is False under ZeRO-3 without quantization (and with pure_bf16), passed as autocast_adapter_dtype',
  },
  {
    id: 'llamafactory.adapters-fp32',
    kind: 'sets',
    field: 'lora.adapterDtype',
    value: 'fp32',
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/model/adapter.py',
      'ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30',
      'init_adapter',
    ),
    reason: 'trainable parameters are cast to fp32 unless pure_bf16 or BAdam',
  },
  {
    id: 'llamafactory.gradient-checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/hparams/model_args.py',
      'ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30',
      'disable_gradient_checkpointing',
    ),
    reason:
      'checkpointing is on unless disable_gradient_checkpointing (default False); use_reentrant_gc defaults to True',
  },
  {
    id: 'llamafactory.expandable-segments',
    kind: 'sets',
    field: 'expandableSegments',
    value: true,
    when: [{ package: 'llamaFactory', atLeast: '0.9.3' }],
    ifUnknown: CURRENT,
    applies: { multiGpu: true },
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/launcher.py',
      'ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30',
      'launch',
    ),
    reason:
      'the torchrun launch sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True when OPTIM_TORCH (default 1); commit 7c61b351, first in v0.9.3',
  },
  {
    id: 'llamafactory.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    source: src(
      'hiyouga/LLaMA-Factory',
      'src/llamafactory/train/sft/workflow.py',
      'ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30',
      'run_sft',
    ),
    reason:
      'SFTDataCollatorWith4DAttentionMask is a DataCollatorForSeq2Seq (padding=True: the longest of the batch, a multiple of 8); packing defaults to stage == "pt" (hparams/parser.py), so sft batches are unpacked',
  },
];

export const MS_SWIFT_FACTS: readonly Fact[] = [
  {
    id: 'ms-swift.lora-targets',
    kind: 'sets',
    field: 'lora.targets',
    value: MS_SWIFT_LORA.targets,
    when: [{ package: 'msSwift', atLeast: '3.0.0' }],
    ifUnknown: CURRENT,
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'modelscope/ms-swift',
      'swift/arguments/tuner_args.py',
      '3602360a562313afbf2ef6065fdf61f271a2c5b9',
      'TunerArguments.target_modules',
    ),
    reason:
      "target_modules defaults to ['all-linear'] (swift/llm/argument/tuner_args.py at v3.0.0); 2.x defaulted to each model type's own list",
  },
  {
    id: 'ms-swift.lora-rank',
    kind: 'sets',
    field: 'lora.rank',
    value: MS_SWIFT_LORA.rank,
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'modelscope/ms-swift',
      'swift/arguments/tuner_args.py',
      '3602360a562313afbf2ef6065fdf61f271a2c5b9',
      'TunerArguments.lora_rank',
    ),
    reason: 'lora_rank: int = 8, lora_alpha 32 (the same in 2.x, swift/llm/utils/argument.py at v2.6.0)',
  },
  {
    id: 'ms-swift.lora-dropout',
    kind: 'sets',
    field: 'lora.dropout',
    value: MS_SWIFT_LORA.dropout,
    applies: { methods: ['lora', 'qlora'] },
    source: src(
      'modelscope/ms-swift',
      'swift/arguments/tuner_args.py',
      '3602360a562313afbf2ef6065fdf61f271a2c5b9',
      'TunerArguments.lora_dropout',
    ),
    reason:
      'lora_dropout: float = 0.05 (the same at v2.6.0): PEFT keeps a dropped-out copy of each adapted input and its mask',
  },
  {
    id: 'ms-swift.gradient-checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    source: src(
      'modelscope/ms-swift',
      'swift/trainers/arguments.py',
      '3602360a562313afbf2ef6065fdf61f271a2c5b9',
      'gradient_checkpointing',
    ),
    reason: 'gradient_checkpointing: bool = True (the Trainer default is False)',
  },
  {
    id: 'ms-swift.pad-longest',
    kind: 'sets',
    field: 'padding',
    value: 'longest',
    source: src(
      'modelscope/ms-swift',
      'swift/template/base.py',
      '3602360a562313afbf2ef6065fdf61f271a2c5b9',
      'Template._data_collator',
    ),
    reason:
      'without padding_to the batch is padded to its longest sample; packing and padding_free default to False (arguments/base_args, template_args)',
  },
];

/** Where Unsloth's LoRA defaults were read. */
const UNSLOTH_GET_PEFT_MODEL = src(
  'unslothai/unsloth',
  'unsloth/models/llama.py',
  '015bdef0d94a241bcd94eec7a405b1700632180d',
  'FastLlamaModel.get_peft_model',
);

export const UNSLOTH_FACTS: readonly Fact[] = [
  {
    id: 'unsloth.lora-targets',
    kind: 'sets',
    field: 'lora.targets',
    value: 'all-linear',
    applies: { methods: ['lora', 'qlora'] },
    source: UNSLOTH_GET_PEFT_MODEL,
    reason:
      'target_modules defaults to q/k/v/o and gate/up/down, every linear layer of the decoder but the head (the same at 9406ca6e, 2023-12); r = 16 is the scenario default',
  },
  {
    id: 'unsloth.offloaded-checkpointing',
    kind: 'sets',
    field: 'gradientCheckpointing',
    value: 'full',
    source: UNSLOTH_GET_PEFT_MODEL,
    reason:
      'use_gradient_checkpointing defaults to True (9406ca6e, 2023-12) and to "unsloth" since 2025.7.4 (3824a6ad)',
  },
  {
    id: 'unsloth.offload-activations',
    kind: 'sets',
    field: 'offload.activations',
    value: 'cpu',
    when: [{ package: 'unsloth', atLeast: '2025.7.4' }],
    ifUnknown: CURRENT,
    source: src(
      'unslothai/unsloth',
      'unsloth/models/llama.py',
      '3824a6ad78',
      'FastLlamaModel.get_peft_model',
    ),
    reason: '"unsloth" checkpointing offloads each checkpointed layer input to CPU',
  },
  {
    id: 'unsloth.fused-ce',
    kind: 'sets',
    field: 'loss',
    value: 'fused',
    when: [{ package: 'unsloth', atLeast: '2025.8.5' }],
    ifUnknown: CURRENT,
    source: src('unslothai/unsloth', 'unsloth/models/llama.py', '806bee2433', 'CausalLM_fast_forward'),
    reason:
      'with labels and UNSLOTH_RETURN_LOGITS unset, unsloth_fused_ce_loss computes the loss without the full logits',
  },
];

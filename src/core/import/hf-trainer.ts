/**
 * Hugging Face TrainingArguments / TRL SFTConfig (with TRL's ModelConfig, as alignment-handbook recipes
 * write them) to scenario fields. Keys: transformers/training_args.py, trl/trainer/sft_config.py,
 * trl/trainer/model_config.py. TRL's get_quantization_config uses bnb_4bit_quant_type (default nf4) and
 * use_bnb_nested_quant (default false) for load_in_4bit.
 */
import type { Method } from '../scenario.js';
import { finiteNumber, has, own, ReportBuilder, truthy, wholeNumber } from './_builder.js';
import { ATTN_IMPLEMENTATIONS } from './_names.js';
import {
  absorbDeepSpeed,
  HF_DEFAULT_OPTIM,
  type MapperInput,
  mapCheckpointingAndCompile,
  mapHfOptimizer,
  nameList,
} from './_trainer-input.js';
import { because, type ImportReport } from './import-report.js';

const SIXTEEN_BIT = new Set(['bfloat16', 'float16']);

/** A default of TRL's ModelConfig (trl/trainer/model_config.py) for a key the file leaves unset. */
const trl = (key: string, value: number) =>
  because('trainer-default', { key, trainer: 'TRL ModelConfig', value });

/** True when a parsed object looks like TrainingArguments / SFTConfig. */
export function looksLikeHfTrainer(config: Readonly<Record<string, unknown>>): boolean {
  return [
    'per_device_train_batch_size',
    'model_name_or_path',
    'max_seq_length',
    'max_length',
    'gradient_checkpointing',
    'use_peft',
    'optim',
  ].some((k) => has(config, k));
}

/** Maps TrainingArguments / SFTConfig / ModelConfig keys to scenario fields. */
export function mapHfTrainerConfig(input: MapperInput): ImportReport {
  const c = input.config;
  const b = new ReportBuilder('hf-trainer');
  if (typeof c.model_name_or_path === 'string')
    b.map('model_name_or_path', c.model_name_or_path, 'model', c.model_name_or_path);

  const peft = truthy(c.use_peft);
  const four = truthy(c.load_in_4bit);
  const eight = truthy(c.load_in_8bit);
  let method: Method = 'full';
  if (peft) {
    method = four ? 'qlora' : 'lora';
    b.map(four ? 'load_in_4bit' : 'use_peft', four ? c.load_in_4bit : c.use_peft, 'method', method);
    if (four) {
      const type = c.bnb_4bit_quant_type ?? 'nf4';
      const nested = truthy(c.use_bnb_nested_quant);
      const quant = type === 'fp4' ? 'fp4' : nested ? 'nf4-dq' : 'nf4';
      b.map('load_in_4bit', c.load_in_4bit, 'quantization', quant);
    } else if (eight) b.map('load_in_8bit', c.load_in_8bit, 'quantization', 'int8');
    const rank = wholeNumber(c.lora_r);
    if (rank !== undefined && rank > 0) b.map('lora_r', rank, 'lora.rank', rank);
    else b.assume('lora.rank', 16, trl('lora_r', 16));
    const alpha = finiteNumber(c.lora_alpha);
    if (alpha !== undefined) b.map('lora_alpha', alpha, 'lora.alpha', alpha);
    else b.assume('lora.alpha', 32, trl('lora_alpha', 32));
    const dropout = finiteNumber(c.lora_dropout);
    if (dropout !== undefined) b.map('lora_dropout', dropout, 'lora.dropout', dropout);
    else b.assume('lora.dropout', 0.05, trl('lora_dropout', 0.05));
    const targets = c.lora_target_modules;
    if (targets === 'all-linear') b.map('lora_target_modules', targets, 'lora.targets', 'all-linear');
    else {
      const list = nameList(targets);
      if (list && list.length > 0) b.map('lora_target_modules', targets, 'lora.targets', list);
    }
    const saved = nameList(c.lora_modules_to_save);
    if (saved && saved.length > 0)
      b.map('lora_modules_to_save', c.lora_modules_to_save, 'lora.modulesToSave', saved);
  } else {
    // Without use_peft, TRL and the Trainer train every weight.
    b.map('use_peft', c.use_peft ?? null, 'method', 'full');
    if (four || eight)
      b.skip(four ? 'load_in_4bit' : 'load_in_8bit', true, 'unresolved', because('quantized-needs-peft'));
  }

  const micro = wholeNumber(c.per_device_train_batch_size);
  if (micro !== undefined && micro > 0) b.map('per_device_train_batch_size', micro, 'microBatchSize', micro);
  else
    b.assume(
      'microBatchSize',
      8,
      because('trainer-default', {
        key: 'per_device_train_batch_size',
        trainer: 'TrainingArguments',
        value: 8,
      }),
    );
  const accum = wholeNumber(c.gradient_accumulation_steps);
  if (accum !== undefined && accum > 0) b.map('gradient_accumulation_steps', accum, 'gradAccumSteps', accum);
  // SFTConfig renamed max_seq_length to max_length (TRL 0.20); both are truncation caps.
  const seqKey = has(c, 'max_length') ? 'max_length' : 'max_seq_length';
  const seq = wholeNumber(c[seqKey]);
  if (seq !== undefined && seq > 0) b.map(seqKey, seq, 'seqLen', seq);
  if (c.gradient_checkpointing !== undefined)
    b.map(
      'gradient_checkpointing',
      c.gradient_checkpointing,
      'gradientCheckpointing',
      truthy(c.gradient_checkpointing) ? 'full' : 'none',
    );

  const impl = c.attn_implementation;
  if (typeof impl === 'string') {
    const attention = own(ATTN_IMPLEMENTATIONS, impl);
    if (attention) b.map('attn_implementation', impl, 'attention', attention);
    else b.skip('attn_implementation', impl, 'unresolved', because('attention-not-modelled'));
  }
  mapHfOptimizer(b, 'optim', c.optim, HF_DEFAULT_OPTIM);
  if (truthy(c.use_liger_kernel) || truthy(c.use_liger)) b.map('use_liger_kernel', true, 'loss', 'fused');

  // Parallelism: an inline or referenced DeepSpeed config, or the fsdp option string.
  const ds = absorbDeepSpeed(b, 'deepspeed', c.deepspeed, input);
  const fsdpOptions =
    typeof c.fsdp === 'string' ? c.fsdp.split(/\s+/).filter(Boolean) : (nameList(c.fsdp) ?? []);
  const fsdpOn = fsdpOptions.length > 0;
  if (fsdpOn) {
    const strategy = fsdpOptions.includes('shard_grad_op')
      ? 'fsdp-grad-op'
      : fsdpOptions.includes('no_shard')
        ? 'ddp'
        : 'fsdp';
    b.map('fsdp', c.fsdp, 'parallelism.strategy', strategy);
    const offload = fsdpOptions.includes('offload') ? 'cpu' : 'none';
    b.map('fsdp', c.fsdp, 'offload.optimizer', offload);
    b.map('fsdp', c.fsdp, 'offload.params', offload);
  }

  // Precision (SCENARIO.md). Adapters: the base stays in the dtype it was loaded in (torch_dtype), fp32
  // when none is given. Full fine-tuning: fp32 loading + bf16 autocast is -mixed; a 16-bit torch_dtype is
  // -true under plain DDP but -mixed under DeepSpeed or FSDP mixed precision (fp32 masters) — decided
  // by the launcher, which this file may not name.
  const dtype = c.torch_dtype ?? c.dtype;
  const dtypeKey = c.torch_dtype !== undefined ? 'torch_dtype' : 'dtype';
  const half = truthy(c.bf16) ? 'bf16' : truthy(c.fp16) ? 'fp16' : null;
  const halfKey = truthy(c.bf16) ? 'bf16' : 'fp16';
  const loadedIn16 = typeof dtype === 'string' && SIXTEEN_BIT.has(dtype);
  const loaded = loadedIn16 ? (dtype === 'bfloat16' ? 'bf16' : 'fp16') : null;
  if (method !== 'full') {
    if (loaded) b.map(dtypeKey, dtype, 'precision', `${loaded}-true`);
    else if (half && (dtype === undefined || dtype === 'float32'))
      b.map(halfKey, c[halfKey], 'precision', `${half}-mixed`);
  } else if (ds.present || fsdpOn) {
    const p = half ?? loaded ?? (ds.precision === 'bf16' || ds.precision === 'fp16' ? ds.precision : null);
    if (p) b.map(half ? halfKey : dtypeKey, half ? c[halfKey] : dtype, 'precision', `${p}-mixed`);
  } else if (!loadedIn16 && half && (dtype === undefined || dtype === 'float32')) {
    b.map(halfKey, c[halfKey], 'precision', `${half}-mixed`);
  }
  if (dtype !== undefined) {
    b.skip(
      dtypeKey,
      dtype,
      'deferred',
      method === 'full' && !ds.present && !fsdpOn && loadedIn16
        ? because('dtype-16-bit')
        : dtype === 'auto'
          ? because('dtype-auto')
          : because('dtype-load'),
    );
  }

  mapCheckpointingAndCompile(b, c);
  // Batches (docs/scenario.md, padding; trl/trainer/sft_trainer.py): packing fills each row to
  // max_length; otherwise the collator pads to the batch's longest (trl.pad-longest). padding_free
  // alone concatenates a batch's samples into one row whose length still varies, so it stays longest.
  if (truthy(c.packing)) b.map('packing', c.packing, 'padding', 'packed');
  b.unmodelled(c, [['per_device_eval_batch_size', because('eval-batch')]], { whenOn: true });
  return b.build();
}

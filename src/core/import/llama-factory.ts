/**
 * A LLaMA-Factory training YAML to scenario fields. Keys and defaults follow LLaMA-Factory's
 * src/llamafactory/hparams (finetuning_args.py, model_args.py, data_args.py) and HF TrainingArguments:
 * finetuning_type defaults to lora, lora_rank 8, lora_alpha 2 × rank, lora_dropout 0, cutoff_len 2048,
 * gradient checkpointing on unless disable_gradient_checkpointing, flash_attn "auto" (transformers' sdpa),
 * 4-bit bitsandbytes quantization nf4 with double quantization.
 */
import { LLAMA_FACTORY_LORA } from '../frameworks/trainer-defaults.js';
import type { Method } from '../scenario.js';
import { finiteNumber, has, own, ReportBuilder, textOf, truthy, wholeNumber } from './_builder.js';
import {
  absorbDeepSpeed,
  HF_DEFAULT_OPTIM,
  type MapperInput,
  mapHfOptimizer,
  mapTorchCompile,
  nameList,
} from './_trainer-input.js';
import { because, type ImportReport } from './import-report.js';

/** A default of LLaMA-Factory's (src/llamafactory/hparams) for a key the file leaves unset. */
const lf = (key: string, value: string | number) =>
  because('trainer-default', { key, trainer: 'LLaMA-Factory', value });

const FLASH_ATTN: Readonly<Record<string, 'eager' | 'sdpa' | 'flash'>> = {
  fa2: 'flash',
  fa3: 'flash',
  sdpa: 'sdpa',
  disabled: 'eager',
};

/** True when a parsed object looks like a LLaMA-Factory config. */
export function looksLikeLlamaFactory(config: Readonly<Record<string, unknown>>): boolean {
  return ['finetuning_type', 'cutoff_len', 'lora_target', 'quantization_bit', 'template', 'stage'].some((k) =>
    has(config, k),
  );
}

/** Maps a LLaMA-Factory config (with its referenced DeepSpeed file, if any) to scenario fields. */
export function mapLlamaFactoryConfig(input: MapperInput): ImportReport {
  const c = input.config;
  const b = new ReportBuilder('llama-factory');
  if (typeof c.model_name_or_path === 'string')
    b.map('model_name_or_path', c.model_name_or_path, 'model', c.model_name_or_path);

  const type = c.finetuning_type ?? 'lora';
  const bits = wholeNumber(c.quantization_bit);
  let method: Method | null = null;
  if (type === 'lora' || type === 'full' || type === 'freeze') {
    // A 4-bit base is QLoRA; an 8-bit base keeps method lora over an int8 base (as Axolotl's load_in_8bit).
    method = type === 'lora' && bits === 4 ? 'qlora' : type;
    if (has(c, 'finetuning_type')) b.map('finetuning_type', type, 'method', method);
    else b.assume('method', method, lf('finetuning_type', 'lora'));
  } else {
    b.skip('finetuning_type', type, 'unresolved', because('finetuning-type'));
  }

  if (bits !== undefined) {
    const quantMethod = c.quantization_method ?? 'bnb';
    if (quantMethod !== 'bnb') {
      b.skip(
        'quantization_method',
        quantMethod,
        'unresolved',
        because('quantization-method', { method: textOf(quantMethod) }),
      );
    } else if (bits === 8) {
      b.map('quantization_bit', bits, 'quantization', 'int8');
    } else if (bits === 4) {
      const type4 = c.quantization_type ?? 'nf4';
      const dq = has(c, 'double_quantization') ? truthy(c.double_quantization) : true;
      const quant = type4 === 'fp4' ? 'fp4' : dq ? 'nf4-dq' : 'nf4';
      b.map('quantization_bit', bits, 'quantization', quant);
    } else {
      b.skip('quantization_bit', bits, 'unresolved', because('quantization-bits'));
    }
  }

  if (method === 'lora' || method === 'qlora') {
    const rank = wholeNumber(c.lora_rank);
    if (rank !== undefined) b.map('lora_rank', c.lora_rank, 'lora.rank', rank);
    else b.assume('lora.rank', LLAMA_FACTORY_LORA.rank, lf('lora_rank', LLAMA_FACTORY_LORA.rank));
    const effectiveRank = (b.get('lora.rank') as number | undefined) ?? LLAMA_FACTORY_LORA.rank;
    const alpha = finiteNumber(c.lora_alpha);
    if (alpha !== undefined) b.map('lora_alpha', c.lora_alpha, 'lora.alpha', alpha);
    else b.assume('lora.alpha', effectiveRank * 2, because('alpha-twice-rank'));
    const dropout = finiteNumber(c.lora_dropout);
    if (dropout !== undefined) b.map('lora_dropout', c.lora_dropout, 'lora.dropout', dropout);
    else b.assume('lora.dropout', LLAMA_FACTORY_LORA.dropout, lf('lora_dropout', LLAMA_FACTORY_LORA.dropout));
    const target = c.lora_target ?? LLAMA_FACTORY_LORA.target;
    const targets = target === 'all' ? 'all-linear' : nameList(target);
    if (targets === null) b.skip('lora_target', target, 'unresolved', because('lora-target'));
    else if (has(c, 'lora_target')) b.map('lora_target', target, 'lora.targets', targets);
    else b.assume('lora.targets', targets, lf('lora_target', LLAMA_FACTORY_LORA.target));
    const extra = nameList(c.additional_target);
    if (extra && extra.length > 0)
      b.map('additional_target', c.additional_target, 'lora.modulesToSave', extra);
  }
  if (method === 'freeze') {
    const layers = finiteNumber(c.freeze_trainable_layers);
    if (layers !== undefined && layers > 0)
      b.map('freeze_trainable_layers', layers, 'trainableLayers', layers);
    else if (layers !== undefined)
      b.skip('freeze_trainable_layers', layers, 'unresolved', because('negative-freeze'));
    else b.assume('trainableLayers', 2, lf('freeze_trainable_layers', 2));
  }

  const ds = absorbDeepSpeed(b, 'deepspeed', c.deepspeed, input);

  // Precision: LoRA loads the base in the checkpoint's dtype (torch_dtype "auto") and computes in
  // bf16/fp16; only adapters are upcast. Full and freeze upcast the trainable parameters to fp32
  // (adapter.py), as does ZeRO-3, unless pure_bf16 keeps them in bf16.
  const adapters = method === 'lora' || method === 'qlora';
  if (truthy(c.pure_bf16)) b.map('pure_bf16', c.pure_bf16, 'precision', 'bf16-true');
  else if (truthy(c.bf16)) b.map('bf16', c.bf16, 'precision', adapters ? 'bf16-true' : 'bf16-mixed');
  else if (truthy(c.fp16)) b.map('fp16', c.fp16, 'precision', adapters ? 'fp16-true' : 'fp16-mixed');
  else if (ds.precision === 'bf16' || ds.precision === 'fp16')
    b.assume(
      'precision',
      adapters ? `${ds.precision}-true` : `${ds.precision}-mixed`,
      because('from-deepspeed'),
    );

  const micro = wholeNumber(c.per_device_train_batch_size);
  if (micro !== undefined && micro > 0) b.map('per_device_train_batch_size', micro, 'microBatchSize', micro);
  else
    b.assume(
      'microBatchSize',
      8,
      because('trainer-default', {
        key: 'per_device_train_batch_size',
        trainer: 'HF TrainingArguments',
        value: 8,
      }),
    );
  const accum = wholeNumber(c.gradient_accumulation_steps);
  if (accum !== undefined && accum > 0) b.map('gradient_accumulation_steps', accum, 'gradAccumSteps', accum);
  const cutoff = wholeNumber(c.cutoff_len);
  if (cutoff !== undefined && cutoff > 0) b.map('cutoff_len', cutoff, 'seqLen', cutoff);
  else b.assume('seqLen', 2048, lf('cutoff_len', 2048));

  if (truthy(c.disable_gradient_checkpointing))
    b.map(
      'disable_gradient_checkpointing',
      c.disable_gradient_checkpointing,
      'gradientCheckpointing',
      'none',
    );
  else b.assume('gradientCheckpointing', 'full', because('llama-factory-checkpointing'));

  // use_unsloth_gc: Unsloth's checkpointer, whose checkpointed layer inputs wait in CPU memory.
  if (truthy(c.use_unsloth_gc) && !truthy(c.disable_gradient_checkpointing))
    b.map('use_unsloth_gc', c.use_unsloth_gc, 'offload.activations', 'cpu');

  const flash = c.flash_attn ?? 'auto';
  const attention = own(FLASH_ATTN, typeof flash === 'boolean' ? String(flash) : flash);
  if (attention) b.map('flash_attn', flash, 'attention', attention);
  else if (flash === 'auto') b.assume('attention', 'sdpa', because('flash-attn-auto'));
  else b.skip('flash_attn', flash, 'unresolved', because('flash-attn-values'));

  mapHfOptimizer(b, 'optim', c.optim, HF_DEFAULT_OPTIM);
  // Batches (docs/scenario.md, padding): packing and neat_packing fill every row to cutoff_len, and
  // packing defaults to stage == "pt" (hparams/parser.py); an unpacked sft batch is padded to its longest
  // sample, which the llama-factory profile says (llamafactory.pad-longest).
  if (truthy(c.neat_packing)) b.map('neat_packing', c.neat_packing, 'padding', 'packed');
  else if (typeof c.packing === 'boolean')
    b.map('packing', c.packing, 'padding', c.packing ? 'packed' : 'longest');
  else if (c.stage === 'pt') b.assume('padding', 'packed', lf('packing', 'true (stage pt)'));
  if (truthy(c.enable_liger_kernel)) b.map('enable_liger_kernel', c.enable_liger_kernel, 'loss', 'fused');
  mapTorchCompile(b, c);

  b.unmodelled(
    c,
    [
      ['upcast_layernorm', because('upcast-layernorm')],
      ['upcast_lmhead_output', because('upcast-lmhead')],
      ['use_unsloth', because('unsloth-kernels')],
      ['per_device_eval_batch_size', because('eval-batch')],
    ],
    { whenOn: true },
  );
  return b.build();
}

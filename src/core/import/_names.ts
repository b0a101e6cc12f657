/** Internal: the trainers' spellings of optimizers, attention and module names, as scenario values. */
import type { Attention, Optimizer } from '../scenario.js';

/**
 * Hugging Face `optim` names (transformers/training_args.py OptimizerNames), also used by Axolotl,
 * LLaMA-Factory and TRL. Names with no scenario equivalent are absent (reported as unresolved).
 */
export const HF_OPTIMIZERS: Readonly<Record<string, Optimizer>> = {
  adamw_torch: 'adamw',
  adamw_torch_fused: 'adamw',
  adamw_hf: 'adamw',
  adamw_apex_fused: 'adamw',
  adamw_torch_xla: 'adamw',
  adamw_torch_npu_fused: 'adamw',
  adamw_anyprecision: 'adamw',
  adam: 'adamw',
  adamw: 'adamw',
  adamw_bnb_8bit: 'adamw-8bit',
  adamw_8bit: 'adamw-8bit',
  adam8bit: 'adamw-8bit',
  ademamix_8bit: 'adamw-8bit',
  paged_adamw: 'paged-adamw',
  paged_adamw_32bit: 'paged-adamw',
  paged_adamw_8bit: 'paged-adamw-8bit',
  adafactor: 'adafactor',
  sgd: 'sgd',
  lion_32bit: 'lion',
  lion_8bit: 'lion',
  paged_lion_32bit: 'lion',
  paged_lion_8bit: 'lion',
};

/** `_component_` class paths of torchtune optimizers. */
export const TORCHTUNE_OPTIMIZERS: Readonly<Record<string, Optimizer>> = {
  'torch.optim.AdamW': 'adamw',
  'torch.optim.Adam': 'adamw',
  'torch.optim.SGD': 'sgd',
  'bitsandbytes.optim.AdamW8bit': 'adamw-8bit',
  'bitsandbytes.optim.Adam8bit': 'adamw-8bit',
  'bitsandbytes.optim.PagedAdamW': 'paged-adamw',
  'bitsandbytes.optim.PagedAdamW32bit': 'paged-adamw',
  'bitsandbytes.optim.PagedAdamW8bit': 'paged-adamw-8bit',
  'bitsandbytes.optim.Lion': 'lion',
  'bitsandbytes.optim.Lion8bit': 'lion',
  'torchao.optim.AdamW8bit': 'adamw-8bit',
  'torchao.prototype.low_bit_optim.AdamW8bit': 'adamw-8bit',
};

/** `attn_implementation` values (transformers) and their scenario attention. */
export const ATTN_IMPLEMENTATIONS: Readonly<Record<string, Attention>> = {
  eager: 'eager',
  sdpa: 'sdpa',
  flash_attention_2: 'flash',
  flash_attention_3: 'flash',
  'kernels-community/flash-attn': 'flash',
  'kernels-community/vllm-flash-attn3': 'flash',
};

/**
 * An Axolotl YAML to scenario fields. Keys follow axolotl/utils/schemas/config.py; the loader
 * (axolotl/loaders/model.py) hard-codes bnb_4bit_quant_type nf4 with double quantization for
 * load_in_4bit, and `bf16: auto` loads the model in bf16 on a bf16-capable GPU with no fp32 upcast
 * (resolve_dtype), so the weights stay 16-bit unless DeepSpeed or FSDP mixed precision keeps fp32 masters.
 */
import type { Method } from '../scenario.js';
import { finiteNumber, has, own, ReportBuilder, textOf, truthy, wholeNumber } from './_builder.js';
import { ATTN_IMPLEMENTATIONS } from './_names.js';
import {
  absorbDeepSpeed,
  type MapperInput,
  mapCheckpointingAndCompile,
  mapHfOptimizer,
  nameList,
} from './_trainer-input.js';
import { because, type ImportReport } from './import-report.js';

/** True when a parsed object looks like an Axolotl config. */
export function looksLikeAxolotl(config: Readonly<Record<string, unknown>>): boolean {
  return (
    has(config, 'base_model') ||
    (has(config, 'micro_batch_size') && has(config, 'sequence_len')) ||
    has(config, 'lora_target_linear')
  );
}

/** Maps an Axolotl config (with its referenced DeepSpeed file, if any) to scenario fields. */
export function mapAxolotlConfig(input: MapperInput): ImportReport {
  const c = input.config;
  const b = new ReportBuilder('axolotl');
  if (typeof c.base_model === 'string') b.map('base_model', c.base_model, 'model', c.base_model);

  const adapter = c.adapter;
  let method: Method = 'full';
  if (adapter === 'lora' || adapter === 'qlora') method = adapter;
  else if (adapter !== undefined && adapter !== null)
    b.skip('adapter', adapter, 'unresolved', because('adapter-not-modelled'));
  // No adapter key: Axolotl fine-tunes every weight.
  b.map('adapter', adapter ?? null, 'method', method);

  if (truthy(c.load_in_4bit)) {
    if (method === 'qlora' || method === 'lora') {
      if (method === 'lora') b.map('load_in_4bit', c.load_in_4bit, 'method', 'qlora');
      method = 'qlora';
      b.map('load_in_4bit', c.load_in_4bit, 'quantization', 'nf4-dq');
    } else b.skip('load_in_4bit', c.load_in_4bit, 'unresolved', because('4bit-needs-qlora'));
  } else if (truthy(c.load_in_8bit)) {
    if (method !== 'full') b.map('load_in_8bit', c.load_in_8bit, 'quantization', 'int8');
    else b.skip('load_in_8bit', c.load_in_8bit, 'unresolved', because('8bit-needs-lora'));
  } else if (truthy(c.gptq)) {
    b.map('gptq', c.gptq, 'quantization', 'int4-gptq');
  }
  if (method === 'qlora' && b.get('quantization') === undefined)
    b.assume('quantization', 'nf4-dq', because('axolotl-qlora-base'));

  if (method === 'lora' || method === 'qlora') {
    const rank = wholeNumber(c.lora_r);
    if (rank !== undefined && rank > 0) b.map('lora_r', c.lora_r, 'lora.rank', rank);
    const alpha = finiteNumber(c.lora_alpha);
    if (alpha !== undefined) b.map('lora_alpha', c.lora_alpha, 'lora.alpha', alpha);
    const dropout = finiteNumber(c.lora_dropout);
    if (dropout !== undefined) b.map('lora_dropout', c.lora_dropout, 'lora.dropout', dropout);
    if (truthy(c.lora_target_linear))
      b.map('lora_target_linear', c.lora_target_linear, 'lora.targets', 'all-linear');
    else {
      const modules = nameList(c.lora_target_modules);
      if (modules && modules.length > 0)
        b.map('lora_target_modules', c.lora_target_modules, 'lora.targets', modules);
    }
    // SCENARIO.md has lora.modulesToSave for these full trainable copies (PEFT ModulesToSaveWrapper).
    const saved = nameList(c.lora_modules_to_save);
    if (saved && saved.length > 0)
      b.map('lora_modules_to_save', c.lora_modules_to_save, 'lora.modulesToSave', saved);
  }

  const micro = wholeNumber(c.micro_batch_size);
  if (micro !== undefined && micro > 0) b.map('micro_batch_size', micro, 'microBatchSize', micro);
  const seq = wholeNumber(c.sequence_len);
  if (seq !== undefined && seq > 0) b.map('sequence_len', seq, 'seqLen', seq);
  const accum = wholeNumber(c.gradient_accumulation_steps);
  if (accum !== undefined && accum > 0) b.map('gradient_accumulation_steps', accum, 'gradAccumSteps', accum);

  // Axolotl defaults to adamw_torch_fused (axolotl PR #2425, "use default torch fused adamw optimizer
  // as default").
  mapHfOptimizer(b, 'optimizer', c.optimizer, because('axolotl-default-optim'));

  const gc = c.gradient_checkpointing;
  if (gc === true || gc === 'true') b.map('gradient_checkpointing', gc, 'gradientCheckpointing', 'full');
  else if (gc === 'unsloth' || gc === 'offload') {
    // Unsloth-style offloaded checkpointing: each checkpointed layer input waits in CPU memory.
    b.map('gradient_checkpointing', gc, 'gradientCheckpointing', 'full');
    b.map('gradient_checkpointing', gc, 'offload.activations', 'cpu');
  } else if (gc === false) b.map('gradient_checkpointing', gc, 'gradientCheckpointing', 'none');

  const impl = c.attn_implementation;
  const implAttention = own(ATTN_IMPLEMENTATIONS, impl);
  if (typeof impl === 'string' && implAttention)
    b.map('attn_implementation', impl, 'attention', implAttention);
  else if (truthy(c.flash_attention)) b.map('flash_attention', c.flash_attention, 'attention', 'flash');
  else if (truthy(c.sdp_attention)) b.map('sdp_attention', c.sdp_attention, 'attention', 'sdpa');
  else if (truthy(c.xformers_attention))
    b.map('xformers_attention', c.xformers_attention, 'attention', 'sdpa');
  else if (typeof impl === 'string')
    b.skip('attn_implementation', impl, 'unresolved', because('attention-not-modelled'));

  if (truthy(c.liger_fused_linear_cross_entropy) || truthy(c.cut_cross_entropy)) {
    const key = truthy(c.cut_cross_entropy) ? 'cut_cross_entropy' : 'liger_fused_linear_cross_entropy';
    b.map(key, c[key], 'loss', 'fused');
  } else if (truthy(c.chunked_cross_entropy))
    b.map('chunked_cross_entropy', c.chunked_cross_entropy, 'loss', 'chunked');

  // Parallelism: FSDP from the fsdp list / fsdp_config, or a DeepSpeed file.
  const fsdp = nameList(c.fsdp);
  const fsdpConfig = (c.fsdp_config ?? {}) as Readonly<Record<string, unknown>>;
  const fsdpOn = (fsdp !== null && fsdp.length > 0) || has(c, 'fsdp_version');
  if (fsdpOn) {
    const sharding = textOf(fsdpConfig.fsdp_sharding_strategy ?? fsdpConfig.sharding_strategy ?? '');
    const reshard = fsdpConfig.fsdp_reshard_after_forward ?? fsdpConfig.reshard_after_forward;
    const gradOp = fsdp?.includes('shard_grad_op') || /SHARD_GRAD_OP|^2$/.test(sharding) || reshard === false;
    const key = sharding ? 'fsdp_config.fsdp_sharding_strategy' : 'fsdp';
    b.map(key, sharding || c.fsdp, 'parallelism.strategy', gradOp ? 'fsdp-grad-op' : 'fsdp');
    const offload =
      truthy(fsdpConfig.fsdp_offload_params) ||
      truthy(fsdpConfig.offload_params) ||
      fsdp?.includes('offload');
    // FSDP CPUOffload(offload_params=True) moves parameters and their gradients; the step runs on the CPU.
    const offloadKey = has(fsdpConfig, 'fsdp_offload_params') ? 'fsdp_config.fsdp_offload_params' : 'fsdp';
    b.map(
      offloadKey,
      offload ? true : (fsdpConfig.fsdp_offload_params ?? null),
      'offload.optimizer',
      offload ? 'cpu' : 'none',
    );
    b.map(
      offloadKey,
      offload ? true : (fsdpConfig.fsdp_offload_params ?? null),
      'offload.params',
      offload ? 'cpu' : 'none',
    );
    b.unmodelled(
      fsdpConfig,
      [
        ['fsdp_cpu_ram_efficient_loading', because('rank0-loading')],
        ['fsdp_use_orig_params', because('fsdp-orig-params')],
      ],
      { prefix: 'fsdp_config.' },
    );
  }
  const ds = absorbDeepSpeed(b, 'deepspeed', c.deepspeed, input);

  // Precision (SCENARIO.md): bf16 auto/true loads the model in bf16 and Axolotl adds no fp32 copy, so
  // adapters sit on a bf16 base and a full fine-tune keeps bf16 weights — unless DeepSpeed or FSDP
  // mixed precision keeps fp32 master weights for a full fine-tune.
  const masters = method === 'full' && (ds.present || fsdpOn);
  const bf16 = c.bf16 === 'auto' || truthy(c.bf16) || truthy(c.bfloat16);
  const fp16 = truthy(c.fp16) || truthy(c.float16);
  if (bf16) {
    const key = c.bf16 !== undefined ? 'bf16' : 'bfloat16';
    b.map(key, c[key], 'precision', masters ? 'bf16-mixed' : 'bf16-true');
  } else if (fp16) {
    const key = c.fp16 !== undefined ? 'fp16' : 'float16';
    b.map(key, c[key], 'precision', masters ? 'fp16-mixed' : 'fp16-true');
  }

  mapCheckpointingAndCompile(b, c);
  // Batches (docs/scenario.md, padding; axolotl src/axolotl/core/builders/causal.py at 067b021c):
  // sample_packing fills each row to sequence_len; pad_to_sequence_len pads every batch to it; otherwise
  // the collator pads to the batch's longest, which the axolotl profile says (axolotl.pad-longest).
  if (truthy(c.sample_packing)) b.map('sample_packing', c.sample_packing, 'padding', 'packed');
  else if (truthy(c.pad_to_sequence_len))
    b.map('pad_to_sequence_len', c.pad_to_sequence_len, 'padding', 'max-length');
  b.unmodelled(c, [['eval_batch_size', because('eval-batch')]], { whenOn: true });
  return b.build();
}

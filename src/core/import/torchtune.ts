/**
 * A torchtune recipe config to scenario fields. The model comes from `model._component_`
 * (torchtune.models.llama3_1.lora_llama3_1_8b → llama-3.1-8b), the recipe (single device or
 * distributed) from the config's header comment or file name, as torchtune's own configs state it.
 * torchtune's LoRA module names map to Hugging Face ones: output_proj → o_proj, and the MLP's
 * w1/w3/w2 → gate_proj/up_proj/down_proj (torchtune/models/convert_weights.py).
 */
import { MODELS } from '../catalog/index.js';
import type { Method } from '../scenario.js';
import { at, finiteNumber, has, own, ReportBuilder, textOf, truthy, wholeNumber } from './_builder.js';
import { TORCHTUNE_OPTIMIZERS } from './_names.js';
import type { MapperInput } from './_trainer-input.js';
import { because, type ImportReport } from './import-report.js';

/** How torchtune writes a family and version in a builder name, and the catalog's spelling. */
const FAMILIES: readonly (readonly [RegExp, (version: string) => string])[] = [
  [/^llama(\d)(?:_(\d))?$/, (v) => `llama-${v}`],
  [/^code_llama(\d)$/, () => 'codellama'],
  [/^qwen(\d)(?:_(\d))?$/, (v) => `qwen${v}`],
  [/^gemma(\d)?$/, (v) => (v ? `gemma-${v}` : 'gemma')],
  [/^phi(\d)?$/, (v) => (v ? `phi-${v}` : 'phi')],
  [/^mistral$/, () => 'mistral'],
];

const LORA_MODULES: Readonly<Record<string, string>> = {
  q_proj: 'q_proj',
  k_proj: 'k_proj',
  v_proj: 'v_proj',
  output_proj: 'o_proj',
};

const CHUNKED_LOSSES = new Set([
  'torchtune.modules.loss.LinearCrossEntropyLoss',
  'torchtune.modules.loss.CEWithChunkedOutputLoss',
  'torchtune.modules.loss.ChunkedCrossEntropyLoss',
]);

/** True when a parsed object looks like a torchtune config (`_component_` builders). */
export function looksLikeTorchtune(config: Readonly<Record<string, unknown>>): boolean {
  return (
    typeof at(config, 'model._component_') === 'string' ||
    typeof at(config, 'tokenizer._component_') === 'string'
  );
}

/**
 * The catalog id for a torchtune model builder, or null when the catalog has no such model.
 * @example catalogIdForTorchtuneModel('torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct') // 'qwen2.5-7b'
 */
export function catalogIdForTorchtuneModel(component: string): string | null {
  const parts = component.split('.');
  const builder = (parts.pop() ?? '').replace(/^q?lora_/, '');
  const family = parts.pop() ?? '';
  for (const [pattern, spell] of FAMILIES) {
    const m = pattern.exec(family);
    if (!m) continue;
    const version = m[2] === undefined ? (m[1] ?? '') : `${m[1]}.${m[2]}`;
    const prefix = family.replace(/\./g, '_');
    const size = builder.startsWith(`${prefix}_`) ? builder.slice(prefix.length + 1) : builder;
    const sizeName = size.replace(/_(instruct|base|chat|it)$/, '').replace(/_/g, '-');
    const candidates = [`${spell(version)}-${sizeName}`];
    if (family === 'mistral') candidates.push(`mistral-${sizeName}-v0.1`);
    // Catalog ids exactly: findModel would also take qwen2-7b for qwen2.5-7b (same shapes, another model).
    for (const id of candidates) {
      if (MODELS.some((m) => m.id === id)) return id;
    }
  }
  return null;
}

/** Which recipe the config is for, from its header comment or file name. */
function recipeKind(input: MapperInput): 'single' | 'distributed' | null {
  const header = input.text
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .join('\n');
  const recipe = /\b(\w+_(?:single_device|distributed))(?:\.py)?\b/.exec(header)?.[1] ?? '';
  if (recipe.endsWith('single_device') || /single_device/.test(input.fileName)) return 'single';
  if (recipe.endsWith('distributed') || /distributed/.test(input.fileName)) return 'distributed';
  return null;
}

/** Maps a torchtune config to scenario fields. */
export function mapTorchtuneConfig(input: MapperInput): ImportReport {
  const c = input.config;
  const b = new ReportBuilder('torchtune');
  const component = at(c, 'model._component_');
  let method: Method = 'full';
  if (typeof component === 'string') {
    const builder = component.split('.').pop() ?? '';
    method = builder.startsWith('qlora_') ? 'qlora' : builder.startsWith('lora_') ? 'lora' : 'full';
    const id = catalogIdForTorchtuneModel(component);
    b.map('model._component_', component, 'model', id ?? component);
    b.map('model._component_', component, 'method', method);
    // torchtune's QLoRA builders quantize the base to NF4 with 8-bit block scales (torchao NF4Tensor).
    if (method === 'qlora') {
      b.map('model._component_', component, 'quantization', 'nf4-dq');
      b.map('model._component_', component, 'quantizer', 'torchao');
    }
  }
  if (method === 'lora' || method === 'qlora') {
    const rank = wholeNumber(at(c, 'model.lora_rank'));
    if (rank !== undefined && rank > 0) b.map('model.lora_rank', rank, 'lora.rank', rank);
    // torchtune builds the adapters under its training dtype (the recipes validate they are in it).
    b.map('model._component_', component, 'lora.adapterDtype', 'model');
    const alpha = finiteNumber(at(c, 'model.lora_alpha'));
    if (alpha !== undefined) b.map('model.lora_alpha', alpha, 'lora.alpha', alpha);
    const dropout = finiteNumber(at(c, 'model.lora_dropout'));
    if (dropout !== undefined) b.map('model.lora_dropout', dropout, 'lora.dropout', dropout);
    const attn = at(c, 'model.lora_attn_modules');
    const targets: string[] = [];
    if (Array.isArray(attn)) {
      for (const name of attn) {
        const hf = own(LORA_MODULES, name);
        if (hf) targets.push(hf);
        else
          b.skip(
            'model.lora_attn_modules',
            name,
            'unresolved',
            because('not-attention-projection', { name: textOf(name) }),
          );
      }
    }
    if (truthy(at(c, 'model.apply_lora_to_mlp'))) targets.push('gate_proj', 'up_proj', 'down_proj');
    if (truthy(at(c, 'model.apply_lora_to_output'))) targets.push('lm_head');
    if (targets.length > 0) b.map('model.lora_attn_modules', attn, 'lora.targets', targets);
  }

  const batch = wholeNumber(c.batch_size);
  if (batch !== undefined && batch > 0) b.map('batch_size', batch, 'microBatchSize', batch);
  const accum = wholeNumber(c.gradient_accumulation_steps);
  if (accum !== undefined && accum > 0) b.map('gradient_accumulation_steps', accum, 'gradAccumSteps', accum);
  const maxSeq = at(c, 'tokenizer.max_seq_len');
  const seq = wholeNumber(maxSeq);
  if (seq !== undefined && seq > 0) b.map('tokenizer.max_seq_len', maxSeq, 'seqLen', seq);
  else if (has(c, 'tokenizer.max_seq_len'))
    b.skip('tokenizer.max_seq_len', maxSeq, 'no-field', because('no-sequence-cap'));

  const dtype = c.dtype;
  if (dtype === 'bf16') b.map('dtype', dtype, 'precision', 'bf16-true');
  else if (dtype === 'fp32') b.map('dtype', dtype, 'precision', 'fp32');
  else if (dtype !== undefined) b.skip('dtype', dtype, 'unresolved', because('torchtune-dtype'));

  const optimizer = at(c, 'optimizer._component_');
  if (typeof optimizer === 'string') {
    let mapped = own(TORCHTUNE_OPTIMIZERS, optimizer);
    if (mapped === 'sgd' && (finiteNumber(at(c, 'optimizer.momentum')) ?? 0) > 0) mapped = 'sgd-momentum';
    if (mapped) b.map('optimizer._component_', optimizer, 'optimizer', mapped);
    else b.skip('optimizer._component_', optimizer, 'unresolved', because('optimizer-not-modelled'));
    // torch.optim.AdamW / SGD with fused: True (the recipes' AdamW) step without a state-sized temporary.
    const fused = at(c, 'optimizer.fused');
    if ((mapped === 'adamw' || mapped?.startsWith('sgd')) && fused !== undefined && fused !== null)
      b.map('optimizer.fused', fused, 'fusedOptimizer', truthy(fused));
  }
  const loss = at(c, 'loss._component_');
  if (typeof loss === 'string') {
    if (CHUNKED_LOSSES.has(loss)) b.map('loss._component_', loss, 'loss', 'chunked');
    else if (loss === 'torch.nn.CrossEntropyLoss') b.map('loss._component_', loss, 'loss', 'standard');
    else b.skip('loss._component_', loss, 'unresolved', because('loss-not-modelled'));
  }
  // optimizer_in_bwd: True fuses the step into backward; False is the default, said explicitly.
  if (has(c, 'optimizer_in_bwd')) {
    const inBwd = truthy(c.optimizer_in_bwd);
    b.map('optimizer_in_bwd', c.optimizer_in_bwd, 'optimizerInBackward', inBwd);
  }
  const ac = c.enable_activation_checkpointing;
  if (ac !== undefined)
    b.map('enable_activation_checkpointing', ac, 'gradientCheckpointing', truthy(ac) ? 'full' : 'none');

  const recipe = recipeKind(input);
  if (recipe === 'single') {
    b.map('(recipe)', 'single_device', 'parallelism.strategy', 'single');
    b.map('(recipe)', 'single_device', 'parallelism.gpus', 1);
  } else if (recipe === 'distributed') {
    // FSDP2 fully_shard; fsdp_reshard_after_forward false keeps parameters gathered (SHARD_GRAD_OP).
    const reshard = c.fsdp_reshard_after_forward;
    const strategy = reshard === false ? 'fsdp-grad-op' : 'fsdp';
    b.map(
      reshard === undefined ? '(recipe)' : 'fsdp_reshard_after_forward',
      reshard ?? 'distributed',
      'parallelism.strategy',
      strategy,
    );
    if (has(c, 'fsdp_cpu_offload')) {
      const target = truthy(c.fsdp_cpu_offload) ? 'cpu' : 'none';
      b.map('fsdp_cpu_offload', c.fsdp_cpu_offload, 'offload.optimizer', target);
      b.map('fsdp_cpu_offload', c.fsdp_cpu_offload, 'offload.params', target);
    } else {
      const unset = because('trainer-default', {
        key: 'fsdp_cpu_offload',
        trainer: 'torchtune',
        value: 'False',
      });
      b.assume('offload.optimizer', 'none', unset);
      b.assume('offload.params', 'none', unset);
    }
  }
  // torchtune's FSDP2 recipes reduce-scatter after every backward; they never enter no_sync().
  if (recipe === 'distributed' && (accum ?? 1) > 1)
    b.assume('parallelism.syncEachMicroBatch', true, because('torchtune-sync-each'));
  // custom_sharded_layers makes the embeddings and the output head FSDP units of their own.
  const custom = c.custom_sharded_layers;
  if (recipe === 'distributed' && Array.isArray(custom)) {
    if (custom.includes('tok_embeddings') && custom.includes('output'))
      b.map('custom_sharded_layers', custom, 'parallelism.wrapEmbeddings', true);
    else b.skip('custom_sharded_layers', custom, 'no-field', because('partial-root-sharding'));
  }
  b.assume('attention', 'sdpa', because('torchtune-sdpa'));
  // OffloadActivations (training/_activation_offloading.py): saved activations wait in pinned CPU memory.
  // Mapped on and off alike: the recipes write it either way.
  if (has(c, 'enable_activation_offloading'))
    b.map(
      'enable_activation_offloading',
      c.enable_activation_offloading,
      'offload.activations',
      truthy(c.enable_activation_offloading) ? 'cpu' : 'none',
    );

  // compile: True compiles the model and the loss; newer recipes write {model, loss, …}, and the loss's
  // part is what the estimate models. Mapped on and off alike.
  if (typeof c.compile === 'boolean') b.map('compile', c.compile, 'torchCompile', c.compile);
  else if (has(c, 'compile.loss'))
    b.map('compile.loss', at(c, 'compile.loss'), 'torchCompile', truthy(at(c, 'compile.loss')));
  // Batches (docs/scenario.md, padding): dataset.packed fills each row to tokenizer.max_seq_len
  // (torchtune/datasets/_packed.py, PackedDataset); unpacked rows are padded to the batch's longest
  // (torchtune.pad-longest).
  if (has(c, 'dataset.packed'))
    b.map(
      'dataset.packed',
      at(c, 'dataset.packed'),
      'padding',
      truthy(at(c, 'dataset.packed')) ? 'packed' : 'longest',
    );
  return b.build();
}

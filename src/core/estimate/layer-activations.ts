/**
 * Activations of one decoder layer: the bytes it saves for backward per token, tensor by tensor (after
 * Korthikanti et al. 2022 §4, adapted to SwiGLU, GQA, RMSNorm, SDPA/flash kernels, frozen weights and
 * LoRA adapters; docs/memory-model.md).
 */
import type { LinearRole, ModelShape } from '../architecture.js';
import type { Scenario } from '../scenario.js';
import type { PrecisionPlan } from './precision.js';
import type { TrainingPlan } from './training.js';

export interface LayerContext {
  readonly shape: ModelShape;
  readonly e: number;
  readonly scenario: Scenario;
  /** Weights of this layer are trained (full / freeze). */
  readonly layerTrained: boolean;
  readonly adapted: TrainingPlan['adapted'];
  /**
   * The quantized linears keep their input although their weight is frozen: bitsandbytes' MatMul8bitLt,
   * and MatMul4Bit before 0.43.2 (`ctx.tensors = (A, B)`; bitsandbytes PR #1270 made it `(None, B)`).
   */
  readonly quantizedSavesInputs: boolean;
  /**
   * Bytes per element of the residual stream. Under autocast with fp32 weights it stays fp32: the
   * fp32 embedding output, and HF's RMSNorm returns `weight * x.to(input_dtype)` in the input's fp32,
   * so a trained norm saves its normalized input in 4 bytes (measured: h200-005/006, 4 % under
   * without it).
   */
  readonly residualBytes: number;
  /**
   * Bytes per element of the copy of its input each LoRA adapter keeps for lora_A's weight gradient,
   * or null when the adapters read the layer's input tensor itself (see adapterInputCopyBytes).
   */
  readonly adapterInputCopy: number | null;
}

/**
 * Whether each LoRA adapter keeps its own copy of its input, and in how many bytes per element.
 * PEFT casts a layer's input to lora_A's dtype before the adapter (peft/tuners/lora/layer.py
 * Linear.forward: `x = self._cast_input_dtype(x, lora_A.weight.dtype)`), and keeps adapters in fp32 on
 * a 16-bit base (autocast_adapter_dtype=True): without autocast every adapted module saves its own
 * fp32 copy. Under autocast every lora_A call casts its input to 16 bits again (autocast caches the
 * casts of weights only, autocast_mode.cpp cached_cast), so each adapter saves its own 16-bit copy.
 * Adapters in the compute dtype (lora.adapterDtype "model", or fp32 training) read the input itself,
 * shared by every adapter on it. Measured on the H200 (bench/gpu, rows h200-015/028/043 against
 * h200c-007/008): fp32 adapters on a bf16 base hold 4 bytes per adapted input element, not a shared 2.
 */
export function adapterInputCopyBytes(scenario: Scenario, plan: PrecisionPlan): number | null {
  if (!scenario.lora) return null;
  if (plan.autocastCopies) return plan.computeBytes;
  if (plan.computeBytes === 4 || scenario.lora.adapterDtype === 'model') return null;
  return 4;
}

function isAdapted(ctx: LayerContext, role: LinearRole): boolean {
  for (const a of ctx.adapted.values()) if (a.roles.includes(role)) return true;
  return false;
}

/** The adapters on a list of roles, in the adapter map's order (their input widths), and whether any. */
interface AdaptersOn {
  readonly inFeatures: readonly number[];
  readonly any: boolean;
}

function adaptersOn(adapted: TrainingPlan['adapted'], roles: readonly LinearRole[]): AdaptersOn {
  const inFeatures: number[] = [];
  for (const a of adapted.values()) if (a.roles.some((r) => roles.includes(r))) inFeatures.push(a.inFeatures);
  return { inFeatures, any: inFeatures.length > 0 };
}

/** The adapters on each role list a layer asks about (the constants below), by the MLP's kind. */
type LayerAdapters = Readonly<
  Record<
    ModelShape['mlp'],
    {
      readonly qkv: AdaptersOn;
      /** Which of q, k and v carry an adapter (litgpt's LoRAQKVLinear enables each on its own). */
      readonly qkvParts: readonly LinearRole[];
      readonly parallelIn: AdaptersOn;
      readonly o: AdaptersOn;
      readonly mlpIn: AdaptersOn;
      readonly mlp: AdaptersOn;
      readonly down: AdaptersOn;
    }
  >
>;

function layerAdaptersOf(adapted: TrainingPlan['adapted']): LayerAdapters {
  const of = (mlp: ModelShape['mlp']) => ({
    qkv: adaptersOn(adapted, QKV_ROLES),
    qkvParts: QKV_ROLES.filter((role) => [...adapted.values()].some((a) => a.roles.includes(role))),
    parallelIn: adaptersOn(adapted, PARALLEL_IN_ROLES[mlp]),
    o: adaptersOn(adapted, O_ROLES),
    mlpIn: adaptersOn(adapted, MLP_IN_ROLES[mlp]),
    mlp: adaptersOn(adapted, MLP_ROLES[mlp]),
    down: adaptersOn(adapted, DOWN_ROLES),
  });
  return { gated: of('gated'), plain: of('plain') };
}

/**
 * The layer adapters found once per adapter map (training.ts keeps one per LoRA config and shape), not
 * by scanning the map on every estimate (bench:speed); the WeakMap lets them go with their map.
 */
const LAYER_ADAPTERS = new WeakMap<TrainingPlan['adapted'], LayerAdapters>();
let noAdapters: LayerAdapters | undefined;

function layerAdapters(adapted: TrainingPlan['adapted']): LayerAdapters {
  if (adapted.size === 0) {
    noAdapters ??= layerAdaptersOf(adapted);
    return noAdapters;
  }
  let found = LAYER_ADAPTERS.get(adapted);
  if (!found) {
    found = layerAdaptersOf(adapted);
    LAYER_ADAPTERS.set(adapted, found);
  }
  return found;
}

/**
 * Bytes a LoRA adapter saves per token beyond a shared input: its own copy of the input (cast, or
 * dropped out, with a 1-byte mask) and the rank-r A output, in the adapter's compute dtype.
 */
function adapterSavedBytes(ctx: LayerContext, on: AdaptersOn): number {
  const lora = ctx.scenario.lora;
  if (!lora) return 0;
  const copy = ctx.adapterInputCopy;
  let bytes = 0;
  for (const inFeatures of on.inFeatures) {
    // PEFT applies nn.Dropout before lora_A, to the cast input: a dropped-out copy and a 1-byte mask.
    if (lora.dropout > 0) bytes += ((copy ?? ctx.e) + 1) * inFeatures;
    else if (copy !== null) bytes += copy * inFeatures;
    bytes += (copy ?? ctx.e) * lora.rank;
  }
  return bytes;
}

/**
 * Bytes litgpt's LoRAQKVLinear saves per token (litgpt/lora.py @26857050, the same at lit-gpt 8641822):
 * one adapter on the fused qkv linear, so one dropped-out copy of the layer's input (with its 1-byte
 * mask) and one lora_A output of rank r per enabled part, however many of q, k and v it adapts. When
 * not all three are enabled, zero_pad writes lora_B's output into a zero qkv-wide tensor with
 * index_copy, and index_copy's backward keeps that `source` whole: its gradient formula is
 * `grad.index_select(dim, index).expand_as(source)` (pytorch tools/autograd/derivatives.yaml), and the
 * autograd codegen saves a tensor a formula uses other than through its sizes or dim
 * (tools/autograd/load_derivatives.py, saved_variables).
 */
function litgptQkvAdapterBytes(ctx: LayerContext, parts: readonly LinearRole[], widths: QkvWidths): number {
  const lora = ctx.scenario.lora;
  if (!lora || parts.length === 0) return 0;
  const copy = ctx.adapterInputCopy;
  const element = copy ?? ctx.e;
  let bytes = element * lora.rank * parts.length;
  if (lora.dropout > 0) bytes += (element + 1) * ctx.shape.hiddenSize;
  else if (copy !== null) bytes += copy * ctx.shape.hiddenSize;
  if (parts.length < 3) {
    for (const part of parts)
      bytes += element * (part === 'q_proj' ? widths.q : part === 'k_proj' ? widths.k : widths.v);
  }
  return bytes;
}

/** The output widths of the q, k and v projections. */
interface QkvWidths {
  readonly q: number;
  readonly k: number;
  readonly v: number;
}

/**
 * Whether a linear's input tensor itself is kept for backward. Autograd saves a linear's input only to
 * compute its weight's gradient, so a frozen 16-bit base does not keep it (derivatives.yaml: mm saves
 * `self` only when mat2 needs a gradient). A LoRA adapter keeps it when it reads the input directly;
 * with dropout > 0 it reads the dropped-out copy instead, and adapterSavedBytes counts that copy.
 */
function needsInput(ctx: LayerContext, on: AdaptersOn): boolean {
  const adapterReadsInput =
    (ctx.scenario.lora?.dropout ?? 0) === 0 && ctx.adapterInputCopy === null && on.any;
  return ctx.layerTrained || ctx.quantizedSavesInputs || adapterReadsInput;
}

/**
 * fp32 with grouped KV heads: Hugging Face hands SDPA the grouped K/V with enable_gqa=True
 * (integrations/sdpa_attention.py use_gqa_in_sdpa), and PyTorch's fused kernels take neither fp32 and
 * GQA together (flash and cuDNN need 16 bits; memory-efficient has no GQA), so SDPA runs its math path,
 * which saves the fp32 softmax output: 4·a·s bytes per token and layer. Seen on the H200
 * (bench/gpu/probe_attention.py: softmax_warp_forward and fp32 GEMMs instead of cuDNN's flash kernel;
 * rows h200-011, h200c-013). Selective checkpointing recomputes it.
 */
export function sdpaMathPathBytesPerToken(
  scenario: Scenario,
  shape: ModelShape,
  computeBytes: number,
): number {
  const mathPath =
    scenario.attention === 'sdpa' &&
    computeBytes === 4 &&
    shape.numKvHeads < shape.numHeads &&
    scenario.gradientCheckpointing !== 'selective';
  return mathPath ? 4 * shape.numHeads * scenario.seqLen : 0;
}

/** Bytes a norm saves per token: RMSNorm upcasts to fp32 and keeps that input (HF LlamaRMSNorm). */
function normSavedBytes(ctx: LayerContext, recomputed: boolean): number {
  const h = ctx.shape.hiddenSize;
  if (recomputed) return 0;
  // RMSNorm written in Python (HF LlamaRMSNorm, litgpt RMSNorm) ends with `weight * normalized`: when
  // the weight trains, that multiply also keeps the 16-bit normalized tensor for the weight's gradient.
  // LayerNorm's fused kernel rebuilds it from the saved input, mean and rstd.
  if (ctx.shape.norm === 'rms') return 4 * h + (ctx.layerTrained ? ctx.residualBytes * h : 0);
  return ctx.e * h;
}

// The role lists the layer's blocks ask about, made once (not per estimate).
const QKV_ROLES: readonly LinearRole[] = ['q_proj', 'k_proj', 'v_proj'];
const O_ROLES: readonly LinearRole[] = ['o_proj'];
const DOWN_ROLES: readonly LinearRole[] = ['down_proj'];
const MLP_IN_ROLES = { gated: ['gate_proj', 'up_proj'], plain: ['up_proj'] } as const satisfies Record<
  ModelShape['mlp'],
  readonly LinearRole[]
>;
/** A parallel block's one norm feeds q/k/v and the MLP's input together. */
const PARALLEL_IN_ROLES = {
  gated: [...QKV_ROLES, ...MLP_IN_ROLES.gated],
  plain: [...QKV_ROLES, ...MLP_IN_ROLES.plain],
} as const satisfies Record<ModelShape['mlp'], readonly LinearRole[]>;
const MLP_ROLES = {
  gated: [...MLP_IN_ROLES.gated, 'down_proj'],
  plain: [...MLP_IN_ROLES.plain, 'down_proj'],
} as const satisfies Record<ModelShape['mlp'], readonly LinearRole[]>;

/**
 * Saved bytes per token of one decoder layer. Tensor by tensor, after Korthikanti et al. 2022 §4,
 * adapted to SwiGLU, GQA, RMSNorm, SDPA/flash kernels and frozen weights (docs/memory-model.md).
 */
export function layerActivationBytesPerToken(ctx: LayerContext): number {
  const { shape, e, scenario } = ctx;
  const h = shape.hiddenSize;
  const s = scenario.seqLen;
  const a = shape.numHeads;
  const qDim = a * shape.headDim;
  const selective = scenario.gradientCheckpointing === 'selective';
  const litgpt = scenario.modelCode === 'litgpt';
  // HF's SDPA and eager paths repeat K/V to every query head before the kernel (repeat_kv); the
  // flash-attention path keeps the grouped heads. litgpt repeats them on every path in training
  // (CausalSelfAttention.forward: repeat_interleave when n_query_groups != n_head).
  const kvHeads = scenario.attention === 'flash' && !litgpt ? shape.numKvHeads : a;
  // litgpt computes soft-capped attention itself, never through SDPA ("with softcapping we cannot use
  // SDPA": CausalSelfAttention.scaled_dot_product_attention, litgpt/model.py @26857050 and @00af8b0d):
  // q @ k.mT, tanh, softmax in fp32, .to(q.dtype), @ v, the same tensors as eager attention keeps.
  const eager = scenario.attention === 'eager' || (litgpt && shape.attnLogitSoftcap === true);
  const kDim = kvHeads * shape.headDim;
  const vDim = kvHeads * shape.valueHeadDim;
  const oIn = a * shape.valueHeadDim;
  let bytes = 0;

  // Attention block: norm, q/k/v input, attention core, o_proj input.
  const parallelBlock = shape.normsPerLayer === 1; // Falcon-7B, Phi: attention and MLP share one norm
  bytes += normSavedBytes(ctx, selective);
  const on = layerAdapters(ctx.adapted)[shape.mlp === 'gated' ? 'gated' : 'plain'];
  if (needsInput(ctx, parallelBlock ? on.parallelIn : on.qkv) || selective) bytes += e * h;
  bytes += litgpt
    ? litgptQkvAdapterBytes(ctx, on.qkvParts, {
        q: qDim,
        k: shape.numKvHeads * shape.headDim,
        v: shape.numKvHeads * shape.valueHeadDim,
      })
    : adapterSavedBytes(ctx, on.qkv);
  if (shape.qkNorm && !selective) bytes += 4 * (qDim + shape.numKvHeads * shape.headDim);
  // SDPA / flash: q, k, v, output and an fp32 log-sum-exp per head (FlashAttention-2 backward inputs).
  bytes += e * (qDim + kDim + vDim + oIn) + 4 * a;
  // A fused q/k/v projection: v reaches SDPA as a slice of the qkv output (HF modeling_phi3.py splits
  // qkv by slicing), so saving v keeps the whole output alive, its q and k parts beside the rotated
  // copies. Eager attention over grouped heads copies v in repeat_kv, which lets the output go.
  // Measured on the H200: Phi-3-mini LoRA on qkv_proj and o_proj was 6 % under without it (h200c-017).
  // litgpt's GPT fuses qkv for every model; with as many KV heads as query heads its v is a view of
  // that output (split, view, transpose: litgpt/model.py @26857050; permute, split, reshape at lit-gpt
  // 8641822), while grouped heads are copied by repeat_interleave (expand + reshape at 8641822).
  const qkvKept = litgpt ? shape.numKvHeads === a : shape.fusedQkv && !(eager && shape.numKvHeads < a);
  if (qkvKept && !selective) bytes += e * (qDim + shape.numKvHeads * shape.headDim);
  if (eager && !selective) {
    // Eager softmax in fp32 keeps its output, and the 16-bit probabilities feed the PV matmul (HF
    // eager_attention_forward: softmax(dtype=float32).to(query.dtype)).
    bytes += (4 + e) * a * s;
    // Soft-capped scores (Gemma-2's eager_attention_forward: tanh(scores / cap) · cap) keep the tanh
    // output too. Measured on the H200: Gemma-2-2B eager was 7 % under without it (row h200-024).
    if (shape.attnLogitSoftcap) bytes += e * a * s;
  }
  // litgpt hands SDPA K/V already repeated to every head, so fp32 takes the memory-efficient kernel.
  if (!eager && !litgpt) bytes += sdpaMathPathBytesPerToken(scenario, shape, e);
  bytes += adapterSavedBytes(ctx, on.o);

  // MLP block.
  const extraNorms = Math.max(0, shape.normsPerLayer - 2); // Gemma-2/3 post-norms
  if (!parallelBlock) {
    bytes += normSavedBytes(ctx, selective);
    if (needsInput(ctx, on.mlpIn) || selective) bytes += e * h;
  }
  bytes += extraNorms * normSavedBytes(ctx, selective);
  bytes += adapterSavedBytes(ctx, on.mlp);
  const moe = shape.moe;
  const routedWidth = moe
    ? moe.expertIntermediateSize * moe.topK + moe.expertIntermediateSize * moe.sharedExperts
    : shape.intermediateSize;
  const downInput = needsInput(ctx, on.down);
  if (shape.mlp === 'gated') {
    // gate output (activation input), activation output and up output (the product's operands),
    // and the product itself when down_proj needs its input. Selective recomputes the elementwise ops.
    bytes += e * routedWidth * (selective ? 2 : 3) + (downInput && !selective ? e * routedWidth : 0);
  } else {
    // Activation input (fc1 output), and its output when down_proj needs its input.
    bytes += e * routedWidth + (downInput && !selective ? e * routedWidth : 0);
  }
  if (moe) {
    // Router logits in fp32, and each routed copy of the token's hidden state (dispatch and combine).
    bytes += 4 * moe.numExperts + 2 * e * h * moe.topK;
  }
  return bytes;
}

/**
 * The widths of one decoder layer's matmul outputs in forward order, each LoRA adapter's two (lora_A's
 * rank, lora_B's output) right after its base layer's (PEFT lora.Linear.forward: base_layer(x), then
 * lora_B(lora_A(dropout(x)))). Llama order: q, k, v, o, gate, up, down (torchtitan: wq wk wv wo w1 w3
 * w2, `w2(silu(w1(x)) * w3(x))`).
 */
function matmulWidths(ctx: LayerContext): number[] {
  const { shape } = ctx;
  const h = shape.hiddenSize;
  const rank = ctx.scenario.lora?.rank ?? 0;
  const moe = shape.moe;
  const f = moe ? moe.expertIntermediateSize * (moe.topK + moe.sharedExperts) : shape.intermediateSize;
  const kv = shape.numKvHeads * shape.headDim;
  const v = shape.numKvHeads * shape.valueHeadDim;
  const layers: [LinearRole[], number][] = shape.fusedQkv
    ? [[['q_proj', 'k_proj', 'v_proj'], shape.numHeads * shape.headDim + kv + v]]
    : [
        [['q_proj'], shape.numHeads * shape.headDim],
        [['k_proj'], kv],
        [['v_proj'], v],
      ];
  layers.push([['o_proj'], h]);
  if (shape.mlp === 'gated') layers.push([['gate_proj'], f], [['up_proj'], f]);
  else layers.push([['up_proj'], f]);
  layers.push([['down_proj'], h]);
  const widths: number[] = [];
  for (const [roles, width] of layers) {
    widths.push(width);
    if (rank > 0 && roles.some((r) => isAdapted(ctx, r))) widths.push(rank, width);
  }
  return widths;
}

/**
 * Saved bytes per token of one decoder layer under op-level selective checkpointing as torchtitan
 * applies it (torchtitan/parallelisms/parallelize_llama.py @9dec370, _apply_ac_to_transformer_block,
 * selective_ac_option = "op"): the policy saves the outputs of the ops in _save_list (aten.mm, SDPA's
 * flash and memory-efficient kernels, reduce_scatter, abs and max for float8) except every second mm,
 * counted per block (`meta["forward_mm_count"] % 2 == 0` is recomputed), and recomputes the rest in
 * backward. Kept: the block's input (non-reentrant checkpoint keeps the inputs of the function it
 * recomputes), the 1st, 3rd, 5th… mm outputs, and SDPA's output with its fp32 log-sum-exp per head.
 * Eager attention runs bmm and softmax, which the list does not name: nothing of it is kept. For
 * Llama (q k v o gate up down) that is e·(4h + kv + f) + 4·heads.
 */
export function opSelectiveBytesPerToken(ctx: LayerContext): number {
  const { shape, e, scenario } = ctx;
  let bytes = ctx.residualBytes * shape.hiddenSize;
  matmulWidths(ctx).forEach((width, index) => {
    if (index % 2 === 0) bytes += e * width;
  });
  if (scenario.attention !== 'eager') bytes += e * shape.numHeads * shape.valueHeadDim + 4 * shape.numHeads;
  return bytes;
}

/**
 * Bytes per token of the distinct inputs of one decoder layer's quantized linears: the q/k/v input,
 * o_proj's input, the MLP's input (shared with q/k/v in a parallel block with one norm) and down_proj's.
 */
export function quantizedInputBytesPerToken(shape: ModelShape, e: number): number {
  const h = shape.hiddenSize;
  const moe = shape.moe;
  const mlpInputs =
    shape.normsPerLayer === 1 ? 0 : moe ? h * (moe.topK + (moe.sharedExperts > 0 ? 1 : 0)) : h;
  const downInputs = moe
    ? moe.expertIntermediateSize * (moe.topK + moe.sharedExperts)
    : shape.intermediateSize;
  return e * (h + shape.numHeads * shape.valueHeadDim + mlpInputs + downInputs);
}

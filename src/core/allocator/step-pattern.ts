/**
 * What one training step of a decoder asks the allocator for, tensor by tensor, as bytes per token (the
 * activations, which scale with the batch's length) or whole bytes (weights, gradients), and the order
 * it asks and gives back: forward keeps each layer's saved tensors and drops its temporaries, the loss
 * keeps the logits, backward makes each layer's activation gradients and frees what the layer saved,
 * reverse order, and the weight gradients live until the optimizer step's zero_grad. A full fine-tune
 * also trains the head (its gradient made first in backward) and the embedding (its gradient last). The tensors are
 * those of a Hugging Face Llama-style layer (docs/memory-model.md §5); the allocator simulation replays
 * them (replay.ts). docs/allocator.md.
 */
import type { ModelShape } from '../architecture.js';

export interface StepPattern {
  readonly layers: number;
  /** Each decoder layer's tensors saved for backward, bytes per token, in the order forward makes them. */
  readonly savedPerToken: readonly number[];
  /** Forward's temporaries in a layer, bytes per token: each lives until the next one is made. */
  readonly forwardTempPerToken: readonly number[];
  /** Backward's activation gradients in a layer, bytes per token: each lives until the next one is made. */
  readonly backwardTempPerToken: readonly number[];
  /** Full checkpointing: forward keeps the layer's input alone and backward rebuilds its saved tensors. */
  readonly recompute: boolean;
  /**
   * What the loss makes in forward and gives back before backward (the 16-bit logits the caller drops,
   * the fp32 upcast), bytes per token: made before the saved ones, freed once those exist.
   */
  readonly lossDroppedPerToken: readonly number[];
  /** What the loss keeps from forward to backward (the log-softmax output), bytes per token. */
  readonly lossSavedPerToken: readonly number[];
  /** The loss's fp32 backward temporaries (the gradients of the log-softmax output and of the upcast), bytes per token. */
  readonly lossBackwardPerToken: readonly number[];
  /**
   * The gradient of the 16-bit logits (the upcast's backward casts the fp32 one down), bytes per token:
   * made after the fp32 temporaries are freed, freed once the last hidden state's gradient exists.
   */
  readonly lossLogitGradientPerToken: readonly number[];
  /** Weight tensors held all run (bytes). */
  readonly weightBytes: readonly number[];
  /** Each layer's weight gradients (bytes): made in its backward, freed at zero_grad. */
  readonly gradientBytesPerLayer: readonly number[];
  /**
   * The head's weight gradient (bytes; 0 when the head is frozen): made in lm_head's backward, before the
   * layers', held to zero_grad. With tied embeddings it is the shared matrix's gradient.
   */
  readonly headGradientBytes: number;
  /**
   * The embedding's dense gradient (bytes; 0 when frozen), made last in backward (embedding_dense_backward
   * allocates a zeroed vocabulary × hidden tensor and adds the tokens' rows into it).
   */
  readonly embeddingGradientBytes: number;
  /**
   * The head is the embedding (tie_word_embeddings): one weight, one AccumulateGrad. The embedding's
   * gradient arrives second and, grad mode being off in backward, is added in place into the head's
   * (torch/csrc/autograd/functions/accumulate_grad.h, accumulateGrad: `variable_grad += new_grad`), then
   * freed; untied, it is its own gradient, held to zero_grad.
   */
  readonly tiedEmbeddings: boolean;
  /**
   * Autocast's 16-bit copies of a layer's fp32 weight matrices (bytes; none without fp32 weights): made
   * as forward reaches each linear, saved for its backward (mm keeps the cast weight to form the
   * input's gradient), freed with the layer's saved tensors. Under full checkpointing forward saves
   * nothing, so they live in autocast's cache until forward ends, and the recompute casts them again.
   */
  readonly castCopyBytesPerLayer: readonly number[];
}

export interface PatternOptions {
  /** Bytes per element of activations (2 for bf16). */
  readonly e: number;
  /**
   * Bytes per element of the weights, their gradients and so the optimizer's states: e (16-bit
   * weights) unless given; 4 for fp32 weights trained under autocast (-mixed), which also makes a
   * 16-bit copy of each weight matrix in forward (castCopyBytesPerLayer).
   */
  readonly weightElementBytes?: number;
  readonly loss: 'standard' | 'chunked' | 'fused';
  readonly checkpointing: boolean;
  /** Every weight trains (full fine-tuning): its gradient is allocated in backward. Otherwise LoRA-sized gradients. */
  readonly fullGradients: boolean;
  /** LoRA rank for the adapters' weights and gradients on q and v (when not full). */
  readonly loraRank: number;
  /**
   * Scale the saved tensors so one layer saves this many bytes per token (the estimator's figure,
   * layer-activations.ts), keeping their proportions.
   */
  readonly savedBytesPerToken?: number;
}

/** Chunks of a chunked cross-entropy (torchtune CEWithChunkedOutputLoss num_output_chunks = 8). */
const LOSS_CHUNKS = 8;

/** A Llama-style decoder layer's tensors (HF modeling_llama.py with SDPA), dense MLP. */
export function decoderStepPattern(
  shape: Pick<
    ModelShape,
    | 'hiddenSize'
    | 'numLayers'
    | 'numHeads'
    | 'numKvHeads'
    | 'headDim'
    | 'valueHeadDim'
    | 'vocabSize'
    | 'intermediateSize'
    | 'tiedEmbeddings'
  >,
  options: PatternOptions,
): StepPattern {
  const { e } = options;
  const h = shape.hiddenSize;
  const q = shape.numHeads * shape.headDim;
  const kv = shape.numKvHeads * shape.headDim;
  const o = shape.numHeads * shape.valueHeadDim;
  const I = shape.intermediateSize;
  const V = shape.vocabSize;
  // RMSNorm's fp32 input, the normed q/k/v input, rotated q and k, v (SDPA repeats grouped heads), the
  // attention output and its log-sum-exp, the second norm's input, the MLP input, gate, up, activation
  // and product.
  let saved = [
    4 * h,
    e * h,
    e * q,
    e * q,
    e * q,
    e * o,
    4 * shape.numHeads,
    4 * h,
    e * h,
    e * I,
    e * I,
    e * I,
    e * I,
  ];
  if (options.savedBytesPerToken !== undefined) {
    const sum = saved.reduce((a, b) => a + b, 0);
    const scale = options.savedBytesPerToken / sum;
    saved = saved.map((b) => b * scale);
  }
  // q/k/v before RoPE, o_proj's output, the residual sum, down_proj's output and the second residual.
  const forwardTemp = [e * q, e * kv, e * kv, 4 * h, e * h, e * h, e * h, e * h];
  // The gradients of the MLP's intermediates, of its input, of the attention's q/k/v and output, of the
  // norms' fp32 inputs, and the residual's.
  const backwardTemp = [e * h, e * I, e * I, e * I, 4 * h, e * h, e * o, e * q, e * q, e * q, 4 * h, e * h];
  const w = options.weightElementBytes ?? e;
  const matrices = [h * q, h * kv, h * kv, o * h, h * I, h * I, I * h];
  const perLayerWeights = matrices.map((n) => n * w);
  const loraWeights = [h + q, h + kv].map((n) => n * options.loraRank * 4);
  let lossDropped: number[] = [];
  let lossSaved: number[] = [];
  let lossBackward: number[] = [];
  let lossLogitGradient: number[] = [];
  switch (options.loss) {
    case 'standard':
      // Hugging Face's loss (transformers loss/loss_utils.py ForCausalLMLoss, 4.46 on): the 16-bit
      // logits from lm_head, `logits = logits.float()`, then nn.functional.cross_entropy, which is
      // log_softmax (its output saved: LogSoftmaxBackward uses the result) and nll_loss. The model
      // returns the loss and the trainer keeps only it, so the logits and their upcast are freed before
      // backward. Backward: nll_loss's gradient (zeros_like the log-softmax output), log_softmax's
      // gradient, then ToCopyBackward casts it to the logits' dtype for lm_head's backward. The same
      // 4 + 8 bytes per logit the estimator counts (estimate/activations.ts, "standard").
      lossDropped = [e * V, 4 * V];
      lossSaved = [4 * V];
      lossBackward = [4 * V, 4 * V];
      lossLogitGradient = [e * V];
      break;
    case 'chunked':
      lossSaved = Array.from({ length: LOSS_CHUNKS }, () => ((e + 4) * V) / LOSS_CHUNKS);
      lossBackward = [(8 * V) / LOSS_CHUNKS];
      break;
    case 'fused':
      break;
  }
  // The embedding and the head: one matrix when tied.
  const weights: number[] = shape.tiedEmbeddings ? [V * h * w] : [V * h * w, V * h * w];
  for (let l = 0; l < shape.numLayers; l++) {
    weights.push(...perLayerWeights, h * w, h * w);
    if (!options.fullGradients) weights.push(...loraWeights);
  }
  return {
    layers: shape.numLayers,
    savedPerToken: saved,
    forwardTempPerToken: forwardTemp,
    backwardTempPerToken: backwardTemp,
    recompute: options.checkpointing,
    lossDroppedPerToken: lossDropped,
    lossSavedPerToken: lossSaved,
    lossBackwardPerToken: lossBackward,
    lossLogitGradientPerToken: lossLogitGradient,
    weightBytes: weights,
    gradientBytesPerLayer: options.fullGradients ? [...perLayerWeights, h * w, h * w] : loraWeights,
    headGradientBytes: options.fullGradients ? V * h * w : 0,
    embeddingGradientBytes: options.fullGradients ? V * h * w : 0,
    tiedEmbeddings: shape.tiedEmbeddings,
    castCopyBytesPerLayer: w > e ? matrices.map((n) => n * e) : [],
  };
}

/**
 * Evaluation between training steps (docs/memory-model.md, "Loading and evaluation"): a forward pass
 * without the autograd graph at the evaluation batch, the logits a trainer keeps for metrics, and the
 * KV cache of sample generation. Each is a phase of its own, beside the step's; the states stay, the
 * gradients are gone (the Hugging Face Trainer and litgpt evaluate after optimizer.zero_grad, whose
 * set_to_none default frees them since torch 2.0).
 */
import type { ModelShape } from '../architecture.js';
import type { Scenario } from '../scenario.js';
import type { ActivationPlan } from './activations.js';
import type { ModelStates } from './model-states.js';
import type { PrecisionPlan } from './precision.js';
import type { StrategyTerms } from './strategy-terms.js';
import type { Transients } from './transients.js';

/** The evaluation forward's high point. */
export interface EvalTerms {
  readonly weights: number;
  readonly 'optimizer-states': number;
  readonly 'communication-buckets': number;
  readonly 'gathered-weights': number;
  readonly 'cublas-workspaces': number;
  readonly 'fsdp-root-unit': number;
  readonly 'dequantized-weight': number;
  readonly 'previous-step-inputs': number;
  readonly 'eval-layer': number;
  readonly 'eval-logits-and-loss': number;
  readonly 'kept-eval-logits': number;
}

/** Generation's high point: the prompt's forward with the whole cache. */
export interface GenerateTerms {
  readonly weights: number;
  readonly 'optimizer-states': number;
  readonly 'communication-buckets': number;
  readonly 'gathered-weights': number;
  readonly 'cublas-workspaces': number;
  readonly 'fsdp-root-unit': number;
  readonly 'dequantized-weight': number;
  readonly 'kv-cache': number;
  readonly 'eval-layer': number;
  readonly 'generation-logits': number;
}

export interface EvaluationRecords {
  readonly eval?: EvalTerms;
  readonly generate?: GenerateTerms;
}

/**
 * One decoder layer's live tensors in a forward without the graph, per token: the residual and the
 * layer's input, and the MLP's widest moment, `down(act(gate(x)) * up(x))` with act(gate), up and
 * their product alive at once (a plain MLP: its two). Eager attention adds the scores and their
 * softmax for every head.
 */
function layerWorkingBytes(shape: ModelShape, scenario: Scenario, e: number, batch: number): number {
  const h = shape.hiddenSize;
  const f = shape.intermediateSize;
  const perToken = e * (2 * h + (shape.mlp === 'gated' ? 3 : 2) * f);
  const attention = scenario.attention === 'eager' ? 2 * e * shape.numHeads * scenario.seqLen : 0;
  return Math.max(perToken, attention + 2 * e * h) * batch * scenario.seqLen;
}

/**
 * The logits and the loss of one evaluation batch. Hugging Face's ForCausalLMLoss upcasts the logits
 * (`logits.float()`, src/transformers/loss/loss_utils.py) and cross-entropy makes an fp32
 * log-softmax: `e + 4 + 4` bytes per logit, `4 + 4` when the logits are fp32 already. A chunked loss
 * makes no fp32 copy of the whole logits, but is counted with whole logits and a whole log-softmax
 * (`e + 4`, as activations.ts counts the standard loss's): litgpt's validate calls
 * chunked_cross_entropy with chunk_size=0 on unchunked logits (litgpt/finetune/lora.py), and for the
 * others a bound is better than a guess. A fused loss keeps one chunk (activations.ts).
 */
function evalLossBytes(scenario: Scenario, shape: ModelShape, e: number, tokens: number): number {
  const V = shape.vocabSize;
  if (scenario.loss === 'fused')
    return (e + 12) * V * Math.max(1, Math.ceil((tokens * shape.hiddenSize) / V));
  const upcast = scenario.loss === 'standard' && e !== 4 ? 4 : 0;
  return (e + upcast + 4) * V * tokens;
}

/** The evaluation step: the eval and generate phases' high points, for a scenario that evaluates. */
export function evaluationRecords(
  scenario: Scenario,
  shape: ModelShape,
  plan: PrecisionPlan,
  states: ModelStates,
  strategy: StrategyTerms,
  act: ActivationPlan,
  temp: Transients,
  workspaceBytes: number,
): EvaluationRecords {
  const evaluation = scenario.evaluation;
  if (evaluation === undefined) return {};
  const e = plan.computeBytes;
  const V = shape.vocabSize;
  const batch = evaluation.microBatchSize;
  const tokens = batch * scenario.seqLen;
  const layer = layerWorkingBytes(shape, scenario, e, batch);
  const loss = evalLossBytes(scenario, shape, e, tokens);
  // Hugging Face Trainer.evaluation_loop (trainer.py, 000945a9): each batch's logits are padded across
  // processes, gathered from every rank (accelerator.gather_for_metrics) and added to an
  // EvalLoopContainer, which concatenates on the GPU (nested_concat → torch.cat) until
  // eval_accumulation_steps moves them to the CPU. At the n-th batch its forward runs beside n − 1
  // kept batches; the concatenation then holds the old n − 1, the new one and the n-batch result.
  const perBatch = e * V * tokens * scenario.parallelism.gpus;
  const n = evaluation.keepLogits ? evaluation.batches : 0;
  const forwardTop = layer + loss + Math.max(0, n - 1) * perBatch;
  const concatTop =
    n >= 2 ? 2 * n * perBatch : n === 1 && scenario.parallelism.gpus > 1 ? loss + perBatch : 0;
  const concatenating = concatTop > forwardTop;
  const base = {
    weights: states.weightsBytes,
    'optimizer-states': states.optimizerBytes,
    'communication-buckets': strategy.bucketBytes,
    'gathered-weights': strategy.gatheredBytes,
    'cublas-workspaces': workspaceBytes,
    'fsdp-root-unit': strategy.rootBytes,
    'dequantized-weight': temp.dequantBytes,
  };
  const evalTerms: EvalTerms = {
    ...base,
    // The last step's outputs are still bound while the evaluation's first forward runs (litgpt's
    // fit loop): what old bitsandbytes kept on them stays (activations.ts).
    'previous-step-inputs': act.previousStepBytes,
    'eval-layer': concatenating ? 0 : layer,
    'eval-logits-and-loss': concatenating ? (n === 1 ? loss : 0) : loss,
    'kept-eval-logits': concatenating ? (n === 1 ? perBatch : concatTop) : Math.max(0, n - 1) * perBatch,
  };
  const generateTokens = evaluation.generateTokens;
  if (generateTokens === undefined) return { eval: evalTerms };
  // Generation's KV cache: a key and a value per layer, KV head and cached token, in the model's dtype
  // (transformers DynamicCache; litgpt model.set_kv_cache, which sizes it for max_seq_length, the
  // longest training sample). The prompt's forward runs beside it, bounded by a prompt as long as the
  // cache. Its logits are the last token's and their fp32 copy (transformers' generate asks the model
  // for logits_to_keep=1 and casts next_token_logits to float32, generation/utils.py); a forward that
  // returns every prompt token's logits (litgpt's GPT.forward, transformers before logits_to_keep) adds
  // e · V per prompt token, not counted (docs/memory-model.md).
  const genBatch = evaluation.generateBatch ?? batch;
  const genTokens = genBatch * generateTokens;
  const kvPerToken = shape.numLayers * shape.numKvHeads * (shape.headDim + shape.valueHeadDim) * e;
  const generate: GenerateTerms = {
    ...base,
    'kv-cache': kvPerToken * genTokens,
    'eval-layer': layerWorkingBytes(shape, { ...scenario, seqLen: generateTokens }, e, genBatch),
    'generation-logits': (e + 4) * V * genBatch,
  };
  return { eval: evalTerms, generate };
}

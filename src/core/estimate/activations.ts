/**
 * Activations per phase: what forward saves for backward across the layers (checkpointing, offload,
 * kept quantized inputs), the logits and the loss, backward's largest transient, and what the previous
 * step still holds during this step's forward.
 */
import type { ModelShape } from '../architecture.js';
import { inputsKept } from '../bitsandbytes.js';
import type { Scenario } from '../scenario.js';
import {
  adapterInputCopyBytes,
  type LayerContext,
  layerActivationBytesPerToken,
  opSelectiveBytesPerToken,
  quantizedInputBytesPerToken,
} from './layer-activations.js';
import { kbitUpcasts, type PrecisionPlan } from './precision.js';
import { fsdpGatherBytes } from './strategy-terms.js';
import type { TrainingPlan } from './training.js';

/**
 * Decoder layers whose saved activations are on the GPU at once under activation offload: the one whose
 * tensors are being copied out (or back) and the one in use. Implementations sit around it: torch's
 * save_on_cpu (Hugging Face's checkpointing offload) keeps none after forward and one in backward;
 * Unsloth's offloaded checkpointer moves one layer input at a time; torchtune's OffloadActivations
 * (training/_activation_offloading.py, and TRL's copy) keeps up to 5 saved tensors in its forward stash
 * until backward's first node ends, and frees each backward node's tensors once the next one runs.
 */
export const ACTIVATION_OFFLOAD_LAYERS_ON_GPU = 2;
/** Chunks a chunked cross-entropy splits the logits into (torchtune CEWithChunkedOutputLoss num_output_chunks = 8). */
export const LOSS_CHUNKS = 8;
/**
 * The period of per-layer checkpointing when a scenario gives none: torchtitan's selective_ac_option
 * "2" (its config default from v0.1.0, torchtitan/config_manager.py).
 */
export const DEFAULT_CHECKPOINT_EVERY = 2;

/**
 * Decoder layers that per-layer checkpointing wraps: torchtitan and torchtune count the blocks from 1
 * and wrap block i when `i % ac_freq == 0` (torchtitan parallelize_llama.py @9dec370,
 * _apply_ac_to_transformer_block; torchtune training/_activation_checkpointing.py copies it).
 */
export function checkpointedLayers(scenario: Scenario, layers: number): number {
  if (scenario.gradientCheckpointing === 'full') return layers;
  if (scenario.gradientCheckpointing !== 'every-nth') return 0;
  return Math.floor(layers / (scenario.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY));
}

export interface ActivationPlan {
  /** Bytes saved by the forward pass, held at the start of backward. */
  readonly savedBytes: number;
  /**
   * Bytes the previous step still holds while this step's forward runs: the quantized layers' inputs
   * when they outlive backward and the loop keeps the last outputs (quantizedInputsKept "next-forward").
   */
  readonly previousStepBytes: number;
  /** The largest extra transient of backward: a recomputed layer, or the logits' gradients. */
  readonly backwardTransientBytes: number;
  /** Logits and loss bytes held at the end of the forward pass. */
  readonly lossResidentBytes: number;
  /** The loss's own backward transient (the logits' gradients, whole or one chunk's). */
  readonly lossBackwardBytes: number;
  readonly perLayerBytes: number;
  /** Saved decoder-layer bytes that wait in pinned CPU memory (offload.activations "cpu"). */
  readonly offloadedBytes: number;
}

export function activationPlan(
  scenario: Scenario,
  shape: ModelShape,
  plan: PrecisionPlan,
  training: TrainingPlan,
): ActivationPlan {
  const tokens = scenario.microBatchSize * scenario.seqLen;
  const e = plan.computeBytes;
  const h = shape.hiddenSize;
  const V = shape.vocabSize;
  const kept = inputsKept(scenario);
  // A layer's weights train when the method trains whole layers (full, freeze); LoRA's do not.
  const ctx: LayerContext = {
    shape,
    e,
    scenario,
    layerTrained: training.fullyTrainedLayers > 0,
    adapted: training.adapted,
    quantizedSavesInputs: kept !== 'none',
    adapterInputCopy: adapterInputCopyBytes(scenario, plan),
    // The residual stream stays fp32 under autocast only while the weights it meets are fp32: FSDP's
    // mixed precision unshards them in its param_dtype (the compute dtype unless gatherDtype is fp32),
    // so the embedding's output and every residual add are 16-bit there. fp32 embeddings
    // (prepare_model_for_kbit_training, kept) make the residual stream fp32 too.
    residualBytes:
      (plan.autocastCopies && (fsdpGatherBytes(scenario, plan) ?? 4) === 4) ||
      (kbitUpcasts(scenario, plan) && scenario.prepareKbitUpcast === 'kept')
        ? 4
        : e,
  };
  const perLayer = layerActivationBytesPerToken(ctx);
  const layers = training.layersWithGrad;
  const mode = scenario.gradientCheckpointing;
  const checkpointed = mode === 'full';
  // Full checkpointing keeps each layer's input and recomputes one layer at a time in backward;
  // per-layer checkpointing does that for every Nth layer and keeps everything of the others; the
  // op-level policy keeps some op outputs of every layer (opSelectiveBytesPerToken) and recomputes one
  // layer's rest at a time.
  const wrapped = checkpointedLayers(scenario, layers);
  const opLevel = mode === 'selective-op';
  const savedPerLayer =
    (checkpointed
      ? e * h
      : opLevel
        ? opSelectiveBytesPerToken(ctx)
        : wrapped > 0
          ? (wrapped * e * h + (layers - wrapped) * perLayer) / layers
          : perLayer) * tokens;
  // Activation offload moves the decoder layers' saved tensors to pinned CPU memory; a layer or two are
  // on the GPU at any moment. The head, the loss and the final norm stay: torchtune and TRL exempt the
  // output layer, and Unsloth offloads only the decoder layers' inputs.
  const offloaded = scenario.offload.activations === 'cpu';
  const layersOnGpu = offloaded ? Math.min(layers, ACTIVATION_OFFLOAD_LAYERS_ON_GPU) : layers;
  // Inputs an old bitsandbytes keeps on the autograd context stay on the GPU: the saved-tensor hooks
  // that offload never see them, and the context's reference keeps the GPU copy alive.
  const keptOnGpu =
    offloaded && kept !== 'none' && !checkpointed
      ? (layers - layersOnGpu) * quantizedInputBytesPerToken(shape, e) * tokens
      : 0;
  const layerBytes = layersOnGpu * savedPerLayer + keptOnGpu;
  const offloadedBytes = offloaded ? layers * savedPerLayer : 0;
  const recomputeBytes = checkpointed || wrapped > 0 || opLevel ? perLayer * tokens : 0;
  // Final norm; its output is the LM head's input, saved when the head trains (or is a quantized
  // linear that keeps its input).
  const quantizedHead = scenario.quantizeHead === true && scenario.quantization !== 'none';
  const headInput =
    training.lmHeadTrained ||
    training.lmHeadAdapted ||
    scenario.method === 'full' ||
    (quantizedHead && kept !== 'none')
      ? e * h
      : 0;
  const finalNormWeight = shape.norm === 'rms' && scenario.method === 'full' ? e * h : 0;
  const tail = (4 * h + headInput + finalNormWeight) * tokens;
  // Logits and loss (docs/memory-model.md, "The logits spike").
  let lossResident: number;
  let lossBackward: number;
  switch (scenario.loss) {
    case 'standard':
      // 16-bit logits (returned to the caller), the fp32 log-softmax output saved by cross-entropy;
      // backward adds the fp32 gradient of that output and the fp32 gradient of the logits. Compiled,
      // cross-entropy is one reduction that never materializes the log-softmax, and its backward makes
      // the logits' gradient (softmax − one-hot) in one kernel: no gradient of the log-softmax output
      // (Inductor's kernel for Hugging Face's loss reads the logits and subtracts max and logsumexp:
      // Lightning-AI/lightning-thunder#1654; "torch.compile is able to optimize away this memory
      // allocation": allenai/open-instruct#584). What it saves for backward is its fp32 input when the
      // upcast runs outside it (torchtune), as large as the log-softmax output it replaces.
      // The 16-bit logits themselves are dropped before backward when the caller keeps only the loss
      // (the Hugging Face Trainer's compute_loss returns the loss alone; torchtune's recipes
      // `del logits`): measured on the H200, backward's peak is 2 bytes per logit above forward's, as
      // 4 + 8 over (2 + 4 + 4) predicts (rows h200-012, h200-034).
      lossResident = 4 * V * tokens;
      lossBackward = (scenario.torchCompile ? 4 : 8) * V * tokens;
      break;
    case 'chunked':
      // Logit chunks in 16 bits and each chunk's fp32 log-softmax output stay until backward; the
      // gradients are made one chunk at a time (torchtune CEWithChunkedOutputLoss). Compiled, the
      // chunk's upcast and cross-entropy are one kernel that keeps no fp32 copy: "chunked cross entropy
      // reduces memory by processing and upcasting one chunk at a time. This allows the memory to be
      // released after the computation" (torchtune PR #1390, which compiles the loss with its upcast).
      lossResident = (scenario.torchCompile ? e : e + 4) * V * tokens;
      lossBackward = ((scenario.torchCompile ? 4 : 8) * V * tokens) / LOSS_CHUNKS;
      break;
    case 'fused':
      // Fused linear + cross-entropy (Liger, Cut Cross-Entropy) never holds the whole logits: a chunk of
      // about tokens·h/V rows at a time (Liger's chunk size rule), with its fp32 gradients.
      lossResident = 0;
      lossBackward = (e + 12) * V * Math.max(1, Math.ceil((tokens * h) / V));
      break;
  }
  // Soft-capped logits (Gemma-2): tanh keeps its 16-bit output beside the logits it returns. A fused
  // loss applies the cap inside its kernel.
  if (shape.finalLogitSoftcap && scenario.loss !== 'fused') lossResident += e * V * tokens;
  // The previous step's graph lives on while the loop holds its outputs, until the next forward
  // returns; backward freed its saved tensors but not the inputs bitsandbytes kept on the context. With
  // full (reentrant) checkpointing those were made in a recomputation whose graph is already gone.
  const previousStepBytes =
    kept === 'next-forward' && !checkpointed
      ? tokens * (layers * quantizedInputBytesPerToken(shape, e) + (quantizedHead ? e * h : 0))
      : 0;
  return {
    savedBytes: layerBytes + tail,
    previousStepBytes,
    backwardTransientBytes: Math.max(recomputeBytes, lossBackward),
    lossResidentBytes: lossResident,
    lossBackwardBytes: lossBackward,
    perLayerBytes: perLayer,
    offloadedBytes,
  };
}

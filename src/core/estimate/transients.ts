/**
 * Transients: bytes a phase holds for a moment. Autocast's 16-bit copies of fp32 weights, one
 * dequantized weight of a quantized base (and a weight being quantized at load), and backward's
 * largest transient: a recomputed layer, or the logits' gradient with the head's first weight gradient.
 */
import type { ModelShape } from '../architecture.js';
import type { ParamBreakdown } from '../params.js';
import type { Scenario } from '../scenario.js';
import { type ActivationPlan, LOSS_CHUNKS } from './activations.js';
import type { ModelStates } from './model-states.js';
import { dequantBytesPerElement, kbitUpcasts, type PrecisionPlan } from './precision.js';
import type { StrategyTerms } from './strategy-terms.js';
import type { TrainingPlan } from './training.js';

export interface Transients {
  /** Autocast's 16-bit copies of fp32 weights, saved for backward. */
  readonly castBytes: number;
  /** One dequantized weight of a quantized base, and its cast. */
  readonly dequantBytes: number;
  /** Loading: one 16-bit weight being quantized and its cast. */
  readonly quantizationTransientBytes: number;
  /** Backward's largest transient: a recomputed layer or the loss's gradients, or the logits' gradient with the head's. */
  readonly backwardTransientBytes: number;
}

/** The transients step. */
export function transients(
  scenario: Scenario,
  shape: ModelShape,
  params: ParamBreakdown,
  plan: PrecisionPlan,
  training: TrainingPlan,
  states: ModelStates,
  strategy: StrategyTerms,
  act: ActivationPlan,
): Transients {
  const quantized = scenario.quantization !== 'none';
  // Autocast keeps a 16-bit copy of every fp32 weight it multiplies, saved for backward. It caches the
  // cast only for leaves that require grad (autocast_mode.cpp, cached_cast), so a frozen head computed
  // chunk by chunk is cast again, and saved again, for every chunk.
  const headParams = shape.vocabSize * shape.hiddenSize;
  const frozenHead = scenario.method !== 'full' && !training.lmHeadTrained;
  const headCopies = scenario.loss === 'chunked' && frozenHead ? LOSS_CHUNKS : 1;
  // A frozen weight's copy is not cached, so under full checkpointing it lives only while its layer
  // runs (forward, or the recomputation in backward): one layer's copies at a time. Trained weights stay
  // in the cache until autocast exits. Measured on the H200: Llama-3.1-8B LoRA on an fp32 base with
  // checkpointing and a chunked loss peaks 12 GiB below all copies kept (row h200c-011).
  const perLayerLinear = params.linearParams / shape.numLayers;
  const layerCastParams =
    scenario.gradientCheckpointing === 'full'
      ? Math.min(shape.numLayers, training.fullyTrainedLayers + 1) * perLayerLinear
      : params.linearParams;
  const castParams = plan.autocastCopies
    ? strategy.gathersAcrossGpus
      ? 0
      : layerCastParams + headParams * headCopies
    : 0;
  // prepare_model_for_kbit_training's fp32 head, kept (load.ts): under the Trainer's autocast each
  // call casts it to 16 bits again, and the matmul saves that copy for backward (docs/memory-model.md).
  const kbitHeadCopy =
    kbitUpcasts(scenario, plan) && scenario.prepareKbitUpcast === 'kept' && states.quantizedHeadParams === 0
      ? 2 * headParams
      : 0;
  const castBytes = quantized ? kbitHeadCopy : castParams * 2;
  // QLoRA dequantizes one weight at a time. bitsandbytes returns it in the dtype it was quantized
  // from, then Linear4bit casts it to the compute dtype: both copies exist for a moment when they
  // differ (bitsandbytes nn/modules.py Linear4bit.forward, autograd MatMul4Bit). GPTQ kernels work
  // from the packed weight; one 16-bit temporary is kept as a bound.
  const largestQuantized = Math.max(
    states.largestLinearParams,
    states.quantizedHeadParams > 0 ? shape.vocabSize * shape.hiddenSize : 0,
  );
  const dequantBytes = quantized ? largestQuantized * dequantBytesPerElement(scenario) : 0;

  // Backward's first weight gradient is the output head's, made while the logits' gradient (one chunk's,
  // with a chunked or fused loss) is alive. FSDP's root gradient already counts it; accumulated
  // gradients already hold it; a sharded unit's gathered gradient is the head's at that moment.
  const headTrains = scenario.method === 'full' || training.lmHeadTrained;
  const headGradBytes =
    headTrains && strategy.rootHeadGradBytes === 0 && strategy.gradsDuringForward === 0
      ? Math.max(
          0,
          (scenario.method === 'full'
            ? strategy.headWeightParams * plan.gradientBytes
            : headParams * states.adapterBytes.gradient) - strategy.gatheredGradBytes,
        )
      : 0;
  const logitsGradBytes =
    scenario.loss === 'fused'
      ? act.lossBackwardBytes
      : (plan.computeBytes * shape.vocabSize * scenario.microBatchSize * scenario.seqLen) /
        (scenario.loss === 'chunked' ? LOSS_CHUNKS : 1);
  return {
    castBytes,
    dequantBytes,
    quantizationTransientBytes: quantized ? largestQuantized * 4 : 0,
    backwardTransientBytes: Math.max(
      act.backwardTransientBytes,
      headGradBytes > 0 ? logitsGradBytes + headGradBytes : 0,
    ),
  };
}

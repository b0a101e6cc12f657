/**
 * Model states: the weights, gradients and optimizer states of one GPU, from the precision plan and
 * the training plan, divided by the strategy (sharding.ts) and moved by offload.
 */
import type { ParamBreakdown } from '../params.js';
import type { Scenario } from '../scenario.js';
import {
  fsdp1FrozenGradients,
  type ModelStateBytes,
  type OffloadPlacement,
  placeModelStates,
  shardModelStates,
  strategyOffload,
} from '../sharding.js';
import { adapterBytesPerParam, optimizerStateBytes } from './optimizer.js';
import {
  kbitUpcasts,
  type PrecisionPlan,
  quantizedBytesPerParam,
  unshardedQuantBytesPerParam,
} from './precision.js';
import type { TrainingPlan } from './training.js';

export interface ModelStates {
  /** Parameters of the model: the weight files' exact count when known, else the shape's. */
  readonly totalParams: number;
  /** Trained parameters (whole model, before sharding). */
  readonly trainableParams: number;
  /** Weights of an untied output head quantized like the decoder's linears (quantizeHead), else 0. */
  readonly quantizedHeadParams: number;
  /** Bytes per adapter parameter, its gradient and each of its optimizer states. */
  readonly adapterBytes: { readonly weight: number; readonly gradient: number; readonly state: number };
  /** The whole model's gradients, before sharding (DDP's buckets and FSDP's no_sync copy them). */
  readonly wholeGradientBytes: number;
  /** Weights on this GPU: its shard plus the quantized bytes no strategy partitions. */
  readonly weightsBytes: number;
  /** Gradients on this GPU (the largest tensor's under optimizer-in-backward). */
  readonly gradientsBytes: number;
  /** Optimizer states on this GPU, in torch's allocator (paged ones excluded). */
  readonly optimizerBytes: number;
  /** Paged optimizer states on this GPU: CUDA managed memory, outside torch allocated. */
  readonly pagedOptimizerBytes: number;
  /** Whether the optimizer's states are paged (bitsandbytes paged optimizers). */
  readonly paged: boolean;
  /** The optimizer step's state-sized temporary on this GPU (the largest tensor's in backward). */
  readonly stepTempBytes: number;
  /** Bytes per element of the optimizer's states, and so of that temporary: the mean over what trains. */
  readonly stepTempElementBytes: number;
  /** The optimizer steps inside backward (torchtune optimizer_in_bwd), with gradients left on the GPU. */
  readonly optimizerInBackward: boolean;
  /** Per-GPU states by where they live: the GPU, host memory, NVMe. */
  readonly placed: OffloadPlacement;
  /** Elements of the model's largest linear weight. */
  readonly largestLinearParams: number;
}

/**
 * The model-states step.
 * Quantization applies to the decoder's linear layers; embeddings, norms and the head stay in 16 bits
 * (bitsandbytes skips lm_head; GPTQ keeps it). Exact counts from the weight files replace the shape's
 * count; the difference is stored like embeddings.
 */
export function modelStates(
  scenario: Scenario,
  params: ParamBreakdown,
  exactParams: number | null,
  plan: PrecisionPlan,
  training: TrainingPlan,
): ModelStates {
  const totalParams = exactParams ?? params.totalParams;
  const quantized = scenario.quantization !== 'none';
  // quantizeHead: an untied output head quantized like the decoder's linears (Lightning quantizes
  // every nn.Linear); a tied head is the embedding, which bitsandbytes never converts.
  const quantizedHeadParams = quantized && scenario.quantizeHead ? params.lmHeadParams : 0;
  const linearWeights = params.linearParams + quantizedHeadParams;
  const otherParams = totalParams - linearWeights;
  // PEFT prepare_model_for_kbit_training, its fp32 copies kept for the run (load.ts): the parameters a
  // bitsandbytes base does not quantize are stored in fp32.
  const otherBytes =
    kbitUpcasts(scenario, plan) && scenario.prepareKbitUpcast === 'kept' ? 4 : plan.weightBytes;
  const baseWeightBytes = quantized
    ? linearWeights * quantizedBytesPerParam(scenario.quantization) + otherParams * otherBytes
    : totalParams * plan.weightBytes;
  // LoRA adapters and modules_to_save copies: PEFT keeps them in fp32; lora.adapterDtype "model" keeps
  // them in the model's own dtype (torchtune, Lightning's -true precisions), with their gradients and
  // optimizer states.
  const adapterBytes = adapterBytesPerParam(scenario, plan);
  const weightBytes =
    scenario.method === 'full' || scenario.method === 'freeze'
      ? totalParams * plan.weightBytes
      : baseWeightBytes + training.extraWeightParams * adapterBytes.weight;

  // Gradients and optimizer states for the trainable parameters.
  const trainable = training.trainableParams;
  const denseTrainable = training.denseTrainableParams;
  // FSDP1 with frozen weights in the adapters' flat parameters (fsdp1FrozenGradients): every decoder
  // block is a unit with adapters in it, so the block's frozen weights get a gradient in the flat
  // parameter's dtype; the root (embeddings, head) has none trained and no gradient.
  const frozenGradParams =
    fsdp1FrozenGradients(scenario) && training.adapted.size > 0
      ? params.totalParams - params.embeddingParams - params.lmHeadParams
      : 0;
  const gradientBytes =
    (denseTrainable + frozenGradParams) * plan.gradientBytes +
    (trainable - denseTrainable) * adapterBytes.gradient;
  const opt = optimizerStateBytes(scenario, plan, trainable, trainable - denseTrainable, adapterBytes.state);

  // Sharding and offload. Quantized bytes that no strategy partitions stay whole, and on the GPU.
  const unshardedQuantBytes = quantized ? linearWeights * unshardedQuantBytesPerParam(scenario) : 0;
  const whole: ModelStateBytes = {
    weights: weightBytes - unshardedQuantBytes,
    gradients: gradientBytes,
    optimizer: opt.bytes,
  };
  const strategy = scenario.parallelism.strategy;
  const perGpu = shardModelStates(whole, strategy, scenario.parallelism.gpus);
  const offload = strategyOffload(strategy, scenario.offload);
  const placedShards = placeModelStates(perGpu, offload);
  const placed: OffloadPlacement = {
    gpu: {
      weights: placedShards.gpu.weights + unshardedQuantBytes,
      gradients: placedShards.gpu.gradients,
      optimizer: placedShards.gpu.optimizer,
    },
    host: placedShards.host,
    nvme: placedShards.nvme,
  };
  // The optimizer's step temporary is the size of the states it updates: this GPU's shard of them.
  const stepTempBytes =
    offload.optimizer === 'none' && whole.optimizer > 0
      ? opt.foreachTemp * (perGpu.optimizer / whole.optimizer)
      : 0;
  const pagedOptimizerBytes = opt.paged ? placed.gpu.optimizer : 0;
  // Optimizer in backward (torchtune optimizer_in_bwd): each parameter is stepped by a hook as soon as
  // its gradient is accumulated, and the gradient is freed there. No full set of gradients ever exists:
  // the most held at once is the largest parameter's gradient with its own step temporary.
  const inBackward = scenario.optimizerInBackward === true && placed.gpu.gradients > 0;
  let largestLinear = 0;
  for (const m of params.linears) largestLinear = Math.max(largestLinear, m.inFeatures * m.outFeatures);
  const largestTensorShare =
    trainable > 0
      ? Math.min(
          1,
          (scenario.method === 'full' ? Math.max(largestLinear, params.embeddingParams) : largestLinear) /
            trainable,
        )
      : 0;
  return {
    totalParams,
    trainableParams: trainable,
    quantizedHeadParams,
    adapterBytes,
    wholeGradientBytes: gradientBytes,
    weightsBytes: placed.gpu.weights,
    gradientsBytes: inBackward ? placed.gpu.gradients * largestTensorShare : placed.gpu.gradients,
    optimizerBytes: placed.gpu.optimizer - pagedOptimizerBytes,
    pagedOptimizerBytes,
    paged: opt.paged,
    stepTempBytes: inBackward ? stepTempBytes * largestTensorShare : stepTempBytes,
    stepTempElementBytes:
      trainable > 0
        ? (denseTrainable * plan.stateBytes + (trainable - denseTrainable) * adapterBytes.state) / trainable
        : plan.stateBytes,
    optimizerInBackward: inBackward,
    placed,
    largestLinearParams: largestLinear,
  };
}

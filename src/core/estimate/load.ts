/**
 * Loading: what the GPU holds while the model is put on it, beyond the weights it trains with
 * (docs/memory-model.md, "Loading and evaluation"). A 16-bit base loaded through fp32 and then cast,
 * PEFT's prepare_model_for_kbit_training upcast, and transformers' caching allocator warmup. A weight
 * being quantized (bitsandbytes, one at a time) is transients.ts's `quantizationTransientBytes`.
 */
import type { ParamBreakdown } from '../params.js';
import type { Scenario } from '../scenario.js';
import { STRATEGY_TRAITS } from '../sharding.js';
import type { ModelStates } from './model-states.js';
import { kbitUpcasts, type PrecisionPlan } from './precision.js';

export interface LoadPlan {
  /**
   * A base loaded in fp32 and then cast to its 16-bit training dtype: the fp32 bytes above the 16-bit
   * weights, and the first cast tensor beside them.
   */
  readonly fp32LoadBytes: number;
  /** prepare_model_for_kbit_training's fp32 copies above what the run keeps, at their high point. */
  readonly kbitUpcastBytes: number;
  /**
   * The weight being quantized, beyond what the upcast's moment holds: quantizing happens inside
   * from_pretrained, before prepare_model_for_kbit_training, so the load's high point is the larger of
   * the two moments, and the terms add up to it.
   */
  readonly quantizationTransientBytes: number;
  /** The load's bytes come from one block reserved up front (caching_allocator_warmup): no churn at load. */
  readonly warmup: boolean;
}

/** The 16-bit parameters a bitsandbytes base does not quantize: embeddings, an unquantized head, norms. */
export function unquantizedBaseParams(params: ParamBreakdown, states: ModelStates): number {
  return states.totalParams - params.linearParams - states.quantizedHeadParams;
}

/** The parameters each rank holds whole at load: the strategies that shard weights build them otherwise. */
function loadsWhole(scenario: Scenario): boolean {
  return !STRATEGY_TRAITS[scenario.parallelism.strategy].shards.weights;
}

/** The load step. */
export function loadPlan(
  scenario: Scenario,
  params: ParamBreakdown,
  plan: PrecisionPlan,
  states: ModelStates,
  quantizationTransientBytes: number,
): LoadPlan {
  const whole = loadsWhole(scenario);
  const quantized = scenario.quantization !== 'none';
  // from_pretrained without torch_dtype before transformers 5 builds the model in fp32 and loads the
  // 16-bit checkpoint into it (transformers PR #42805 made "auto" the default in v5); a run that then
  // casts it (`model.to(torch.bfloat16)`, precision "-true") holds every weight in fp32 first, and the
  // cast makes one 16-bit tensor at a time beside them (torch nn.Module._apply). A quantized base is
  // loaded in float16 whatever is asked (the bitsandbytes quantizer's update_torch_dtype). Counted
  // where each rank loads the whole model (FSDP and ZeRO-3 load: docs/memory-model.md).
  const largestTensor = Math.max(states.largestLinearParams, params.embeddingParams, params.lmHeadParams);
  const fp32LoadBytes =
    scenario.loadDtype === 'fp32' && !quantized && whole && plan.weightBytes < 4
      ? (4 - plan.weightBytes) * states.totalParams + plan.weightBytes * largestTensor
      : 0;
  // PEFT prepare_model_for_kbit_training (src/peft/utils/other.py, v0.20.0-47 5d602fd): every fp16/bf16
  // parameter that is not a Params4bit goes to fp32 with `param.data = param.data.to(torch.float32)`,
  // one at a time, then torch.cuda.empty_cache(). "kept": the run trains with them (model-states.ts
  // counts 4 bytes each); at load the largest one exists in both dtypes for a moment. "cast-back": TRL
  // < 0.22 (peft_module_casting_to_bf16) and Axolotl (ModelLoader._prepare_model_for_quantization)
  // cast embeddings, head and norms back to 16 bits: all of them in fp32 at once, and the first one
  // cast back beside them.
  const largestOther = Math.max(
    params.embeddingParams,
    states.quantizedHeadParams > 0 ? 0 : params.lmHeadParams,
  );
  const others = unquantizedBaseParams(params, states);
  const kbitUpcastBytes =
    kbitUpcasts(scenario, plan) && whole
      ? scenario.prepareKbitUpcast === 'kept'
        ? plan.weightBytes * largestOther
        : (4 - plan.weightBytes) * others + plan.weightBytes * largestOther
      : 0;
  // While a weight is being quantized, the kept upcast has not happened yet: the others are 16-bit.
  const keptUpcast =
    kbitUpcastBytes > 0 && scenario.prepareKbitUpcast === 'kept' ? (4 - plan.weightBytes) * others : 0;
  return {
    fp32LoadBytes,
    kbitUpcastBytes,
    quantizationTransientBytes:
      kbitUpcastBytes > 0
        ? Math.max(0, quantizationTransientBytes - kbitUpcastBytes - keptUpcast)
        : quantizationTransientBytes,
    warmup: scenario.cachingAllocatorWarmup === true,
  };
}

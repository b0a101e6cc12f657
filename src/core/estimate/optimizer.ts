/**
 * Optimizer states: bytes per state for each optimizer, the fp32 master copy DeepSpeed keeps, the
 * foreach step's temporary, and LoRA adapters' own precision.
 */
import type { Scenario } from '../scenario.js';
import type { ModelStateBytes } from '../sharding.js';
import { type PrecisionPlan, precisionPlan } from './precision.js';

const FP32_ADAPTER = Object.freeze({ weight: 4, gradient: 4, state: 4 });

/** Bytes per adapter parameter, its gradient and each optimizer state: fp32 (PEFT) or the model's dtype. */
export function adapterBytesPerParam(
  scenario: Pick<Scenario, 'lora'>,
  plan: PrecisionPlan,
): { readonly weight: number; readonly gradient: number; readonly state: number } {
  return scenario.lora?.adapterDtype === 'model'
    ? { weight: plan.trainableBytes, gradient: plan.gradientBytes, state: plan.stateBytes }
    : FP32_ADAPTER;
}

export function optimizerStateBytes(
  scenario: Pick<Scenario, 'optimizer' | 'fusedOptimizer'>,
  plan: PrecisionPlan,
  trainableParams: number,
  adapterParams: number,
  adapterStateBytes: number,
): { bytes: number; paged: boolean; foreachTemp: number } {
  const n = trainableParams;
  // Adapters are kept in fp32 by PEFT (autocast_adapter_dtype), so their states are fp32 as well,
  // unless they take the model's dtype (lora.adapterDtype "model").
  const dense = n - adapterParams;
  // One state's bytes over every parameter, worked out once (closures here were a hot spot of bench:speed).
  const perState = dense * plan.stateBytes + adapterParams * adapterStateBytes;
  const states = (count: number) => count * perState;
  const master = n * plan.masterBytes;
  // torch's fused kernels (fused=True) update each tensor in place: no state-sized temporary.
  const fused = scenario.fusedOptimizer;
  const temp = (count: number) => (fused ? 0 : count * perState);
  switch (scenario.optimizer) {
    case 'adamw':
      // torch.optim.AdamW (foreach): exp_avg, exp_avg_sq; one state-sized temporary for the sqrt.
      return { bytes: states(2) + master, paged: false, foreachTemp: temp(1) };
    case 'paged-adamw':
      return { bytes: states(2) + master, paged: true, foreachTemp: 0 };
    case 'adamw-8bit':
    case 'paged-adamw-8bit':
      // bitsandbytes 8-bit blockwise states: 1 B each + one fp32 absmax per 2048 (blocksize 2048).
      return {
        bytes: n * 2 * (1 + 4 / 2048) + master,
        paged: scenario.optimizer.startsWith('paged'),
        foreachTemp: 0,
      };
    case 'sgd':
      return { bytes: master, paged: false, foreachTemp: 0 };
    case 'sgd-momentum':
    case 'lion':
      return { bytes: states(1) + master, paged: false, foreachTemp: temp(1) };
    case 'adafactor':
      // Factored second moment (row + column vectors per matrix, Shazeer & Stern 2018): about
      // 2/sqrt(params per matrix) per weight; 1 % of a state is a generous bound for LLM matrices.
      return { bytes: states(1) * 0.01 + master, paged: false, foreachTemp: 0 };
  }
}

/**
 * Whole-model weights, gradients and optimizer states of full fine-tuning with `params` parameters,
 * before sharding: what accelerate's and DeepSpeed's estimators count (no activations).
 */
export function fullTrainingModelStates(
  params: number,
  scenario: Pick<Scenario, 'precision' | 'optimizer' | 'method' | 'parallelism'>,
): ModelStateBytes {
  const plan = precisionPlan(scenario);
  return {
    weights: params * plan.weightBytes,
    gradients: params * plan.gradientBytes,
    optimizer: optimizerStateBytes(scenario, plan, params, 0, 4).bytes,
  };
}

/** The size of one checkpoint on disk, by method, precision, optimizer and strategy. */
import type { Scenario } from '../scenario.js';

/** Bytes one checkpoint takes: model weights as saved, plus optimizer states for full fine-tuning. */
export function checkpointBytes(s: Scenario, totalParams: number, trainableParams: number): number {
  const full = s.method === 'full' || s.method === 'freeze';
  if (!full) {
    // Adapters (and modules_to_save copies) in fp32, with their AdamW states.
    return trainableParams * 4 + trainableParams * (s.optimizer.includes('8bit') ? 2 : 8);
  }
  const deepspeedMixed =
    ['zero1', 'zero2', 'zero3'].includes(s.parallelism.strategy) && s.precision.endsWith('-mixed');
  // DeepSpeed keeps (and saves) the model in 16 bits and the fp32 master copy with the optimizer states.
  const weightBytes = deepspeedMixed ? 2 : s.precision === 'fp32' || s.precision.endsWith('-mixed') ? 4 : 2;
  const stateBytes = s.precision.endsWith('-true') ? 2 : 4;
  const perParamStates: Record<Scenario['optimizer'], number> = {
    adamw: 2 * stateBytes,
    'paged-adamw': 2 * stateBytes,
    'adamw-8bit': 2,
    'paged-adamw-8bit': 2,
    sgd: 0,
    'sgd-momentum': stateBytes,
    lion: stateBytes,
    adafactor: 0.01 * stateBytes,
  };
  // DeepSpeed mixed precision saves the fp32 master copy with the states (zero_pp_rank_*_optim_states.pt).
  const master = deepspeedMixed ? 4 : 0;
  return totalParams * weightBytes + trainableParams * (perParamStates[s.optimizer] + master);
}

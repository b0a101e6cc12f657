/**
 * What to do about each calibration refusal (src/core/run-calibration.ts), in English and Simplified
 * Chinese: the "Try:" line of the user error a refusal becomes. `ref` is how the user named the run.
 */
import { CALIBRATION_WARMUP_STEPS } from '../core/calibrate.js';
import { CALIBRATION_MIN_STEPS, type CalibrationRefusal } from '../core/run-calibration.js';
import type { ParamsOf } from './calibration.js';
import { defineDomain } from './catalog.js';

/** A refusal's figures, and how the user named the run. */
export type HintParams = {
  readonly [C in keyof ParamsOf<CalibrationRefusal>]: ParamsOf<CalibrationRefusal>[C] & {
    readonly ref: string;
  };
};

/** The flag that sets each field a calibration is never carried across. */
const FIELD_FLAG: Readonly<Record<ParamsOf<CalibrationRefusal>['setup-differs']['field'], string>> = {
  model: '--model',
  method: '--method',
  quantization: '--quantization',
  strategy: '--strategy',
};

const steadier = CALIBRATION_MIN_STEPS + CALIBRATION_WARMUP_STEPS;

export const CALIBRATION_HINTS = defineDomain<HintParams>({
  name: 'calibration-hints',
  words: {
    en: {
      'no-measured-peak': () =>
        'call headroom_probe.step(step, ...) after each training step (or use HeadroomCallback), then record a short run with headroom run',
      'too-few-steps': (p) =>
        `record a run of at least ${p.needed} steps (${steadier} or more give a steadier peak): headroom run --name ${p.ref} … -- python train.py --max-steps 8`,
      'reserved-below-allocated': () =>
        'record the run with headroom run and headroom_probe.step(...), which read torch.cuda.max_memory_* each step',
      'below-model-states': (p) =>
        `check the scenario against the run (headroom runs show ${p.ref}); give the setup it ran with: headroom calibrate ${p.ref} --model ID --method … --quantization …, or record steps after the first optimizer step`,
      'activations-beyond-setup': (p) =>
        `give the micro-batch and sequence length the run really used: headroom calibrate ${p.ref} --micro-batch N --seq-len N`,
      'setup-differs': (p) =>
        `drop ${FIELD_FLAG[p.field]} to predict the run's own ${p.field}, or record and calibrate a short run of the setup you want`,
      'tokens-beyond-range': () =>
        'record and calibrate a short run nearer the size you want, or drop --calibrated for the estimate alone',
    },
    zh: {
      'no-measured-peak': () =>
        '在每个训练步之后调用 headroom_probe.step(step, ...)（或使用 HeadroomCallback），然后用 headroom run 记录一次短运行',
      'too-few-steps': (p) =>
        `记录至少 ${p.needed} 步的运行（${steadier} 步或更多可以得到更稳定的峰值）：headroom run --name ${p.ref} … -- python train.py --max-steps 8`,
      'reserved-below-allocated': () =>
        '用 headroom run 和 headroom_probe.step(...) 记录运行，它们每一步都会读取 torch.cuda.max_memory_*',
      'below-model-states': (p) =>
        `对照运行检查配置（headroom runs show ${p.ref}）；给出它运行时的配置：headroom calibrate ${p.ref} --model ID --method … --quantization …，或者记录第一次优化器步骤之后的步`,
      'activations-beyond-setup': (p) =>
        `给出运行实际使用的 micro-batch 和序列长度：headroom calibrate ${p.ref} --micro-batch N --seq-len N`,
      'setup-differs': (p) =>
        `去掉 ${FIELD_FLAG[p.field]} 以预测该运行自身的 ${p.field}，或者为你想要的配置记录并校准一次短运行`,
      'tokens-beyond-range': () =>
        '为更接近目标大小的配置记录并校准一次短运行，或者去掉 --calibrated 只看估算',
    },
  },
  examples: {
    'no-measured-peak': { ref: 'trial', steps: 0 },
    'too-few-steps': { ref: 'trial', steps: 1, needed: 2 },
    'reserved-below-allocated': { ref: 'trial', allocatedBytes: 9 * 2 ** 30, reservedBytes: 8 * 2 ** 30 },
    'below-model-states': {
      ref: 'trial',
      measuredBytes: 3 * 2 ** 30,
      stateBytes: 6 * 2 ** 30,
      weightsBytes: 2 * 2 ** 30,
      optimizerBytes: 3 * 2 ** 30,
      gradientBytes: 2 ** 30,
    },
    'activations-beyond-setup': {
      ref: 'trial',
      factor: 9.5,
      maxFactor: 4.2,
      measuredBytes: 40 * 2 ** 30,
      ceilingBytes: 18 * 2 ** 30,
    },
    'setup-differs': { ref: 'trial', field: 'method', run: 'lora', target: 'full' },
    'tokens-beyond-range': { ref: 'trial', runTokens: 512, targetTokens: 16384, maxRatio: 16 },
  },
});

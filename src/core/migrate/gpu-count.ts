/** GPU count: the target has as many GPUs as the scenario uses (needs the target's GPU list). */
import { type Check, only, outcome } from './check.js';

export interface GpuCountParams {
  readonly 'gpus-enough': { readonly need: number; readonly has: number };
  readonly 'gpus-too-few': { readonly need: number; readonly has: number };
}

export interface GpuCountActionParams {
  /** headroom plan … --gpus N: re-plan for the GPUs the target has. */
  readonly 'replan-gpus': { readonly gpus: number };
}

export interface GpuCountNotChecked {
  readonly label: string;
  /** The GPUs assumed: the scenario's. */
  readonly assumedGpus: number;
}

export const GPU_COUNT: Check<'gpu-count', GpuCountParams, GpuCountActionParams, GpuCountNotChecked> = {
  id: 'gpu-count',
  statuses: { 'gpus-enough': 'pass', 'gpus-too-few': 'fail' },
  run(ctx) {
    const need = ctx.needGpus;
    if (!ctx.toGpus)
      return only(null, {
        code: 'gpu-count',
        params: { label: ctx.to.label, assumedGpus: need },
      });
    const has = ctx.toGpus.length;
    return only(
      has >= need
        ? outcome(GPU_COUNT, 'gpus-enough', { need, has })
        : outcome(GPU_COUNT, 'gpus-too-few', { need, has }, { code: 'replan-gpus', params: { gpus: has } }),
    );
  },
};

/**
 * bf16: the target's GPUs have bf16 tensor cores (compute capability 8.0, Ampere, and up), from the
 * captured compute capabilities or else the catalog GPU. Without them a bf16 run moves to fp16 with
 * dynamic loss scaling.
 */
import type { NoParams } from '../message.js';
import type { Scenario } from '../scenario.js';
import { type Check, only, outcome } from './check.js';

/** Compute capability from which NVIDIA GPUs have bf16 tensor cores (Ampere, sm_80). */
export const BF16_MIN_COMPUTE_CAPABILITY = 8.0;

/** What says whether the target has bf16: the lowest captured compute capability, or the catalog GPU. */
export type Bf16Source =
  | { readonly kind: 'compute-capability'; readonly computeCapability: number }
  | { readonly kind: 'catalog'; readonly gpu: string };

export interface Bf16Params {
  /** No compute capability and no catalog GPU for the target. */
  readonly 'bf16-unknown': NoParams;
  /**
   * A bf16 scenario on a GPU without bf16: run `fp16` (fp16-true for adapters, whose frozen 16-bit base
   * and fp32 adapters take a GradScaler; fp16-mixed for trained weights, which need fp32 masters).
   */
  readonly 'bf16-missing': {
    readonly source: Bf16Source;
    readonly minComputeCapability: number;
    readonly fp16: 'fp16-true' | 'fp16-mixed';
    readonly precision: Scenario['precision'];
  };
  /** An fp16 scenario on a GPU with bf16: worth switching. */
  readonly 'bf16-worth-switching': { readonly source: Bf16Source; readonly precision: Scenario['precision'] };
  readonly 'bf16-supported': { readonly source: Bf16Source };
  /** The precision needs no bf16. */
  readonly 'bf16-not-needed': { readonly precision: Scenario['precision'] };
}

export interface Bf16ActionParams {
  /** --precision fp16-…, then re-check with headroom migrate. */
  readonly 'use-fp16': { readonly precision: 'fp16-true' | 'fp16-mixed' };
}

export const BF16: Check<'bf16', Bf16Params, Bf16ActionParams> = {
  id: 'bf16',
  statuses: {
    'bf16-unknown': 'unknown',
    'bf16-missing': 'fail',
    'bf16-worth-switching': 'pass',
    'bf16-supported': 'pass',
    'bf16-not-needed': 'pass',
  },
  run(ctx) {
    const { scenario, targetGpu } = ctx;
    const ccs = ctx.toGpus?.map((g) => (g.computeCapability ? Number(g.computeCapability) : null)) ?? [];
    const knownCc = ccs.filter((c): c is number => c !== null && Number.isFinite(c));
    const supported =
      knownCc.length > 0 ? knownCc.every((c) => c >= BF16_MIN_COMPUTE_CAPABILITY) : (targetGpu?.bf16 ?? null);
    const source: Bf16Source | null =
      knownCc.length > 0
        ? { kind: 'compute-capability', computeCapability: Math.min(...knownCc) }
        : targetGpu
          ? { kind: 'catalog', gpu: targetGpu.id }
          : null;
    const precision = scenario.precision;
    const usesBf16 = precision.startsWith('bf16');
    if (supported === null || source === null) return only(outcome(BF16, 'bf16-unknown', {}));
    if (usesBf16 && !supported) {
      // Adapters keep a 16-bit frozen base with fp32 adapters and a GradScaler (QLoRA on T4s); full
      // fine-tuning needs fp32 master weights under fp16 autocast.
      const fp16 = scenario.method === 'lora' || scenario.method === 'qlora' ? 'fp16-true' : 'fp16-mixed';
      return only(
        outcome(
          BF16,
          'bf16-missing',
          { source, minComputeCapability: BF16_MIN_COMPUTE_CAPABILITY, fp16, precision },
          { code: 'use-fp16', params: { precision: fp16 } },
        ),
      );
    }
    if (precision.startsWith('fp16') && supported)
      return only(outcome(BF16, 'bf16-worth-switching', { source, precision }));
    return only(
      usesBf16
        ? outcome(BF16, 'bf16-supported', { source })
        : outcome(BF16, 'bf16-not-needed', { precision }),
    );
  },
};

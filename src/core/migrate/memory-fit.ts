/**
 * Memory: the estimated peak on the target against its usable memory less the margin (fitVerdict,
 * margin.ts). Paged optimizer states are not counted against it: they wait in host RAM when it fills.
 */
import type { NoParams } from '../message.js';
import { type Check, only, outcome } from './check.js';
import type { BnbOnTarget, UsableOn } from './context.js';

/** The figures every memory reason shows. */
interface MemoryFigures {
  /** What must stay on one GPU by the estimate's point (requiredDeviceBytes(e, 'point')): the range's bottom. */
  readonly estimatedBytes: number;
  /** The same by its upper bound (requiredDeviceBytes): the range's top, which the verdict judges. */
  readonly peakBytes: number;
  readonly usableBytes: number;
  readonly on: UsableOn;
  /** Paged optimizer states that come on top where there is room; 0 when none. */
  readonly pagedBytes: number;
  /** What the target's bitsandbytes changed, when it did. */
  readonly bnb: BnbOnTarget | null;
}

export interface MemoryFitParams {
  /** Neither a GPU in the target's environment file nor a catalog GPU. */
  readonly 'memory-no-target': NoParams;
  readonly 'memory-fits': MemoryFigures & { readonly budgetBytes: number; readonly marginFraction: number };
  /** It fits the card but not the margin. */
  readonly 'memory-in-margin': MemoryFigures & {
    readonly leftBytes: number;
    readonly marginFraction: number;
  };
  readonly 'memory-over': MemoryFigures & { readonly overBytes: number };
}

export interface MemoryFitActionParams {
  readonly 'pass-to-gpu': NoParams;
  /** headroom plan for changes that restore the margin; first the bitsandbytes upgrade when it saves bytes. */
  readonly 'restore-margin': { readonly upgradeSavesBytes: number };
  /** headroom plan for the cheapest change that fits; first the bitsandbytes upgrade when it saves bytes. */
  readonly 'cheapest-fit': { readonly upgradeSavesBytes: number; readonly gpu: string | null };
}

export const MEMORY_FIT: Check<'memory-fit', MemoryFitParams, MemoryFitActionParams> = {
  id: 'memory-fit',
  statuses: {
    'memory-no-target': 'unknown',
    'memory-fits': 'pass',
    'memory-in-margin': 'warn',
    'memory-over': 'fail',
  },
  run(ctx) {
    if (!ctx.usable)
      return only(outcome(MEMORY_FIT, 'memory-no-target', {}, { code: 'pass-to-gpu', params: {} }));
    const peakBytes = ctx.fit.requiredBytes;
    const usableBytes = ctx.usable.bytes;
    const figures: MemoryFigures = {
      estimatedBytes: ctx.fit.estimatedBytes,
      peakBytes,
      usableBytes,
      on: ctx.usable.on,
      pagedBytes: ctx.estimate.breakdown.pagedOptimizerBytes ?? 0,
      bnb: ctx.bnb,
    };
    const upgradeSavesBytes = ctx.upgradeSavesBytes;
    if (ctx.fit.ok)
      return only(
        outcome(MEMORY_FIT, 'memory-fits', {
          ...figures,
          budgetBytes: ctx.fit.budgetBytes,
          marginFraction: ctx.marginFraction,
        }),
      );
    if (peakBytes <= usableBytes)
      return only(
        outcome(
          MEMORY_FIT,
          'memory-in-margin',
          { ...figures, leftBytes: usableBytes - peakBytes, marginFraction: ctx.marginFraction },
          { code: 'restore-margin', params: { upgradeSavesBytes } },
        ),
      );
    return only(
      outcome(
        MEMORY_FIT,
        'memory-over',
        { ...figures, overBytes: peakBytes - usableBytes },
        { code: 'cheapest-fit', params: { upgradeSavesBytes, gpu: ctx.targetGpu?.id ?? null } },
      ),
    );
  },
};

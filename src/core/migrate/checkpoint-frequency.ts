/**
 * Checkpoint frequency against preemption: the training a preemption loses (the save interval times
 * the step time on the target) against MAX_LOST_SECONDS, and the share of the time saving takes.
 */
import type { NoParams } from '../message.js';
import { type Check, only, outcome } from './check.js';

/** A preemption should cost at most this much training (checkpoint interval), seconds. */
export const MAX_LOST_SECONDS = 30 * 60;
/** Warn when saving takes more than this share of the time between saves. */
export const MAX_SAVE_SHARE = 0.1;

/** A save interval, against the preemption limit. */
export interface IntervalFigures {
  readonly saveEverySteps: number;
  /** Training at risk: the interval times the step time. */
  readonly lostSeconds: number;
  readonly limitSeconds: number;
  /** Share of the time saving takes; null when the write speed is unknown. */
  readonly saveShare: number | null;
}

export interface CheckpointFrequencyParams {
  /** Step time unknown (the target GPU is not in the catalog). */
  readonly 'frequency-unknown': NoParams;
  /** No save interval given: the one that keeps within the limit. */
  readonly 'frequency-not-given': {
    readonly stepSeconds: number;
    readonly everyMax: number;
    readonly lostSeconds: number;
    readonly limitSeconds: number;
  };
  readonly 'frequency-ok': IntervalFigures;
  /** The interval risks more than the limit. */
  readonly 'frequency-long': IntervalFigures;
  /** Saving takes more than MAX_SAVE_SHARE of the time. */
  readonly 'frequency-slow-save': IntervalFigures;
}

export interface CheckpointFrequencyActionParams {
  /** --save-steps N to check the user's setting, with the largest that fits. */
  readonly 'give-save-steps': { readonly everyMax: number };
  readonly 'save-steps-max': { readonly everyMax: number };
  readonly 'save-less-often': NoParams;
}

export const CHECKPOINT_FREQUENCY: Check<
  'checkpoint-frequency',
  CheckpointFrequencyParams,
  CheckpointFrequencyActionParams
> = {
  id: 'checkpoint-frequency',
  statuses: {
    'frequency-unknown': 'unknown',
    'frequency-not-given': 'warn',
    'frequency-ok': 'pass',
    'frequency-long': 'warn',
    'frequency-slow-save': 'warn',
  },
  run(ctx) {
    const stepSeconds = ctx.time?.stepSeconds ?? null;
    if (stepSeconds === null) return only(outcome(CHECKPOINT_FREQUENCY, 'frequency-unknown', {}));
    const everyMax = Math.max(1, Math.floor(MAX_LOST_SECONDS / stepSeconds));
    const saves = ctx.input.saveEverySteps ?? null;
    if (saves === null)
      return only(
        outcome(
          CHECKPOINT_FREQUENCY,
          'frequency-not-given',
          { stepSeconds, everyMax, lostSeconds: everyMax * stepSeconds, limitSeconds: MAX_LOST_SECONDS },
          { code: 'give-save-steps', params: { everyMax } },
        ),
      );
    const lostSeconds = saves * stepSeconds;
    const saveSeconds = ctx.checkpoint.saveSeconds;
    const saveShare = saveSeconds === null ? null : saveSeconds / (lostSeconds + saveSeconds);
    const figures: IntervalFigures = {
      saveEverySteps: saves,
      lostSeconds,
      limitSeconds: MAX_LOST_SECONDS,
      saveShare,
    };
    if (lostSeconds > MAX_LOST_SECONDS)
      return only(
        outcome(CHECKPOINT_FREQUENCY, 'frequency-long', figures, {
          code: 'save-steps-max',
          params: { everyMax },
        }),
      );
    if (saveShare !== null && saveShare > MAX_SAVE_SHARE)
      return only(
        outcome(CHECKPOINT_FREQUENCY, 'frequency-slow-save', figures, {
          code: 'save-less-often',
          params: {},
        }),
      );
    return only(outcome(CHECKPOINT_FREQUENCY, 'frequency-ok', figures));
  },
};

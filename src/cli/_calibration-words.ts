/**
 * A calibration's refusals and bounds (src/core/run-calibration.ts, calibrate.ts: data with a code and
 * raw figures) in words, from src/words/calibration.ts and calibration-hints.ts, and the user error a
 * refusal becomes: the reason, then what to do.
 */
import type { CalibrationBound } from '../core/calibrate.js';
import { HeadroomUserError } from '../core/errors.js';
import type { MessageOf } from '../core/message.js';
import type { CalibrationRefusal } from '../core/run-calibration.js';
import { CALIBRATION, type RefusalParams } from '../words/calibration.js';
import { CALIBRATION_HINTS, type HintParams } from '../words/calibration-hints.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';

/** Why the run cannot be calibrated from, or the calibration not carried: one clause per refusal. */
export function refusalText(r: CalibrationRefusal, runId: number, lang: Lang = 'en'): string {
  // The refusal's own params with the run it is about (TypeScript cannot pair a union's code and params).
  const message = { code: r.code, params: { ...r.params, runId } } as MessageOf<RefusalParams>;
  return say(CALIBRATION, lang, message);
}

/** What to do about a refusal. `ref` is how the user named the run. */
export function refusalHint(r: CalibrationRefusal, ref: string, lang: Lang = 'en'): string {
  const message = { code: r.code, params: { ...r.params, ref } } as MessageOf<HintParams>;
  return say(CALIBRATION_HINTS, lang, message);
}

/** The refusals as one user error: every reason, then what to do about the first. */
export function refusalError(
  refusals: readonly CalibrationRefusal[],
  runId: number,
  ref: string,
  where: string,
  lang: Lang = 'en',
): HeadroomUserError {
  const [first] = refusals;
  if (!first) throw new RangeError('refusalError needs at least one refusal');
  const reasons = refusals.map((r) => refusalText(r, runId, lang));
  return new HeadroomUserError({
    code: 'calibration-refused',
    where,
    message: say(CALIBRATION, lang, { code: 'also', params: { reasons } }),
    hint: refusalHint(first, ref, lang),
  });
}

/** A bound that acted, for the terminal. */
export function boundText(b: CalibrationBound, lang: Lang = 'en'): string {
  return say(CALIBRATION, lang, b);
}

/** `--calibrated RUN` for fit and plan: the run's stored calibration and its scenario as the base. */
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { fileError } from '../core/file-errors.js';
import { parseMarginFraction } from '../core/margin.js';
import {
  CALIBRATION_MAX_TOKEN_RATIO,
  calibrationCarries,
  type RunCalibration,
} from '../core/run-calibration.js';
import { calibrationOf } from '../io/calibrate-run.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { requireRun } from '../io/run-context.js';
import { CALIBRATION } from '../words/calibration.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { refusalError } from './_calibration-words.js';
import type { CommandContext } from './_command.js';
import { hubProgress } from './_hub-progress.js';
import { langFromFlag } from './_lang.js';
import { type LoadedScenario, loadScenario } from './_scenario-input.js';

export const CALIBRATED_OPTIONS = { calibrated: { type: 'string' } } as const;

export const CALIBRATED_HELP = `  --calibrated RUN          predict from a measured run (headroom calibrate RUN): its activation and
                            allocator factors and memory outside torch; its scenario is the base the
                            flags change, within the same model, method, quantization and strategy and
                            ${CALIBRATION_MAX_TOKEN_RATIO}× its tokens per micro-batch either way`;

/** The calibration --calibrated names, or null without the flag; a refusal's words are in `lang`. */
export async function loadCalibrated(
  flag: string | undefined,
  ctx: CommandContext,
  lang: Lang = 'en',
): Promise<RunCalibration | null> {
  if (flag === undefined) return null;
  const ledger = Ledger.open(headroomHome(ctx.env), 'read');
  try {
    const run = requireRun(ledger, flag, '--calibrated');
    const outcome = await calibrationOf(ledger, run);
    if (outcome.refused) throw refusalError(outcome.refusal.refusals, run.id, flag, '--calibrated', lang);
    return outcome.calibration;
  } finally {
    ledger.close();
  }
}

/** "run 1 "trial" (activations 1.30×, allocator 1.50×, 500 MiB outside torch)". */
export function describeCalibration(cal: RunCalibration, lang: Lang = 'en'): string {
  const c = cal.calibration;
  return say(CALIBRATION, lang, {
    code: 'describe',
    params: {
      runId: cal.runId,
      runName: cal.runName,
      activationFactor: c.activationFactor,
      allocatorFactor: c.allocatorFactor,
      nonTorchBytes: c.nonTorchBytes,
    },
  });
}

/** The calibration's summary for --json. */
export function calibrationJson(cal: RunCalibration) {
  const c = cal.calibration;
  return {
    run: { id: cal.runId, name: cal.runName },
    activationFactor: c.activationFactor,
    allocatorFactor: c.allocatorFactor,
    nonTorchBytes: c.nonTorchBytes,
    bounds: c.bounds,
  };
}

/**
 * What fit and plan both start from: the --calibrated run (its scenario is the base the flags change),
 * the scenario, the target GPU (required: the `missing-argument` words say how to give it) and the --headroom margin. A
 * refusal speaks the command's --lang (else the locale).
 */
export async function loadTargetedScenario(
  command: string,
  values: Parameters<typeof loadScenario>[0] & {
    readonly calibrated?: string;
    readonly headroom?: string;
    readonly lang?: string;
  },
  positionalModel: string | undefined,
  ctx: CommandContext,
): Promise<{
  calibrated: RunCalibration | null;
  loaded: LoadedScenario & { gpu: GpuSpec };
  marginFraction: number | undefined;
}> {
  const lang = langFromFlag(values.lang, ctx.env);
  const calibrated = await loadCalibrated(values.calibrated, ctx, lang);
  const loaded = await loadScenario(
    values,
    positionalModel,
    command,
    calibrated ? (calibrated.scenario as unknown as Record<string, unknown>) : undefined,
    hubProgress(ctx.stderr),
  );
  if (!loaded.gpu) {
    throw fileError(
      'missing-argument',
      { command: command, needs: 'target-gpu', ref: '' },
      '--gpu',
      'bad-flag',
    );
  }
  // The factors describe the run's own tensors: the flags may change its size, not what it is.
  const carried = calibrated ? calibrationCarries(calibrated.scenario, loaded.scenario) : [];
  if (calibrated && carried.length > 0)
    throw refusalError(
      carried,
      calibrated.runId,
      values.calibrated ?? String(calibrated.runId),
      '--calibrated',
      lang,
    );
  const marginFraction =
    values.headroom === undefined ? undefined : parseMarginFraction(values.headroom, '--headroom');
  return { calibrated, loaded: { ...loaded, gpu: loaded.gpu }, marginFraction };
}

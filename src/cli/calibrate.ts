/** `headroom calibrate RUN`: a short recorded run against the estimate of its setup, and the run's own factors. */

import { readEstimateError } from '../core/estimate-error.js';
import { fileError } from '../core/file-errors.js';
import type { MessageOf } from '../core/message.js';
import {
  CALIBRATION_MAX_TOKEN_RATIO,
  CALIBRATION_MIN_RECORDED_STEPS,
  type RunCalibration,
} from '../core/run-calibration.js';
import type { RunRecord } from '../core/run-record.js';
import { withAllocatorSetting } from '../core/scenario.js';
import { formatBytes } from '../core/units.js';
import { measureCalibration, storeCalibration } from '../io/calibrate-run.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { requireRun } from '../io/run-context.js';
import { CALIBRATION, CALIBRATION_TABLE, type CalibrationParams } from '../words/calibration.js';
import { say } from '../words/catalog.js';
import { estimateErrorWords } from '../words/estimate-error.js';
import type { Lang } from '../words/lang.js';
import { describeScenario } from '../words/scenario-line.js';
import { boundText, refusalError } from './_calibration-words.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { renderTable, type Style, styleFor, visibleWidth } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import { FROM_HELP, loadScenario, SCENARIO_INPUT_OPTIONS } from './_scenario-input.js';

export const help = `headroom calibrate — check the estimate against a short recorded run, and learn the run's own factors

Usage:
  headroom calibrate RUN [scenario flags] [--json]

RUN is a run headroom recorded (headroom run, headroom watch): its id, its --name, or last. The run's
measured per-step peaks (torch allocated and reserved from the probe, the run's processes in nvidia-smi;
the first step left out: it creates the optimizer states) are compared with the estimate for its
scenario, level by level. From them come the run's own activation factor (activation bytes it really
keeps per byte the model predicts), allocator factor (cache above allocated, against the model's) and
memory outside torch. The result is stored with the run: headroom fit --calibrated RUN and
headroom plan --calibrated RUN then predict other batch sizes and sequence lengths from it.

The scenario is the one the run was recorded with (headroom run --model … --micro-batch …); flags
change it, or give it when the run has none.

${SCENARIO_FLAGS_HELP.replace('MODEL | --model ID', '--model ID        ')}
${FROM_HELP}

Each level's error is (estimate − measured) / measured: "estimate 12.0 % under the measured peak" means
the run needed more than the estimate said.

The factors are physical: weights, gradients and optimizer states are known exactly and never scaled;
activations never fall below every layer's input (what full checkpointing keeps); the allocator's cache
and the memory outside torch never go negative. A bound that acted is printed. A run is refused, with
the reason, when it has fewer than ${CALIBRATION_MIN_RECORDED_STEPS} training steps (the first creates the optimizer states), when its
peak is below the scenario's weights and optimizer states, or when it kept more activations than this
model at this micro-batch and sequence can. fit and plan carry the factors to setups of the same model,
method, quantization and strategy, within ${CALIBRATION_MAX_TOKEN_RATIO}× the run's tokens per micro-batch either way.

Output:
  --json                    { runId, runName, scenario, estimate, calibration: { activationFactor,
                            allocatorFactor, nonTorchBytes, estimatedNonTorchBytes, errors, measured,
                            peakPhase, activationRange, bounds: [{ code, params }] }, activationBytes,
                            steps, notes: [{ code, params }], refusals: [] }; a refused run: { runId,
                            runName, scenario, estimate, measured, steps, refusals: [{ code, params }] },
                            exit 1
${LANG_HELP}

Examples:
  headroom run --name trial --model llama-3.2-1b --method lora --micro-batch 2 -- python train.py --max-steps 20
  headroom calibrate trial
  headroom fit --calibrated trial --gpu a10g`;

const OPTIONS = { ...SCENARIO_INPUT_OPTIONS, ...LANG_OPTIONS, json: { type: 'boolean' } } as const;

/** Pads a label to `width` terminal columns (a Chinese character takes two). */
function padColumns(label: string, width: number): string {
  return label + ' '.repeat(Math.max(1, width - visibleWidth(label)));
}

/** The calibration for the terminal: the three levels side by side, the factors, and what happens next. */
export function renderCalibration(
  cal: RunCalibration,
  run: RunRecord,
  modelId: string,
  style: Style,
  lang: Lang = 'en',
): string {
  const c = cal.calibration;
  const w = <C extends keyof CalibrationParams>(code: C, params: CalibrationParams[C]) =>
    say(CALIBRATION, lang, { code, params } as MessageOf<CalibrationParams>);
  const t = CALIBRATION_TABLE[lang];
  const lines: string[] = [];
  lines.push(style.bold(w('run-head', { id: run.id, name: run.name, status: run.status, steps: run.steps })));
  lines.push(style.dim(describeScenario(cal.scenario, modelId)));
  lines.push(w('measured-over', cal.steps));
  lines.push('');
  const row = (label: string, est: number, measured: number | null, error: number | null) => [
    `  ${label}`,
    formatBytes(est),
    measured === null ? '—' : formatBytes(measured),
    error === null ? '—' : estimateErrorWords(readEstimateError(error), lang),
  ];
  lines.push(
    renderTable(
      [`  ${t.level}`, t.estimated, t.measured, t.against],
      [
        row(t.levels.allocated, cal.estimate.allocatedBytes, c.measured.allocatedBytes, c.errors.allocated),
        row(t.levels.reserved, cal.estimate.reservedBytes, c.measured.reservedBytes, c.errors.reserved),
        row(t.levels['nvidia-smi'], cal.estimate.deviceBytes, c.measured.deviceBytes, c.errors.device),
      ],
      [1, 2],
    ),
  );
  lines.push('');
  lines.push(w('factors-head', { peakPhase: c.peakPhase }));
  const factor = (label: string, text: string) => `  ${padColumns(label, 15)}${text}`;
  const a = cal.activationBytes;
  lines.push(
    factor(
      t.factors.activations,
      c.activationFactor === null || a === null
        ? w('activation-factor-none', {})
        : w('activation-factor', {
            factor: c.activationFactor,
            measuredBytes: a.measured,
            estimatedBytes: a.estimated,
          }),
    ),
  );
  lines.push(
    factor(
      t.factors.allocator,
      w('allocator-factor', {
        factor: c.allocatorFactor,
        cacheBytes: c.measured.reservedBytes - c.measured.allocatedBytes,
      }),
    ),
  );
  lines.push(
    factor(
      t.factors.outside,
      c.nonTorchBytes === null
        ? w('outside-torch-none', {})
        : w('outside-torch', { bytes: c.nonTorchBytes, estimatedBytes: c.estimatedNonTorchBytes }),
    ),
  );
  for (const bound of c.bounds) lines.push(style.yellow(`  ! ${boundText(bound, lang)}`));
  for (const note of cal.notes) lines.push(style.yellow(`  ! ${say(CALIBRATION, lang, note)}`));
  lines.push('');
  lines.push(style.dim(w('stored', { runId: run.id, ref: run.name ?? String(run.id) })));
  return lines.join('\n');
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'calibrate', 1);
  const lang = langFromFlag(values.lang, ctx.env);
  const ref = positionals[0];
  if (ref === undefined) {
    throw fileError(
      'missing-argument',
      { command: 'calibrate', needs: 'recorded-run', ref: '' },
      'RUN',
      'bad-flag',
    );
  }
  const ledger = Ledger.open(headroomHome(ctx.env), 'read');
  try {
    const record = requireRun(ledger, ref);
    const given = typeof values.scenario === 'string' || typeof values.from === 'string' || values.model;
    if (!record.scenario && !given) {
      throw fileError('run-no-scenario', { id: record.id, ref, use: 'calibrate' }, 'RUN', 'bad-flag');
    }
    const loaded = await loadScenario(values, undefined, 'calibrate', record.scenario ?? undefined);
    // A run recorded without a scenario still kept its allocator setting (headroom run records it).
    const recordedConf = record.env.pytorchAllocConf;
    const scenario = record.scenario
      ? loaded.scenario
      : withAllocatorSetting(
          loaded.scenario,
          typeof recordedConf === 'string' ? recordedConf : undefined,
          values['no-expandable-segments'] === true,
        );
    const outcome = measureCalibration(ledger, record, {
      scenario,
      shape: loaded.model.shape,
      exactParams: loaded.model.exactParams,
    });
    if (outcome.refused) {
      // Nothing is stored: fit and plan --calibrated keep whatever was stored before, or measure again.
      const refused = outcome.refusal;
      if (values.json) ctx.stdout.write(`${JSON.stringify(refused, null, 2)}\n`);
      throw refusalError(refused.refusals, record.id, ref, 'RUN', lang);
    }
    const cal = outcome.calibration;
    storeCalibration(ledger, cal);
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ ...cal, refusals: [] }, null, 2)}\n`);
      return 0;
    }
    ctx.stdout.write(`${renderCalibration(cal, record, loaded.model.id, styleFor(ctx.stdout), lang)}\n`);
    return 0;
  } finally {
    ledger.close();
  }
}

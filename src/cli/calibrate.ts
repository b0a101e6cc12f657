/** `headroom calibrate RUN`: a short recorded run against the estimate of its setup, and the run's own factors. */
import { describeScenario } from '../core/describe.js';
import { HeadroomUserError } from '../core/errors.js';
import { estimateErrorText } from '../core/estimate-error.js';
import {
  CALIBRATION_MAX_TOKEN_RATIO,
  CALIBRATION_MIN_RECORDED_STEPS,
  type CalibrationNote,
  type RunCalibration,
} from '../core/run-calibration.js';
import type { RunRecord } from '../core/run-record.js';
import { withAllocatorSetting } from '../core/scenario.js';
import { formatBytes } from '../core/units.js';
import { measureCalibration, storeCalibration } from '../io/calibrate-run.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { requireRun } from '../io/run-context.js';
import { boundText, refusalError } from './_calibration-words.js';
import { type CommandContext, parseFlags } from './_command.js';
import { renderTable, type Style, styleFor } from './_output.js';
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
                            steps, notes, refusals: [] }; a refused run: { runId, runName, scenario,
                            estimate, measured, steps, refusals: [{ code, params }] }, exit 1

Examples:
  headroom run --name trial --model llama-3.2-1b --method lora --micro-batch 2 -- python train.py --max-steps 20
  headroom calibrate trial
  headroom fit --calibrated trial --gpu a10g`;

const OPTIONS = { ...SCENARIO_INPUT_OPTIONS, json: { type: 'boolean' } } as const;

function noteText(note: CalibrationNote): string {
  switch (note.code) {
    case 'batch-differs':
      return `the probe reported micro-batch ${note.recorded} but the scenario says ${note.scenario}: the estimate is the scenario's (add --micro-batch ${note.recorded} if the probe is right)`;
    case 'seq-len-differs':
      return `the probe reported sequence length ${note.recorded} but the scenario says ${note.scenario}: the estimate is the scenario's (add --seq-len ${note.recorded} if the probe is right)`;
    case 'ended-in-oom':
      return 'the run ended in an out-of-memory error: its peaks stop at the card, so the factors may be low';
    case 'no-device-samples':
      return "no nvidia-smi sample fell within a measured step: the nvidia-smi level keeps the estimate's memory outside torch";
    case 'few-steps':
      return `only ${note.steps} step${note.steps === 1 ? '' : 's'} after the warm-up: a few more give a steadier peak`;
  }
}

/** The calibration for the terminal: the three levels side by side, the factors, and what happens next. */
export function renderCalibration(
  cal: RunCalibration,
  run: RunRecord,
  modelId: string,
  style: Style,
): string {
  const c = cal.calibration;
  const lines: string[] = [];
  lines.push(
    style.bold(`run ${run.id}${run.name ? ` "${run.name}"` : ''} · ${run.status} · ${run.steps} steps`),
  );
  lines.push(style.dim(describeScenario(cal.scenario, modelId)));
  const s = cal.steps;
  lines.push(
    `measured over steps ${s.first}–${s.last} (${s.used} step${s.used === 1 ? '' : 's'}${s.warmup > 0 ? `; the first ${s.warmup === 1 ? 'step is' : `${s.warmup} steps are`} left out: optimizer states, allocator warm-up` : ''})`,
  );
  lines.push('');
  const row = (label: string, est: number, measured: number | null, error: number | null) => [
    `  ${label}`,
    formatBytes(est),
    measured === null ? '—' : formatBytes(measured),
    error === null ? '—' : estimateErrorText(error),
  ];
  lines.push(
    renderTable(
      ['  level', 'estimated', 'measured', 'estimate against the run'],
      [
        row('allocated', cal.estimate.allocatedBytes, c.measured.allocatedBytes, c.errors.allocated),
        row('reserved', cal.estimate.reservedBytes, c.measured.reservedBytes, c.errors.reserved),
        row('nvidia-smi', cal.estimate.deviceBytes, c.measured.deviceBytes, c.errors.device),
      ],
      [1, 2],
    ),
  );
  lines.push('');
  lines.push(`the run's own factors (peak at ${c.peakPhase}):`);
  const a = cal.activationBytes;
  lines.push(
    c.activationFactor === null || a === null
      ? '  activations    — (the estimate peaks where no activations are alive)'
      : `  activations    ${c.activationFactor.toFixed(2)} × the estimate's (${formatBytes(a.measured)} at the peak where ${formatBytes(a.estimated)} were estimated)`,
  );
  lines.push(
    `  allocator      ${c.allocatorFactor.toFixed(2)} × the modelled cache (reserved − allocated: ${formatBytes(c.measured.reservedBytes - c.measured.allocatedBytes)})`,
  );
  lines.push(
    c.nonTorchBytes === null
      ? '  outside torch  — (no nvidia-smi figure for the run)'
      : `  outside torch  ${formatBytes(c.nonTorchBytes)} (nvidia-smi − reserved: CUDA context, NCCL, other libraries; estimated ${formatBytes(c.estimatedNonTorchBytes)})`,
  );
  for (const bound of c.bounds) lines.push(style.yellow(`  ! ${boundText(bound)}`));
  for (const note of cal.notes) lines.push(style.yellow(`  ! ${noteText(note)}`));
  lines.push('');
  const ref = run.name ?? String(run.id);
  lines.push(
    style.dim(
      `stored with run ${run.id}: headroom fit --calibrated ${ref} --gpu ID and headroom plan --calibrated ${ref} --gpu ID predict from it`,
    ),
  );
  return lines.join('\n');
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'calibrate', 1);
  const ref = positionals[0];
  if (ref === undefined) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: 'RUN',
      message: 'calibrate needs a recorded run',
      hint: 'headroom calibrate last (headroom runs lists them)',
    });
  }
  const ledger = Ledger.open(headroomHome(ctx.env));
  try {
    const record = requireRun(ledger, ref);
    const given = typeof values.scenario === 'string' || typeof values.from === 'string' || values.model;
    if (!record.scenario && !given) {
      throw new HeadroomUserError({
        code: 'bad-flag',
        where: 'RUN',
        message: `run ${record.id} was recorded without a scenario, so there is no estimate to compare with`,
        hint: `give its setup: headroom calibrate ${ref} --model ID --method … --micro-batch N --seq-len N`,
      });
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
      throw refusalError(refused.refusals, record.id, ref, 'RUN');
    }
    const cal = outcome.calibration;
    storeCalibration(ledger, cal);
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ ...cal, refusals: [] }, null, 2)}\n`);
      return 0;
    }
    ctx.stdout.write(`${renderCalibration(cal, record, loaded.model.id, styleFor(ctx.stdout))}\n`);
    return 0;
  } finally {
    ledger.close();
  }
}

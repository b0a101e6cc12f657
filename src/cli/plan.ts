/** `headroom plan`: the cheapest changes, in order, that make a scenario fit a GPU. */
import { describeScenario } from '../core/describe.js';
import { estimate } from '../core/estimate.js';
import { MARGIN_REASON } from '../core/margin.js';
import { type DroppedRung, makePlan, type Plan, type Rung } from '../core/plan.js';
import { type CalibratedPrediction, predictCalibrated } from '../core/run-calibration.js';
import { formatBytes } from '../core/units.js';
import { meterBar } from './_bar.js';
import {
  CALIBRATED_HELP,
  CALIBRATED_OPTIONS,
  calibrationJson,
  describeCalibration,
  loadTargetedScenario,
} from './_calibrated.js';
import { type CommandContext, parseFlags } from './_command.js';
import { renderTable, type Style, styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  FROM_HELP,
  HEADROOM_HELP,
  importSummary,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
} from './_scenario-input.js';

export const help = `headroom plan — the cheapest changes that make a run fit

Usage:
  headroom plan MODEL [flags] --gpu ID [--gpus N] [--headroom 10%] [--allow-shorter] [--json]
  headroom plan --from CONFIG --gpu ID
  headroom plan --scenario FILE --gpu ID
  headroom plan --calibrated RUN --micro-batch 8 --gpu ID   from a measured run (headroom calibrate)

Climbs a ladder, cheapest change first, each on top of the ones before and skipped where it saves
nothing: sdpa attention, smaller micro-batch with more accumulation (same effective batch), selective
then full activation checkpointing, chunked loss, shorter sequences (only with --allow-shorter), pure
bf16, an 8-bit optimizer, LoRA, QLoRA, ZeRO-2 then ZeRO-3 across --gpus, CPU then NVMe offload. Stops at
the first rung that fits, then leaves out each rung a later one made pointless (an 8-bit optimizer once
LoRA trains only the adapters): every change shown is needed to fit as fast, with sequences as long.
Lists the next best alternatives; if nothing fits, the hardware that would.
Each rung shows the memory it saves, the time per training token relative to the start (docs/time-model.md)
and its risk.

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${HEADROOM_HELP}
  --allow-shorter           let the plan shorten sequences (truncates samples)
${CALIBRATED_HELP}

Output:
  --json                    { scenario, target, fitsAlready, rungs: [{ change, scenario, estimate, savedBytes,
                            relativeStepTime, risk, fits }], alternatives, dropped: [{ rung, from,
                            savingBytes, after }] }, rungs in the order applied; dropped: the rungs climbed
                            and left out (rung and from as climbed, savingBytes on top of the rungs shown,
                            after: the shown rung that took most of its saving, or null);
                            with --calibrated also calibration: { run, factors, estimated, predicted,
                            movedBytes } for the scenario as given

Examples:
  headroom plan llama-3.1-8b --method full --micro-batch 4 --gpu rtx-4090
  headroom plan llama-3.1-70b --method full --gpus 8 --gpu h100-sxm
  headroom plan --from examples/llama-3/fft-8b.yaml --gpu a100-sxm-80gb`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...CALIBRATED_OPTIONS,
  headroom: { type: 'string' },
  'allow-shorter': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const BAR = 28;

const riskColour = (style: Style, level: Rung['risk']['level']) =>
  level === 'none'
    ? style.green
    : level === 'low'
      ? style.cyan
      : level === 'medium'
        ? style.yellow
        : style.red;

const times = (r: number) => `${r < 0.1 ? r.toPrecision(2) : r.toFixed(2)}×`;

/** Renders a plan for the terminal: memory falling rung by rung, each bar against the budget. */
export function renderPlan(plan: Plan, modelId: string, style: Style): string {
  const { target } = plan;
  const lines: string[] = [];
  lines.push(style.bold(describeScenario(plan.scenario, modelId)));
  lines.push(
    style.dim(
      `target: ${target.gpus > 1 ? `${target.gpus} × ` : ''}${target.name} — ${formatBytes(target.usableBytes)} usable, ${formatBytes(target.budgetBytes)} with the ${Math.round(target.marginFraction * 100)} % margin (${MARGIN_REASON})`,
    ),
  );
  lines.push('');
  const start = target.startPeakBytes;
  if (plan.fitsAlready) {
    const free = target.headroomBytes;
    lines.push(
      `  ${meterBar(start, target.usableBytes, BAR * 2, target.budgetBytes)}  ${formatBytes(start)} of ${formatBytes(target.usableBytes)}`,
    );
    lines.push(
      target.pagedToHostBytes > 0
        ? style.yellow(
            `✓ fits already, with ${formatBytes(target.pagedToHostBytes)} of the paged optimizer states in CPU RAM (paged in for every optimizer step: slower) — nothing has to change`,
          )
        : style.green(
            `✓ fits already: ${formatBytes(start)} per GPU, ${formatBytes(free)} free (${((free / target.usableBytes) * 100).toFixed(0)} % headroom, ${formatBytes(target.budgetBytes - start)} beyond the margin) — nothing to change`,
          ),
    );
    return lines.join('\n');
  }
  const scale = Math.max(start, target.usableBytes);
  const row = (
    n: string,
    change: string,
    peak: number,
    saved: string,
    time: string,
    risk: string,
    fits: boolean | null,
  ) => [
    n,
    change,
    (fits ? style.green : style.red)(meterBar(peak, scale, BAR, target.budgetBytes)),
    formatBytes(peak),
    saved,
    time,
    risk,
    fits === null ? '' : fits ? style.green('✓') : style.red('✗'),
  ];
  const rows = [
    row('', style.dim('as given'), start, '', '1.00×', '', false),
    ...plan.rungs.map((r, i) =>
      row(
        String(i + 1),
        r.change.summary,
        r.estimate.peak.deviceBytes,
        `−${formatBytes(r.savedBytes)}`,
        times(r.relativeStepTime),
        riskColour(style, r.risk.level)(r.risk.level),
        r.fits,
      ),
    ),
  ];
  lines.push(
    renderTable(
      [
        '',
        'change (each on top of the ones above)',
        `peak per GPU   ┃ = budget`,
        'peak',
        'saved',
        'time/token',
        'risk',
        '',
      ],
      rows,
      [3, 4, 5],
    ),
  );
  const last = plan.rungs[plan.rungs.length - 1];
  lines.push('');
  if (last?.fits) {
    const free = target.usableBytes - last.estimate.peak.deviceBytes;
    lines.push(
      style.green(
        `✓ fits after ${plan.rungs.length} change${plan.rungs.length > 1 ? 's' : ''}: ${formatBytes(last.estimate.peak.deviceBytes)} per GPU, ${formatBytes(free)} free (${((free / target.usableBytes) * 100).toFixed(0)} %), ${times(last.relativeStepTime)} the time per token`,
      ),
    );
  } else {
    lines.push(
      style.red(`✗ nothing on the ladder fits ${target.gpus > 1 ? `${target.gpus} × ` : ''}${target.gpu}`),
    );
  }
  if (plan.dropped.length > 0) {
    lines.push('');
    lines.push(
      `  tried on the way and not needed: the change${plan.rungs.length > 1 ? 's' : ''} above fit${plan.rungs.length > 1 ? '' : 's'} without each, as fast`,
    );
    lines.push(
      renderTable(
        ['  change', 'saved then', 'saves now', ''],
        plan.dropped.map((d) => droppedRow(plan, d, style)),
        [1, 2],
      ),
    );
  }
  const risky = plan.rungs.filter((r) => r.risk.level !== 'none');
  if (risky.length > 0) {
    lines.push('');
    lines.push('  risks:');
    for (const r of risky)
      lines.push(`   ${plan.rungs.indexOf(r) + 1}. ${riskColour(style, r.risk.level)(r.risk.note)}`);
  }
  if (plan.alternatives.length > 0) {
    lines.push('');
    lines.push(
      last?.fits
        ? `  instead of ${plan.rungs.length}, each of these fits too:`
        : '  hardware that runs it (with only the risk-free changes above):',
    );
    lines.push(
      renderTable(
        ['  change', 'peak', 'time/token', 'risk'],
        plan.alternatives.map((a) => [
          `  ${a.change.summary}`,
          formatBytes(a.estimate.peak.deviceBytes),
          times(a.relativeStepTime),
          riskColour(style, a.risk.level)(a.risk.note),
        ]),
        [1, 2],
      ),
    );
  }
  lines.push('');
  lines.push(
    style.dim(
      'time/token: relative time to train on the same tokens (time model: FLOPs at 40 % of peak, links, offload)',
    ),
  );
  return lines.join('\n');
}

/** A dropped rung: what it saved where the climb tried it, what it would save on the ladder shown, and why not. */
function droppedRow(plan: Plan, d: DroppedRung, style: Style): string[] {
  const n = d.after === null ? -1 : plan.rungs.findIndex((r) => r.change.id === d.after);
  return [
    `  ${style.dim(d.rung.change.summary)}`,
    `−${formatBytes(d.rung.savedBytes)}`,
    d.savingBytes > 0 ? `−${formatBytes(d.savingBytes)}` : 'nothing',
    n >= 0 ? `not needed after ${n + 1} (${plan.rungs[n]!.change.summary})` : 'not needed: fits without it',
  ];
}

/** How far calibration moved the prediction for the scenario as given. */
export function renderPrediction(p: CalibratedPrediction, source: string, style: Style): string {
  const moved = p.movedBytes;
  const percent = (100 * moved) / p.estimated.deviceBytes;
  return style.dim(
    `calibrated on ${source}: ${formatBytes(p.predicted.deviceBytes)} per GPU from the measured baseline, ${moved >= 0 ? '+' : '−'}${formatBytes(Math.abs(moved))} (${moved >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(1)} %) from the estimate alone (${formatBytes(p.estimated.deviceBytes)}); every rung below is calibrated`,
  );
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'plan', 1);
  const { calibrated, loaded, marginFraction } = await loadTargetedScenario(
    'plan',
    values,
    positionals[0],
    ctx,
    'add --gpu ID (headroom gpus lists them), and --gpus N for several',
  );
  const plan = makePlan({
    scenario: loaded.scenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    gpu: loaded.gpu,
    ...(marginFraction === undefined ? {} : { marginFraction }),
    allowShorter: values['allow-shorter'] === true,
    calibration: calibrated?.calibration ?? null,
  });
  // The scenario as given: the estimate alone and the calibrated prediction, to say how far it moved.
  const prediction = calibrated
    ? predictCalibrated(
        estimate({
          scenario: loaded.scenario,
          shape: loaded.model.shape,
          exactParams: loaded.model.exactParams,
          gpu: loaded.gpu,
        }),
        calibrated.calibration,
      )
    : null;
  if (values.json) {
    const out =
      calibrated && prediction
        ? { ...plan, calibration: { ...calibrationJson(calibrated), ...prediction } }
        : plan;
    ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const summary = importSummary(loaded, style);
  if (summary) ctx.stdout.write(`${summary}\n`);
  const said = modelSummary(loaded, style);
  if (said) ctx.stdout.write(`${said}\n`);
  if (calibrated && prediction)
    ctx.stdout.write(`${renderPrediction(prediction, describeCalibration(calibrated), style)}\n`);
  const text = renderPlan(plan, loaded.model.id, style);
  ctx.stdout.write(`${text}\n`);
  return 0;
}

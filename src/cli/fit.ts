/** `headroom fit`: the largest micro-batch and the longest sequence that fit a GPU with the margin. */
import { describeScenario } from '../core/describe.js';
import { type FitBound, type FitResult, fitLimits } from '../core/fit.js';
import { MARGIN_REASON, requiredDeviceBytes } from '../core/margin.js';
import { CALIBRATION_MAX_TOKEN_RATIO, calibratedTokenRange } from '../core/run-calibration.js';
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
import { type Style, styleFor } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  FROM_HELP,
  HEADROOM_HELP,
  importSummary,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
} from './_scenario-input.js';

export const help = `headroom fit — the largest micro-batch and the longest sequence a GPU holds

Usage:
  headroom fit MODEL [flags] --gpu ID [--headroom 10%] [--json]
  headroom fit --from CONFIG --gpu ID
  headroom fit --calibrated RUN --gpu ID   from a measured run (headroom calibrate)

Searches the estimator (memory grows with both): the largest micro-batch at the scenario's sequence
length, and the longest sequence at its micro-batch. The value shown fits with the margin; one more does
not. The margin is there because real batches vary in length: each is padded to its longest sample.

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${HEADROOM_HELP}
${CALIBRATED_HELP}

Output:
  --json                    { scenario, target, microBatch, seqLen }, each bound with its value, peak,
                            the next value's peak and what stopped the search (limit: memory, context,
                            cap, calibration); with --calibrated also calibration: { run, factors,
                            bounds, uncalibrated: { microBatch, seqLen } } (the estimator's own limits)

Examples:
  headroom fit llama-3.1-8b --method qlora --quantization nf4 --precision bf16-true --gradient-checkpointing full --gpu rtx-4090
  headroom fit --from torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml --gpu a10g
  headroom fit --calibrated trial --gpu a10g`;

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...CALIBRATED_OPTIONS,
  headroom: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The same command line as `plan`: what to run when nothing fits. */
function planCommand(args: readonly string[]): string {
  const quoted = args.map((a) => (/^[\w./:%=,@+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`));
  return ['headroom plan', ...quoted].join(' ');
}

/** Why a search stopped short of memory. */
const LIMIT_WORDS: Readonly<Record<FitBound['limit'], string>> = {
  memory: 'stopped at memory',
  context: "stopped at the model's context length",
  cap: 'stopped at the search limit',
  calibration: `stopped where the calibration ends (${CALIBRATION_MAX_TOKEN_RATIO}× the run's tokens per micro-batch)`,
};

function line(label: string, unit: string, b: FitBound, result: FitResult, style: Style): string[] {
  const { target } = result;
  if (b.value === null || b.estimate === null) {
    return [
      style.red(
        `  ${label.padEnd(12)} none: even 1 ${unit === 'tokens' ? 'token' : unit} needs ${formatBytes(b.next?.requiredBytes ?? 0)}, over the ${formatBytes(target.budgetBytes)} budget`,
      ),
    ];
  }
  // What must be on the GPU: paged optimizer states come on top where there is room (requiredDeviceBytes).
  const peak = requiredDeviceBytes(b.estimate);
  const paged = b.estimate.peak.deviceBytes - peak;
  const out = [
    `  ${label.padEnd(12)} ${style.bold(String(b.value).padStart(7))} ${unit.padEnd(7)} ${style.green(meterBar(peak, target.usableBytes, 30, target.budgetBytes))} ${formatBytes(peak)}${paged > 0 ? style.dim(` + ${formatBytes(paged)} paged optimizer states, in host RAM where they do not fit`) : ''}`,
  ];
  if (b.next) {
    out.push(
      style.dim(
        `  ${''.padEnd(12)} ${String(b.next.value).padStart(7)} ${unit.padEnd(7)} would need ${formatBytes(b.next.requiredBytes)}: ${formatBytes(b.next.requiredBytes - target.budgetBytes)} over the budget`,
      ),
    );
  } else {
    out.push(style.dim(`  ${''.padEnd(12)} ${LIMIT_WORDS[b.limit]}, not at memory`));
  }
  return out;
}

/** Renders both limits with bars against the GPU; `args` (fit's own) make the plan command to run when nothing fits. */
export function renderFit(result: FitResult, modelId: string, style: Style, args: readonly string[]): string {
  const plan = planCommand(args);
  const { target, scenario } = result;
  return [
    style.bold(describeScenario(scenario, modelId)),
    style.dim(
      `on ${target.name}: ${formatBytes(target.usableBytes)} usable, ${formatBytes(target.budgetBytes)} after the ${Math.round(target.marginFraction * 100)} % margin  (┃ marks it)`,
    ),
    '',
    ...line('micro-batch', `× ${scenario.seqLen}`, result.microBatch, result, style),
    ...line('sequence', `tokens`, result.seqLen, result, style),
    ...(result.microBatch.value === null || result.seqLen.value === null
      ? [style.dim(`  ${plan} finds the changes that make it fit`)]
      : []),
    '',
    style.dim(`  the ${Math.round(target.marginFraction * 100)} % margin: ${MARGIN_REASON}.`),
    style.dim('  change it with --headroom, e.g. --headroom 5% for packed, fixed-length batches'),
  ].join('\n');
}

/** What calibration changed: the estimator's own limits beside the calibrated ones. */
export function renderFitMoved(result: FitResult, plain: FitResult, source: string, style: Style): string {
  const show = (b: FitBound) => (b.value === null ? 'none' : String(b.value));
  const moved = (label: string, a: FitBound, b: FitBound) =>
    a.value === b.value ? `${label} ${show(a)} (unchanged)` : `${label} ${show(b)} → ${style.bold(show(a))}`;
  return [
    '',
    `  calibrated on ${source}: predicted from the measured baseline`,
    `  the estimate alone → calibrated: ${moved('micro-batch', result.microBatch, plain.microBatch)}, ${moved('sequence', result.seqLen, plain.seqLen)}`,
  ].join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'fit', 1);
  const { calibrated, loaded, marginFraction } = await loadTargetedScenario(
    'fit',
    values,
    positionals[0],
    ctx,
    'add --gpu ID (headroom gpus lists them)',
  );
  const context = loaded.model.catalog?.max_position_embeddings ?? null;
  const input = {
    scenario: loaded.scenario,
    shape: loaded.model.shape,
    exactParams: loaded.model.exactParams,
    gpu: loaded.gpu,
    contextTokens: context,
    ...(marginFraction === undefined ? {} : { marginFraction }),
  };
  const result = fitLimits({
    ...input,
    calibration: calibrated?.calibration ?? null,
    ...(calibrated ? { calibratedMaxTokens: calibratedTokenRange(calibrated.scenario).maxTokens } : {}),
  });
  // The estimator's own limits, to say how far the measured baseline moved them.
  const plain = calibrated ? fitLimits(input) : null;
  if (values.json) {
    const out =
      calibrated && plain
        ? {
            ...result,
            calibration: {
              ...calibrationJson(calibrated),
              uncalibrated: { microBatch: plain.microBatch.value, seqLen: plain.seqLen.value },
            },
          }
        : result;
    ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const summary = importSummary(loaded, style);
  if (summary) ctx.stdout.write(`${summary}\n`);
  const said = modelSummary(loaded, style);
  if (said) ctx.stdout.write(`${said}\n`);
  ctx.stdout.write(`${renderFit(result, loaded.model.id, style, args)}\n`);
  if (calibrated && plain)
    ctx.stdout.write(`${renderFitMoved(result, plain, describeCalibration(calibrated), style)}\n`);
  return 0;
}

/** `headroom fit`: the largest micro-batch and the longest sequence that fit a GPU with the margin. */

import { type FitBound, type FitResult, fitLimits } from '../core/fit.js';
import { requiredDeviceBytes } from '../core/margin.js';
import type { MessageOf } from '../core/message.js';
import { calibratedTokenRange } from '../core/run-calibration.js';
import { say } from '../words/catalog.js';
import { FIT_REPORT, type FitReportParams } from '../words/fit.js';
import { FORMATS } from '../words/format.js';
import { COMMA, type Lang } from '../words/lang.js';
import { rangeNote } from '../words/margin.js';
import { describeScenario } from '../words/scenario-line.js';
import { meterBar } from './_bar.js';
import {
  CALIBRATED_HELP,
  CALIBRATED_OPTIONS,
  calibrationJson,
  describeCalibration,
  loadTargetedScenario,
} from './_calibrated.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { type Style, styleFor, visibleWidth } from './_output.js';
import { SCENARIO_FLAGS_HELP } from './_scenario-flags.js';
import {
  FROM_HELP,
  HEADROOM_HELP,
  importSummary,
  modelSummary,
  SCENARIO_INPUT_OPTIONS,
} from './_scenario-input.js';

/** The command's --help in a language (the scenario flags' section is the field table's, in English). */
export function helpFor(lang: Lang): string {
  return `${say(FIT_REPORT, lang, { code: 'help-head', params: {} })}

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${HEADROOM_HELP}
${CALIBRATED_HELP}
${LANG_HELP}

${say(FIT_REPORT, lang, { code: 'help-tail', params: {} })}`;
}

export const help = helpFor('en');

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...CALIBRATED_OPTIONS,
  ...LANG_OPTIONS,
  headroom: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The same command line as `plan`: what to run when nothing fits. */
function planCommand(args: readonly string[]): string {
  const quoted = args.map((a) => (/^[\w./:%=,@+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`));
  return ['headroom plan', ...quoted].join(' ');
}

/** A label padded to a width as the terminal shows it (Chinese characters take two columns). */
const padTo = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - visibleWidth(text)));

function line(
  which: 'micro-batch' | 'sequence',
  b: FitBound,
  result: FitResult,
  style: Style,
  lang: Lang,
): string[] {
  const w = (message: MessageOf<FitReportParams>) => say(FIT_REPORT, lang, message);
  const { target, scenario } = result;
  const label = padTo(
    w({ code: which === 'micro-batch' ? 'label-micro-batch' : 'label-sequence', params: {} }),
    12,
  );
  const unit = padTo(
    which === 'micro-batch'
      ? w({ code: 'unit-micro-batch', params: { seqLen: scenario.seqLen } })
      : w({ code: 'unit-tokens', params: {} }),
    7,
  );
  if (b.value === null || b.estimate === null) {
    const requiredBytes = b.next?.requiredBytes ?? 0;
    return [
      style.red(
        `  ${label} ${
          which === 'micro-batch'
            ? w({
                code: 'none-micro-batch',
                params: { seqLen: scenario.seqLen, requiredBytes, budgetBytes: target.budgetBytes },
              })
            : w({ code: 'none-sequence', params: { requiredBytes, budgetBytes: target.budgetBytes } })
        }`,
      ),
    ];
  }
  // What must be on the GPU, from the estimate to its upper bound (the verdict judges the upper end);
  // paged optimizer states come on top where there is room (requiredDeviceBytes).
  const upper = requiredDeviceBytes(b.estimate);
  const point = requiredDeviceBytes(b.estimate, 'point');
  const paged = b.estimate.breakdown.pagedOptimizerBytes ?? 0;
  const bar = meterBar(point, target.usableBytes, 30, target.budgetBytes, upper);
  const out = [
    `  ${label} ${style.bold(String(b.value).padStart(7))} ${unit} ${style.green(bar)} ${FORMATS[lang].bytesRange(point, upper)}${paged > 0 ? style.dim(w({ code: 'paged-extra', params: { bytes: paged } })) : ''}`,
  ];
  const blank = ''.padEnd(12);
  if (b.next) {
    out.push(
      style.dim(
        `  ${blank} ${String(b.next.value).padStart(7)} ${unit} ${w({
          code: 'next-over',
          params: {
            requiredBytes: b.next.requiredBytes,
            overBytes: b.next.requiredBytes - target.budgetBytes,
          },
        })}`,
      ),
    );
  } else {
    out.push(style.dim(`  ${blank} ${w({ code: 'not-at-memory', params: { limit: b.limit } })}`));
  }
  return out;
}

/**
 * Renders both limits with bars against the GPU, in a language; `args` (fit's own) make the plan
 * command to run when nothing fits.
 */
export function renderFit(
  result: FitResult,
  modelId: string,
  style: Style,
  args: readonly string[],
  lang: Lang = 'en',
): string {
  const w = (message: MessageOf<FitReportParams>) => say(FIT_REPORT, lang, message);
  const plan = planCommand(args);
  const { target, scenario } = result;
  return [
    style.bold(describeScenario(scenario, modelId)),
    style.dim(
      w({
        code: 'on-target',
        params: {
          name: target.name,
          usableBytes: target.usableBytes,
          budgetBytes: target.budgetBytes,
          marginFraction: target.marginFraction,
        },
      }),
    ),
    '',
    ...line('micro-batch', result.microBatch, result, style, lang),
    ...line('sequence', result.seqLen, result, style, lang),
    ...(result.microBatch.value === null || result.seqLen.value === null
      ? [style.dim(`  ${w({ code: 'plan-hint', params: { command: plan } })}`)]
      : []),
    '',
    style.dim(`  ${rangeNote(lang)}`),
    style.dim(`  ${w({ code: 'margin', params: { marginFraction: target.marginFraction } })}`),
    style.dim(`  ${w({ code: 'margin-hint', params: {} })}`),
  ].join('\n');
}

/** What calibration changed: the estimator's own limits beside the calibrated ones. */
export function renderFitMoved(
  result: FitResult,
  plain: FitResult,
  source: string,
  style: Style,
  lang: Lang = 'en',
): string {
  const w = (message: MessageOf<FitReportParams>) => say(FIT_REPORT, lang, message);
  const show = (b: FitBound) => (b.value === null ? w({ code: 'none', params: {} }) : String(b.value));
  const moved = (label: string, a: FitBound, b: FitBound) =>
    a.value === b.value
      ? `${label} ${show(a)} ${w({ code: 'unchanged', params: {} })}`
      : `${label} ${show(b)} → ${style.bold(show(a))}`;
  const microBatch = w({ code: 'label-micro-batch', params: {} });
  const sequence = w({ code: 'label-sequence', params: {} });
  return [
    '',
    `  ${w({ code: 'calibrated-on', params: { source } })}`,
    `  ${w({ code: 'moved-prefix', params: {} })}${moved(microBatch, result.microBatch, plain.microBatch)}${COMMA[lang]}${moved(sequence, result.seqLen, plain.seqLen)}`,
  ].join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'fit', 1);
  const lang = langFromFlag(values.lang, ctx.env);
  const { calibrated, loaded, marginFraction } = await loadTargetedScenario(
    'fit',
    values,
    positionals[0],
    ctx,
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
  ctx.stdout.write(`${renderFit(result, loaded.model.id, style, args, lang)}\n`);
  if (calibrated && plain)
    ctx.stdout.write(`${renderFitMoved(result, plain, describeCalibration(calibrated), style, lang)}\n`);
  return 0;
}

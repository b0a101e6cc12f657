/** `headroom plan`: the cheapest changes, in order, that make a scenario fit a GPU. */

import { estimate } from '../core/estimate.js';
import type { MessageOf, NoParams } from '../core/message.js';
import {
  type DroppedRung,
  droppedNote,
  makePlan,
  type Plan,
  type RiskLevel,
  type Rung,
} from '../core/plan.js';
import { type CalibratedPrediction, predictCalibrated } from '../core/run-calibration.js';
import { formatBytes } from '../core/units.js';
import { say } from '../words/catalog.js';
import { FORMATS } from '../words/format.js';
import type { Lang } from '../words/lang.js';
import { rangeNote } from '../words/margin.js';
import { PLAN_REPORT, type PlanReportParams, relativeTime } from '../words/plan-report.js';
import { PLAN_RISKS } from '../words/plan-risks.js';
import { PLAN_RUNGS } from '../words/plan-rungs.js';
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
import { renderTable, type Style, styleFor } from './_output.js';
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
  const w = (code: 'help-head' | 'help-allow-shorter' | 'help-tail') =>
    say(PLAN_REPORT, lang, { code, params: {} });
  return `${w('help-head')}

${SCENARIO_FLAGS_HELP}
${FROM_HELP}
${HEADROOM_HELP}
${w('help-allow-shorter')}
${CALIBRATED_HELP}
${LANG_HELP}

${w('help-tail')}`;
}

export const help = helpFor('en');

const OPTIONS = {
  ...SCENARIO_INPUT_OPTIONS,
  ...CALIBRATED_OPTIONS,
  ...LANG_OPTIONS,
  headroom: { type: 'string' },
  'allow-shorter': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const BAR = 28;

const riskColour = (style: Style, level: RiskLevel) =>
  level === 'none'
    ? style.green
    : level === 'low'
      ? style.cyan
      : level === 'medium'
        ? style.yellow
        : style.red;

/**
 * Renders a plan for the terminal, in a language: memory falling rung by rung, each bar against the
 * budget.
 */
export function renderPlan(plan: Plan, modelId: string, style: Style, lang: Lang = 'en'): string {
  const w = (message: MessageOf<PlanReportParams>) => say(PLAN_REPORT, lang, message);
  const word = (code: NoParamsCode) => w({ code, params: {} } as MessageOf<PlanReportParams>);
  const rungWords = (r: Rung) => say(PLAN_RUNGS, lang, r.change);
  const riskWords = (r: Rung) => say(PLAN_RISKS, lang, r.risk);
  const level = (r: Rung) =>
    riskColour(style, r.risk.level)(w({ code: 'level', params: { level: r.risk.level } }));
  const { target } = plan;
  const lines: string[] = [];
  lines.push(style.bold(describeScenario(plan.scenario, modelId)));
  lines.push(
    style.dim(
      w({
        code: 'target',
        params: {
          gpus: target.gpus,
          name: target.name,
          usableBytes: target.usableBytes,
          budgetBytes: target.budgetBytes,
          marginFraction: target.marginFraction,
        },
      }),
    ),
  );
  lines.push('');
  const start = target.startPeakBytes;
  const startUpper = target.startUpperBytes;
  const range = FORMATS[lang].bytesRange;
  if (plan.fitsAlready) {
    lines.push(
      `  ${meterBar(start, target.usableBytes, BAR * 2, target.budgetBytes, startUpper)}  ${w({ code: 'bar-of', params: { bytes: start, upperBytes: startUpper, usableBytes: target.usableBytes } })}`,
    );
    lines.push(
      target.pagedToHostBytes > 0
        ? style.yellow(w({ code: 'fits-already-paged', params: { pagedBytes: target.pagedToHostBytes } }))
        : style.green(
            w({
              code: 'fits-already',
              params: {
                peakBytes: start,
                upperBytes: startUpper,
                freeBytes: target.headroomBytes,
                usableBytes: target.usableBytes,
                beyondMarginBytes: target.beyondMarginBytes,
              },
            }),
          ),
    );
    return lines.join('\n');
  }
  const scale = Math.max(startUpper, target.usableBytes);
  const row = (
    n: string,
    change: string,
    peak: number,
    upper: number,
    saved: string,
    time: string,
    risk: string,
    fits: boolean | null,
  ) => [
    n,
    change,
    (fits ? style.green : style.red)(meterBar(peak, scale, BAR, target.budgetBytes, upper)),
    range(peak, upper),
    saved,
    time,
    risk,
    fits === null ? '' : fits ? style.green('✓') : style.red('✗'),
  ];
  const rows = [
    row('', style.dim(word('as-given')), start, startUpper, '', '1.00×', '', false),
    ...plan.rungs.map((r, i) =>
      row(
        String(i + 1),
        rungWords(r),
        r.estimate.peak.deviceBytes,
        r.estimate.upper.deviceBytes,
        `−${formatBytes(r.savedBytes)}`,
        relativeTime(r.relativeStepTime),
        level(r),
        r.fits,
      ),
    ),
  ];
  lines.push(
    renderTable(
      [
        '',
        word('column-change-stacked'),
        word('column-peak-bar'),
        word('column-peak'),
        word('column-saved'),
        word('column-time'),
        word('column-risk'),
        '',
      ],
      rows,
      [3, 4, 5],
    ),
  );
  const last = plan.rungs[plan.rungs.length - 1];
  const changes = plan.rungs.length;
  lines.push('');
  if (last?.fits) {
    lines.push(
      style.green(
        w({
          code: 'fits-after',
          params: {
            changes,
            peakBytes: last.estimate.peak.deviceBytes,
            // What the verdict judged: the card's need at the upper bound (a padded run's climb is given back).
            upperBytes: last.estimate.upper.neededDeviceBytes,
            freeBytes: target.usableBytes - last.estimate.upper.neededDeviceBytes,
            usableBytes: target.usableBytes,
            relativeStepTime: last.relativeStepTime,
          },
        }),
      ),
    );
  } else {
    lines.push(style.red(w({ code: 'nothing-fits', params: { gpus: target.gpus, gpu: target.gpu } })));
  }
  if (plan.dropped.length > 0) {
    lines.push('');
    lines.push(`  ${w({ code: 'dropped-heading', params: { changes } })}`);
    lines.push(
      renderTable(
        [`  ${word('column-change')}`, word('column-saved-then'), word('column-saves-now'), ''],
        plan.dropped.map((d) => droppedRow(plan, d, style, lang)),
        [1, 2],
      ),
    );
  }
  const risky = plan.rungs.filter((r) => r.risk.level !== 'none');
  if (risky.length > 0) {
    lines.push('');
    lines.push(`  ${word('risks')}`);
    for (const r of risky)
      lines.push(`   ${plan.rungs.indexOf(r) + 1}. ${riskColour(style, r.risk.level)(riskWords(r))}`);
  }
  if (plan.alternatives.length > 0) {
    lines.push('');
    lines.push(
      `  ${last?.fits ? w({ code: 'alternatives-heading', params: { changes } }) : word('hardware-heading')}`,
    );
    lines.push(
      renderTable(
        [`  ${word('column-change')}`, word('column-peak'), word('column-time'), word('column-risk')],
        plan.alternatives.map((a) => [
          `  ${rungWords(a)}`,
          range(a.estimate.peak.deviceBytes, a.estimate.upper.deviceBytes),
          relativeTime(a.relativeStepTime),
          riskColour(style, a.risk.level)(riskWords(a)),
        ]),
        [1, 2],
      ),
    );
  }
  lines.push('');
  lines.push(style.dim(rangeNote(lang)));
  lines.push(style.dim(word('footnote')));
  return lines.join('\n');
}

/** Codes of the report that take no figures (headings, column names). */
type NoParamsCode = {
  [C in keyof PlanReportParams]: PlanReportParams[C] extends NoParams ? C : never;
}[keyof PlanReportParams];

/** A dropped rung: what it saved where the climb tried it, what it would save on the ladder shown, and why not. */
function droppedRow(plan: Plan, d: DroppedRung, style: Style, lang: Lang): string[] {
  const note = droppedNote(plan, d);
  return [
    `  ${style.dim(say(PLAN_RUNGS, lang, d.rung.change))}`,
    `−${formatBytes(d.rung.savedBytes)}`,
    d.savingBytes > 0
      ? `−${formatBytes(d.savingBytes)}`
      : say(PLAN_REPORT, lang, { code: 'saves-nothing', params: {} }),
    note.code === 'not-needed-after'
      ? say(PLAN_REPORT, lang, {
          code: 'dropped-after',
          params: { position: note.params.position, after: note.params.after },
        })
      : say(PLAN_REPORT, lang, { code: 'dropped-fits-without', params: {} }),
  ];
}

/** How far calibration moved the prediction for the scenario as given. */
export function renderPrediction(
  p: CalibratedPrediction,
  source: string,
  style: Style,
  lang: Lang = 'en',
): string {
  return style.dim(
    say(PLAN_REPORT, lang, {
      code: 'calibrated',
      params: {
        source,
        predictedBytes: p.predicted.deviceBytes,
        movedBytes: p.movedBytes,
        estimatedBytes: p.estimated.deviceBytes,
      },
    }),
  );
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'plan', 1);
  const lang = langFromFlag(values.lang, ctx.env);
  const { calibrated, loaded, marginFraction } = await loadTargetedScenario(
    'plan',
    values,
    positionals[0],
    ctx,
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
    ctx.stdout.write(`${renderPrediction(prediction, describeCalibration(calibrated), style, lang)}\n`);
  const text = renderPlan(plan, loaded.model.id, style, lang);
  ctx.stdout.write(`${text}\n`);
  return 0;
}

/**
 * The ladder from `headroom plan`: the peak falling rung by rung against the GPU, each rung's cost and
 * risk. Every word comes from the catalog (src/words: plan-rungs, plan-risks, plan-dropped, ui-plan),
 * in the page's language: the same words as the CLI's.
 */
import { useMemo } from 'react';
import { shapeFromConfig } from '../../../src/core/architecture.js';
import { findGpu } from '../../../src/core/catalog/index.js';
import { isUserError } from '../../../src/core/errors.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import { droppedNote, makePlan, type Plan } from '../../../src/core/plan.js';
import type { Scenario } from '../../../src/core/scenario.js';
import { say } from '../../../src/words/catalog.js';
import { userErrorWords } from '../../../src/words/errors.js';
import { FORMATS } from '../../../src/words/format.js';
import type { Lang } from '../../../src/words/lang.js';
import { PLAN_DROPPED } from '../../../src/words/plan-dropped.js';
import { PLAN_RISKS } from '../../../src/words/plan-risks.js';
import { PLAN_RUNGS } from '../../../src/words/plan-rungs.js';
import { UI_PLAN } from '../../../src/words/ui-plan.js';
import { useLang } from '../i18n.js';

function planFor(
  scenario: Scenario,
  config: Record<string, unknown> | null,
  marginFraction: number,
  lang: Lang,
): Plan | string | null {
  const gpu = scenario.gpu ? findGpu(scenario.gpu) : undefined;
  if (!gpu) return null;
  const shape = config ? shapeFromConfig(config, 'pasted config') : resolveModelRef(scenario.model)?.shape;
  if (!shape) return null;
  try {
    return makePlan({ scenario, shape, gpu, marginFraction });
  } catch (error) {
    return isUserError(error) ? userErrorWords(error, lang).message : String(error);
  }
}

/** The estimate as a solid bar and the stretch to its upper bound shaded: the range the verdict judges. */
function RangeBar({
  point,
  upper,
  scale,
  className,
  title,
}: {
  point: number;
  upper: number;
  scale: number;
  className: string;
  /** The range in the page's language. */
  title: string;
}) {
  return (
    <div className="range-bar" title={title}>
      <div className={`bar ${className}`} style={{ width: `${(point / scale) * 100}%` }} />
      <div className={`bar upper ${className}`} style={{ width: `${((upper - point) / scale) * 100}%` }} />
    </div>
  );
}

export function Ladder({
  scenario,
  shapeSource,
  baseDeviceBytes,
  marginFraction,
}: {
  scenario: Scenario;
  shapeSource: Record<string, unknown> | null;
  baseDeviceBytes: number;
  marginFraction: number;
}) {
  const lang = useLang();
  const plan = useMemo(
    () => planFor(scenario, shapeSource, marginFraction, lang),
    [scenario, shapeSource, marginFraction, lang],
  );
  if (plan === null) return null;
  if (typeof plan === 'string') return <p className="error">{plan}</p>;
  const budget = plan.target.budgetBytes;
  const rows = plan.rungs;
  const baseUpper = Math.max(baseDeviceBytes, plan.target.startUpperBytes);
  const scale = Math.max(budget, baseUpper, ...rows.map((r) => r.estimate.upper.deviceBytes), 1);
  const range = FORMATS[lang].bytesRange;
  return (
    <section className="ladder" data-testid="ladder">
      <h3>{say(UI_PLAN, lang, { code: 'heading', params: {} })}</h3>
      {plan.fitsAlready ? (
        <p className="muted">{say(UI_PLAN, lang, { code: 'fits-already', params: {} })}</p>
      ) : null}
      <table>
        <tbody>
          <tr>
            <td>
              <b>{scenario.method}</b>
            </td>
            <td style={{ width: '40%' }}>
              <RangeBar
                point={baseDeviceBytes}
                upper={baseUpper}
                scale={scale}
                className="base"
                title={range(baseDeviceBytes, baseUpper)}
              />
            </td>
            <td>{range(baseDeviceBytes, baseUpper)}</td>
            <td />
            <td>×1.00</td>
            <td className="muted">{say(UI_PLAN, lang, { code: 'budget', params: { bytes: budget } })}</td>
          </tr>
          {rows.map((r) => (
            <tr key={r.change.id}>
              <td>{say(PLAN_RUNGS, lang, r.change)}</td>
              <td style={{ width: '40%' }}>
                <RangeBar
                  point={r.estimate.peak.deviceBytes}
                  upper={r.estimate.upper.deviceBytes}
                  scale={scale}
                  className={r.fits ? 'fits' : ''}
                  title={range(r.estimate.peak.deviceBytes, r.estimate.upper.deviceBytes)}
                />
              </td>
              <td data-testid="ladder-peak">
                {range(r.estimate.peak.deviceBytes, r.estimate.upper.deviceBytes)}
              </td>
              <td>−{FORMATS[lang].bytes(r.savedBytes)}</td>
              <td>×{r.relativeStepTime.toFixed(2)}</td>
              <td className="muted">{r.risk.level === 'none' ? '' : say(PLAN_RISKS, lang, r.risk)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {plan.dropped.length > 0 ? (
        <div className="muted dropped" data-testid="ladder-dropped">
          <p>{say(UI_PLAN, lang, { code: 'dropped-heading', params: {} })}</p>
          <ul>
            {plan.dropped.map((d) => (
              <li key={d.rung.change.id}>{say(PLAN_DROPPED, lang, droppedNote(plan, d))}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {plan.alternatives.length > 0 ? (
        <p className="muted">
          {plan.alternatives
            .map((a) =>
              say(UI_PLAN, lang, {
                code: 'alternative',
                params: {
                  change: a.change,
                  peakBytes: a.estimate.peak.deviceBytes,
                  upperBytes: a.estimate.upper.deviceBytes,
                  relativeStepTime: a.relativeStepTime,
                },
              }),
            )
            .join(' · ')}
        </p>
      ) : null}
    </section>
  );
}

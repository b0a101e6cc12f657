/** The ladder from `headroom plan`: the peak falling rung by rung against the GPU, each rung's cost and risk. */
import { useMemo } from 'react';
import { shapeFromConfig } from '../../../src/core/architecture.js';
import { findGpu } from '../../../src/core/catalog/index.js';
import { isUserError } from '../../../src/core/errors.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import { makePlan, type Plan } from '../../../src/core/plan.js';
import type { Scenario } from '../../../src/core/scenario.js';
import { formatBytes } from '../../../src/core/units.js';
import { useLang, useT } from '../i18n.js';
import {
  alternativeBase,
  DROPPED_HEADING,
  droppedNote,
  riskNoteZh,
  rungSummaryZh,
  scenariosBefore,
} from '../plan-words.js';

function planFor(
  scenario: Scenario,
  config: Record<string, unknown> | null,
  marginFraction: number,
): Plan | string | null {
  const gpu = scenario.gpu ? findGpu(scenario.gpu) : undefined;
  if (!gpu) return null;
  const shape = config ? shapeFromConfig(config, 'pasted config') : resolveModelRef(scenario.model)?.shape;
  if (!shape) return null;
  try {
    return makePlan({ scenario, shape, gpu, marginFraction });
  } catch (error) {
    return isUserError(error) ? error.message : String(error);
  }
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
  const t = useT();
  const lang = useLang();
  const zh = lang === 'zh';
  const plan = useMemo(
    () => planFor(scenario, shapeSource, marginFraction),
    [scenario, shapeSource, marginFraction],
  );
  if (plan === null) return null;
  if (typeof plan === 'string') return <p className="error">{plan}</p>;
  const budget = plan.target.budgetBytes;
  const rows = plan.rungs;
  const scale = Math.max(budget, baseDeviceBytes, ...rows.map((r) => r.estimate.peak.deviceBytes), 1);
  const before = scenariosBefore(plan);
  const altBase = alternativeBase(plan);
  return (
    <section className="ladder" data-testid="ladder">
      <h3>{t('estimate.ladder')}</h3>
      {plan.fitsAlready ? <p className="muted">{t('estimate.ladderFits')}</p> : null}
      <table>
        <tbody>
          <tr>
            <td>
              <b>{scenario.method}</b>
            </td>
            <td style={{ width: '40%' }}>
              <div
                className="bar"
                style={{ width: `${(baseDeviceBytes / scale) * 100}%`, background: '#64748b' }}
              />
            </td>
            <td>{formatBytes(baseDeviceBytes)}</td>
            <td />
            <td>×1.00</td>
            <td className="muted">
              {t('estimate.budget')} {formatBytes(budget)}
            </td>
          </tr>
          {rows.map((r, i) => (
            <tr key={r.change.id}>
              <td>{zh ? rungSummaryZh(r, before[i]!) : r.change.summary}</td>
              <td style={{ width: '40%' }}>
                <div
                  className={`bar ${r.fits ? 'fits' : ''}`}
                  style={{ width: `${(r.estimate.peak.deviceBytes / scale) * 100}%` }}
                  title={formatBytes(r.estimate.peak.deviceBytes)}
                />
              </td>
              <td>{formatBytes(r.estimate.peak.deviceBytes)}</td>
              <td>−{formatBytes(r.savedBytes)}</td>
              <td>×{r.relativeStepTime.toFixed(2)}</td>
              <td className="muted">
                {r.risk.level === 'none' ? '' : zh ? riskNoteZh(r, before[i]!) : r.risk.note}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {plan.dropped.length > 0 ? (
        <div className="muted dropped" data-testid="ladder-dropped">
          <p>{DROPPED_HEADING[lang]}</p>
          <ul>
            {plan.dropped.map((d) => (
              <li key={d.rung.change.id}>{droppedNote(plan, d, lang)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {plan.alternatives.length > 0 ? (
        <p className="muted">
          {plan.alternatives
            .map(
              (a) =>
                `${zh ? rungSummaryZh(a, altBase) : a.change.summary} (${formatBytes(a.estimate.peak.deviceBytes)}, ×${a.relativeStepTime.toFixed(2)})`,
            )
            .join(' · ')}
        </p>
      ) : null}
    </section>
  );
}

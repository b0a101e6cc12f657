/** The estimate page's result: the verdict, the bar, the three levels, the peak's terms, notes, fits and ladder. */
import type { Estimate } from '../../../src/core/estimate.js';
import type { Scenario } from '../../../src/core/scenario.js';
import { formatBytes } from '../../../src/core/units.js';
import { say } from '../../../src/words/catalog.js';
import { describeScenario } from '../../../src/words/scenario-line.js';
import { UI_ESTIMATE } from '../../../src/words/ui-estimate.js';
import {
  type MessageKey,
  useLang,
  useNoteText,
  usePeakRowLabel,
  useReserveLabel,
  useT,
  useTermLabel,
} from '../i18n.js';
import { FitsStrip } from './FitsStrip.js';
import { Ladder } from './Ladder.js';
import { StackedBar } from './StackedBar.js';

function Verdict({ result }: { result: Estimate }) {
  const t = useT();
  const lang = useLang();
  const fits = result.fits;
  if (!fits) return <div className="verdict no" data-testid="verdict" />;
  return (
    <div className={`verdict ${fits.ok ? 'ok' : 'no'}`} data-testid="verdict">
      {fits.ok
        ? fits.pagedToHostBytes > 0
          ? `✓ ${t('estimate.fits')} ${fits.gpu} — ${t('estimate.pagedToHost')} ${formatBytes(fits.pagedToHostBytes)}`
          : `✓ ${t('estimate.fits')} ${fits.gpu} — ${t('estimate.headroom')} ${formatBytes(fits.headroomBytes)}`
        : `✗ ${t('estimate.doesNotFit')} ${fits.gpu} — ${t('estimate.needs')} ${formatBytes(fits.requiredBytes)}, ${t('estimate.budget')} ${formatBytes(fits.budgetBytes)}`}
      <span className="muted" data-testid="verdict-margin">
        {' '}
        (
        {say(UI_ESTIMATE, lang, {
          code: 'estimate.withMargin',
          params: { fraction: Math.round(fits.marginFraction * 100) / 100 },
        })}
        )
      </span>
    </div>
  );
}

function PeakTerms({ result }: { result: Estimate }) {
  const t = useT();
  const termLabel = useTermLabel();
  const reserveLabel = useReserveLabel();
  const rowLabel = usePeakRowLabel();
  // FSDP's side streams' pools, on a row of their own as in the CLI (allocator.ts streamCacheBytes).
  const streams = result.breakdown.reserveStreamCacheBytes ?? 0;
  return (
    <details className="peak-terms" data-testid="peak-terms">
      <summary>
        {t('estimate.peakTerms')} ({result.peakPhase})
      </summary>
      <table className="levels">
        <tbody>
          {(result.peakTerms ?? []).map((term) => (
            <tr key={term.term} data-testid={`term-${term.term}`}>
              <th>{termLabel(term.term)}</th>
              <td>{formatBytes(term.bytes)}</td>
            </tr>
          ))}
          <tr>
            <th>= {t('level.allocated')}</th>
            <td>{formatBytes(result.peak.allocatedBytes)}</td>
          </tr>
          <tr data-testid="peak-reserve" data-basis={result.reserveBasis}>
            <th>{reserveLabel(result.reserveBasis)}</th>
            <td>{formatBytes(result.peak.reservedBytes - result.peak.allocatedBytes - streams)}</td>
          </tr>
          {streams > 0 && (
            <tr data-testid="peak-stream-cache">
              <th>{rowLabel('terms-stream-cache')}</th>
              <td>{formatBytes(streams)}</td>
            </tr>
          )}
          <tr data-testid="peak-outside">
            <th>{rowLabel('terms-outside')}</th>
            <td>{formatBytes(result.peak.deviceBytes - result.peak.reservedBytes)}</td>
          </tr>
        </tbody>
      </table>
    </details>
  );
}

/**
 * The result of one estimate: `error` (already in the page's language) when the scenario was refused,
 * else the figures. `modelName` is how the scenario line names the model; `gpu` the one picked.
 */
export function EstimateResult({
  result,
  scenario,
  error,
  modelName,
  gpu,
  marginFraction,
  shapeSource,
  onPickGpu,
}: {
  result: Estimate | null;
  scenario: Scenario | null;
  error: string | null;
  modelName: string;
  gpu: string;
  marginFraction: number;
  shapeSource: Record<string, unknown> | null;
  onPickGpu: (id: string) => void;
}) {
  const t = useT();
  const lang = useLang();
  const noteWords = useNoteText();
  return (
    <section className="panel result" data-testid="result">
      {error ? (
        <p className="error" data-testid="estimate-error">
          {error}
        </p>
      ) : null}
      {result && scenario ? (
        <>
          <p className="scenario-line">{describeScenario(scenario, modelName, lang)}</p>
          <Verdict result={result} />
          <StackedBar result={result} />
          <table className="levels">
            <tbody>
              {(['allocatedBytes', 'reservedBytes', 'deviceBytes'] as const).map((k) => (
                <tr key={k}>
                  <th>{t(`level.${k.replace('Bytes', '')}` as MessageKey)}</th>
                  <td data-testid={`peak-${k}`}>{formatBytes(result.peak[k])}</td>
                  <td className="muted" data-testid={`upper-${k}`}>
                    – {formatBytes(result.upper[k])}
                  </td>
                </tr>
              ))}
              {result.upper.neededDeviceBytes < result.upper.deviceBytes ? (
                <tr>
                  <th>{t('estimate.needed')}</th>
                  <td />
                  <td className="muted" data-testid="upper-needed">
                    {formatBytes(result.upper.neededDeviceBytes)}
                  </td>
                </tr>
              ) : null}
              <tr>
                <th>{t('estimate.peakAt')}</th>
                <td>{result.peakPhase}</td>
              </tr>
              {result.host ? (
                <tr>
                  <th>{t('estimate.hostMemory')}</th>
                  <td data-testid="host-cpu">{formatBytes(result.host.cpuBytes)}</td>
                </tr>
              ) : null}
            </tbody>
          </table>
          <p className="muted">
            {t('estimate.perGpu')} {t('estimate.upperNote')}
            {result.upper.neededDeviceBytes < result.upper.deviceBytes ? ` ${t('estimate.climbNote')}` : ''}
          </p>
          <PeakTerms result={result} />
          {result.notes.length > 0 ? (
            <div className="notes" data-testid="estimate-notes">
              <h3>{t('estimate.notes')}</h3>
              <ul>
                {result.notes.map((note) => (
                  <li key={note.code}>{noteWords(note)}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <FitsStrip estimate={result} selected={gpu} marginFraction={marginFraction} onPick={onPickGpu} />
          <Ladder
            scenario={scenario}
            shapeSource={shapeSource}
            baseDeviceBytes={result.peak.deviceBytes}
            marginFraction={marginFraction}
          />
        </>
      ) : null}
    </section>
  );
}

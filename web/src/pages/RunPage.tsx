/** One run: memory over time, per-step peaks, loss, phases, the OOM, and the diagnosis beside the chart. */
import { useEffect, useMemo, useState } from 'react';
import { estimateError, readEstimateError } from '../../../src/core/estimate-error.js';
import { maxBy } from '../../../src/core/extremes.js';
import { formatBytes } from '../../../src/core/units.js';
import { say } from '../../../src/words/catalog.js';
import { estimateErrorWords } from '../../../src/words/estimate-error.js';
import { RUN_STATUS } from '../../../src/words/run.js';
import { RUN_SNAPSHOT } from '../../../src/words/run-snapshot.js';
import { uiRunsWords } from '../../../src/words/ui-runs.js';
import { api, apiUrl, type RunDetail, type SamplePoint, type StepPoint } from '../api.js';
import { RankChart } from '../components/RankChart.js';
import { type Band, TimeChart, type TimeSeries } from '../components/TimeChart.js';
import { useLang } from '../i18n.js';

/** Merges system samples and step records onto one ascending time axis. */
export function toSeries(steps: readonly StepPoint[], samples: readonly SamplePoint[]): TimeSeries {
  const points = [
    ...samples.map((s) => ({ t: s.t, used: s.usedBytes, reserved: null, allocated: null, loss: null })),
    ...steps.map((s) => ({
      t: s.t,
      used: null,
      reserved: s.peakReservedBytes ?? s.reservedBytes,
      allocated: s.peakAllocatedBytes ?? s.allocatedBytes,
      loss: s.loss,
    })),
  ].sort((a, b) => a.t - b.t);
  return {
    t: points.map((p) => p.t),
    used: points.map((p) => p.used),
    reserved: points.map((p) => p.reserved),
    allocated: points.map((p) => p.allocated),
    loss: points.map((p) => p.loss),
  };
}

/** Bars of the per-step peak; long runs are binned (the highest step of each bin) to at most MAX_BARS bars. */
const MAX_BARS = 600;

function StepPeaks({ steps, capacity }: { steps: readonly StepPoint[]; capacity: number | null }) {
  const words = uiRunsWords(useLang());
  const perBin = Math.max(1, Math.ceil(steps.length / MAX_BARS));
  const bins: { peak: number; first: number; last: number; eval: boolean }[] = [];
  for (let i = 0; i < steps.length; i += perBin) {
    const slice = steps.slice(i, i + perBin);
    bins.push({
      peak: maxBy(slice, (s) => s.peakAllocatedBytes ?? s.allocatedBytes ?? 0),
      first: slice[0]!.step,
      last: slice.at(-1)!.step,
      eval: slice.some((s) => s.phase === 'eval'),
    });
  }
  const max = Math.max(capacity ?? 0, ...bins.map((b) => b.peak), 1);
  const w = 1000 / Math.max(bins.length, 1);
  return (
    <svg viewBox="0 0 1000 120" className="step-peaks" data-testid="step-peaks" preserveAspectRatio="none">
      <title>{words({ code: 'per-step-title', params: {} })}</title>
      {bins.map((b, i) => (
        <rect
          key={b.first}
          x={i * w}
          y={120 - (b.peak / max) * 120}
          width={Math.max(w - (perBin > 1 ? 0 : 1), 0.5)}
          height={(b.peak / max) * 120}
          fill={b.eval ? '#ca8a04' : '#2563eb'}
        >
          <title>
            {words({ code: 'step-bar', params: { first: b.first, last: b.last, bytes: b.peak } })}
          </title>
        </rect>
      ))}
      {capacity ? (
        <line
          x1={0}
          x2={1000}
          y1={120 - (capacity / max) * 120}
          y2={120 - (capacity / max) * 120}
          stroke="#dc2626"
          strokeDasharray="6 4"
        />
      ) : null}
    </svg>
  );
}

export function RunPage({ id }: { id: number }) {
  const lang = useLang();
  const w = uiRunsWords(lang);
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  // An estimate against the run's peak, (estimate − measured) / measured, in the page's language.
  const errorWords = (estimated: number, measured: number | null): string => {
    const e = estimateError(estimated, measured);
    return e === null ? '' : estimateErrorWords(readEstimateError(e), lang);
  };

  useEffect(() => {
    let source: EventSource | null = null;
    api<RunDetail>(`/api/runs/${id}?lang=${lang}`).then(
      (d) => {
        setDetail(d);
        if (d.run.status !== 'running') return;
        // A run still going: new steps and samples arrive as server-sent events from the ledger.
        source = new EventSource(apiUrl(`/api/runs/${id}/stream`));
        source.addEventListener('update', (event) => {
          const update = JSON.parse((event as MessageEvent<string>).data) as Pick<
            RunDetail,
            'run' | 'steps' | 'samples'
          > & {
            replace: boolean;
          };
          setDetail((prev) =>
            prev
              ? {
                  ...prev,
                  run: { ...prev.run, ...update.run },
                  steps: update.replace ? update.steps : [...prev.steps, ...update.steps],
                  samples: update.replace ? update.samples : [...prev.samples, ...update.samples],
                }
              : prev,
          );
        });
        source.addEventListener('end', () => source?.close());
      },
      (e: Error) => setError(e.message),
    );
    return () => source?.close();
  }, [id, lang]);

  const series = useMemo(() => (detail ? toSeries(detail.steps, detail.samples) : null), [detail]);
  const bands: Band[] = useMemo(() => (detail ? [...detail.phases] : []), [detail]);

  if (error) return <p className="error">{error}</p>;
  if (!detail || !series) return <p className="muted">{w({ code: 'loading', params: {} })}</p>;
  const { run } = detail;
  const lastStep = detail.steps.at(-1);
  return (
    <div className="run-page">
      <section className="panel">
        <h2>
          #{run.id} {run.name}{' '}
          <span className={`badge ${run.status}`} data-testid="run-status">
            {say(RUN_STATUS, lang, { code: run.status, params: {} })}
          </span>
          {run.status === 'running' ? (
            <span className="badge live">{w({ code: 'live', params: {} })}</span>
          ) : null}
          {run.demo ? <span className="badge demo">{w({ code: 'demo', params: {} })}</span> : null}
        </h2>
        <p className="muted command">{run.command}</p>
        <dl className="peaks">
          <dt>{w({ code: 'peak-allocated', params: {} })}</dt>
          <dd data-testid="peak-allocated">
            {run.peakAllocatedBytes === null ? '—' : formatBytes(run.peakAllocatedBytes)}
          </dd>
          <dt>{w({ code: 'peak-reserved', params: {} })}</dt>
          <dd data-testid="peak-reserved">
            {run.peakReservedBytes === null ? '—' : formatBytes(run.peakReservedBytes)}
          </dd>
          <dt>{w({ code: 'peak-device', params: {} })}</dt>
          <dd data-testid="peak-device">
            {run.peakDeviceBytes === null ? '—' : formatBytes(run.peakDeviceBytes)}
          </dd>
          <dt>{w({ code: 'step-count-label', params: {} })}</dt>
          <dd data-testid="step-count">
            {w({ code: 'step-count', params: { steps: run.steps, last: lastStep ? lastStep.step : null } })}
          </dd>
        </dl>
      </section>
      <div className="run-grid">
        <section className="panel">
          <h3>{w({ code: 'memory', params: {} })}</h3>
          <TimeChart series={series} bands={bands} oomAt={detail.oom?.t ?? null} />
          <h3>{w({ code: 'per-step', params: {} })}</h3>
          <StepPeaks steps={detail.steps} capacity={detail.samples[0]?.totalBytes ?? null} />
          {detail.rankSteps && detail.rankSteps.ranks.length > 1 ? (
            <>
              <h3 data-testid="per-rank-heading">
                {w({ code: 'per-rank', params: { ranks: detail.ranks.length, peakRank: detail.peakRank } })}
              </h3>
              <RankChart rankSteps={detail.rankSteps} peakRank={detail.peakRank} />
            </>
          ) : null}
          {detail.estimate ? (
            <>
              <h3>{w({ code: 'estimate-vs-measured', params: {} })}</h3>
              <table className="levels" data-testid="estimate-vs-measured">
                <tbody>
                  {(
                    [
                      ['allocated', detail.estimate.peak.allocatedBytes, run.peakAllocatedBytes],
                      ['reserved', detail.estimate.peak.reservedBytes, run.peakReservedBytes],
                      ['device', detail.estimate.peak.deviceBytes, run.peakDeviceBytes],
                    ] as const
                  ).map(([level, est, meas]) => (
                    <tr key={level}>
                      <th>{w({ code: 'level', params: { level } })}</th>
                      <td>{formatBytes(est)}</td>
                      <td>{meas === null ? '—' : formatBytes(meas)}</td>
                      <td>{errorWords(est, meas)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </section>
        <aside className="panel findings" data-testid="findings">
          <h3>{w({ code: 'findings', params: {} })}</h3>
          {detail.findings.length === 0 ? (
            <p className="muted">{w({ code: 'no-findings', params: {} })}</p>
          ) : null}
          <ol>
            {detail.findings.map((f) => (
              <li key={f.code} className={`finding ${f.severity}`} data-code={f.code}>
                <b>{f.title}</b>
                <ul>
                  {f.evidence.map((e) => (
                    <li key={e.label}>
                      {e.label}: <code>{e.value}</code>
                    </li>
                  ))}
                </ul>
                <p>{f.action}</p>
              </li>
            ))}
          </ol>
          {detail.oom ? <pre className="oom-text">{detail.oom.text}</pre> : null}
          {detail.snapshots.length > 0 ? (
            <ul className="snapshots" data-testid="run-snapshots">
              {detail.snapshots.map((s) => (
                <li key={s.rank}>
                  <a href={`#/snapshot?run=${run.id}&rank=${s.rank}`} data-testid={`snapshot-link-${s.rank}`}>
                    {say(RUN_SNAPSHOT, lang, {
                      code: 'open-link',
                      params: { reason: s.reason, rank: s.rank },
                    })}
                  </a>{' '}
                  <span className="muted">{formatBytes(s.bytes)}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </aside>
      </div>
    </div>
  );
}

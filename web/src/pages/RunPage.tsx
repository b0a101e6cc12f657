/**
 * One run: memory over time, per-step peaks, loss, phases, the OOM, and the diagnosis beside the chart.
 * The chart comes first (GET /api/runs/:id/chart: columns, thinned, every peak kept) and is drawn before
 * the diagnosis is asked for (…/extras); a zoom asks for its window in detail (…/window); a live run's
 * stream sends only the rows written after the chart (…/stream?after=).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type {
  RunChart,
  RunExtras,
  RunUpdate,
  RunWindow,
  StepColumns,
} from '../../../src/core/dashboard-types.js';
import { estimateError, readEstimateError } from '../../../src/core/estimate-error.js';
import { formatBytes } from '../../../src/core/units.js';
import { say } from '../../../src/words/catalog.js';
import { estimateErrorWords } from '../../../src/words/estimate-error.js';
import { RUN_STATUS } from '../../../src/words/run.js';
import { RUN_SNAPSHOT } from '../../../src/words/run-snapshot.js';
import { uiRunsWords } from '../../../src/words/ui-runs.js';
import { api, apiEarly, apiUrl } from '../api.js';
import {
  appendSamples,
  appendSteps,
  type ChartColumns,
  needsDetail,
  toSeries,
  withWindow,
} from '../chart-data.js';
import { RankChart } from '../components/RankChart.js';
import { type Band, TimeChart } from '../components/TimeChart.js';
import { useLang } from '../i18n.js';

export { toSeries } from '../chart-data.js';

/** Bars of the per-step peak; long runs are binned (the highest step of each bin) to at most MAX_BARS bars. */
const MAX_BARS = 600;

/** How long the time axis must rest before its window is asked for in detail (panning asks nothing). */
const ZOOM_SETTLE_MS = 200;

function StepPeaks({ steps, capacity }: { steps: StepColumns; capacity: number | null }) {
  const words = uiRunsWords(useLang());
  const n = steps.step.length;
  const perBin = Math.max(1, Math.ceil(n / MAX_BARS));
  const bins: { peak: number; first: number; last: number; eval: boolean }[] = [];
  for (let i = 0; i < n; i += perBin) {
    const end = Math.min(i + perBin, n);
    let peak = 0;
    let evalBin = false;
    for (let k = i; k < end; k++) {
      peak = Math.max(peak, steps.allocatedBytes[k] ?? 0);
      if (steps.phase[k] === 'eval') evalBin = true;
    }
    bins.push({ peak, first: steps.step[i]!, last: steps.step[end - 1]!, eval: evalBin });
  }
  let max = Math.max(capacity ?? 0, 1);
  for (const b of bins) max = Math.max(max, b.peak);
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
  const [chart, setChart] = useState<RunChart | null>(null);
  const [extras, setExtras] = useState<RunExtras | null>(null);
  const [zoom, setZoom] = useState<RunWindow | null>(null);
  const [error, setError] = useState<string | null>(null);
  // An estimate against the run's peak, (estimate − measured) / measured, in the page's language.
  const errorWords = (estimated: number, measured: number | null): string => {
    const e = estimateError(estimated, measured);
    return e === null ? '' : estimateErrorWords(readEstimateError(e), lang);
  };

  // The chart first; a run still going then streams the rows written after it.
  useEffect(() => {
    let source: EventSource | null = null;
    let gone = false;
    setChart(null);
    setExtras(null);
    setZoom(null);
    apiEarly<RunChart>(`/api/runs/${id}/chart`).then(
      (c) => {
        if (gone) return;
        setChart(c);
        if (c.run.status !== 'running') return;
        source = new EventSource(apiUrl(`/api/runs/${id}/stream?after=${c.after.steps},${c.after.samples}`));
        source.addEventListener('update', (event) => {
          const update = JSON.parse((event as MessageEvent<string>).data) as RunUpdate;
          setChart((prev) =>
            prev
              ? {
                  ...prev,
                  run: { ...prev.run, ...update.run },
                  steps: update.replace ? update.steps : appendSteps(prev.steps, update.steps),
                  samples: update.replace ? update.samples : appendSamples(prev.samples, update.samples),
                  recorded: {
                    steps: (update.replace ? 0 : prev.recorded.steps) + update.steps.t.length,
                    samples: (update.replace ? 0 : prev.recorded.samples) + update.samples.t.length,
                  },
                  after: update.after,
                }
              : prev,
          );
        });
        source.addEventListener('end', () => source?.close());
      },
      (e: Error) => setError(e.message),
    );
    return () => {
      gone = true;
      source?.close();
    };
  }, [id]);

  // The diagnosis once the chart is in (and again in another language); the last one stays meanwhile.
  const loaded = chart !== null;
  useEffect(() => {
    if (!loaded) return;
    let gone = false;
    api<RunExtras>(`/api/runs/${id}/extras?lang=${lang}`).then(
      (x) => {
        if (!gone) setExtras(x);
      },
      (e: Error) => setError(e.message),
    );
    return () => {
      gone = true;
    };
  }, [id, lang, loaded]);

  // A zoom that rests asks for its window in detail; back to the whole run, the overview again.
  const settle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const asked = useRef(0);
  const chartRef = useRef(chart);
  chartRef.current = chart;
  useEffect(() => () => clearTimeout(settle.current ?? undefined), []);
  const onZoom = useCallback(
    (from: number, to: number) => {
      clearTimeout(settle.current ?? undefined);
      settle.current = setTimeout(() => {
        const c = chartRef.current;
        if (!c) return;
        const ask = ++asked.current;
        if (!needsDetail(c, c.recorded, from, to)) {
          setZoom(null);
          return;
        }
        api<RunWindow>(`/api/runs/${id}/window?from=${from}&to=${to}`).then(
          (win) => {
            if (ask === asked.current) setZoom(win);
          },
          () => undefined,
        );
      }, ZOOM_SETTLE_MS);
    },
    [id],
  );

  const overview: ChartColumns | null = chart;
  const series = useMemo(() => (overview ? toSeries(overview) : null), [overview]);
  const detailSeries = useMemo(
    () => (overview && zoom ? toSeries(withWindow(overview, zoom)) : null),
    [overview, zoom],
  );
  const bands: Band[] = useMemo(() => (chart ? [...chart.phases] : []), [chart]);

  if (error) return <p className="error">{error}</p>;
  if (!chart || !series) return <p className="muted">{w({ code: 'loading', params: {} })}</p>;
  const { run } = chart;
  const lastStep = chart.steps.step.at(-1);
  return (
    <div className="run-page">
      <section className="panel">
        <h2>
          #{run.id} {extras?.name ?? run.name}{' '}
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
            {w({ code: 'step-count', params: { steps: run.steps, last: lastStep ?? null } })}
          </dd>
        </dl>
      </section>
      <div className="run-grid">
        <section className="panel">
          <h3>{w({ code: 'memory', params: {} })}</h3>
          <TimeChart
            series={series}
            detail={detailSeries}
            onZoom={onZoom}
            bands={bands}
            oomAt={chart.oom?.t ?? null}
          />
          <h3>{w({ code: 'per-step', params: {} })}</h3>
          <StepPeaks steps={chart.steps} capacity={chart.capacityBytes} />
          {extras?.rankSteps && extras.rankSteps.ranks.length > 1 ? (
            <>
              <h3 data-testid="per-rank-heading">
                {w({ code: 'per-rank', params: { ranks: extras.ranks.length, peakRank: extras.peakRank } })}
              </h3>
              <RankChart rankSteps={extras.rankSteps} peakRank={extras.peakRank} />
            </>
          ) : null}
          {chart.estimate ? (
            <>
              <h3>{w({ code: 'estimate-vs-measured', params: {} })}</h3>
              <table className="levels" data-testid="estimate-vs-measured">
                <tbody>
                  {(
                    [
                      ['allocated', chart.estimate.peak.allocatedBytes, run.peakAllocatedBytes],
                      ['reserved', chart.estimate.peak.reservedBytes, run.peakReservedBytes],
                      ['device', chart.estimate.peak.deviceBytes, run.peakDeviceBytes],
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
          {extras === null ? (
            <p className="muted" data-testid="findings-loading">
              {w({ code: 'loading', params: {} })}
            </p>
          ) : extras.findings.length === 0 ? (
            <p className="muted">{w({ code: 'no-findings', params: {} })}</p>
          ) : null}
          <ol>
            {(extras?.findings ?? []).map((f) => (
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
          {chart.oom ? <pre className="oom-text">{chart.oom.text}</pre> : null}
          {chart.snapshots.length > 0 ? (
            <ul className="snapshots" data-testid="run-snapshots">
              {chart.snapshots.map((s) => (
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

/** Two runs overlaid: per-step peak allocated of each on one chart, the config difference, and the one-variable warning. */
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { GIB } from '../../../src/core/units.js';
import { uiRunsWords } from '../../../src/words/ui-runs.js';
import { api, type RunDetail, type RunDiff } from '../api.js';
import { useLang } from '../i18n.js';

export function ComparePage({ a, b }: { a: number; b: number }) {
  const lang = useLang();
  const w = uiRunsWords(lang);
  const [runs, setRuns] = useState<[RunDetail, RunDetail] | null>(null);
  const [diff, setDiff] = useState<RunDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    Promise.all([
      api<RunDetail>(`/api/runs/${a}`),
      api<RunDetail>(`/api/runs/${b}`),
      api<RunDiff>(`/api/runs/diff?a=${a}&b=${b}`),
    ]).then(
      ([ra, rb, d]) => {
        setRuns([ra, rb]);
        setDiff(d);
      },
      (e: Error) => setError(e.message),
    );
  }, [a, b]);

  const data = useMemo((): uPlot.AlignedData | null => {
    if (!runs) return null;
    const steps = [...new Set([...runs[0].steps, ...runs[1].steps].map((s) => s.step))].sort((x, y) => x - y);
    const byStep = (r: RunDetail) => {
      const map = new Map(
        r.steps.map((s) => [s.step, (s.peakAllocatedBytes ?? s.allocatedBytes ?? 0) / GIB]),
      );
      return steps.map((s) => map.get(s) ?? null);
    };
    return [steps, byStep(runs[0]), byStep(runs[1])];
  }, [runs]);

  useEffect(() => {
    const el = host.current;
    if (!el || !data || !runs) return;
    const step = uiRunsWords(lang)({ code: 'axis-step', params: {} });
    const plot = new uPlot(
      {
        width: el.clientWidth || 800,
        height: 300,
        scales: { x: { time: false } },
        axes: [{ label: step }, { label: 'GiB' }],
        series: [
          { label: step },
          { label: `#${runs[0].run.id} ${runs[0].run.name}`, stroke: '#2563eb', width: 2 },
          { label: `#${runs[1].run.id} ${runs[1].run.name}`, stroke: '#d97706', width: 2 },
        ],
      },
      data,
      el,
    );
    return () => plot.destroy();
  }, [data, runs, lang]);

  if (error) return <p className="error">{error}</p>;
  if (!runs || !diff) return <p className="muted">{w({ code: 'loading', params: {} })}</p>;
  return (
    <section className="panel">
      <h2>
        #{a} ↔ #{b}
      </h2>
      <div ref={host} data-testid="compare-chart" />
      <h3>{w({ code: 'diff', params: {} })}</h3>
      {diff.oneVariableWarning ? (
        <p className="warn" data-testid="one-variable-warning">
          {w({ code: 'one-variable', params: {} })}
        </p>
      ) : null}
      <table className="levels" data-testid="diff-table">
        <tbody>
          {diff.changes.map((c) => (
            <tr key={c.field}>
              <th>{c.field}</th>
              <td>{JSON.stringify(c.a)}</td>
              <td>→</td>
              <td>{JSON.stringify(c.b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The ledger as a sortable table; tick two runs to compare them. */
import { useEffect, useMemo, useState } from 'react';
import { formatBytes } from '../../../src/core/units.js';
import { say } from '../../../src/words/catalog.js';
import type { Lang } from '../../../src/words/lang.js';
import { RUN_STATUS } from '../../../src/words/run.js';
import { type RunsColumn, uiRunsWords } from '../../../src/words/ui-runs.js';
import { api, type RunSummary } from '../api.js';
import { useLang } from '../i18n.js';

type SortKey = keyof Pick<
  RunSummary,
  | 'id'
  | 'name'
  | 'status'
  | 'model'
  | 'method'
  | 'microBatchSize'
  | 'seqLen'
  | 'peakAllocatedBytes'
  | 'peakReservedBytes'
  | 'peakDeviceBytes'
  | 'durationMs'
>;

/** The table's columns: the id, then those with a header of their own (src/words/ui-runs.ts). */
const COLUMNS: readonly (SortKey & ('id' | RunsColumn))[] = [
  'id',
  'name',
  'status',
  'model',
  'method',
  'microBatchSize',
  'seqLen',
  'peakAllocatedBytes',
  'peakReservedBytes',
  'peakDeviceBytes',
  'durationMs',
];

function cell(run: RunSummary, key: SortKey, lang: Lang): string {
  const v = run[key];
  if (v === null || v === undefined) return '—';
  if (key.endsWith('Bytes')) return formatBytes(v as number);
  if (key === 'durationMs')
    return uiRunsWords(lang)({ code: 'seconds', params: { seconds: Math.round((v as number) / 1000) } });
  return String(v);
}

export function RunsPage({
  onOpen,
  onCompare,
}: {
  onOpen: (id: number) => void;
  onCompare: (a: number, b: number) => void;
}) {
  const lang = useLang();
  const w = uiRunsWords(lang);
  const [runs, setRuns] = useState<readonly RunSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sort, setSort] = useState<{ key: SortKey; asc: boolean }>({ key: 'id', asc: false });
  const [picked, setPicked] = useState<number[]>([]);

  useEffect(() => {
    // The demo run's name is in the page's language.
    api<{ runs: RunSummary[] }>(`/api/runs?lang=${lang}`).then(
      (r) => setRuns(r.runs),
      (e: Error) => setError(e.message),
    );
  }, [lang]);

  const sorted = useMemo(() => {
    if (!runs) return [];
    const dir = sort.asc ? 1 : -1;
    return [...runs].sort((a, b) => {
      const x = a[sort.key] ?? -Infinity;
      const y = b[sort.key] ?? -Infinity;
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
  }, [runs, sort]);

  if (error) return <p className="error">{error}</p>;
  if (!runs) return <p className="muted">{w({ code: 'loading', params: {} })}</p>;
  if (runs.length === 0) return <p className="muted">{w({ code: 'empty', params: {} })}</p>;
  return (
    <section className="panel">
      <h2>{w({ code: 'title', params: {} })}</h2>
      <button
        type="button"
        disabled={picked.length !== 2}
        onClick={() => onCompare(picked[0]!, picked[1]!)}
        data-testid="compare"
      >
        {w({ code: 'compare', params: {} })}
      </button>
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th />
            {COLUMNS.map((key) => (
              <th
                key={key}
                onClick={() => setSort({ key, asc: sort.key === key ? !sort.asc : true })}
                className="sortable"
              >
                {key === 'id' ? '#' : w({ code: 'column', params: { column: key } })}
                {sort.key === key ? (sort.asc ? ' ▲' : ' ▼') : ''}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((run) => (
            <tr key={run.id} className={`status-${run.status}`}>
              <td>
                <input
                  type="checkbox"
                  checked={picked.includes(run.id)}
                  onChange={(e) =>
                    setPicked(
                      e.target.checked ? [...picked, run.id].slice(-2) : picked.filter((x) => x !== run.id),
                    )
                  }
                />
              </td>
              {COLUMNS.map((key) => (
                <td key={key} className={key.endsWith('Bytes') || key === 'id' ? 'num' : ''}>
                  {key === 'name' ? (
                    <a
                      href={`#/runs/${run.id}`}
                      onClick={(e) => {
                        e.preventDefault();
                        onOpen(run.id);
                      }}
                    >
                      {run.name}
                    </a>
                  ) : key === 'status' ? (
                    <span className={`badge ${run.status}`}>
                      {say(RUN_STATUS, lang, { code: run.status, params: {} })}
                    </span>
                  ) : (
                    cell(run, key, lang)
                  )}
                  {key === 'name' && run.demo ? (
                    <span className="badge demo">{w({ code: 'demo', params: {} })}</span>
                  ) : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

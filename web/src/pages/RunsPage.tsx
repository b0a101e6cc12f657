/** The ledger as a sortable table; tick two runs to compare them. */
import { useEffect, useMemo, useState } from 'react';
import { formatBytes } from '../../../src/core/units.js';
import { api, type RunSummary } from '../api.js';
import { type MessageKey, useT } from '../i18n.js';

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

const COLUMNS: readonly [SortKey, MessageKey | null][] = [
  ['id', null],
  ['name', 'runs.name'],
  ['status', 'runs.status'],
  ['model', 'runs.model'],
  ['method', 'runs.method'],
  ['microBatchSize', 'runs.batch'],
  ['seqLen', 'runs.seq'],
  ['peakAllocatedBytes', 'runs.peakAllocated'],
  ['peakReservedBytes', 'runs.peakReserved'],
  ['peakDeviceBytes', 'runs.peakDevice'],
  ['durationMs', 'runs.duration'],
];

function cell(run: RunSummary, key: SortKey): string {
  const v = run[key];
  if (v === null || v === undefined) return '—';
  if (key.endsWith('Bytes')) return formatBytes(v as number);
  if (key === 'durationMs') return `${Math.round((v as number) / 1000)} s`;
  return String(v);
}

export function RunsPage({
  onOpen,
  onCompare,
}: {
  onOpen: (id: number) => void;
  onCompare: (a: number, b: number) => void;
}) {
  const t = useT();
  const [runs, setRuns] = useState<readonly RunSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sort, setSort] = useState<{ key: SortKey; asc: boolean }>({ key: 'id', asc: false });
  const [picked, setPicked] = useState<number[]>([]);

  useEffect(() => {
    api<{ runs: RunSummary[] }>('/api/runs').then(
      (r) => setRuns(r.runs),
      (e: Error) => setError(e.message),
    );
  }, []);

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
  if (!runs) return <p className="muted">{t('common.loading')}</p>;
  if (runs.length === 0) return <p className="muted">{t('runs.empty')}</p>;
  return (
    <section className="panel">
      <h2>{t('runs.title')}</h2>
      <button
        type="button"
        disabled={picked.length !== 2}
        onClick={() => onCompare(picked[0]!, picked[1]!)}
        data-testid="compare"
      >
        {t('runs.compare')}
      </button>
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th />
            {COLUMNS.map(([key, label]) => (
              <th
                key={key}
                onClick={() => setSort({ key, asc: sort.key === key ? !sort.asc : true })}
                className="sortable"
              >
                {label ? t(label) : '#'}
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
              {COLUMNS.map(([key]) => (
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
                    <span className={`badge ${run.status}`}>{run.status}</span>
                  ) : (
                    cell(run, key)
                  )}
                  {key === 'name' && run.demo ? <span className="badge demo">{t('nav.demo')}</span> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

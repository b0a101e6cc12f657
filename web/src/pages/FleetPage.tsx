/**
 * The fleet: what `headroom fleet` shows, from GET /api/fleet (the server asks the Prometheus it was
 * started with). Every card with its used memory as a bar, the Headroom ranks on it, and the findings.
 */
import { useCallback, useEffect, useState } from 'react';
import type { FleetGpu, FleetReading } from '../../../src/core/fleet/fleet.js';
import { FULL_RATIO } from '../../../src/core/fleet/fleet.js';
import { formatBytes } from '../../../src/core/units.js';
import { say } from '../../../src/words/catalog.js';
import { FLEET_FINDINGS } from '../../../src/words/fleet.js';
import { fleetWords } from '../../../src/words/ui-fleet.js';
import { apiUrl } from '../api.js';
import { useLang } from '../i18n.js';

type State =
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly reading: FleetReading }
  | { readonly kind: 'not-configured' }
  | { readonly kind: 'failed'; readonly message: string; readonly hint: string | null };

async function loadFleet(): Promise<State> {
  const response = await fetch(apiUrl('/api/fleet'));
  const json = (await response.json().catch(() => ({}))) as {
    error?: { code?: string; message?: string; hint?: string | null };
  };
  if (response.ok) return { kind: 'ready', reading: json as FleetReading };
  if (json.error?.code === 'not-configured') return { kind: 'not-configured' };
  return {
    kind: 'failed',
    message: json.error?.message ?? `${response.status} ${response.statusText}`,
    hint: json.error?.hint ?? null,
  };
}

function UsedBar({ gpu }: { gpu: FleetGpu }) {
  if (gpu.usedBytes === null || gpu.totalBytes === null || gpu.totalBytes <= 0) return <span>—</span>;
  const ratio = gpu.usedBytes / gpu.totalBytes;
  return (
    <span className="fleet-used" title={`${(ratio * 100).toFixed(1)} %`}>
      <span
        className={`fleet-used-fill${ratio >= FULL_RATIO ? ' full' : ''}`}
        style={{ width: `${Math.min(100, ratio * 100).toFixed(1)}%` }}
      />
    </span>
  );
}

export function FleetPage() {
  const lang = useLang();
  const w = fleetWords(lang);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const refresh = useCallback(() => {
    setState({ kind: 'loading' });
    loadFleet().then(setState, (e: Error) => setState({ kind: 'failed', message: e.message, hint: null }));
  }, []);
  useEffect(refresh, [refresh]);

  if (state.kind === 'loading') return <p className="muted">{w('loading')}</p>;
  if (state.kind === 'not-configured')
    return (
      <p className="muted" data-testid="fleet-not-configured">
        {w('not-configured')}
      </p>
    );
  if (state.kind === 'failed')
    return (
      <section className="panel">
        <p className="error" data-testid="fleet-error">
          {state.message}
        </p>
        {state.hint && <p className="muted">{state.hint}</p>}
        <button type="button" onClick={refresh}>
          {w('refresh')}
        </button>
      </section>
    );

  const { reading } = state;
  const runs = new Set(reading.gpus.flatMap((g) => g.runs.map((r) => `${r.instance ?? ''}/${r.run}`)));
  const hosts = new Set(reading.gpus.map((g) => g.host ?? ''));
  return (
    <>
      <section className="panel">
        <h2>{w('title')}</h2>
        <p data-testid="fleet-summary">
          {w('summary', {
            cards: reading.gpus.length,
            hosts: hosts.size,
            runs: runs.size,
            findings: reading.findings.length,
          })}{' '}
          <span className="muted">{w('source', { url: reading.prometheus })}</span>{' '}
          <button type="button" onClick={refresh} data-testid="fleet-refresh">
            {w('refresh')}
          </button>
        </p>
        <table className="runs fleet" data-testid="fleet-table">
          <thead>
            <tr>
              <th>{w('host')}</th>
              <th>{w('gpu')}</th>
              <th>{w('model')}</th>
              <th>{w('used')}</th>
              <th />
              <th>{w('free')}</th>
              <th>{w('total')}</th>
              <th>{w('runs')}</th>
            </tr>
          </thead>
          <tbody>
            {reading.gpus.map((g) => (
              <tr key={`${g.host}/${g.gpu}/${g.uuid}`} title={g.uuid ?? undefined}>
                <td>{g.host ?? '—'}</td>
                <td className="num">{g.gpu ?? '—'}</td>
                <td>{g.modelName ?? '—'}</td>
                <td className="num">{g.usedBytes === null ? '—' : formatBytes(g.usedBytes)}</td>
                <td>
                  <UsedBar gpu={g} />
                </td>
                <td className="num">{g.freeBytes === null ? '—' : formatBytes(g.freeBytes)}</td>
                <td className="num">{g.totalBytes === null ? '—' : formatBytes(g.totalBytes)}</td>
                <td>
                  {g.runs.length === 0
                    ? '—'
                    : g.runs.map((r) => w('run-rank', { run: r.name ?? r.run, rank: r.rank })).join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel findings">
        <h3>{w('findings')}</h3>
        {reading.findings.length === 0 ? (
          <p className="muted">{w('no-findings')}</p>
        ) : (
          <ol data-testid="fleet-findings">
            {reading.findings.map((f) => (
              <li
                key={`${f.code}/${f.params.host}/${f.params.gpu}/${f.params.uuid}`}
                className={`finding ${f.severity}`}
              >
                <p>{say(FLEET_FINDINGS, lang, f)}</p>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

/**
 * A PyTorch memory snapshot: pick or drop the .pickle, the server analyses it (POST /api/snapshot, see
 * src/server/snapshot-api.ts for why not in the browser), and the page shows the timeline of live and
 * reserved memory, the peak's parts as the estimate page's bar, the largest sites and the findings.
 * `#/snapshot?run=ID[&rank=N]` opens the snapshot a recorded run's probe wrote (the run page links it).
 */
import { type DragEvent, useCallback, useEffect, useMemo, useState } from 'react';
import type { LiveView, SnapshotAnswer } from '../../../src/core/snapshot/analyse.js';
import { mainPeak } from '../../../src/core/snapshot/analyse.js';
import { SNAPSHOT_PARTS } from '../../../src/core/snapshot/attribute.js';
import type { SnapshotFrame } from '../../../src/core/snapshot/snapshot.js';
import { formatBytes } from '../../../src/core/units.js';
import { findingText, SNAPSHOT_WORDS, type SnapshotWords } from '../../../src/words/snapshot.js';
import { apiUrl } from '../api.js';
import { SnapshotTimeline } from '../components/SnapshotTimeline.js';
import { PART_COLORS, PartsBar } from '../components/StackedBar.js';
import { useLang } from '../i18n.js';

const UNATTRIBUTED_COLOR = '#e2e8f0';

/** POSTs or GETs the snapshot API; a non-2xx answer throws its message and hint. */
async function load(path: string, body?: Blob): Promise<SnapshotAnswer> {
  const response = await fetch(
    apiUrl(path),
    body ? { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body } : {},
  );
  const json = (await response.json().catch(() => ({}))) as {
    error?: { message?: string; hint?: string | null };
  };
  if (!response.ok) {
    const e = json.error;
    throw new Error(
      e?.message
        ? `${e.message}${e.hint ? ` — ${e.hint}` : ''}`
        : `${response.status} ${response.statusText}`,
    );
  }
  return json as SnapshotAnswer;
}

function siteText(site: { kind: string; frame: SnapshotFrame | null }, w: SnapshotWords): string {
  if (site.kind === 'python' && site.frame) {
    const f = site.frame.filename;
    const cut = f.search(/(site|dist)-packages\//);
    const short = cut >= 0 ? f.slice(f.indexOf('/', cut) + 1) : f.split('/').slice(-2).join('/');
    return `${short}:${site.frame.line} ${site.frame.name}`;
  }
  if (site.kind === 'autograd' && site.frame) return `${site.frame.name} (${w.sites.autograd})`;
  return w.sites[site.kind === 'cpp' ? 'cpp' : 'none'];
}

function Parts({ view, w }: { view: LiveView; w: SnapshotWords }) {
  return (
    <PartsBar
      testId="snapshot-bar"
      segments={[
        ...SNAPSHOT_PARTS.map((p) => ({
          key: p,
          label: w.parts[p],
          bytes: view.parts[p],
          color: PART_COLORS[p],
        })),
        {
          key: 'unattributed',
          label: w.parts.unattributed,
          bytes: view.unattributedBytes,
          color: UNATTRIBUTED_COLOR,
        },
      ]}
      scaleBytes={view.liveBytes * 1.04}
      limit={null}
      markers={[[w.labels.live, view.liveBytes]]}
      ariaLabel={`${w.labels.live} ${formatBytes(view.liveBytes)}`}
    />
  );
}

function Sites({ view, w }: { view: LiveView; w: SnapshotWords }) {
  return (
    <table className="levels" data-testid="snapshot-sites">
      <thead>
        <tr>
          <th>{w.labels.bytes}</th>
          <th>{w.labels.count}</th>
          <th>{w.labels.part}</th>
          <th>{w.labels.site}</th>
        </tr>
      </thead>
      <tbody>
        {view.sites.map((s) => (
          <tr key={`${s.kind}:${s.frame?.filename}:${s.frame?.line}:${s.frame?.name}`}>
            <td className="num">{formatBytes(s.bytes)}</td>
            <td className="num">{s.count}</td>
            <td>{s.part === null ? '—' : w.parts[s.part]}</td>
            <td>
              <code>{siteText(s, w)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SnapshotPage({ query }: { query: string }) {
  const lang = useLang();
  const w = SNAPSHOT_WORDS[lang];
  const [report, setReport] = useState<SnapshotAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const params = new URLSearchParams(query);
  const run = params.get('run');
  const rank = params.get('rank');

  const start = useCallback((promise: Promise<SnapshotAnswer>) => {
    setBusy(true);
    setError(null);
    promise.then(
      (r) => {
        setReport(r);
        setBusy(false);
      },
      (e: Error) => {
        setReport(null);
        setError(e.message);
        setBusy(false);
      },
    );
  }, []);
  useEffect(() => {
    if (run !== null)
      start(
        load(
          `/api/runs/${encodeURIComponent(run)}/snapshot${rank === null ? '' : `?rank=${encodeURIComponent(rank)}`}`,
        ),
      );
  }, [run, rank, start]);
  const open = (file: File | undefined) => {
    if (file) start(load(`/api/snapshot?name=${encodeURIComponent(file.name)}`, file));
  };
  const onDrop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setOver(false);
    open(event.dataTransfer.files[0]);
  };

  const peak = report ? mainPeak(report) : null;
  const timeline = report && peak ? report.timelines.find((t) => t.device === peak.device) : undefined;
  const ooms = useMemo(
    () =>
      report && peak ? report.ooms.filter((o) => o.device === peak.device).map((o) => o.eventIndex) : [],
    [report, peak],
  );
  const chartLabels = useMemo(
    () => ({
      active: w.labels.active,
      reserved: w.labels.reserved,
      events: w.labels.events,
      oom: w.labels.oom,
      peak: w.labels.peak,
    }),
    [w],
  );
  const view = peak ? peak.live : report?.end;

  return (
    <div className="snapshot-page">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the file input inside it is the keyboard's way in */}
      <section
        className={`panel dropzone${over ? ' over' : ''}`}
        data-testid="snapshot-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <h2>{w.labels.title}</h2>
        <label className="file-pick">
          {w.labels.pickFile}{' '}
          <input
            type="file"
            accept=".pickle,.pkl,application/octet-stream"
            data-testid="snapshot-file"
            onChange={(e) => open(e.target.files?.[0])}
          />
        </label>
        <p className="muted">{w.labels.dropHere}</p>
        <p className="muted">{w.labels.uploadNote}</p>
        {busy ? <p className="muted">{w.labels.reading}</p> : null}
        {error ? (
          <p className="error" data-testid="snapshot-error">
            {error}
          </p>
        ) : null}
      </section>
      {report && view ? (
        <>
          <section className="panel">
            <h2 data-testid="snapshot-file-name">{report.file}</h2>
            <dl className="peaks">
              <dt>{w.labels.reserved}</dt>
              <dd data-testid="snapshot-reserved">
                {formatBytes(report.reservedBytes)} ({report.segments} {w.labels.segments})
              </dd>
              <dt>{w.labels.allocated}</dt>
              <dd data-testid="snapshot-allocated">{formatBytes(report.allocatedBytes)}</dd>
              <dt>{w.labels.requested}</dt>
              <dd>{formatBytes(report.requestedBytes)}</dd>
              <dt>{w.labels.cached}</dt>
              <dd>{formatBytes(report.inactiveBytes)}</dd>
              <dt>{w.labels.largestFree}</dt>
              <dd>{formatBytes(report.largestInactiveBlockBytes)}</dd>
              <dt>{w.labels.peak}</dt>
              <dd data-testid="snapshot-peak">{peak ? formatBytes(peak.activeBytes) : '—'}</dd>
            </dl>
            {peak ? (
              <p className="muted" data-testid="snapshot-peak-at">
                {peak.eventIndex < 0
                  ? w.labels.beforeFirstEvent
                  : w.labels.atEvent(peak.eventIndex, peak.events)}{' '}
                · {w.labels.reservedThen} {formatBytes(peak.reservedBytes)}
              </p>
            ) : (
              <p className="muted">
                {w.labels.trace}: {w.labels.noTrace}
              </p>
            )}
          </section>
          {timeline && peak ? (
            <section className="panel">
              <h3>{w.labels.timeline}</h3>
              <SnapshotTimeline
                timeline={timeline}
                peakIndex={peak.eventIndex}
                oomIndices={ooms}
                labels={chartLabels}
              />
            </section>
          ) : null}
          <section className="panel">
            <h3>{peak ? w.labels.byPartAtPeak : w.labels.byPartAtEnd}</h3>
            <Parts view={view} w={w} />
            <table className="levels" data-testid="snapshot-rules">
              <tbody>
                {view.rules.map((r) => (
                  <tr key={r.rule}>
                    <td className="num">{formatBytes(r.bytes)}</td>
                    <td>{r.part === null ? w.parts.unattributed : w.parts[r.part]}</td>
                    <td>{w.rules[r.rule]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="panel">
            <h3>{w.labels.topSites}</h3>
            <Sites view={view} w={w} />
          </section>
          {report.findings.length > 0 ? (
            <section className="panel">
              <h3>{w.labels.findings}</h3>
              <ul className="notes" data-testid="snapshot-findings">
                {report.findings.map((f) => {
                  const text = findingText(w, f);
                  return (
                    <li key={`${f.code}:${JSON.stringify(f.params)}`}>
                      <b>{text.title}</b>
                      <br />
                      <span className="muted">
                        {w.labels.tryHint}: {text.hint}
                      </span>
                    </li>
                  );
                })}
              </ul>
            </section>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

/**
 * The runs API over the ledger: the table, one run with its series and diagnosis, two runs compared,
 * and a server-sent event stream that follows a run still going.
 */

import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { findGpu } from '../core/catalog/index.js';
import type {
  FindingView,
  RowMarks,
  RunChart,
  RunDetail,
  RunDiff,
  RunExtras,
  RunSummary,
  RunUpdate,
  RunWindow,
  StepPoint,
} from '../core/dashboard-types.js';
import { type Timeline, TimelineWriter } from '../core/diagnose/timeline.js';
import { DEFAULT_MAX_POINTS, keepPeaks, peakKeeper } from '../core/downsample.js';
import { type Estimate, estimate } from '../core/estimate.js';
import { fileError } from '../core/file-errors.js';
import { resolveModelRef } from '../core/model-ref.js';
import type { PerRankSteps } from '../core/ranks.js';
import { chooseSnapshot } from '../core/run/snapshot.js';
import { diffRuns } from '../core/run-diff.js';
import type { RunEvent, RunRecord, RunSnapshot } from '../core/run-record.js';
import { parseScenario } from '../core/scenario.js';
import type { Ledger } from '../io/ledger.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { langOf } from '../words/lang.js';
import { RUNS } from '../words/runs.js';
import { DEMO_RUN_ID, type DemoRun } from './demo-run.js';
import {
  type CachedRun,
  type RunSeries,
  RunSeriesCache,
  readRunSeries,
  sampleColumnsFromPoints,
  stepColumnsFromPoints,
  thinSamples,
  thinSteps,
  windowOf,
} from './run-series.js';

export interface RunsApiDeps {
  /** Opens the ledger for one request (better-sqlite3 is synchronous; opening is cheap). */
  readonly openLedger: () => Ledger;
  /**
   * The diagnosis of a recorded run (findings in the fixed order), in a language; `timelineSteps` when
   * the caller has read the run's steps already (they are then not read again).
   */
  readonly diagnoseRun: (
    ledger: Ledger,
    run: RunRecord,
    lang: Lang,
    timelineSteps?: Timeline['steps'],
  ) => readonly FindingView[];
  /** The demo run shown next to the ledger's (one build per language), or null. */
  readonly demo: Readonly<Record<Lang, DemoRun>> | null;
  /** How often the stream looks for new rows, ms. */
  readonly pollMs?: number;
  /** Work out the newest finished run's chart once the server is up (default true). */
  readonly warm?: boolean;
  /** Live streams open at once (MAX_STREAMS by default); one more is answered 503. */
  readonly maxStreams?: number;
}

/**
 * Live views open at once. Each polls the ledger four times a second; a few tabs and a wall screen are
 * far below this, and fifty idle clients no longer slow every other request.
 */
export const MAX_STREAMS = 16;

/** Time between two looks at the ledger for a live run: "within a second of a new step". */
export const STREAM_POLL_MS = 250;

function summaryOf(run: RunRecord): RunSummary {
  const scenario = run.scenario ?? {};
  return {
    id: run.id,
    name: run.name ?? `run ${run.id}`,
    status: run.status,
    exitCode: run.exitCode,
    model: typeof scenario.model === 'string' ? scenario.model : null,
    method: typeof scenario.method === 'string' ? scenario.method : null,
    microBatchSize: run.batchSize,
    seqLen: run.seqLen,
    peakAllocatedBytes: run.peakAllocated?.bytes ?? null,
    peakReservedBytes: run.peakReserved?.bytes ?? null,
    peakDeviceBytes: run.peakDevice?.bytes ?? null,
    steps: run.steps,
    startedAt: new Date(run.startedAtMs).toISOString(),
    durationMs: run.endedAtMs === null ? null : run.endedAtMs - run.startedAtMs,
  };
}

const STEP_SERIES: readonly ((p: StepPoint) => number | null)[] = [
  (p) => p.peakAllocatedBytes ?? p.allocatedBytes,
  (p) => p.peakReservedBytes ?? p.reservedBytes,
  (p) => p.loss,
];

/**
 * A chart's points of `count` read one at a time (a long run's, from the ledger: Ledger.rows), every
 * peak of `keep` kept (src/core/downsample.ts).
 */
function thinnedAsRead<P>(
  series: { readonly count: number; readonly points: Iterable<P> },
  keep: readonly ((p: P) => number | null)[],
): P[] {
  const keeper = peakKeeper(series.count, keep);
  for (const p of series.points) keeper.push(p);
  return keeper.done();
}

/** Phase bands from the probe's phase events (train until the next change). */
export function phaseBands(events: readonly RunEvent[], startMs: number, endMs: number): RunDetail['phases'] {
  const changes = events.filter((e) => e.kind === 'phase' && e.phase !== null);
  return changes.map((e, i) => ({
    name: e.phase!,
    start: (e.tMs - startMs) / 1000,
    end: ((changes[i + 1]?.tMs ?? endMs) - startMs) / 1000,
  }));
}

/** One snapshot per rank, the one the snapshot route serves for it (chooseSnapshot), ranks in order. */
function latestPerRank(snapshots: readonly RunSnapshot[]): RunDetail['snapshots'] {
  const ranks = [...new Set(snapshots.map((s) => s.rank))].sort((a, b) => a - b);
  return ranks.map((rank) => {
    const s = chooseSnapshot(snapshots, rank)!;
    return { rank: s.rank, reason: s.reason, bytes: s.bytes, step: s.step };
  });
}

/** The estimate for a run's scenario, when it names a catalog model; null otherwise. */
function estimateOf(run: RunRecord): Estimate | null {
  if (!run.scenario) return null;
  try {
    const scenario = parseScenario(run.scenario);
    const model = resolveModelRef(scenario.model);
    if (!model) return null;
    return estimate({
      scenario,
      shape: model.shape,
      gpu: scenario.gpu ? (findGpu(scenario.gpu) ?? null) : null,
    });
  } catch {
    // A scenario the estimator rejects (e.g. from an older headroom): the page shows the run without it.
    return null;
  }
}

/** Everything the run page (and `headroom report`) shows about one recorded run. */
export function runDetail(
  ledger: Ledger,
  run: RunRecord,
  deps: Pick<RunsApiDeps, 'diagnoseRun'>,
  lang: Lang = 'en',
): RunDetail {
  const events = ledger.events(run.id);
  const endMs = run.endedAtMs ?? Date.now();
  const oomEvent = events.find((e) => e.kind === 'oom' || e.kind === 'oom-text');
  const oomText = ledger.oomText(run.id);
  // The series summed up by SQLite and thinned as they are read: a run of millions of rows is never an
  // array of them here (npm run bench:ledger-rows).
  const steps = ledger.rows.stepPoints(run.id, run.startedAtMs);
  const samples = ledger.rows.samplePoints(run.id, run.startedAtMs);
  return {
    run: detailRun(run),
    steps: thinnedAsRead(steps, STEP_SERIES),
    samples: thinnedAsRead(samples, [(p) => p.usedBytes]),
    recorded: { steps: steps.count, samples: samples.count },
    phases: phaseBands(events, run.startedAtMs, endMs),
    oom: oomEvent && oomText ? { t: (oomEvent.tMs - run.startedAtMs) / 1000, text: oomText } : null,
    // The diagnosis reads the steps one at a time itself (diagnoseRun).
    findings: deps.diagnoseRun(ledger, run, lang),
    estimate: estimateOf(run),
    snapshots: latestPerRank(run.snapshots),
    ranks: run.ranks,
    peakRank: run.peakRank,
    rankSteps: ledger.rows.rankSteps(run.id),
  };
}

function detailRun(run: RunRecord): RunDetail['run'] {
  return { ...summaryOf(run), command: run.command.join(' '), scenario: run.scenario };
}

/** What the run page paints first: the run and its chart (columns, every peak kept), phases and OOM. */
export function chartOf(ledger: Ledger, run: RunRecord, series: RunSeries): RunChart {
  const events = ledger.events(run.id, ['phase', 'oom', 'oom-text']);
  const endMs = run.endedAtMs ?? Date.now();
  const oomEvent = events.find((e) => e.kind === 'oom' || e.kind === 'oom-text');
  const oomText = oomEvent ? ledger.oomText(run.id) : null;
  return {
    run: detailRun(run),
    steps: thinSteps(series.steps),
    samples: thinSamples(series.samples),
    capacityBytes: series.capacityBytes,
    recorded: { steps: series.steps.t.length, samples: series.samples.t.length },
    phases: phaseBands(events, run.startedAtMs, endMs),
    oom: oomEvent && oomText ? { t: (oomEvent.tMs - run.startedAtMs) / 1000, text: oomText } : null,
    snapshots: latestPerRank(run.snapshots),
    estimate: estimateOf(run),
    after: series.after,
  };
}

/** The per-rank peaks a chart draws: each rank's peaks kept, a few thousand steps at most. */
export function thinRankSteps(rankSteps: PerRankSteps, maxPoints = DEFAULT_MAX_POINTS): PerRankSteps {
  return {
    ranks: rankSteps.ranks,
    steps: keepPeaks(
      rankSteps.steps,
      rankSteps.ranks.map((_, i) => (s: PerRankSteps['steps'][number]) => s.allocatedBytes[i] ?? null),
      maxPoints,
    ),
  };
}

/** The run page's second part: the diagnosis in a language and the ranks (from the cached read). */
function extrasOf(
  ledger: Ledger,
  run: RunRecord,
  cached: CachedRun,
  lang: Lang,
  deps: Pick<RunsApiDeps, 'diagnoseRun'>,
): RunExtras {
  return {
    name: summaryOf(run).name,
    findings: RunSeriesCache.derive(cached, `findings:${lang}`, () =>
      deps.diagnoseRun(ledger, run, lang, cached.series.timeline()),
    ),
    ranks: run.ranks,
    peakRank: run.peakRank,
    rankSteps: RunSeriesCache.derive(cached, 'rankSteps', () => {
      // One rank has no per-rank chart on the page: its ranks, none of its steps again.
      const ranks = [...new Set(cached.series.ranks)].sort((x, y) => x - y);
      return ranks.length > 1 ? thinRankSteps(cached.series.rankSteps()) : { ranks, steps: [] };
    }),
  };
}

/** The demo run's (prepared) detail as the page's parts. */
function demoSeries(detail: RunDetail): RunSeries {
  const steps = stepColumnsFromPoints(detail.steps);
  return {
    steps,
    samples: sampleColumnsFromPoints(detail.samples),
    capacityBytes: detail.samples[0]?.totalBytes ?? null,
    after: { steps: 0, samples: 0 },
    ranks: detail.rankSteps.ranks,
    timeline: () => new TimelineWriter(0).done(),
    rankSteps: () => detail.rankSteps,
  };
}

function demoChart(detail: RunDetail): RunChart {
  const series = demoSeries(detail);
  return {
    run: detail.run,
    steps: thinSteps(series.steps),
    samples: thinSamples(series.samples),
    capacityBytes: series.capacityBytes,
    recorded: { steps: detail.steps.length, samples: detail.samples.length },
    phases: detail.phases,
    oom: detail.oom,
    snapshots: detail.snapshots,
    estimate: detail.estimate,
    after: series.after,
  };
}

function extrasOfDetail(detail: RunDetail): RunExtras {
  const { findings, ranks, peakRank, rankSteps } = detail;
  return { name: detail.run.name, findings, ranks, peakRank, rankSteps };
}

/** `after=STEPS,SAMPLES` (two row ids), or null when absent or not two whole numbers. */
function parseAfter(text: string | undefined): RowMarks | null {
  const m = /^(\d+),(\d+)$/.exec(text ?? '');
  return m ? { steps: Number(m[1]), samples: Number(m[2]) } : null;
}

function runOrThrow(ledger: Ledger, ref: string): RunRecord {
  const run = ledger.getRun(ref);
  if (!run) {
    throw fileError('api-no-run', { ref }, 'run', 'invalid-field');
  }
  return run;
}

/** Mounts /runs routes on the API. */
export function mountRuns(api: Hono, deps: RunsApiDeps): void {
  let openStreams = 0;
  const cache = new RunSeriesCache();
  const withLedger = <T>(use: (ledger: Ledger) => T): T => {
    const ledger = deps.openLedger();
    try {
      return use(ledger);
    } finally {
      ledger.close();
    }
  };

  const chartFor = (ledger: Ledger, run: RunRecord): RunChart => {
    const cached = cache.get(ledger, run);
    // A finished run's chart is worked out once; a live one's events (phases, the OOM) may move on.
    if (run.status === 'running') return chartOf(ledger, run, cached.series);
    return RunSeriesCache.derive(cached, 'chart', () => chartOf(ledger, run, cached.series));
  };

  // A fresh server works out the newest finished run's chart once it is up (the run a person most often
  // opens first, just after it ended), so that its first load is served from what was read. It runs
  // after the server has started, not in a request; a request that comes meanwhile waits for it (about
  // 250 ms for a 100,000-step run), as it would have read the rows itself. Errors are the request's to
  // report: here they are left.
  if (deps.warm !== false) {
    const timer = setTimeout(() => {
      try {
        withLedger((ledger) => {
          const run = ledger
            .listRuns()
            .filter((r) => r.status !== 'running')
            .at(-1);
          if (run) chartFor(ledger, run);
        });
      } catch {
        // No ledger yet, or one it cannot read: the run page says so when it is asked.
      }
    }, 0);
    timer.unref?.();
  }

  api.get('/runs', (c) => {
    const runs = withLedger((ledger) => ledger.listRuns().map(summaryOf));
    const lang = langOf(c.req.query('lang'));
    return c.json({ runs: deps.demo ? [deps.demo[lang].detail.run, ...runs] : runs });
  });

  api.get('/runs/diff', (c) => {
    const a = c.req.query('a') ?? '';
    const b = c.req.query('b') ?? '';
    const lang = langOf(c.req.query('lang'));
    const diff: RunDiff = withLedger((ledger) => {
      const ra = runOrThrow(ledger, a);
      const rb = runOrThrow(ledger, b);
      const d = diffRuns(ra, rb);
      return {
        a: summaryOf(ra),
        b: summaryOf(rb),
        changes: d.changes.map((ch) => ({ field: ch.name, a: ch.a, b: ch.b })),
        oneVariableWarning: d.warning !== null,
        warning: d.warning ? say(RUNS, lang, d.warning) : null,
        peaks: d.peaks,
      };
    });
    return c.json(diff);
  });

  api.get('/runs/:id', (c) => {
    const id = c.req.param('id');
    const lang: Lang = c.req.query('lang') === 'zh' ? 'zh' : 'en';
    if (deps.demo && id === String(DEMO_RUN_ID)) return c.json(deps.demo[lang].detail);
    return c.json(withLedger((ledger) => runDetail(ledger, runOrThrow(ledger, id), deps, lang)));
  });

  // The run page: the chart first (columns, thinned, every peak kept), then the diagnosis and estimate.
  api.get('/runs/:id/chart', (c) => {
    const id = c.req.param('id');
    if (deps.demo && id === String(DEMO_RUN_ID)) return c.json(demoChart(deps.demo.en.detail));
    return c.json(withLedger((ledger) => chartFor(ledger, runOrThrow(ledger, id))));
  });

  api.get('/runs/:id/extras', (c) => {
    const id = c.req.param('id');
    const lang: Lang = langOf(c.req.query('lang'));
    if (deps.demo && id === String(DEMO_RUN_ID)) return c.json(extrasOfDetail(deps.demo[lang].detail));
    return c.json(
      withLedger((ledger) => {
        const run = runOrThrow(ledger, id);
        const cached = cache.get(ledger, run);
        return extrasOf(ledger, run, cached, lang, deps);
      }),
    );
  });

  // The detail of a zoomed window: every point between from and to (seconds since the start), thinned
  // (peaks kept) only past a chart's width of points.
  api.get('/runs/:id/window', (c) => {
    const id = c.req.param('id');
    const from = Number(c.req.query('from'));
    const to = Number(c.req.query('to'));
    if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) {
      throw fileError('api-bad-window', { id }, 'from', 'invalid-field');
    }
    const windowFrom = (series: RunSeries): RunWindow => ({ from, to, ...windowOf(series, from, to) });
    if (deps.demo && id === String(DEMO_RUN_ID)) return c.json(windowFrom(demoSeries(deps.demo.en.detail)));
    return c.json(
      withLedger((ledger) => {
        const run = runOrThrow(ledger, id);
        return windowFrom(cache.get(ledger, run).series);
      }),
    );
  });

  // A live run: every poll reads only the rows written since the last one. `after=STEPS,SAMPLES` (the
  // chart's `after`) starts there; without it the first update carries the run so far.
  api.get('/runs/:id/stream', (c) => {
    const id = c.req.param('id');
    const first = withLedger((ledger) => runOrThrow(ledger, id));
    const start = parseAfter(c.req.query('after'));
    const cap = deps.maxStreams ?? MAX_STREAMS;
    if (openStreams >= cap) {
      return c.json(
        {
          error: {
            code: 'too-many-streams',
            message: `${cap} live views are open already; close one (or reload the page later)`,
          },
        },
        503,
      );
    }
    openStreams += 1;
    return streamSSE(c, async (stream) => {
      let after: RowMarks = start ?? { steps: 0, samples: 0 };
      let replace = start === null;
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      try {
        while (open) {
          const { run, fresh } = withLedger((ledger) => {
            const r = ledger.getRun(first.id);
            return { run: r, fresh: r ? readRunSeries(ledger, r, after) : null };
          });
          if (!run || !fresh) break;
          after = fresh.after;
          if (fresh.steps.t.length > 0 || fresh.samples.t.length > 0) {
            const update: RunUpdate = {
              replace,
              run: detailRun(run),
              steps: fresh.steps,
              samples: fresh.samples,
              after,
            };
            await stream.writeSSE({ event: 'update', data: JSON.stringify(update) });
            replace = false;
          }
          if (run.status !== 'running') {
            await stream.writeSSE({ event: 'end', data: JSON.stringify({ status: run.status }) });
            break;
          }
          await stream.sleep(deps.pollMs ?? STREAM_POLL_MS);
        }
      } finally {
        openStreams -= 1;
      }
    });
  });
}

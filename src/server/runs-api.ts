/**
 * The runs API over the ledger: the table, one run with its series and diagnosis, two runs compared,
 * and a server-sent event stream that follows a run still going.
 */

import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { findGpu } from '../core/catalog/index.js';
import type {
  FindingView,
  RunDetail,
  RunDiff,
  RunSummary,
  SamplePoint,
  StepPoint,
} from '../core/dashboard-types.js';
import { HeadroomUserError } from '../core/errors.js';
import { type Estimate, estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import { perRankStepPeaks } from '../core/ranks.js';
import { diffRuns } from '../core/run-diff.js';
import type { GpuSampleRecord, RunEvent, RunRecord, StepRecord } from '../core/run-record.js';
import { parseScenario } from '../core/scenario.js';
import type { Ledger } from '../io/ledger.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { langOf } from '../words/lang.js';
import { RUNS } from '../words/runs.js';
import { DEMO_RUN_ID, type DemoRun } from './demo-run.js';

export interface RunsApiDeps {
  /** Opens the ledger for one request (better-sqlite3 is synchronous; opening is cheap). */
  readonly openLedger: () => Ledger;
  /** The diagnosis of a recorded run (findings in the fixed order), in a language. */
  readonly diagnoseRun: (ledger: Ledger, run: RunRecord, lang: Lang) => readonly FindingView[];
  /** The demo run shown next to the ledger's (one build per language), or null. */
  readonly demo: Readonly<Record<Lang, DemoRun>> | null;
  /** How often the stream looks for new rows, ms. */
  readonly pollMs?: number;
}

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

/** One point per step: the highest device of the highest rank (as runs show does). */
export function stepPoints(steps: readonly StepRecord[], startMs: number): StepPoint[] {
  const byStep = new Map<string, StepPoint>();
  for (const s of steps) {
    const key = `${s.phase}:${s.step}`;
    const prev = byStep.get(key);
    const peak = s.peakAllocatedBytes ?? s.allocatedBytes ?? 0;
    if (prev && (prev.peakAllocatedBytes ?? prev.allocatedBytes ?? 0) >= peak) continue;
    byStep.set(key, {
      step: s.step,
      t: (s.tMs - startMs) / 1000,
      loss: s.loss,
      allocatedBytes: s.allocatedBytes,
      reservedBytes: s.reservedBytes,
      peakAllocatedBytes: s.peakAllocatedBytes,
      peakReservedBytes: s.peakReservedBytes,
      phase: s.phase,
    });
  }
  return [...byStep.values()].sort((a, b) => a.t - b.t);
}

/** nvidia-smi used memory over time: the run's busiest GPU, or the sum of its own processes when known. */
export function samplePoints(samples: readonly GpuSampleRecord[], startMs: number): SamplePoint[] {
  const byTime = new Map<number, SamplePoint>();
  for (const s of samples) {
    const used = s.usedBytes ?? 0;
    const prev = byTime.get(s.tMs);
    if (prev && prev.usedBytes >= used) continue;
    byTime.set(s.tMs, { t: (s.tMs - startMs) / 1000, usedBytes: used, totalBytes: s.totalBytes ?? 0 });
  }
  return [...byTime.values()].sort((a, b) => a.t - b.t);
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
  const steps = ledger.steps(run.id);
  return {
    run: { ...summaryOf(run), command: run.command.join(' '), scenario: run.scenario },
    steps: stepPoints(steps, run.startedAtMs),
    samples: samplePoints(ledger.gpuSamples(run.id), run.startedAtMs),
    phases: phaseBands(events, run.startedAtMs, endMs),
    oom: oomEvent && oomText ? { t: (oomEvent.tMs - run.startedAtMs) / 1000, text: oomText } : null,
    findings: deps.diagnoseRun(ledger, run, lang),
    estimate: estimateOf(run),
    ranks: run.ranks,
    peakRank: run.peakRank,
    rankSteps: perRankStepPeaks(steps),
  };
}

function runOrThrow(ledger: Ledger, ref: string): RunRecord {
  const run = ledger.getRun(ref);
  if (!run) {
    throw new HeadroomUserError({
      code: 'invalid-field',
      where: 'run',
      message: `no run ${ref} in the ledger`,
      hint: 'headroom runs lists them',
    });
  }
  return run;
}

/** Mounts /runs routes on the API. */
export function mountRuns(api: Hono, deps: RunsApiDeps): void {
  const withLedger = <T>(use: (ledger: Ledger) => T): T => {
    const ledger = deps.openLedger();
    try {
      return use(ledger);
    } finally {
      ledger.close();
    }
  };

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

  api.get('/runs/:id/stream', (c) => {
    const id = c.req.param('id');
    const first = withLedger((ledger) => runOrThrow(ledger, id));
    return streamSSE(c, async (stream) => {
      let lastMs = -1;
      let lastSampleMs = -1;
      let firstUpdate = true;
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const { run, steps, samples } = withLedger((ledger) => ({
          run: ledger.getRun(first.id),
          steps: ledger.steps(first.id).filter((s) => s.tMs > lastMs),
          samples: ledger.gpuSamples(first.id).filter((s) => s.tMs > lastSampleMs),
        }));
        if (!run) break;
        if (steps.length > 0 || samples.length > 0) {
          lastMs = Math.max(lastMs, ...steps.map((s) => s.tMs));
          lastSampleMs = Math.max(lastSampleMs, ...samples.map((s) => s.tMs));
          // The first update carries everything so far (the page may have loaded a moment earlier);
          // later ones only what is new.
          await stream.writeSSE({
            event: 'update',
            data: JSON.stringify({
              replace: firstUpdate,
              run: { ...summaryOf(run), command: run.command.join(' '), scenario: run.scenario },
              steps: stepPoints(steps, run.startedAtMs),
              samples: samplePoints(samples, run.startedAtMs),
            }),
          });
          firstUpdate = false;
        }
        if (run.status !== 'running') {
          await stream.writeSSE({ event: 'end', data: JSON.stringify({ status: run.status }) });
          break;
        }
        await stream.sleep(deps.pollMs ?? STREAM_POLL_MS);
      }
    });
  });
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timelineFromSteps } from '../core/diagnose/index.js';
import { type ProbeEvent, parseProbeLine } from '../core/probe-log.js';
import { perRankStepPeaks } from '../core/ranks.js';
import { MIB } from '../core/units.js';
import { Ledger, type ProbeBatch } from '../io/ledger.js';
import { readRunSeries, windowOf } from './run-series.js';
import { thinRankSteps } from './runs-api.js';

const ev = (line: Record<string, unknown>): ProbeEvent => {
  const parsed = parseProbeLine(JSON.stringify({ v: 1, worldSize: 2, ...line }));
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.event;
};
const dev = (index: number, peakMiB: number, reservedMiB: number) => ({
  index,
  allocatedBytes: 10 * MIB,
  reservedBytes: reservedMiB * MIB,
  peakAllocatedBytes: peakMiB * MIB,
  peakReservedBytes: reservedMiB * MIB,
  inactiveSplitBytes: 3 * MIB,
  numAllocRetries: 1,
  numOoms: 0,
});

/** Two ranks, two devices on rank 1, an eval step with the train step's number, rank 1 a step late. */
function twoRanks(): { ledger: Ledger; id: number } {
  const ledger = Ledger.open(mkdtempSync(join(tmpdir(), 'headroom-home-')));
  const run = ledger.createRun({
    name: 'two-ranks',
    command: ['torchrun', 'train.py'],
    cwd: '/work',
    host: 'node-a',
    scenario: null,
    estimate: null,
    env: {},
    startedAtMs: 1_000,
    monitorPid: 1,
  });
  const step = (rank: number, t: number, n: number, phase: string, devices: object[]) =>
    ev({
      rank,
      localRank: rank,
      pid: 100 + rank,
      event: 'step',
      t,
      step: n,
      phase,
      loss: 2 - n / 10,
      devices,
    });
  const rank0 = [
    step(0, 2, 1, 'train', [dev(0, 1000, 1100)]),
    step(0, 3, 2, 'train', [dev(0, 1200, 1300)]),
    step(0, 4, 2, 'eval', [dev(0, 1500, 1600)]),
    step(0, 5, 3, 'train', [dev(0, 1100, 1300)]),
  ];
  const rank1 = [
    step(1, 2.5, 1, 'train', [dev(0, 900, 1000), dev(1, 950, 990)]),
    step(1, 3.5, 2, 'train', [dev(0, 2950, 3000), dev(1, 100, 200)]),
    step(1, 5.5, 3, 'train', [dev(0, 800, 900)]),
  ];
  const batch = (path: string, events: readonly ProbeEvent[]): ProbeBatch => ({
    path,
    endOffset: events.length,
    lines: events.map((event, i) => ({ offset: i, event })),
  });
  ledger.ingestProbe(run.id, [batch('/p.rank0.jsonl', rank0), batch('/p.rank1.jsonl', rank1)]);
  return { ledger, id: run.id };
}

describe("a run's series read as columns", () => {
  it('gives the same points as the ledger reads one at a time, and the timeline and per-rank peaks of the records', () => {
    const { ledger, id } = twoRanks();
    const run = ledger.getRun(id)!;
    const series = readRunSeries(ledger, run);
    const records = ledger.steps(id);
    // The other reader of the same rule (report and RunDetail): one point per step, its highest device.
    const points = [...ledger.rows.stepPoints(id, run.startedAtMs).points];
    expect(points.length).toBe(4);
    expect(series.steps).toEqual({
      step: points.map((p) => p.step),
      t: points.map((p) => p.t),
      phase: points.map((p) => p.phase),
      loss: points.map((p) => p.loss),
      allocatedBytes: points.map((p) => p.peakAllocatedBytes ?? p.allocatedBytes),
      reservedBytes: points.map((p) => p.peakReservedBytes ?? p.reservedBytes),
    });
    // Step 2's highest device is rank 1's first: 2950 MiB, at rank 1's time.
    expect(series.steps.allocatedBytes[1]).toBe(2950 * MIB);
    expect(series.timeline()).toEqual(timelineFromSteps(records).steps);
    expect(series.rankSteps()).toEqual(perRankStepPeaks(records));
    expect(series.after.steps).toBeGreaterThan(0);
    // Nothing new after the last row read.
    const fresh = readRunSeries(ledger, run, series.after);
    expect(fresh.steps.step).toEqual([]);
    expect(fresh.after).toEqual(series.after);
  });

  it('cuts a window by time, both ends in', () => {
    const { ledger, id } = twoRanks();
    const series = readRunSeries(ledger, ledger.getRun(id)!);
    const t = series.steps.t;
    const w = windowOf(series, t[1]!, t[2]!);
    expect(w.steps.step).toEqual([series.steps.step[1], series.steps.step[2]]);
    expect(w.recorded).toEqual({ steps: 2, samples: 0 });
    expect(windowOf(series, 1000, 2000).steps.step).toEqual([]);
  });
});

describe('per-rank peaks for the page', () => {
  it('thins a long run to a few thousand steps, each rank’s spike kept', () => {
    const steps = Array.from({ length: 10_000 }, (_, i) => ({
      step: i + 1,
      phase: 'train',
      allocatedBytes: [i === 4_321 ? 9 * MIB : MIB, i === 777 ? 7 * MIB : 2 * MIB],
      reservedBytes: [MIB, MIB],
    }));
    const thin = thinRankSteps({ ranks: [0, 1], steps });
    expect(thin.ranks).toEqual([0, 1]);
    expect(thin.steps.length).toBeLessThanOrEqual(4000);
    expect(thin.steps.find((s) => s.allocatedBytes[0] === 9 * MIB)?.step).toBe(4_322);
    expect(thin.steps.find((s) => s.allocatedBytes[1] === 7 * MIB)?.step).toBe(778);
  });
});

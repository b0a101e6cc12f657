import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ProbeEvent, parseProbeLine } from '../core/probe-log.js';
import { MIB } from '../core/units.js';
import { Ledger, type NewRun, type ProbeBatch } from './ledger.js';

const NEW_RUN: NewRun = {
  name: 'two-nodes',
  command: ['torchrun', 'train.py'],
  cwd: '/work',
  host: 'node-a',
  scenario: null,
  estimate: null,
  env: {},
  startedAtMs: 0,
  monitorPid: 1,
};

const ev = (line: Record<string, unknown>): ProbeEvent => {
  const parsed = parseProbeLine(JSON.stringify({ v: 1, localRank: 0, worldSize: 4, ...line }));
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.event;
};
const dev = (index: number, allocatedMiB: number, reservedMiB: number) => ({
  index,
  allocatedBytes: 10 * MIB,
  reservedBytes: reservedMiB * MIB,
  peakAllocatedBytes: allocatedMiB * MIB,
  peakReservedBytes: reservedMiB * MIB,
  inactiveSplitBytes: 0,
  numAllocRetries: 0,
  numOoms: 0,
});
const batch = (path: string, events: readonly ProbeEvent[], from = 0): ProbeBatch => ({
  path,
  endOffset: from + events.length,
  lines: events.map((event, i) => ({ offset: from + i, event })),
});

/** One rank's file: start, device, then steps with the given allocated/reserved peaks (MiB). */
function rankFile(rank: number, host: string, pid: number, peaks: readonly [number, number][]): ProbeEvent[] {
  const base = { rank, localRank: rank % 2, pid };
  return [
    ev({ ...base, event: 'start', t: 1, host, cudaVisibleDevices: null }),
    ev({
      ...base,
      event: 'device',
      t: 1,
      index: rank % 2,
      name: 'H200',
      uuid: `0000000${rank}-aaaa-bbbb-cccc-dddddddddddd`,
    }),
    ...peaks.map(([a, r], i) =>
      ev({ ...base, event: 'step', t: 2 + i, step: i + 1, phase: 'train', devices: [dev(rank % 2, a, r)] }),
    ),
  ];
}

let ledger: Ledger;
beforeEach(() => {
  ledger = Ledger.open(mkdtempSync(join(tmpdir(), 'headroom-ranks-')));
});
afterEach(() => ledger.close());

describe('rank rows', () => {
  it('four ranks on two hosts are one run: each rank its own peaks, the run the largest rank’s', () => {
    const { id } = ledger.createRun(NEW_RUN);
    ledger.ingestProbe(id, [
      batch(
        '/shared/probe.rank0.jsonl',
        rankFile(0, 'node-a', 100, [
          [1000, 1100],
          [1200, 1300],
        ]),
      ),
      batch(
        '/shared/probe.rank1.jsonl',
        rankFile(1, 'node-a', 101, [
          [900, 1000],
          [950, 1000],
        ]),
      ),
    ]);
    // The second node's files, read later (by another watch into the same ledger).
    ledger.ingestProbe(id, [
      batch(
        '/shared/probe.rank2.jsonl',
        rankFile(2, 'node-b', 100, [
          [800, 900],
          [2500, 2600],
        ]),
      ),
      batch('/shared/probe.rank3.jsonl', rankFile(3, 'node-b', 101, [[700, 800]])),
    ]);
    const run = ledger.getRun(id)!;
    expect(
      run.ranks.map((r) => [
        r.rank,
        r.localRank,
        r.host,
        r.pid,
        r.gpu,
        r.peakAllocatedBytes! / MIB,
        r.peakReservedBytes! / MIB,
        r.steps,
        r.lastStep,
      ]),
    ).toEqual([
      [0, 0, 'node-a', 100, 0, 1200, 1300, 2, 2],
      [1, 1, 'node-a', 101, 1, 950, 1000, 2, 2],
      [2, 0, 'node-b', 100, 0, 2500, 2600, 2, 2],
      [3, 1, 'node-b', 101, 1, 700, 800, 1, 1],
    ]);
    expect(run.ranks[2]).toMatchObject({
      worldSize: 4,
      gpuUuid: 'GPU-00000002-aaaa-bbbb-cccc-dddddddddddd',
      peakAllocatedStep: 2,
      peakAllocatedPhase: 'train',
      peakDeviceBytes: null,
    });
    expect(run.peakAllocated!.bytes).toBe(2500 * MIB);
    expect(run.peakRank).toBe(2);
    expect(ledger.listRuns()[0]!.ranks).toEqual(run.ranks);
  });

  it('a resumed reader (a new connection, past the start line) keeps adding to the same rank row', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const lines = rankFile(1, 'node-b', 77, [
      [100, 120],
      [300, 320],
      [200, 220],
    ]);
    ledger.ingestProbe(id, [batch('/p.rank1.jsonl', lines.slice(0, 3))]);
    const home = ledger.home;
    ledger.close();
    ledger = Ledger.open(home);
    ledger.ingestProbe(id, [batch('/p.rank1.jsonl', lines.slice(3), 3)]);
    const ranks = ledger.ranks(id);
    expect(ranks).toHaveLength(1);
    expect(ranks[0]).toMatchObject({
      rank: 1,
      host: 'node-b',
      steps: 3,
      lastStep: 3,
      peakAllocatedBytes: 300 * MIB,
      peakAllocatedStep: 2,
    });
  });

  it('an eval phase’s peak is the eval’s: the phase event closes the interval of the phase it leaves', () => {
    const { id } = ledger.createRun(NEW_RUN);
    const base = { rank: 0, pid: 5 };
    ledger.ingestProbe(id, [
      batch('/p.jsonl', [
        ev({ ...base, event: 'start', t: 1, host: 'h' }),
        ev({ ...base, event: 'step', t: 2, step: 1, phase: 'train', devices: [dev(0, 400, 500)] }),
        ev({
          ...base,
          event: 'phase',
          t: 3,
          phase: 'eval',
          previous: 'train',
          step: 1,
          devices: [dev(0, 100, 500)],
        }),
        ev({
          ...base,
          event: 'phase',
          t: 4,
          phase: 'train',
          previous: 'eval',
          step: 1,
          devices: [dev(0, 900, 1000)],
        }),
      ]),
    ]);
    expect(ledger.ranks(id)[0]).toMatchObject({
      peakAllocatedBytes: 900 * MIB,
      peakAllocatedStep: 1,
      peakAllocatedPhase: 'eval',
      peakReservedBytes: 1000 * MIB,
      steps: 1,
    });
  });

  it('nvidia-smi per process: the run’s processes on the rank’s card, else the rank’s own pid; only on its host', () => {
    const { id } = ledger.createRun(NEW_RUN);
    ledger.ingestProbe(id, [
      batch('/p.rank0.jsonl', rankFile(0, 'node-a', 100, [[1000, 1100]])),
      batch('/p.rank1.jsonl', rankFile(1, 'node-a', 101, [[1000, 1100]])),
      batch('/p.rank2.jsonl', rankFile(2, 'node-b', 100, [[1000, 1100]])),
    ]);
    const card0 = 'GPU-00000000-aaaa-bbbb-cccc-dddddddddddd';
    ledger.addProcessSamples(
      id,
      10,
      [
        // Rank 1's process also holds a CUDA context on rank 0's card.
        { gpu: 0, gpuUuid: card0, pid: 100, name: 'python', usedBytes: 1600 * MIB, ours: true },
        { gpu: 0, gpuUuid: card0, pid: 101, name: 'python', usedBytes: 500 * MIB, ours: true },
        // Rank 1's own card is not the UUID its probe named (a stand-in): its pid counts.
        { gpu: 1, gpuUuid: 'GPU-other', pid: 101, name: 'python', usedBytes: 1600 * MIB, ours: true },
        { gpu: 0, gpuUuid: card0, pid: 999, name: 'other', usedBytes: 9000 * MIB, ours: false },
      ],
      'node-a',
    );
    const ranks = ledger.ranks(id);
    expect(ranks.map((r) => [r.rank, r.peakDeviceBytes === null ? null : r.peakDeviceBytes / MIB])).toEqual([
      [0, 2100],
      [1, 2100],
      [2, null],
    ]);
  });

  it('a schema-1 ledger gets its ranks from its steps and start events when it is opened', () => {
    const home = mkdtempSync(join(tmpdir(), 'headroom-ranks-v1-'));
    const fresh = Ledger.open(home);
    const { id } = fresh.createRun(NEW_RUN);
    fresh.ingestProbe(id, [
      batch(
        '/p.rank0.jsonl',
        rankFile(0, 'node-a', 100, [
          [1000, 1100],
          [1500, 1600],
        ]),
      ),
      batch('/p.rank1.jsonl', rankFile(1, 'node-b', 101, [[900, 1000]])),
    ]);
    fresh.close();
    // Back to what schema 1 had: none of what schema 2 added.
    const db = new Database(join(home, 'ledger.db'));
    db.exec('DROP TABLE run_ranks; DROP TABLE snapshots; ALTER TABLE runs DROP COLUMN versions;');
    db.pragma('user_version = 1');
    db.close();
    const reopened = Ledger.open(home);
    try {
      expect(
        reopened
          .ranks(id)
          .map((r) => [
            r.rank,
            r.host,
            r.peakAllocatedBytes! / MIB,
            r.peakReservedBytes! / MIB,
            r.steps,
            r.lastStep,
          ]),
      ).toEqual([
        [0, 'node-a', 1500, 1600, 2, 2],
        [1, 'node-b', 900, 1000, 1, 1],
      ]);
      expect(reopened.getRun(id)!.peakRank).toBe(0);
    } finally {
      reopened.close();
    }
  });
});

describe('the run page’s ranks (runDetail)', () => {
  it('gives each step’s allocated peak per rank, and the run’s peak rank', async () => {
    const { runDetail } = await import('../server/runs-api.js');
    const { id } = ledger.createRun(NEW_RUN);
    ledger.ingestProbe(id, [
      batch(
        '/p.rank0.jsonl',
        rankFile(0, 'node-a', 100, [
          [1000, 1100],
          [1200, 1300],
        ]),
      ),
      batch(
        '/p.rank1.jsonl',
        rankFile(1, 'node-a', 101, [
          [900, 1000],
          [2950, 3000],
        ]),
      ),
    ]);
    const detail = runDetail(ledger, ledger.getRun(id)!, { diagnoseRun: () => [] });
    expect(detail.peakRank).toBe(1);
    expect(detail.ranks.map((r) => r.rank)).toEqual([0, 1]);
    expect(detail.rankSteps).toEqual({
      ranks: [0, 1],
      steps: [
        {
          step: 1,
          phase: 'train',
          allocatedBytes: [1000 * MIB, 900 * MIB],
          reservedBytes: [1100 * MIB, 1000 * MIB],
        },
        {
          step: 2,
          phase: 'train',
          allocatedBytes: [1200 * MIB, 2950 * MIB],
          reservedBytes: [1300 * MIB, 3000 * MIB],
        },
      ],
    });
  });
});

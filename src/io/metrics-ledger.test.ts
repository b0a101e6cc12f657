import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIB, recordRun } from '../../test/fleet-fixture.js';
import { LEDGER_SCHEMA_VERSION, Ledger } from './ledger.js';
import { LedgerMetricsSource, ledgerMetricsSource } from './metrics-ledger.js';

/** torch prints a card's UUID as bare hex (torch/csrc/cuda/Module.cpp); nvidia-smi as GPU-…. */
const bare = (i: number) => `a0a0a0a0-0000-4000-8000-00000000000${i}`;
const nvml = (i: number) => `GPU-${bare(i)}`;
/** nvidia-smi lists the cards in another order than CUDA's ordinals: index 7 − ordinal. */
const LISTED = Array.from({ length: 8 }, (_, i) => ({
  index: 7 - i,
  name: 'NVIDIA H100 80GB HBM3',
  uuid: nvml(i),
}));

let home: string;
let ledger: Ledger;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'headroom-metrics-'));
  ledger = Ledger.open(home);
});
afterEach(() => ledger.close());

const eightRanks = (extra: { evalRank?: number } = {}) =>
  Array.from({ length: 8 }, (_, rank) => ({
    rank,
    uuid: bare(rank),
    allocatedMiB: 30_000 + rank,
    reservedMiB: 32_000 + rank * 20,
    steps: 5,
    ...(extra.evalRank === rank ? { evalPeakMiB: 31_500 } : {}),
  }));

describe('LedgerMetricsSource', () => {
  it("reads each rank's card, peaks and last step from an 8-rank run", () => {
    const id = recordRun(ledger, {
      name: 'sft-8b',
      host: 'node-a',
      ranks: eightRanks({ evalRank: 2 }),
      env: { gpus: LISTED, cudaVisibleDevices: null },
      estimate: { allocatedBytes: 29_000 * MIB, reservedBytes: 31_000 * MIB, deviceBytes: 32_000 * MIB },
    });
    const [run] = new LedgerMetricsSource({ home }).runs();
    expect(run).toMatchObject({
      id,
      name: 'sft-8b',
      running: true,
      host: 'node-a',
      upper: null,
      findings: [],
    });
    expect(run!.estimate).toEqual({
      allocatedBytes: 29_000 * MIB,
      reservedBytes: 31_000 * MIB,
      deviceBytes: 32_000 * MIB,
    });
    expect(run!.ranks).toHaveLength(8);
    expect(run!.ranks[3]).toEqual({
      rank: 3,
      localRank: 3,
      host: 'node-a',
      gpu: 4, // the UUID's index in nvidia-smi's list, not the CUDA ordinal 3
      uuid: nvml(3),
      peakAllocatedBytes: 30_003 * MIB,
      peakReservedBytes: 32_060 * MIB,
      peakDeviceBytes: null,
      lastStep: 5,
    });
    // Rank 2's eval phase passed its steps' peak.
    expect(run!.ranks[2]!.peakAllocatedBytes).toBe(31_500 * MIB);
  });

  it("takes nvidia-smi's per-process figure of the rank's pid on its card as the device level", () => {
    const id = recordRun(ledger, {
      name: 'r',
      host: 'node-a',
      ranks: eightRanks().slice(0, 2),
      env: { gpus: LISTED },
    });
    const pid = (rank: number) => 10_000 + id * 16 + rank;
    ledger.addProcessSamples(id, 1, [
      { gpu: 7, gpuUuid: nvml(0), pid: pid(0), name: 'python', usedBytes: 33_000 * MIB, ours: true },
      { gpu: 6, gpuUuid: nvml(1), pid: pid(1), name: 'python', usedBytes: 34_000 * MIB, ours: true },
      // Another process on rank 0's card, not the run's: not counted.
      { gpu: 7, gpuUuid: nvml(0), pid: 999, name: 'python', usedBytes: 9_000 * MIB, ours: false },
    ]);
    ledger.addProcessSamples(id, 2, [
      { gpu: 7, gpuUuid: nvml(0), pid: pid(0), name: 'python', usedBytes: 33_500 * MIB, ours: true },
    ]);
    const ranks = new LedgerMetricsSource({ home }).runs()[0]!.ranks;
    expect(ranks.map((r) => [r.gpu, r.peakDeviceBytes])).toEqual([
      [7, 33_500 * MIB],
      [6, 34_000 * MIB],
    ]);
  });

  it('maps a CUDA ordinal through CUDA_VISIBLE_DEVICES when the probe gave no UUID', () => {
    recordRun(ledger, {
      name: 'r',
      host: 'node-a',
      ranks: [0, 1].map((rank) => ({ rank, uuid: null, allocatedMiB: 100, reservedMiB: 120, steps: 1 })),
      env: { gpus: LISTED, cudaVisibleDevices: '5,2' },
    });
    const ranks = new LedgerMetricsSource({ home }).runs()[0]!.ranks;
    expect(ranks.map((r) => [r.gpu, r.uuid])).toEqual([
      [5, nvml(2)],
      [2, nvml(5)],
    ]);
  });

  it('reads the estimate’s upper bound where the estimate has one', () => {
    const figure = { allocatedBytes: 1, reservedBytes: 2, deviceBytes: 3 };
    recordRun(ledger, {
      name: 'r',
      host: 'h',
      ranks: [],
      estimate: { ...figure, upper: { allocatedBytes: 10, reservedBytes: 20, deviceBytes: 30 } },
    });
    expect(new LedgerMetricsSource({ home }).runs()[0]!.upper).toEqual({
      allocatedBytes: 10,
      reservedBytes: 20,
      deviceBytes: 30,
    });
  });

  it("keeps a finished run's reading and reads a running one again", () => {
    const done = recordRun(ledger, {
      name: 'done',
      host: 'h',
      ranks: eightRanks().slice(0, 1),
      status: 'ok',
    });
    const live = recordRun(ledger, { name: 'live', host: 'h', ranks: eightRanks().slice(0, 1) });
    const source = new LedgerMetricsSource({ home });
    const first = source.runs();
    expect(first.map((r) => r.ranks[0]!.peakReservedBytes)).toEqual([32_000 * MIB, 32_000 * MIB]);
    // A change under both runs that no column of `runs` shows.
    const db = new Database(ledger.path);
    db.prepare('UPDATE run_ranks SET peak_reserved_bytes = ? WHERE run_id IN (?, ?)').run(
      40_000 * MIB,
      done,
      live,
    );
    db.close();
    expect(source.runs().map((r) => r.ranks[0]!.peakReservedBytes)).toEqual([32_000 * MIB, 40_000 * MIB]);
    // A new source reads it all.
    expect(new LedgerMetricsSource({ home }).runs()[0]!.ranks[0]!.peakReservedBytes).toBe(40_000 * MIB);
  });

  it('diagnoses at most diagnosesPerScrape runs per scrape, and a finished run once', () => {
    for (const name of ['a', 'b', 'c']) recordRun(ledger, { name, host: 'h', ranks: [], status: 'ok' });
    const asked: number[] = [];
    const source = new LedgerMetricsSource({
      home,
      diagnosesPerScrape: 2,
      findings: (id) => {
        asked.push(id);
        return [
          { code: 'leak', severity: 'warn' },
          { code: 'leak', severity: 'warn' },
          { code: 'fragmentation', severity: 'info' },
        ];
      },
    });
    const first = source.runs();
    expect(asked).toEqual([1, 2]);
    expect(first.map((r) => r.findings.length)).toEqual([2, 2, 0]);
    expect(first[0]!.findings).toEqual([
      { code: 'leak', severity: 'warn', count: 2 },
      { code: 'fragmentation', severity: 'info', count: 1 },
    ]);
    source.runs();
    expect(asked).toEqual([1, 2, 3]);
    source.runs();
    expect(asked).toEqual([1, 2, 3]);
  });

  it('reads one run when given its id (headroom run --metrics-port)', () => {
    recordRun(ledger, { name: 'other', host: 'h', ranks: [] });
    const id = recordRun(ledger, { name: 'mine', host: 'h', ranks: [] });
    expect(new LedgerMetricsSource({ home, runId: id }).runs().map((r) => r.name)).toEqual(['mine']);
  });

  it("falls back to the run's own peaks as rank 0 when the probe recorded nothing", () => {
    const id = recordRun(ledger, { name: 'smi-only', host: 'h', ranks: [], env: { gpus: LISTED } });
    ledger.addProcessSamples(id, 1, [
      { gpu: 7, gpuUuid: nvml(0), pid: 5, name: 'python', usedBytes: 1_000 * MIB, ours: true },
    ]);
    ledger.addProcessSamples(id, 2, [
      { gpu: 7, gpuUuid: nvml(0), pid: 5, name: 'python', usedBytes: 1_200 * MIB, ours: true },
    ]);
    expect(new LedgerMetricsSource({ home }).runs()[0]!.ranks).toEqual([
      {
        rank: 0,
        localRank: 0,
        host: 'h',
        gpu: 7,
        uuid: nvml(0),
        peakAllocatedBytes: null,
        peakReservedBytes: null,
        peakDeviceBytes: 1_200 * MIB,
        lastStep: null,
      },
    ]);
  });

  it('serves no runs, and creates nothing, where there is no ledger yet', () => {
    const empty = mkdtempSync(join(tmpdir(), 'headroom-metrics-empty-'));
    expect(ledgerMetricsSource(empty).runs()).toEqual([]);
    expect(existsSync(join(empty, 'ledger.db'))).toBe(false);
  });

  it('refuses a ledger of another schema with a clear error', () => {
    const db = new Database(ledger.path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => new LedgerMetricsSource({ home }).runs()).toThrow(
      `${join(home, 'ledger.db')} is a ledger of schema 99; the exposition reads schema ${LEDGER_SCHEMA_VERSION}`,
    );
  });

  it("counts a recorded run's diagnosis as its findings", () => {
    // Rank 0 holds twice what the other three do: the diagnoser's rank-imbalance.
    recordRun(ledger, {
      name: 'imbalanced',
      host: 'h',
      status: 'ok',
      ranks: [0, 1, 2, 3].map((rank) => ({
        rank,
        allocatedMiB: rank === 0 ? 60_000 : 30_000,
        reservedMiB: rank === 0 ? 62_000 : 32_000,
        steps: 3,
      })),
    });
    expect(ledgerMetricsSource(home).runs()[0]!.findings).toContainEqual({
      code: 'rank-imbalance',
      severity: 'warn',
      count: 1,
    });
  });
});

/**
 * The rank rules on synthetic four-rank runs: each reason — uneven shards, an evaluation on rank 0
 * only, a data split by length, other ranks' CUDA contexts on rank 0's card — is named for the right
 * rank when its evidence is there, and not otherwise.
 */
import { describe, expect, it } from 'vitest';
import { findingWords } from '../../words/diagnosis.js';
import type { RankRecord } from '../run-record.js';
import { GIB, MIB } from '../units.js';
import { diagnose } from './diagnose.js';
import type { TimelineStep } from './timeline.js';

const STEPS = 20;

/** Rank `rank`'s train steps, peak allocated a function of the step; reserved 1 GiB above it. */
function steps(rank: number, peak: (step: number) => number): TimelineStep[] {
  return Array.from({ length: STEPS }, (_, k) => {
    const step = k + 1;
    const p = peak(step);
    return {
      step,
      phase: 'train',
      allocatedBytes: 10 * GIB,
      reservedBytes: p + GIB,
      peakAllocatedBytes: p,
      peakReservedBytes: p + GIB,
      inactiveSplitBytes: 0,
      numAllocRetries: 0,
      rank,
      device: rank,
    };
  });
}

function rankRecord(rank: number, over: Partial<RankRecord> = {}): RankRecord {
  return {
    rank,
    localRank: rank,
    worldSize: 4,
    host: 'node-a',
    pid: 100 + rank,
    gpu: rank,
    gpuUuid: null,
    cudaVisibleDevices: null,
    peakAllocatedBytes: null,
    peakAllocatedStep: null,
    peakAllocatedPhase: 'train',
    peakReservedBytes: null,
    peakDeviceBytes: null,
    steps: STEPS,
    lastStep: STEPS,
    ...over,
  };
}

/** The ranks as the ledger would record them from these steps. */
function ranksOf(all: readonly TimelineStep[], over: Record<number, Partial<RankRecord>> = {}): RankRecord[] {
  return [0, 1, 2, 3].map((rank) => {
    const mine = all.filter((s) => s.rank === rank);
    const top = mine.reduce((a, b) => (b.peakAllocatedBytes > a.peakAllocatedBytes ? b : a));
    return rankRecord(rank, {
      peakAllocatedBytes: top.peakAllocatedBytes,
      peakAllocatedStep: top.step,
      peakReservedBytes: Math.max(...mine.map((s) => s.peakReservedBytes)),
      ...over[rank],
    });
  });
}

const imbalance = (timeline: readonly TimelineStep[], ranks: readonly RankRecord[]) => {
  const found = diagnose({ timeline: { steps: timeline, capacityBytes: 80 * GIB }, ranks }).findings.filter(
    (f) => f.code === 'rank-imbalance',
  );
  return found.length === 0 ? null : found[0]!;
};

describe('rank imbalance reasons', () => {
  it('uneven shards: rank 1 allocates 4 GiB more at every step, from the first', () => {
    const timeline = [0, 1, 2, 3].flatMap((rank) =>
      steps(rank, (step) => 30 * GIB + (rank === 1 ? 4 * GIB : 0) + (step % 3) * 100 * MIB),
    );
    const f = imbalance(timeline, ranksOf(timeline))!;
    expect(f.params).toEqual({ rank: 1, reason: 'uneven-shards', aboveBytes: 4 * GIB, contexts: null });
    const words = findingWords(f, 'en');
    expect(words.title).toBe(
      'Rank 1 holds 4.00 GiB more than the others at every step, from the first: uneven shards',
    );
    expect(words.evidence.at(-1)!.value).toBe('rank 1: 34.10 GiB at step 1, the others 30.10 GiB (median)');
    expect(findingWords(f, 'zh').title).toBe('rank 1 从第一步起每一步都比其他 rank 多 4.00 GiB：分片不均');
  });

  it('an evaluation on rank 0 only: rank 0’s peak falls in its eval phase', () => {
    const timeline = [0, 1, 2, 3].flatMap((rank) => steps(rank, () => 30 * GIB));
    const ranks = ranksOf(timeline, {
      0: {
        peakAllocatedBytes: 36 * GIB,
        peakReservedBytes: 37 * GIB,
        peakAllocatedPhase: 'eval',
        peakAllocatedStep: 10,
      },
    });
    const f = imbalance(timeline, ranks)!;
    expect(f.params).toEqual({ rank: 0, reason: 'eval-on-rank', aboveBytes: 6 * GIB, contexts: null });
    expect(findingWords(f, 'en').evidence.at(-1)!.value).toBe(
      'rank 0: 36.00 GiB in "eval" after step 10, where the other ranks’ peaks are not',
    );
  });

  it('a data split by length: every rank’s peak moves, rank 2’s not with the others’', () => {
    // Ranks 0, 1 and 3 share one pattern of batch lengths; rank 2 gets its own, with the longest batch.
    const shared = (step: number) => ((step * 7) % 5) * GIB;
    const own = (step: number) => ((step * 3) % 4) * 3 * GIB;
    const timeline = [0, 1, 2, 3].flatMap((rank) =>
      steps(rank, (step) => 30 * GIB + (rank === 2 ? own(step) : shared(step))),
    );
    const f = imbalance(timeline, ranksOf(timeline))!;
    expect(f.params).toMatchObject({ rank: 2, reason: 'length-split', aboveBytes: 5 * GIB });
    expect(findingWords(f, 'en').title).toContain(
      'Rank 2 holds 5.00 GiB more than the others: its batches are longer',
    );
  });

  it('the same per-step swings on every rank are no length split (and no imbalance)', () => {
    const timeline = [0, 1, 2, 3].flatMap((rank) => steps(rank, (step) => 30 * GIB + ((step * 7) % 5) * GIB));
    expect(imbalance(timeline, ranksOf(timeline))).toBeNull();
  });

  it('other ranks’ CUDA contexts on rank 0’s card: nvidia-smi minus reserved is 3 contexts higher there', () => {
    const timeline = [0, 1, 2, 3].flatMap((rank) => steps(rank, () => 30 * GIB));
    const context = 500 * MIB; // the estimator's context when the card is not known
    const ranks = ranksOf(timeline).map((r) => ({
      ...r,
      peakDeviceBytes: r.peakReservedBytes! + context + (r.rank === 0 ? 3 * context : 0),
    }));
    const f = imbalance(timeline, ranks)!;
    expect(f.params).toEqual({ rank: 0, reason: 'extra-contexts', aboveBytes: 3 * context, contexts: 3 });
    expect(findingWords(f, 'en').title).toBe(
      'Rank 0’s card holds 1.46 GiB more outside PyTorch than the others’: about 3 CUDA contexts of other ranks',
    );
    expect(findingWords(f, 'en').action).toMatch(/^Call torch\.cuda\.set_device\(local_rank\) first thing/);
  });

  it('balanced ranks: no finding', () => {
    const timeline = [0, 1, 2, 3].flatMap((rank) => steps(rank, () => 30 * GIB));
    expect(imbalance(timeline, ranksOf(timeline))).toBeNull();
  });
});

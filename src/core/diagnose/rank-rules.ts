/**
 * One rank holding more than the others, and why, from a recorded run's ranks (RankRecord: their peaks
 * per level, the phase of each allocated peak) and its step timeline per rank. The reasons, each
 * named only when its evidence is there, checked in this order:
 *
 * - uneven shards: the rank allocates more at every training step, from the first one (what a
 *   rank-dependent split of weights, gradients or optimizer states looks like);
 * - an evaluation on that rank only: its allocated peak falls in an eval phase the other ranks' do not;
 * - a data split by length: each rank's per-step peak moves, and the rank's does not move with the
 *   others' (Pearson r below LENGTH_SPLIT_MAX_R over the steps they share) — its batches differ;
 * - the CUDA contexts of other ranks on its card: nvidia-smi's figure minus reserved is higher on
 *   that rank's card by about n contexts (the estimator's context size, src/core/estimate/runtime.ts),
 *   what ranks that touch cuda:0 before torch.cuda.set_device(local_rank) leave there.
 *
 * Thresholds are ours, stated below.
 */
import { cudaContextBytes } from '../estimate/runtime.js';
import type { RankRecord } from '../run-record.js';
import { GIB } from '../units.js';
import type { Evidence } from './evidence.js';
import type { Finding, RankImbalanceReason } from './finding.js';
import { ev, type RuleInput, say, value } from './rule-kit.js';
import { timelinePhase } from './run-timeline.js';
import { seriesOf, type TimelineStep } from './timeline.js';

/** A rank whose peak exceeds the others' median by this much (and IMBALANCE_SHARE of it) is imbalanced. */
export const IMBALANCE_MIN_BYTES = GIB;
export const IMBALANCE_SHARE = 0.1;
/** Uneven shards: the rank is above the others' median at every shared train step by this share of its excess. */
export const SHARD_SHARE = 0.5;
/** Steps the ranks must share before the length-split reading is made. */
export const LENGTH_SPLIT_MIN_STEPS = 5;
/** Below this correlation with the other ranks' mean, a rank's per-step peaks do not move with theirs. */
export const LENGTH_SPLIT_MAX_R = 0.5;
/** A rank's per-step peaks must span this share of its median to count as varying. */
export const LENGTH_SPLIT_MIN_SPREAD = 0.05;
/** Extra contexts are counted from half a context up (rounded to whole contexts). */
export const CONTEXT_MIN_SHARE = 0.5;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

function pearson(a: readonly number[], b: readonly number[]): number | null {
  const n = a.length;
  if (n < 2) return null;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return da === 0 || db === 0 ? null : num / Math.sqrt(da * db);
}

/** Each rank's train steps' peak allocated (highest device), by step. */
function trainPeaks(series: readonly TimelineStep[][]): Map<number, Map<number, number>> {
  const out = new Map<number, Map<number, number>>();
  for (const list of series)
    for (const s of list) {
      if (s.phase !== 'train') continue;
      const byStep = out.get(s.rank) ?? new Map<number, number>();
      byStep.set(s.step, Math.max(byStep.get(s.step) ?? 0, s.peakAllocatedBytes));
      out.set(s.rank, byStep);
    }
  return out;
}

/** The steps every rank reported, ascending. */
function sharedSteps(peaks: ReadonlyMap<number, ReadonlyMap<number, number>>): number[] {
  const lists = [...peaks.values()];
  if (lists.length === 0) return [];
  return [...lists[0]!.keys()].filter((step) => lists.every((l) => l.has(step))).sort((a, b) => a - b);
}

interface Reading {
  readonly reason: RankImbalanceReason;
  readonly evidence: readonly Evidence[];
}

function unevenShards(
  rank: number,
  aboveBytes: number,
  peaks: ReadonlyMap<number, ReadonlyMap<number, number>>,
  steps: readonly number[],
): Reading | null {
  if (steps.length === 0 || !peaks.has(rank)) return null;
  const others = [...peaks.keys()].filter((r) => r !== rank);
  if (others.length === 0) return null;
  const excess = steps.map(
    (step) => peaks.get(rank)!.get(step)! - median(others.map((r) => peaks.get(r)!.get(step)!)),
  );
  if (Math.min(...excess) < SHARD_SHARE * aboveBytes) return null;
  const first = steps[0]!;
  return {
    reason: 'uneven-shards',
    evidence: [
      ev(
        'first-step-allocated',
        value('rank-vs-others', {
          rank,
          step: first,
          bytes: peaks.get(rank)!.get(first)!,
          othersBytes: median(others.map((r) => peaks.get(r)!.get(first)!)),
        }),
      ),
    ],
  };
}

function evalOnRank(
  rank: number,
  ranks: readonly RankRecord[],
  series: readonly TimelineStep[][],
): Reading | null {
  const phaseOf = (r: RankRecord) =>
    r.peakAllocatedPhase === null ? null : timelinePhase(r.peakAllocatedPhase);
  const suspect = ranks.find((r) => r.rank === rank);
  const evalSteps = (r: number) => series.some((l) => l.some((s) => s.rank === r && s.phase === 'eval'));
  const othersEval = ranks.some((r) => r.rank !== rank && phaseOf(r) === 'eval');
  if (suspect && phaseOf(suspect) === 'eval' && !othersEval && suspect.peakAllocatedBytes !== null) {
    return {
      reason: 'eval-on-rank',
      evidence: [
        ev(
          'peak-phase',
          value('rank-phase', {
            rank,
            phase: suspect.peakAllocatedPhase!,
            bytes: suspect.peakAllocatedBytes,
            step: suspect.peakAllocatedStep,
          }),
        ),
      ],
    };
  }
  // Without rank rows: eval steps on this rank alone.
  const ranksSeen = new Set(series.flatMap((l) => l.map((s) => s.rank)));
  if (ranks.length === 0 && evalSteps(rank) && [...ranksSeen].every((r) => r === rank || !evalSteps(r))) {
    const top = series
      .flat()
      .filter((s) => s.rank === rank && s.phase === 'eval')
      .reduce((a, b) => (b.peakAllocatedBytes > a.peakAllocatedBytes ? b : a));
    return {
      reason: 'eval-on-rank',
      evidence: [
        ev(
          'peak-phase',
          value('rank-phase', { rank, phase: 'eval', bytes: top.peakAllocatedBytes, step: top.step }),
        ),
      ],
    };
  }
  return null;
}

function lengthSplit(
  rank: number,
  peaks: ReadonlyMap<number, ReadonlyMap<number, number>>,
  steps: readonly number[],
): Reading | null {
  if (steps.length < LENGTH_SPLIT_MIN_STEPS || !peaks.has(rank)) return null;
  const others = [...peaks.keys()].filter((r) => r !== rank);
  if (others.length === 0) return null;
  const mine = steps.map((s) => peaks.get(rank)!.get(s)!);
  const theirs = steps.map((s) => others.reduce((sum, r) => sum + peaks.get(r)!.get(s)!, 0) / others.length);
  const varies = (xs: readonly number[]) =>
    Math.max(...xs) - Math.min(...xs) >= LENGTH_SPLIT_MIN_SPREAD * median(xs);
  if (!varies(mine) || !others.every((r) => varies(steps.map((s) => peaks.get(r)!.get(s)!)))) return null;
  const r = pearson(mine, theirs);
  if (r === null || r >= LENGTH_SPLIT_MAX_R) return null;
  return {
    reason: 'length-split',
    evidence: [
      ev('step-correlation', value('rank-correlation', { rank, r, steps: steps.length })),
      ev(
        'peak-allocated',
        value('bytes-range', { fromBytes: Math.min(...mine), toBytes: Math.max(...mine) }),
      ),
    ],
  };
}

interface Contexts {
  readonly rank: number;
  readonly extraBytes: number;
  readonly contexts: number;
  readonly evidence: readonly Evidence[];
}

/** nvidia-smi minus reserved per rank: the rank whose card holds others' contexts stands out. */
function extraContexts(ranks: readonly RankRecord[], contextBytes: number): Contexts | null {
  const outside = ranks
    .filter((r) => r.peakDeviceBytes !== null && r.peakReservedBytes !== null)
    .map((r) => ({ rank: r.rank, bytes: r.peakDeviceBytes! - r.peakReservedBytes! }));
  if (outside.length < 2) return null;
  const top = outside.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const othersBytes = median(outside.filter((o) => o !== top).map((o) => o.bytes));
  const extraBytes = top.bytes - othersBytes;
  if (extraBytes < CONTEXT_MIN_SHARE * contextBytes) return null;
  return {
    rank: top.rank,
    extraBytes,
    contexts: Math.max(1, Math.round(extraBytes / contextBytes)),
    evidence: [
      ev(
        'outside-torch',
        value('rank-vs-others', { rank: top.rank, step: null, bytes: top.bytes, othersBytes }),
      ),
      ev('cuda-context', value('bytes', { bytes: contextBytes })),
    ],
  };
}

/** The rank-imbalance finding of a recorded run (none when no rank stands out). */
export function rankImbalanceFindings(input: RuleInput): Finding[] {
  const ranks = input.ranks;
  const series = input.timeline ? seriesOf(input.timeline) : [];
  const reserved = new Map<number, number>();
  for (const r of ranks) if (r.peakReservedBytes !== null) reserved.set(r.rank, r.peakReservedBytes);
  if (reserved.size < 2) {
    reserved.clear();
    for (const list of series)
      for (const s of list) reserved.set(s.rank, Math.max(reserved.get(s.rank) ?? 0, s.peakReservedBytes));
  }
  const contexts = extraContexts(ranks, cudaContextBytes(input.gpu));
  let imbalance: { rank: number; aboveBytes: number; evidence: Evidence[] } | null = null;
  if (reserved.size >= 2) {
    const sorted = [...reserved.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const [worstRank, worst] = sorted[0]!;
    const others = median(sorted.slice(1).map(([, v]) => v));
    if (worst - others >= Math.max(IMBALANCE_MIN_BYTES, IMBALANCE_SHARE * others)) {
      imbalance = {
        rank: worstRank,
        aboveBytes: worst - others,
        evidence: sorted.map(([rank, peak]) =>
          ev(
            'rank-peak',
            value('rank-peak', { rank, bytes: peak, aboveBytes: rank === worstRank ? worst - others : null }),
          ),
        ),
      };
    }
  }
  if (imbalance) {
    const peaks = trainPeaks(series);
    const steps = sharedSteps(peaks);
    const reading =
      unevenShards(imbalance.rank, imbalance.aboveBytes, peaks, steps) ??
      evalOnRank(imbalance.rank, ranks, series) ??
      lengthSplit(imbalance.rank, peaks, steps);
    const params = {
      rank: imbalance.rank,
      reason: reading?.reason ?? (contexts?.rank === imbalance.rank ? 'extra-contexts' : null),
      aboveBytes: imbalance.aboveBytes,
      contexts: contexts?.rank === imbalance.rank ? contexts.contexts : null,
    } as const;
    const evidence = [
      ...imbalance.evidence,
      ...(reading?.evidence ?? []),
      ...(contexts?.rank === imbalance.rank ? contexts.evidence : []),
    ];
    return [say('rank-imbalance', 'warn', params, evidence)];
  }
  if (contexts) {
    return [
      say(
        'rank-imbalance',
        'warn',
        {
          rank: contexts.rank,
          reason: 'extra-contexts',
          aboveBytes: contexts.extraBytes,
          contexts: contexts.contexts,
        },
        contexts.evidence,
      ),
    ];
  }
  return [];
}

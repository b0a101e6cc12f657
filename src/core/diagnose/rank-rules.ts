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
import {
  EVAL,
  type Series,
  seriesOf,
  type TimelineColumns,
  TimelineWriter,
  TRAIN,
  timelineColumns,
} from './timeline.js';

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

const median = (xs: ArrayLike<number>): number => {
  const s = Array.from(xs).sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

/** The highest and lowest of a list (Math.max and Math.min over it, without spreading it into arguments). */
function extremes(xs: ArrayLike<number>): { readonly max: number; readonly min: number } {
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < xs.length; i++) {
    max = Math.max(max, xs[i]!);
    min = Math.min(min, xs[i]!);
  }
  return { max, min };
}

function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  const n = a.length;
  if (n < 2) return null;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < n; i++) sa += a[i]!;
  for (let i = 0; i < n; i++) sb += b[i]!;
  const ma = sa / n;
  const mb = sb / n;
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

/**
 * Each rank's train steps' peak allocated (highest device) at the steps every rank reported: the
 * steps ascending, and per rank (in the order the ranks were first seen) its peak at each of them.
 */
interface SharedPeaks {
  readonly steps: Float64Array;
  readonly byRank: ReadonlyMap<number, Float64Array>;
}

/** One rank's train steps, ascending and each once, with its highest peak allocated at each (from 0). */
function rankTrainPeaks(
  c: TimelineColumns,
  rows: readonly number[],
): { steps: Float64Array; peaks: Float64Array } {
  const sorted = rows.some((i, k) => k > 0 && c.step[i]! < c.step[rows[k - 1]!]!)
    ? [...rows].sort((a, b) => c.step[a]! - c.step[b]! || a - b)
    : rows;
  const steps: number[] = [];
  const peaks: number[] = [];
  for (const i of sorted) {
    const step = c.step[i]!;
    const at = steps.length - 1;
    if (at >= 0 && steps[at] === step) peaks[at] = Math.max(peaks[at]!, c.peakAllocatedBytes[i]!);
    else {
      steps.push(step);
      peaks.push(Math.max(0, c.peakAllocatedBytes[i]!));
    }
  }
  return { steps: Float64Array.from(steps), peaks: Float64Array.from(peaks) };
}

function sharedTrainPeaks(c: TimelineColumns, series: readonly Series[]): SharedPeaks {
  const rowsOf = new Map<number, number[]>();
  for (const list of series)
    for (const i of list) {
      if (c.phase[i] !== TRAIN) continue;
      const rows = rowsOf.get(c.rank[i]!) ?? [];
      rows.push(i);
      rowsOf.set(c.rank[i]!, rows);
    }
  const ranks = [...rowsOf.entries()].map(([rank, rows]) => ({ rank, ...rankTrainPeaks(c, rows) }));
  if (ranks.length === 0) return { steps: new Float64Array(0), byRank: new Map() };
  // The first rank's steps that every rank has, each rank's peak at them (a walk along each rank's steps).
  const cursor = ranks.map(() => 0);
  const steps: number[] = [];
  const at: number[][] = ranks.map(() => []);
  for (const step of ranks[0]!.steps) {
    let everyRank = true;
    ranks.forEach((r, k) => {
      while (cursor[k]! < r.steps.length && r.steps[cursor[k]!]! < step) cursor[k]!++;
      if (r.steps[cursor[k]!] !== step) everyRank = false;
    });
    if (!everyRank) continue;
    steps.push(step);
    ranks.forEach((r, k) => {
      at[k]!.push(r.peaks[cursor[k]!]!);
    });
  }
  return {
    steps: Float64Array.from(steps),
    byRank: new Map(ranks.map((r, k) => [r.rank, Float64Array.from(at[k]!)])),
  };
}

interface Reading {
  readonly reason: RankImbalanceReason;
  readonly evidence: readonly Evidence[];
}

function unevenShards(rank: number, aboveBytes: number, shared: SharedPeaks): Reading | null {
  const { steps, byRank } = shared;
  const mine = byRank.get(rank);
  if (steps.length === 0 || !mine) return null;
  const others = [...byRank.keys()].filter((r) => r !== rank).map((r) => byRank.get(r)!);
  if (others.length === 0) return null;
  const othersAt = (k: number) => median(others.map((o) => o[k]!));
  let lowest = Number.POSITIVE_INFINITY;
  for (let k = 0; k < steps.length; k++) lowest = Math.min(lowest, mine[k]! - othersAt(k));
  if (lowest < SHARD_SHARE * aboveBytes) return null;
  return {
    reason: 'uneven-shards',
    evidence: [
      ev(
        'first-step-allocated',
        value('rank-vs-others', { rank, step: steps[0]!, bytes: mine[0]!, othersBytes: othersAt(0) }),
      ),
    ],
  };
}

function evalOnRank(
  rank: number,
  ranks: readonly RankRecord[],
  c: TimelineColumns,
  series: readonly Series[],
): Reading | null {
  const phaseOf = (r: RankRecord) =>
    r.peakAllocatedPhase === null ? null : timelinePhase(r.peakAllocatedPhase);
  const suspect = ranks.find((r) => r.rank === rank);
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
  if (ranks.length > 0) return null;
  // Without rank rows: eval steps on this rank alone.
  const evalRanks = new Set<number>();
  for (let i = 0; i < c.length; i++) if (c.phase[i] === EVAL) evalRanks.add(c.rank[i]!);
  if (!evalRanks.has(rank) || evalRanks.size > 1) return null;
  // The first of its highest eval steps, in series order.
  let top = -1;
  for (const list of series)
    for (const i of list)
      if (
        c.rank[i] === rank &&
        c.phase[i] === EVAL &&
        (top < 0 || c.peakAllocatedBytes[i]! > c.peakAllocatedBytes[top]!)
      )
        top = i;
  return {
    reason: 'eval-on-rank',
    evidence: [
      ev(
        'peak-phase',
        value('rank-phase', { rank, phase: 'eval', bytes: c.peakAllocatedBytes[top]!, step: c.step[top]! }),
      ),
    ],
  };
}

function lengthSplit(rank: number, shared: SharedPeaks): Reading | null {
  const { steps, byRank } = shared;
  const mine = byRank.get(rank);
  if (steps.length < LENGTH_SPLIT_MIN_STEPS || !mine) return null;
  const others = [...byRank.keys()].filter((r) => r !== rank).map((r) => byRank.get(r)!);
  if (others.length === 0) return null;
  const theirs = new Float64Array(steps.length);
  for (let k = 0; k < steps.length; k++)
    theirs[k] = others.reduce((sum, o) => sum + o[k]!, 0) / others.length;
  const varies = (xs: Float64Array) => {
    const { max, min } = extremes(xs);
    return max - min >= LENGTH_SPLIT_MIN_SPREAD * median(xs);
  };
  if (!varies(mine) || !others.every(varies)) return null;
  const r = pearson(mine, theirs);
  if (r === null || r >= LENGTH_SPLIT_MAX_R) return null;
  const { max, min } = extremes(mine);
  return {
    reason: 'length-split',
    evidence: [
      ev('step-correlation', value('rank-correlation', { rank, r, steps: steps.length })),
      ev('peak-allocated', value('bytes-range', { fromBytes: min, toBytes: max })),
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
  const c = input.timeline ? timelineColumns(input.timeline) : null;
  const reserved = new Map<number, number>();
  for (const r of ranks) if (r.peakReservedBytes !== null) reserved.set(r.rank, r.peakReservedBytes);
  if (reserved.size < 2) {
    reserved.clear();
    for (let i = 0; c && i < c.length; i++)
      reserved.set(c.rank[i]!, Math.max(reserved.get(c.rank[i]!) ?? 0, c.peakReservedBytes[i]!));
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
    const columns = c ?? new TimelineWriter(0).done();
    const series = seriesOf(columns);
    const shared = sharedTrainPeaks(columns, series);
    const reading =
      unevenShards(imbalance.rank, imbalance.aboveBytes, shared) ??
      evalOnRank(imbalance.rank, ranks, columns, series) ??
      lengthSplit(imbalance.rank, shared);
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

/**
 * A run's ranks as data: which rank's peak is the run's, and each rank's peak step by step — what
 * `runs show` prints side by side and the dashboard's run page draws one series per rank.
 */
import type { RankRecord, StepRecord } from './run-record.js';

/**
 * The rank whose peak is the run's: the largest allocated peak, else reserved, else nvidia-smi's figure
 * (a rank without the probe's device figures); the lowest rank on a tie; null without ranks or figures.
 */
export function peakRankOf(ranks: readonly RankRecord[]): number | null {
  for (const level of ['peakAllocatedBytes', 'peakReservedBytes', 'peakDeviceBytes'] as const) {
    let best: RankRecord | null = null;
    for (const r of ranks) {
      const bytes = r[level];
      if (bytes === null) continue;
      const top = best?.[level] ?? null;
      if (top === null || bytes > top || (bytes === top && r.rank < best!.rank)) best = r;
    }
    if (best) return best.rank;
  }
  return null;
}

/** One step's peak on each rank (null where that rank reported no device figures for the step). */
export interface RankStepPeaks {
  readonly step: number;
  readonly phase: string;
  /** In the order of `ranks`. */
  readonly allocatedBytes: readonly (number | null)[];
  readonly reservedBytes: readonly (number | null)[];
}

export interface PerRankSteps {
  /** The ranks that reported steps, ascending. */
  readonly ranks: readonly number[];
  readonly steps: readonly RankStepPeaks[];
}

/** Per-step peaks per rank from the step records (the highest of a rank's devices in that step). */
export function perRankStepPeaks(steps: readonly StepRecord[]): PerRankSteps {
  const rankSet = new Set<number>();
  const byStep = new Map<number, { phase: string; a: Map<number, number>; r: Map<number, number> }>();
  for (const s of steps) {
    rankSet.add(s.rank);
    let entry = byStep.get(s.step);
    if (!entry) {
      entry = { phase: s.phase, a: new Map(), r: new Map() };
      byStep.set(s.step, entry);
    }
    if (s.peakAllocatedBytes !== null)
      entry.a.set(s.rank, Math.max(entry.a.get(s.rank) ?? 0, s.peakAllocatedBytes));
    if (s.peakReservedBytes !== null)
      entry.r.set(s.rank, Math.max(entry.r.get(s.rank) ?? 0, s.peakReservedBytes));
  }
  const ranks = [...rankSet].sort((a, b) => a - b);
  return {
    ranks,
    steps: [...byStep.entries()]
      .sort((x, y) => x[0] - y[0])
      .map(([step, e]) => ({
        step,
        phase: e.phase,
        allocatedBytes: ranks.map((r) => e.a.get(r) ?? null),
        reservedBytes: ranks.map((r) => e.r.get(r) ?? null),
      })),
  };
}

/** The fields of a step record the per-rank peaks read. */
export type RankStepRow = Pick<
  StepRecord,
  'step' | 'phase' | 'rank' | 'peakAllocatedBytes' | 'peakReservedBytes'
>;

/**
 * perRankStepPeaks one step at a time, from step records ordered by step (Ledger.rows.steps(id, 'step')),
 * for the given ranks, only the steps whose index (0 for the first step) `keep` accepts: the rows of a
 * per-rank table from a run of millions of steps, in the memory of those rows.
 */
export function* rankStepPeaksByStep(
  steps: Iterable<RankStepRow>,
  ranks: readonly number[],
  keep: (index: number) => boolean = () => true,
): Generator<RankStepPeaks & { readonly index: number }> {
  let index = -1;
  let current: { step: number; phase: string; a: Map<number, number>; r: Map<number, number> } | null = null;
  const done = (e: NonNullable<typeof current>, at: number) => ({
    index: at,
    step: e.step,
    phase: e.phase,
    allocatedBytes: ranks.map((r) => e.a.get(r) ?? null),
    reservedBytes: ranks.map((r) => e.r.get(r) ?? null),
  });
  for (const s of steps) {
    if (current === null || current.step !== s.step) {
      if (current !== null && keep(index)) yield done(current, index);
      index += 1;
      current = { step: s.step, phase: s.phase, a: new Map(), r: new Map() };
    }
    if (!keep(index)) continue;
    if (s.peakAllocatedBytes !== null)
      current.a.set(s.rank, Math.max(current.a.get(s.rank) ?? 0, s.peakAllocatedBytes));
    if (s.peakReservedBytes !== null)
      current.r.set(s.rank, Math.max(current.r.get(s.rank) ?? 0, s.peakReservedBytes));
  }
  if (current !== null && keep(index)) yield done(current, index);
}

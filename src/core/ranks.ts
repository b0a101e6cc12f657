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

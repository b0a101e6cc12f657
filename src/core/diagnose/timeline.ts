/**
 * A run's memory step by step, per rank and device: the input of the timeline rules. Phase 2 fills it
 * from the run ledger (the probe records torch.cuda.memory_stats() each step); tests build it in code.
 * Field meanings follow torch.cuda.memory_stats() (data/docs/MONITORING.md §A5).
 */

/** What the step was doing. */
export type TimelinePhase = 'train' | 'eval' | 'save' | 'load' | 'other';

export interface TimelineStep {
  readonly step: number;
  readonly phase: TimelinePhase;
  /** memory_allocated() at the end of the step (allocated_bytes.all.current). */
  readonly allocatedBytes: number;
  /** memory_reserved() at the end of the step (reserved_bytes.all.current). */
  readonly reservedBytes: number;
  /** max_memory_allocated() within the step (peak stats reset each step). */
  readonly peakAllocatedBytes: number;
  /** max_memory_reserved() within the step. */
  readonly peakReservedBytes: number;
  /** inactive_split_bytes.all.current: cached, split, not releasable. */
  readonly inactiveSplitBytes: number;
  /** num_alloc_retries since the start of the run (cumulative). */
  readonly numAllocRetries: number;
  readonly rank: number;
  readonly device: number;
}

export interface Timeline {
  readonly steps: readonly TimelineStep[];
  /** The card's memory.total, when known (for projections and "full"). */
  readonly capacityBytes?: number | null;
}

/** The steps of each (rank, device), each list sorted by step. */
export function seriesOf(timeline: Timeline): TimelineStep[][] {
  const byKey = new Map<string, TimelineStep[]>();
  for (const s of timeline.steps) {
    const key = `${s.rank}:${s.device}`;
    const list = byKey.get(key) ?? [];
    list.push(s);
    byKey.set(key, list);
  }
  return [...byKey.values()].map((list) => [...list].sort((a, b) => a.step - b.step));
}

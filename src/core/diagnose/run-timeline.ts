/**
 * A recorded run's Timeline (timeline.ts) from the ledger's step records: one entry per step, rank and
 * device that carries the allocator's figures (the probe's `step` events), with the phase the probe
 * named mapped onto the timeline's five.
 */

import { minOf } from '../extremes.js';
import type { RunEvent, StepRecord } from '../run-record.js';
import { type Timeline, type TimelinePhase, type TimelineStep, TimelineWriter } from './timeline.js';

const EVAL = /^(?:eval|evaluat|valid|test|predict|infer|generat)/i;
const SAVE = /^(?:save|checkpoint|ckpt)/i;
const LOAD = /^(?:load|init|setup)/i;

/** The timeline phase of a phase name as the probe recorded it ("train", "eval", "validation", …). */
export function timelinePhase(name: string): TimelinePhase {
  const n = name.trim();
  if (/^train/i.test(n)) return 'train';
  if (EVAL.test(n)) return 'eval';
  if (SAVE.test(n)) return 'save';
  if (LOAD.test(n)) return 'load';
  return 'other';
}

/**
 * A step record as the timeline reads it; null for a step recorded without device figures (a CPU-only
 * step, a probe that could not read them), which is left out.
 */
export function timelineStepOf(
  s: Pick<
    StepRecord,
    | 'step'
    | 'phase'
    | 'device'
    | 'rank'
    | 'allocatedBytes'
    | 'reservedBytes'
    | 'peakAllocatedBytes'
    | 'peakReservedBytes'
    | 'inactiveSplitBytes'
    | 'numAllocRetries'
  >,
): TimelineStep | null {
  if (s.device === null || s.allocatedBytes === null || s.reservedBytes === null) return null;
  return {
    step: s.step,
    phase: timelinePhase(s.phase),
    allocatedBytes: s.allocatedBytes,
    reservedBytes: s.reservedBytes,
    peakAllocatedBytes: s.peakAllocatedBytes ?? s.allocatedBytes,
    peakReservedBytes: s.peakReservedBytes ?? s.reservedBytes,
    inactiveSplitBytes: s.inactiveSplitBytes ?? 0,
    numAllocRetries: s.numAllocRetries ?? 0,
    rank: s.rank,
    device: s.device,
  };
}

/**
 * The timeline of step records read one at a time, as columns (timeline.ts); `expectedRows`, the
 * number of records when known, sizes the columns once.
 */
export function timelineFromSteps(
  steps: Iterable<StepRecord>,
  capacityBytes: number | null = null,
  expectedRows?: number,
): Timeline {
  const out = new TimelineWriter(expectedRows);
  for (const s of steps) {
    const step = timelineStepOf(s);
    if (step) out.push(step);
  }
  return { steps: out.done(), capacityBytes };
}

/**
 * The smallest card the run's processes saw, from the probe's `device` events (torch's
 * get_device_properties().total_memory); null when none was recorded.
 */
export function probeCapacityBytes(events: readonly RunEvent[]): number | null {
  const totals = events
    .filter((e) => e.kind === 'device' && typeof e.data.totalBytes === 'number' && e.data.totalBytes > 0)
    .map((e) => e.data.totalBytes as number);
  return totals.length > 0 ? minOf(totals) : null;
}

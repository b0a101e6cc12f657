/**
 * Step 3 of the troubleshooting order, from a step timeline (timeline.ts): memory that grows step after
 * step with allocated rising (a leak), growth across evaluation batches, reserved climbing while
 * allocated stays flat (fragmentation), one rank holding more than the others (rank-rules.ts), and the two
 * non-problems — a card that looks full while the run is stable, and num_alloc_retries rising (an early
 * warning). data/docs/MONITORING.md §A5 and rules 4–6; thresholds are ours, stated below.
 */
import { MIB } from '../units.js';
import { smiUsedEvidence } from './card-rules.js';
import type { Evidence } from './evidence.js';
import type { Finding } from './finding.js';
import { rankImbalanceFindings } from './rank-rules.js';
import { bytes, count, ev, type RuleInput, say, value } from './rule-kit.js';
import { seriesOf, type TimelineStep } from './timeline.js';

/** Steps skipped at the start: optimizer states appear at step 1 and the allocator warms up. */
export const WARMUP_STEPS = 3;
/** Training steps needed after the warm-up before a trend is read. */
export const MIN_TREND_STEPS = 5;
/** A step-to-step change below this is noise. */
export const STEP_NOISE_BYTES = MIB;
/** Growth worth reporting: at least this, and at least GROWTH_MIN_SHARE of the card when it is known. */
export const GROWTH_MIN_BYTES = 64 * MIB;
export const GROWTH_MIN_SHARE = 0.01;
/** Share of steps that must grow for a trend to be "step after step". */
export const RISING_SHARE = 0.6;
/** Reserved growth that counts as climbing (fragmentation), with allocated moving by at most FLAT_SHARE of it. */
export const RESERVED_CLIMB_MIN_BYTES = 256 * MIB;
export const FLAT_SHARE = 0.25;
/** Inactive split blocks this large (and this share of reserved) are fragmentation on their own. */
export const INACTIVE_SPLIT_MIN_BYTES = 512 * MIB;
export const INACTIVE_SPLIT_SHARE = 0.2;
/** Reserved at this share of the card counts as "full" in nvidia-smi. */
export const FULL_SHARE = 0.9;

interface Trend {
  readonly first: TimelineStep;
  readonly last: TimelineStep;
  readonly growth: number;
  readonly perStep: number;
  readonly rising: number;
  readonly deltas: number;
}

/** Least-squares slope per step, total growth and how many steps grew, of one field over steps. */
function trend(steps: readonly TimelineStep[], field: (s: TimelineStep) => number): Trend | null {
  const first = steps[0];
  const last = steps[steps.length - 1];
  if (!first || !last || steps.length < 2) return null;
  const n = steps.length;
  const meanX = steps.reduce((s, x) => s + x.step, 0) / n;
  const meanY = steps.reduce((s, x) => s + field(x), 0) / n;
  let num = 0;
  let den = 0;
  for (const x of steps) {
    num += (x.step - meanX) * (field(x) - meanY);
    den += (x.step - meanX) ** 2;
  }
  let rising = 0;
  for (let i = 1; i < n; i++) if (field(steps[i]!) - field(steps[i - 1]!) > STEP_NOISE_BYTES) rising++;
  return {
    first,
    last,
    growth: field(last) - field(first),
    perStep: den > 0 ? num / den : 0,
    rising,
    deltas: n - 1,
  };
}

function minGrowth(capacity: number | null): number {
  return Math.max(GROWTH_MIN_BYTES, capacity === null ? 0 : GROWTH_MIN_SHARE * capacity);
}

const growsSteadily = (t: Trend | null, capacity: number | null): t is Trend =>
  t !== null && t.growth >= minGrowth(capacity) && t.perStep > 0 && t.rising >= RISING_SHARE * t.deltas;

/** Allocated from first to last step, the slope, and how many steps rose: the evidence of a growth. */
function growthEvidence(t: Trend): Evidence[] {
  return [
    ev(
      'allocated',
      value('step-range', {
        fromBytes: t.first.allocatedBytes,
        fromStep: t.first.step,
        toBytes: t.last.allocatedBytes,
        toStep: t.last.step,
      }),
    ),
    ev('growth-per-step', bytes(t.perStep)),
    ev('rising-steps', value('steps-of', { rising: t.rising, total: t.deltas })),
  ];
}

function trainSteps(series: readonly TimelineStep[]): TimelineStep[] {
  return series.filter((s) => s.phase === 'train').slice(WARMUP_STEPS);
}

function leak(series: readonly TimelineStep[][], capacity: number | null): Finding[] {
  for (const list of series) {
    const train = trainSteps(list);
    if (train.length < MIN_TREND_STEPS) continue;
    const t = trend(train, (s) => s.allocatedBytes);
    if (!growsSteadily(t, capacity)) continue;
    const evidence = growthEvidence(t);
    if (capacity !== null) {
      const left = capacity - t.last.peakReservedBytes;
      if (left > 0) evidence.push(ev('projected-full', count(Math.round(t.last.step + left / t.perStep))));
    }
    return [say('leak', 'error', { rank: t.first.rank, device: t.first.device }, evidence)];
  }
  return [];
}

function evalGrowth(series: readonly TimelineStep[][], capacity: number | null): Finding[] {
  for (const list of series) {
    // Contiguous runs of evaluation steps; growth within one run is what no_grad would have prevented.
    const runs: TimelineStep[][] = [];
    let run: TimelineStep[] = [];
    for (const s of list) {
      if (s.phase === 'eval') run.push(s);
      else if (run.length > 0) {
        runs.push(run);
        run = [];
      }
    }
    if (run.length > 0) runs.push(run);
    for (const r of runs) {
      if (r.length < 3) continue;
      const t = trend(r, (s) => s.allocatedBytes);
      if (!growsSteadily(t, capacity)) continue;
      return [say('eval-growth', 'error', {}, growthEvidence(t))];
    }
  }
  return [];
}

function fragmentation(series: readonly TimelineStep[][], capacity: number | null): Finding[] {
  for (const list of series) {
    const train = trainSteps(list);
    if (train.length < MIN_TREND_STEPS) continue;
    const reserved = trend(train, (s) => s.peakReservedBytes);
    const allocated = trend(train, (s) => s.peakAllocatedBytes);
    if (!reserved || !allocated) continue;
    const climbs =
      reserved.growth >= Math.max(RESERVED_CLIMB_MIN_BYTES, minGrowth(capacity)) &&
      reserved.rising >= 0.5 * reserved.deltas &&
      Math.abs(allocated.growth) <= FLAT_SHARE * reserved.growth;
    const last = train[train.length - 1]!;
    const split =
      last.inactiveSplitBytes >= INACTIVE_SPLIT_MIN_BYTES &&
      last.inactiveSplitBytes >= INACTIVE_SPLIT_SHARE * last.reservedBytes;
    if (!climbs && !split) continue;
    const evidence: Evidence[] = [
      ev(
        'reserved',
        value('step-range', {
          fromBytes: reserved.first.peakReservedBytes,
          fromStep: reserved.first.step,
          toBytes: reserved.last.peakReservedBytes,
          toStep: reserved.last.step,
        }),
      ),
      ev(
        'peak-allocated',
        value('step-range', {
          fromBytes: allocated.first.peakAllocatedBytes,
          fromStep: allocated.first.step,
          toBytes: allocated.last.peakAllocatedBytes,
          toStep: allocated.last.step,
        }),
      ),
    ];
    if (last.inactiveSplitBytes > 0)
      evidence.push(
        ev(
          'inactive-split',
          value('share-of-reserved', { bytes: last.inactiveSplitBytes, reservedBytes: last.reservedBytes }),
        ),
      );
    return [say('fragmentation', 'warn', { cachedBytes: null, legacy: false }, evidence)];
  }
  return [];
}

function stableFull(input: RuleInput, series: readonly TimelineStep[][], capacity: number | null): Finding[] {
  if (capacity === null) return [];
  for (const list of series) {
    const train = trainSteps(list);
    if (train.length < MIN_TREND_STEPS) continue;
    const reserved = trend(train, (s) => s.reservedBytes);
    const allocated = trend(train, (s) => s.allocatedBytes);
    if (!reserved || !allocated) continue;
    const last = train[train.length - 1]!;
    const flat =
      Math.abs(reserved.growth) < minGrowth(capacity) && Math.abs(allocated.growth) < minGrowth(capacity);
    const retried = last.numAllocRetries > train[0]!.numAllocRetries;
    if (last.peakReservedBytes < FULL_SHARE * capacity || !flat || retried) continue;
    const evidence = [
      ev('reserved', value('share-of-card', { bytes: last.peakReservedBytes, cardBytes: capacity })),
      ev(
        'allocated',
        value('bytes-range', { fromBytes: train[0]!.allocatedBytes, toBytes: last.allocatedBytes }),
      ),
    ];
    const smi = smiUsedEvidence(input);
    if (smi) evidence.push(smi);
    return [say('stable-full', 'info', {}, evidence)];
  }
  return [];
}

function allocRetries(series: readonly TimelineStep[][]): Finding[] {
  for (const list of series) {
    let increases = 0;
    for (let i = 1; i < list.length; i++)
      if (list[i]!.numAllocRetries > list[i - 1]!.numAllocRetries) increases++;
    const first = list[0];
    const last = list[list.length - 1];
    if (!first || !last || increases < 2) continue;
    return [
      say('alloc-retries', 'warn', { count: last.numAllocRetries }, [
        ev(
          'retries',
          value('retries-range', {
            fromCount: first.numAllocRetries,
            fromStep: first.step,
            toCount: last.numAllocRetries,
            toStep: last.step,
            rank: last.rank,
            device: last.device,
          }),
        ),
      ]),
    ];
  }
  return [];
}

/** Every timeline finding (none without a timeline). */
export function timelineFindings(input: RuleInput): Finding[] {
  const timeline = input.timeline;
  if (!timeline || timeline.steps.length === 0) return [];
  const capacity = timeline.capacityBytes ?? input.capacityBytes;
  const series = seriesOf(timeline);
  const leaks = leak(series, capacity);
  return [
    ...leaks,
    ...evalGrowth(series, capacity),
    ...fragmentation(series, capacity),
    ...rankImbalanceFindings(input),
    ...(leaks.length > 0 ? [] : stableFull(input, series, capacity)),
    ...allocRetries(series),
  ];
}

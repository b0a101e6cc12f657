/**
 * Step 3 of the troubleshooting order, from a step timeline (timeline.ts): memory that grows step after
 * step with allocated rising (a leak), growth across evaluation batches, reserved climbing while
 * allocated stays flat (fragmentation), one rank holding more than the others (rank-rules.ts), and the two
 * non-problems — a card that looks full while the run is stable, and num_alloc_retries rising (an early
 * warning). data/docs/MONITORING.md §A5 and rules 4–6; thresholds are ours, stated below.
 */
import { MIB } from '../units.js';
import { smiUsedEvidence } from './card-rules.js';
import type { Evidence, EvidenceValue } from './evidence.js';
import type { Finding } from './finding.js';
import { rankImbalanceFindings } from './rank-rules.js';
import { bytes, count, ev, type RuleInput, say, value } from './rule-kit.js';
import {
  EVAL,
  rowsInPhase,
  type Series,
  seriesOf,
  type TimelineColumns,
  TRAIN,
  timelineColumns,
} from './timeline.js';

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
  /** The first and last rows (indices into the columns). */
  readonly first: number;
  readonly last: number;
  readonly growth: number;
  readonly perStep: number;
  readonly rising: number;
  readonly deltas: number;
}

/** Least-squares slope per step, total growth and how many steps grew, of one column over some rows. */
function trend(c: TimelineColumns, rows: Series, field: Float64Array): Trend | null {
  const n = rows.length;
  if (n < 2) return null;
  const first = rows[0]!;
  const last = rows[n - 1]!;
  let sumX = 0;
  for (let k = 0; k < n; k++) sumX += c.step[rows[k]!]!;
  let sumY = 0;
  for (let k = 0; k < n; k++) sumY += field[rows[k]!]!;
  const meanX = sumX / n;
  const meanY = sumY / n;
  let num = 0;
  let den = 0;
  for (let k = 0; k < n; k++) {
    const i = rows[k]!;
    num += (c.step[i]! - meanX) * (field[i]! - meanY);
    den += (c.step[i]! - meanX) ** 2;
  }
  let rising = 0;
  for (let k = 1; k < n; k++) if (field[rows[k]!]! - field[rows[k - 1]!]! > STEP_NOISE_BYTES) rising++;
  return {
    first,
    last,
    growth: field[last]! - field[first]!,
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

/** A column from one row to another, as evidence. */
function stepRange(c: TimelineColumns, field: Float64Array, from: number, to: number): EvidenceValue {
  return value('step-range', {
    fromBytes: field[from]!,
    fromStep: c.step[from]!,
    toBytes: field[to]!,
    toStep: c.step[to]!,
  });
}

/** Allocated from first to last step, the slope, and how many steps rose: the evidence of a growth. */
function growthEvidence(c: TimelineColumns, t: Trend): Evidence[] {
  return [
    ev('allocated', stepRange(c, c.allocatedBytes, t.first, t.last)),
    ev('growth-per-step', bytes(t.perStep)),
    ev('rising-steps', value('steps-of', { rising: t.rising, total: t.deltas })),
  ];
}

function trainSteps(c: TimelineColumns, series: Series): Series {
  return rowsInPhase(c, series, TRAIN).subarray(WARMUP_STEPS);
}

function leak(c: TimelineColumns, series: readonly Series[], capacity: number | null): Finding[] {
  for (const list of series) {
    const train = trainSteps(c, list);
    if (train.length < MIN_TREND_STEPS) continue;
    const t = trend(c, train, c.allocatedBytes);
    if (!growsSteadily(t, capacity)) continue;
    const evidence = growthEvidence(c, t);
    if (capacity !== null) {
      const left = capacity - c.peakReservedBytes[t.last]!;
      if (left > 0)
        evidence.push(ev('projected-full', count(Math.round(c.step[t.last]! + left / t.perStep))));
    }
    return [say('leak', 'error', { rank: c.rank[t.first]!, device: c.device[t.first]! }, evidence)];
  }
  return [];
}

function evalGrowth(c: TimelineColumns, series: readonly Series[], capacity: number | null): Finding[] {
  for (const list of series) {
    // Contiguous runs of evaluation steps; growth within one run is what no_grad would have prevented.
    let k = 0;
    while (k < list.length) {
      if (c.phase[list[k]!] !== EVAL) {
        k++;
        continue;
      }
      const from = k;
      while (k < list.length && c.phase[list[k]!] === EVAL) k++;
      if (k - from < 3) continue;
      const t = trend(c, list.subarray(from, k), c.allocatedBytes);
      if (!growsSteadily(t, capacity)) continue;
      return [say('eval-growth', 'error', {}, growthEvidence(c, t))];
    }
  }
  return [];
}

function fragmentation(c: TimelineColumns, series: readonly Series[], capacity: number | null): Finding[] {
  for (const list of series) {
    const train = trainSteps(c, list);
    if (train.length < MIN_TREND_STEPS) continue;
    const reserved = trend(c, train, c.peakReservedBytes);
    const allocated = trend(c, train, c.peakAllocatedBytes);
    if (!reserved || !allocated) continue;
    const climbs =
      reserved.growth >= Math.max(RESERVED_CLIMB_MIN_BYTES, minGrowth(capacity)) &&
      reserved.rising >= 0.5 * reserved.deltas &&
      Math.abs(allocated.growth) <= FLAT_SHARE * reserved.growth;
    const last = train[train.length - 1]!;
    const inactive = c.inactiveSplitBytes[last]!;
    const split =
      inactive >= INACTIVE_SPLIT_MIN_BYTES && inactive >= INACTIVE_SPLIT_SHARE * c.reservedBytes[last]!;
    if (!climbs && !split) continue;
    const evidence: Evidence[] = [
      ev('reserved', stepRange(c, c.peakReservedBytes, reserved.first, reserved.last)),
      ev('peak-allocated', stepRange(c, c.peakAllocatedBytes, allocated.first, allocated.last)),
    ];
    if (inactive > 0)
      evidence.push(
        ev(
          'inactive-split',
          value('share-of-reserved', { bytes: inactive, reservedBytes: c.reservedBytes[last]! }),
        ),
      );
    return [say('fragmentation', 'warn', { cachedBytes: null, legacy: false }, evidence)];
  }
  return [];
}

function stableFull(
  input: RuleInput,
  c: TimelineColumns,
  series: readonly Series[],
  capacity: number | null,
): Finding[] {
  if (capacity === null) return [];
  for (const list of series) {
    const train = trainSteps(c, list);
    if (train.length < MIN_TREND_STEPS) continue;
    const reserved = trend(c, train, c.reservedBytes);
    const allocated = trend(c, train, c.allocatedBytes);
    if (!reserved || !allocated) continue;
    const first = train[0]!;
    const last = train[train.length - 1]!;
    const flat =
      Math.abs(reserved.growth) < minGrowth(capacity) && Math.abs(allocated.growth) < minGrowth(capacity);
    const retried = c.numAllocRetries[last]! > c.numAllocRetries[first]!;
    if (c.peakReservedBytes[last]! < FULL_SHARE * capacity || !flat || retried) continue;
    const evidence = [
      ev('reserved', value('share-of-card', { bytes: c.peakReservedBytes[last]!, cardBytes: capacity })),
      ev(
        'allocated',
        value('bytes-range', { fromBytes: c.allocatedBytes[first]!, toBytes: c.allocatedBytes[last]! }),
      ),
    ];
    const smi = smiUsedEvidence(input);
    if (smi) evidence.push(smi);
    return [say('stable-full', 'info', {}, evidence)];
  }
  return [];
}

function allocRetries(c: TimelineColumns, series: readonly Series[]): Finding[] {
  const retries = c.numAllocRetries;
  for (const list of series) {
    let increases = 0;
    for (let k = 1; k < list.length; k++) if (retries[list[k]!]! > retries[list[k - 1]!]!) increases++;
    if (list.length === 0 || increases < 2) continue;
    const first = list[0]!;
    const last = list[list.length - 1]!;
    return [
      say('alloc-retries', 'warn', { count: retries[last]! }, [
        ev(
          'retries',
          value('retries-range', {
            fromCount: retries[first]!,
            fromStep: c.step[first]!,
            toCount: retries[last]!,
            toStep: c.step[last]!,
            rank: c.rank[last]!,
            device: c.device[last]!,
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
  const c = timelineColumns(timeline);
  const series = seriesOf(c);
  const leaks = leak(c, series, capacity);
  return [
    ...leaks,
    ...evalGrowth(c, series, capacity),
    ...fragmentation(c, series, capacity),
    ...rankImbalanceFindings(input),
    ...(leaks.length > 0 ? [] : stableFull(input, c, series, capacity)),
    ...allocRetries(c, series),
  ];
}

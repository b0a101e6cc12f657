/**
 * A trace's timeline as chart points: the report's min/max buckets merged down to at most `width`
 * buckets (one per pixel), each drawn as two points — its first extreme, then the other — so every peak
 * and every trough survives however many events the trace has.
 */
import type { Timeline } from './analyse.js';

export interface TimelinePoints {
  /** Event index of each point, ascending. */
  readonly x: number[];
  readonly active: number[];
  readonly reserved: number[];
}

/** Points for a chart `width` buckets wide. */
export function timelinePoints(t: Timeline, width: number): TimelinePoints {
  const n = t.start.length;
  const per = Math.max(1, Math.ceil(n / Math.max(1, width)));
  const out: TimelinePoints = { x: [], active: [], reserved: [] };
  for (let k = 0; k < n; k += per) {
    const end = Math.min(n, k + per);
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    let loAt = k;
    let hiAt = k;
    let reserved = Number.NEGATIVE_INFINITY;
    for (let j = k; j < end; j++) {
      if (t.activeMin[j]! < lo) {
        lo = t.activeMin[j]!;
        loAt = j;
      }
      if (t.activeMax[j]! > hi) {
        hi = t.activeMax[j]!;
        hiAt = j;
      }
      if (t.reservedMax[j]! > reserved) reserved = t.reservedMax[j]!;
    }
    // The extreme reached first is drawn first; within one bucket, by the bucket's own order.
    const maxFirst = hiAt < loAt || (hiAt === loAt && t.maxFirst[hiAt] === true);
    const x0 = t.start[k]!;
    const x1 = end < n ? t.start[end]! : t.events;
    const mid = x0 + Math.max(0.5, (x1 - x0) / 2);
    out.x.push(x0, mid);
    out.active.push(maxFirst ? hi : lo, maxFirst ? lo : hi);
    out.reserved.push(reserved, reserved);
  }
  return out;
}

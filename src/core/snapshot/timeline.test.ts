/** Timeline points: merged to the chart's width, every peak kept. */
import { describe, expect, it } from 'vitest';
import type { Timeline } from './analyse.js';
import { timelinePoints } from './timeline.js';

/** A timeline of one bucket per event (as a short trace has). */
function perEvent(active: number[], reserved: number[]): Timeline {
  return {
    device: 0,
    events: active.length,
    start: active.map((_, i) => i),
    timeUs: active.map(() => null),
    activeMin: active,
    activeMax: active,
    maxFirst: active.map(() => false),
    reservedMin: reserved,
    reservedMax: reserved,
  };
}

describe('timelinePoints', () => {
  it('keeps a one-event spike when a thousand events fall in one pixel', () => {
    const active = Array.from({ length: 10_000 }, (_, i) => (i === 4321 ? 999 : i % 7));
    const p = timelinePoints(
      perEvent(
        active,
        active.map(() => 5),
      ),
      10,
    );
    expect(p.x).toHaveLength(20);
    expect(Math.max(...p.active)).toBe(999);
    expect(p.active.filter((v) => v === 999)).toHaveLength(1);
    expect(Math.min(...p.active)).toBe(0);
    expect(p.reserved.every((v) => v === 5)).toBe(true);
  });

  it('draws the extreme reached first first', () => {
    const p = timelinePoints(perEvent([1, 9, 0, 5], [0, 0, 0, 0]), 2);
    // Bucket 0: events 0–1, min 1 (event 0) then max 9; bucket 1: events 2–3, min 0 (event 2) then 5.
    expect(p.active).toEqual([1, 9, 0, 5]);
    expect(p.x).toEqual([0, 1, 2, 3]);
  });
});

/**
 * Picking points out of a chart's columns (StepColumns, SampleColumns: one array per series), by index:
 * the server thins and windows a run's series with it, the dashboard swaps a zoomed window's detail in.
 */
import type { SampleColumns, StepColumns } from './dashboard-types.js';

/** The points at `indices` of every step column, in that order. */
export function pickSteps(s: StepColumns, indices: readonly number[]): StepColumns {
  const pick = <T>(col: readonly T[]) => indices.map((i) => col[i]!);
  return {
    step: pick(s.step),
    t: pick(s.t),
    phase: pick(s.phase),
    loss: pick(s.loss),
    allocatedBytes: pick(s.allocatedBytes),
    reservedBytes: pick(s.reservedBytes),
  };
}

/** The points at `indices` of every sample column, in that order. */
export function pickSamples(s: SampleColumns, indices: readonly number[]): SampleColumns {
  return { t: indices.map((i) => s.t[i]!), usedBytes: indices.map((i) => s.usedBytes[i]!) };
}

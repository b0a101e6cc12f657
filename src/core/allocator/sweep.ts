/**
 * The simulated runs the variable-length reserve term comes from (src/core/estimate/allocator.ts):
 * dense decoders from 0.5B to 8B, micro-batches and length caps as fine-tuning recipes set them, the
 * three losses, with and without full checkpointing, uniform and short-skewed sample lengths; each
 * replayed for a run of steps with padded lengths against the same run at its longest length.
 * `npm run bench:allocator` prints them; docs/allocator.md.
 */
import type { ModelShape } from '../architecture.js';
import { compareLengths, type LengthComparison, paddedLengths } from './replay.js';
import { decoderStepPattern } from './step-pattern.js';

export type SweepLoss = 'standard' | 'chunked' | 'fused';

export interface SweepCase {
  readonly model: string;
  readonly batch: number;
  readonly cap: number;
  readonly loss: SweepLoss;
  readonly checkpointing: boolean;
  /** The sample-length skew (replay.ts paddedLengths): 1 uniform, 2 mostly short. */
  readonly skew: number;
}

export const SWEEP_MODELS = ['qwen2.5-0.5b', 'llama-3.2-3b', 'llama-3.1-8b'] as const;
export const SWEEP_BATCHES: readonly (readonly [batch: number, cap: number])[] = [
  [1, 512],
  [4, 768],
  [2, 2048],
];
export const SWEEP_LOSSES: readonly SweepLoss[] = ['standard', 'chunked', 'fused'];
/** The run the term is read at: the reserve's high-water after this many steps. */
export const SWEEP_STEPS = 300;
/** The steps bench:allocator reports the climb at. */
export const REPORTED_STEPS: readonly number[] = [1, 10, 30, 100, 300];

/** Every case of the sweep, in a fixed order. */
export function sweepCases(models: readonly string[] = SWEEP_MODELS): SweepCase[] {
  const out: SweepCase[] = [];
  for (const model of models)
    for (const [batch, cap] of SWEEP_BATCHES)
      for (const loss of SWEEP_LOSSES)
        for (const checkpointing of [false, true])
          for (const skew of [1, 2]) out.push({ model, batch, cap, loss, checkpointing, skew });
  return out;
}

/** A case's step pattern: LoRA (rank 16 on q and v) on a bf16 base, as most padded runs are. */
export function sweepPattern(shape: ModelShape, c: SweepCase): ReturnType<typeof decoderStepPattern> {
  return decoderStepPattern(shape, {
    e: 2,
    loss: c.loss,
    checkpointing: c.checkpointing,
    fullGradients: false,
    loraRank: 16,
  });
}

/**
 * One case replayed (sweepPattern) over SWEEP_STEPS padded lengths, with or without expandable
 * segments, with room and under the least memory limit it completes under.
 */
export function runSweepCase(shape: ModelShape, c: SweepCase, expandableSegments: boolean): LengthComparison {
  const pattern = sweepPattern(shape, c);
  return compareLengths(
    pattern,
    paddedLengths(SWEEP_STEPS, c.batch, c.cap, c.skew),
    c.batch,
    { expandableSegments },
    true,
  );
}

/** The q-quantile of some numbers (linear between ranks). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** One replayed case as bench:allocator stores it (bench/results/allocator-runs.json). */
export interface SweepRow {
  /** The churn at the longest batch (default allocator). */
  readonly churnBytes: number;
  /** What the loss's tensors hold at the longest batch: the logits kept for backward and their gradients. */
  readonly lossBytes: number;
  /** reserved − allocated of the same run at its longest length (no padding), default allocator, over the churn. */
  readonly fixedShare: number;
  /** The reserve the padded run added after SWEEP_STEPS steps, default allocator, over the churn. */
  readonly extraShare: number;
  /** The same with expandable segments, over that run's churn. */
  readonly expandableExtraShare: number;
  /** The least the padded run needs above the fixed run's reserve under a memory limit (default allocator), over the churn. */
  readonly pressureExtraShare: number;
  /** The same with expandable segments, over that run's churn. */
  readonly expandablePressureShare: number;
}

/** The variable-length reserve term: bytes per byte of the loss's tensors and of the rest of the churn. */
export interface ReserveGrowthTerm {
  readonly lossFactor: number;
  readonly layerFactor: number;
  /** With expandable segments: the 90th percentile of the added reserve over the churn. */
  readonly expandableShare: number;
  /** What a full card must hold of that climb (the allocator gives back unsplit cache first): per loss byte. */
  readonly pressureLossFactor: number;
  /** … and per byte of the rest of the churn. */
  readonly pressureLayerFactor: number;
  /** With expandable segments, under a limit: the 90th percentile of what stays, over the churn. */
  readonly expandablePressureShare: number;
}

/** The fixed-length reserve: bytes per byte of the loss's tensors and of the rest of the churn. */
export interface FixedReserveTerm {
  readonly lossFactor: number;
  readonly layerFactor: number;
}

/** y ≈ α·(loss tensors) + β·(rest of the churn), least squares through the origin over the rows. */
function lossAndRestFit(
  rows: readonly SweepRow[],
  share: (row: SweepRow) => number,
): { readonly loss: number; readonly rest: number } {
  let sll = 0;
  let slr = 0;
  let srr = 0;
  let sly = 0;
  let sry = 0;
  for (const row of rows) {
    const l = row.lossBytes;
    const r = Math.max(0, row.churnBytes - row.lossBytes);
    const y = share(row) * row.churnBytes;
    sll += l * l;
    slr += l * r;
    srr += r * r;
    sly += l * y;
    sry += r * y;
  }
  const det = sll * srr - slr * slr;
  return { loss: (sly * srr - sry * slr) / det, rest: (sry * sll - sly * slr) / det };
}

/**
 * The term read off the sweep: the added reserve (bytes) as α·(loss tensors) + β·(rest of the churn), by
 * least squares through the origin over every case, with room and under a limit; with expandable
 * segments, one share of the churn, the sweep's 90th percentile (the added reserve is small and has no
 * structure to fit).
 */
export function reserveGrowthTerm(rows: readonly SweepRow[]): ReserveGrowthTerm {
  const climb = lossAndRestFit(rows, (r) => r.extraShare);
  const pressure = lossAndRestFit(rows, (r) => r.pressureExtraShare);
  return {
    lossFactor: climb.loss,
    layerFactor: climb.rest,
    expandableShare: quantile(
      rows.map((r) => r.expandableExtraShare),
      0.9,
    ),
    pressureLossFactor: pressure.loss,
    pressureLayerFactor: pressure.rest,
    expandablePressureShare: quantile(
      rows.map((r) => r.expandablePressureShare),
      0.9,
    ),
  };
}

/**
 * What a run at one fixed length holds reserved above its allocated peak, read off the same runs at
 * their longest length: α·(loss tensors) + β·(rest of the churn), least squares through the origin.
 */
export function fixedReserveTerm(rows: readonly SweepRow[]): FixedReserveTerm {
  const fit = lossAndRestFit(rows, (r) => r.fixedShare);
  return { lossFactor: fit.loss, layerFactor: fit.rest };
}

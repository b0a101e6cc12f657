/**
 * What a recorded run comes to: the per-step peak series, whether memory grew across steps, the gaps
 * between the three layers, and the outcome. Pure: it reads ledger records and returns data.
 */
import type { RunEvent, RunRecord, StepRecord } from './run-record.js';
import { MIB } from './units.js';

/** The highest figures of one step over every rank and device. */
export interface StepPeak {
  readonly step: number;
  readonly tMs: number;
  readonly phase: string;
  readonly loss: number | null;
  readonly peakAllocatedBytes: number;
  readonly peakReservedBytes: number;
}

/** Per-step peaks in step order (a step reported by several ranks counts once, at its highest). */
export function perStepPeaks(steps: readonly StepRecord[]): StepPeak[] {
  // A stable sort by step keeps each step's rows in the order written, as the ledger reads them by step.
  return [...stepPeaksByStep([...steps].sort((a, b) => a.step - b.step))];
}

/**
 * perStepPeaks one step at a time, from step records ordered by step (each step's rows in the order
 * written: Ledger.rows.steps(id, 'step')), in memory of one step: what a run of millions of steps is
 * read with. A step's loss is rank 0's first one.
 */
export function* stepPeaksByStep(steps: Iterable<StepRecord>): Generator<StepPeak> {
  let current: StepPeak | null = null;
  for (const s of steps) {
    const allocated = s.peakAllocatedBytes ?? 0;
    const reserved = s.peakReservedBytes ?? 0;
    if (current === null || current.step !== s.step) {
      if (current !== null) yield current;
      current = {
        step: s.step,
        tMs: s.tMs,
        phase: s.phase,
        loss: s.rank === 0 ? s.loss : null,
        peakAllocatedBytes: allocated,
        peakReservedBytes: reserved,
      };
      continue;
    }
    current = {
      ...current,
      loss: current.loss ?? (s.rank === 0 ? s.loss : null),
      peakAllocatedBytes: Math.max(current.peakAllocatedBytes, allocated),
      peakReservedBytes: Math.max(current.peakReservedBytes, reserved),
    };
  }
  if (current !== null) yield current;
}

/**
 * The per-step figures the growth check reads, as columns of numbers (16 bytes a step, not an object):
 * push each step's peak in step order, then detectGrowthOf.
 */
export class GrowthColumns {
  length = 0;
  private stepAt = new Float64Array(1024);
  private allocatedAt = new Float64Array(1024);
  private reservedAt = new Float64Array(1024);

  push(peak: Pick<StepPeak, 'step' | 'peakAllocatedBytes' | 'peakReservedBytes'>): void {
    if (this.length === this.stepAt.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.stepAt = grow(this.stepAt);
      this.allocatedAt = grow(this.allocatedAt);
      this.reservedAt = grow(this.reservedAt);
    }
    this.stepAt[this.length] = peak.step;
    this.allocatedAt[this.length] = peak.peakAllocatedBytes;
    this.reservedAt[this.length] = peak.peakReservedBytes;
    this.length += 1;
  }

  step(i: number): number {
    return this.stepAt[i]!;
  }

  /** The values of a layer from `from` up to (not including) `to`. */
  values(layer: 'allocated' | 'reserved', from: number, to: number): Float64Array {
    return (layer === 'allocated' ? this.allocatedAt : this.reservedAt).subarray(from, to);
  }
}

/** Steps left out of the growth check: the first step creates optimizer states and warms the allocator. */
export const GROWTH_WARMUP_STEPS = 2;
/** Fewest steps (after warm-up) the growth check judges. */
export const GROWTH_MIN_STEPS = 6;
/** Growth below this is noise: the larger of 64 MiB and 2 % of the early level. */
export const GROWTH_MIN_BYTES = 64 * MIB;
export const GROWTH_MIN_FRACTION = 0.02;

export type Growth =
  | { readonly kind: 'too-few-steps'; readonly steps: number }
  | { readonly kind: 'flat'; readonly steps: number; readonly levelBytes: number }
  | {
      readonly kind: 'grew';
      /** `allocated`: live tensors grew (a leak, accumulated outputs, longer inputs); `reserved` only: the cache grew (fragmentation). */
      readonly layer: 'allocated' | 'reserved';
      readonly fromBytes: number;
      readonly toBytes: number;
      readonly fromStep: number;
      readonly toStep: number;
      readonly bytesPerStep: number;
    };

function median(values: Float64Array): number {
  // A typed array sorts by value; a copy, so the columns keep their order.
  const sorted = Float64Array.from(values).sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Whether per-step peaks grew: the median of the last third of the steps (after warm-up) against the
 * median of the first third, for allocated and then reserved. Medians keep one long batch from
 * counting as growth.
 */
export function detectGrowth(peaks: readonly StepPeak[]): Growth {
  const columns = new GrowthColumns();
  for (const p of peaks) columns.push(p);
  return detectGrowthOf(columns);
}

/** detectGrowth over the columns of a run's per-step peaks (GrowthColumns, filled in step order). */
export function detectGrowthOf(columns: GrowthColumns): Growth {
  const count = columns.length - GROWTH_WARMUP_STEPS;
  if (count < GROWTH_MIN_STEPS) return { kind: 'too-few-steps', steps: columns.length };
  const third = Math.floor(count / 3);
  const early = GROWTH_WARMUP_STEPS;
  const late = columns.length - third;
  for (const layer of ['allocated', 'reserved'] as const) {
    const from = median(columns.values(layer, early, early + third));
    const to = median(columns.values(layer, late, late + third));
    if (to - from > Math.max(GROWTH_MIN_BYTES, GROWTH_MIN_FRACTION * from)) {
      const fromStep = columns.step(early + Math.floor(third / 2));
      const toStep = columns.step(late + Math.floor(third / 2));
      return {
        kind: 'grew',
        layer,
        fromBytes: from,
        toBytes: to,
        fromStep,
        toStep,
        bytesPerStep: (to - from) / Math.max(1, toStep - fromStep),
      };
    }
  }
  return {
    kind: 'flat',
    steps: columns.length,
    levelBytes: median(columns.values('allocated', late, late + third)),
  };
}

/** The memory between two layers at their peaks. */
export interface LayerGaps {
  /** Reserved − allocated: what PyTorch's caching allocator holds unused. */
  readonly cacheBytes: number | null;
  /** nvidia-smi (per process) − reserved: the CUDA context, NCCL and other non-PyTorch memory. */
  readonly nonTorchBytes: number | null;
}

/** Gaps between the layers' peaks (null where a layer is missing). */
export function layerGaps(run: RunRecord): LayerGaps {
  const a = run.peakAllocated?.bytes ?? null;
  const r = run.peakReserved?.bytes ?? null;
  const d = run.peakDevice?.bytes ?? null;
  return {
    cacheBytes: a !== null && r !== null ? r - a : null,
    nonTorchBytes: r !== null && d !== null ? d - r : null,
  };
}

/** How the run ended, in one line's worth of data. */
export interface Outcome {
  readonly status: RunRecord['status'];
  /** The OOM or exception the probe recorded last, if any. */
  readonly error: {
    readonly kind: 'oom' | 'exception';
    readonly type: string | null;
    readonly message: string;
    readonly step: number | null;
    readonly phase: string | null;
    readonly rank: number | null;
  } | null;
}

const firstLine = (text: string) => text.split('\n').find((l) => l.trim() !== '') ?? '';

/** The run's outcome: its status and the error that ended it (probe record first, else stderr's OOM text). */
export function runOutcome(run: RunRecord, events: readonly RunEvent[]): Outcome {
  const probeError = [...events].reverse().find((e) => e.kind === 'oom' || e.kind === 'exception');
  if (probeError) {
    return {
      status: run.status,
      error: {
        kind: probeError.kind as 'oom' | 'exception',
        type: typeof probeError.data.type === 'string' ? probeError.data.type : null,
        message: probeError.message ?? '',
        step: probeError.step,
        phase: probeError.phase,
        rank: probeError.rank,
      },
    };
  }
  const text = events.find((e) => e.kind === 'oom-text');
  if (text) {
    const oomLine =
      (text.message ?? '').trim() ||
      firstLine(String(text.data.text ?? '').replace(/^[\s\S]*\n(?=.*out of memory)/i, ''));
    return {
      status: run.status,
      error: { kind: 'oom', type: null, message: oomLine, step: run.lastStep, phase: null, rank: null },
    };
  }
  return { status: run.status, error: null };
}

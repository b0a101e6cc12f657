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
  const byStep = new Map<number, StepPeak>();
  for (const s of steps) {
    const seen = byStep.get(s.step);
    const allocated = s.peakAllocatedBytes ?? 0;
    const reserved = s.peakReservedBytes ?? 0;
    if (!seen) {
      byStep.set(s.step, {
        step: s.step,
        tMs: s.tMs,
        phase: s.phase,
        loss: s.rank === 0 ? s.loss : null,
        peakAllocatedBytes: allocated,
        peakReservedBytes: reserved,
      });
      continue;
    }
    byStep.set(s.step, {
      ...seen,
      loss: seen.loss ?? (s.rank === 0 ? s.loss : null),
      peakAllocatedBytes: Math.max(seen.peakAllocatedBytes, allocated),
      peakReservedBytes: Math.max(seen.peakReservedBytes, reserved),
    });
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Whether per-step peaks grew: the median of the last third of the steps (after warm-up) against the
 * median of the first third, for allocated and then reserved. Medians keep one long batch from
 * counting as growth.
 */
export function detectGrowth(peaks: readonly StepPeak[]): Growth {
  const steps = peaks.slice(GROWTH_WARMUP_STEPS);
  if (steps.length < GROWTH_MIN_STEPS) return { kind: 'too-few-steps', steps: peaks.length };
  const third = Math.floor(steps.length / 3);
  const early = steps.slice(0, third);
  const late = steps.slice(steps.length - third);
  for (const layer of ['allocated', 'reserved'] as const) {
    const value = (p: StepPeak) => (layer === 'allocated' ? p.peakAllocatedBytes : p.peakReservedBytes);
    const from = median(early.map(value));
    const to = median(late.map(value));
    if (to - from > Math.max(GROWTH_MIN_BYTES, GROWTH_MIN_FRACTION * from)) {
      const fromStep = early[Math.floor(early.length / 2)]!.step;
      const toStep = late[Math.floor(late.length / 2)]!.step;
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
  return { kind: 'flat', steps: peaks.length, levelBytes: median(late.map((p) => p.peakAllocatedBytes)) };
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

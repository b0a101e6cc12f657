/**
 * The one fit verdict. A run fits a GPU when what must be on the GPU at its peak stays within the GPU's
 * usable memory less a safety margin. `estimate`, `fit`, `plan`, `gpus --for`, `migrate`, the dashboard
 * and the diagnosis's remedies all judge "fits" here, with the same margin (default 10 %, `--headroom`).
 * The margin exists because real batches vary in length: a batch is padded to its longest sample, so
 * some steps need more memory than the typical one (and the allocator fragments over time).
 *
 * The verdict reads the estimate's upper bound (estimate/upper.ts), not its point: the nvidia-smi figure
 * the measured peak stays under on nine runs in ten of its kind of setup. A point that fits with an upper
 * that does not is "does not fit": an estimate too low is worse than one too high.
 */
import type { GpuSpec } from './catalog/gpu-spec.js';
import { fileError } from './file-errors.js';

/** Share of usable memory kept free by default. */
export const DEFAULT_MARGIN_FRACTION = 0.1;

export interface MemoryTarget {
  readonly gpu: string;
  readonly name: string;
  /** nvidia-smi memory.total of one GPU. */
  readonly usableBytes: number;
  readonly marginFraction: number;
  /** usableBytes × (1 − marginFraction): the most a step may use. */
  readonly budgetBytes: number;
}

/** What the verdict reads of an estimate: its peak and upper bound at nvidia-smi's level, and the paged optimizer states. */
export interface FitEvidence {
  readonly peak: { readonly deviceBytes: number };
  /**
   * The estimate's upper bound (Estimate.upper): the verdict judges what the card must hold at it,
   * nvidia-smi's level less the part of a padded run's climb the allocator gives back (upper.ts).
   */
  readonly upper: { readonly neededDeviceBytes: number };
  readonly breakdown: Readonly<Record<string, number>>;
}

/** An estimate against one GPU's memory, with the margin. */
export interface Fit {
  readonly gpu: string;
  /** nvidia-smi memory.total of one GPU. */
  readonly usableBytes: number;
  /** The share of usableBytes kept free. */
  readonly marginFraction: number;
  /** usableBytes × (1 − marginFraction): the most the peak may need. */
  readonly budgetBytes: number;
  /**
   * What must be on the GPU at the peak by the upper bound (requiredDeviceBytes): the figure judged
   * against the budget, the top of the range.
   */
  readonly requiredBytes: number;
  /** The same by the estimate's point figure: the bottom of the range (requiredDeviceBytes(e, 'point')). */
  readonly estimatedBytes: number;
  /** usable − what the GPU holds at the upper bound; 0 while paged optimizer states wait in host RAM. */
  readonly headroomBytes: number;
  /** requiredBytes (the upper bound) ≤ budgetBytes. */
  readonly ok: boolean;
  /**
   * Paged optimizer states that do not fit beside the rest: CUDA managed memory keeps them in host RAM
   * and pages them in for each optimizer step. Slower, not an out-of-memory error. 0 when all fit.
   */
  readonly pagedToHostBytes: number;
}

/** What a process can use on a GPU: nvidia-smi's memory.total (not the marketed size). */
export function usableBytes(gpu: GpuSpec): number {
  return gpu.memoryBytes ?? gpu.rocmSmi?.vramTotalBytes ?? gpu.memoryGiB * 1024 ** 3;
}

/**
 * The bytes that must be on the GPU at the peak: nvidia-smi's figure less the paged optimizer states, by
 * the upper bound (what the verdict judges) or by the point estimate (the bottom of the range).
 * bitsandbytes allocates paged states in CUDA managed memory, which moves them "from the GPU to the CPU
 * when GPU memory is exhausted" (bitsandbytes docs, optimizers) instead of failing: torchtune's
 * Llama 3.1 8B full fine-tune with PagedAdamW8bit runs on a 24 GB RTX 4090 although its 16 GB of
 * states and 16 GB of weights do not fit together (torchtune README, memory table). Compare this, not
 * deviceBytes, with a GPU's memory or a budget.
 */
export function requiredDeviceBytes(e: FitEvidence, at: 'upper' | 'point' = 'upper'): number {
  const device = at === 'upper' ? e.upper.neededDeviceBytes : e.peak.deviceBytes;
  return device - (e.breakdown.pagedOptimizerBytes ?? 0);
}

/** The target for a GPU with a margin (0 ≤ margin < 1). */
export function memoryTarget(gpu: GpuSpec, marginFraction: number = DEFAULT_MARGIN_FRACTION): MemoryTarget {
  return targetOf(gpu.id, gpu.name, usableBytes(gpu), marginFraction);
}

/** The target for a capacity known only in bytes (a card an OOM message describes, say). */
export function targetOf(
  gpu: string,
  name: string,
  usable: number,
  marginFraction: number = DEFAULT_MARGIN_FRACTION,
): MemoryTarget {
  return {
    gpu,
    name,
    usableBytes: usable,
    marginFraction,
    budgetBytes: Math.floor(usable * (1 - marginFraction)),
  };
}

/**
 * The verdict: whether the estimate fits the target, and how it sits in the GPU's memory.
 * @example fitVerdict(estimate({ scenario, shape, gpu }), memoryTarget(gpu)).ok
 */
export function fitVerdict(e: FitEvidence, target: MemoryTarget): Fit {
  const required = requiredDeviceBytes(e);
  const paged = e.breakdown.pagedOptimizerBytes ?? 0;
  // Managed memory pages states out only when the card itself is full, not at the margin.
  const pagedToHost = Math.min(paged, Math.max(0, e.upper.neededDeviceBytes - target.usableBytes));
  const held = e.upper.neededDeviceBytes - pagedToHost;
  return {
    gpu: target.gpu,
    usableBytes: target.usableBytes,
    marginFraction: target.marginFraction,
    budgetBytes: target.budgetBytes,
    requiredBytes: required,
    estimatedBytes: requiredDeviceBytes(e, 'point'),
    headroomBytes: target.usableBytes - held,
    ok: required <= target.budgetBytes,
    pagedToHostBytes: pagedToHost,
  };
}

/**
 * Parses a margin as written on a command line: "10%", "10" (percent) or "0.1" (a fraction).
 * @example parseMarginFraction('15%', '--headroom') // 0.15
 */
export function parseMarginFraction(text: string, flag: string): number {
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const n = Number(percent ? trimmed.slice(0, -1) : trimmed);
  const fraction = percent || n >= 1 ? n / 100 : n;
  if (trimmed === '' || !Number.isFinite(n) || fraction < 0 || fraction >= 0.9) {
    throw fileError(
      'flag-value',
      { flag, value: text, expected: 'margin', example: '10%' },
      flag,
      'bad-flag',
    );
  }
  return fraction;
}

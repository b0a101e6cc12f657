/**
 * The memory target a plan, a fit search or a capacity search aims at: the GPU's usable memory less a
 * safety margin. The margin exists because real batches vary in length: a batch is padded to its longest
 * sample, so some steps need more memory than the typical one (and the allocator fragments over time).
 */
import type { GpuSpec } from './catalog/gpu-spec.js';
import { HeadroomUserError } from './errors.js';
import { usableBytes } from './estimate.js';

/** Share of usable memory kept free by default. */
export const DEFAULT_MARGIN_FRACTION = 0.1;

/** Why the margin is there, in one line for the terminal. */
export const MARGIN_REASON =
  'real batches vary in length — each is padded to its longest sample — so some steps need more than the typical one';

export interface MemoryTarget {
  readonly gpu: string;
  readonly name: string;
  /** nvidia-smi memory.total of one GPU. */
  readonly usableBytes: number;
  readonly marginFraction: number;
  /** usableBytes × (1 − marginFraction): the most a step may use. */
  readonly budgetBytes: number;
}

/** The target for a GPU with a margin (0 ≤ margin < 1). */
export function memoryTarget(gpu: GpuSpec, marginFraction: number = DEFAULT_MARGIN_FRACTION): MemoryTarget {
  const usable = usableBytes(gpu);
  return {
    gpu: gpu.id,
    name: gpu.name,
    usableBytes: usable,
    marginFraction,
    budgetBytes: Math.floor(usable * (1 - marginFraction)),
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
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: flag,
      message: `${flag} ${text}: not a margin between 0 % and 90 %`,
      hint: `e.g. ${flag} 10%`,
    });
  }
  return fraction;
}

/**
 * The fit: the estimate's upper bound against the GPU's memory less the margin (margin.ts holds the one verdict),
 * and the paged optimizer states that do not fit, which wait in host RAM.
 */
import type { GpuSpec } from '../catalog/gpu-spec.js';
import { type Fit, fitVerdict, memoryTarget } from '../margin.js';
import { GPUS_PER_NODE } from './host.js';

/** The fit step: the verdict, and the host memory with the paged states that spill into it. */
export function fitOnGpu(
  deviceBytes: number,
  /** What the card must hold at the upper bound (UpperBound.neededDeviceBytes). */
  neededDeviceBytes: number,
  pagedOptimizerBytes: number,
  host: { readonly cpuBytes: number; readonly nvmeBytes: number } | null,
  gpu: GpuSpec,
  marginFraction: number | undefined,
  gpus: number,
): { readonly fits: Fit; readonly host: { readonly cpuBytes: number; readonly nvmeBytes: number } | null } {
  const fits = fitVerdict(
    { peak: { deviceBytes }, upper: { neededDeviceBytes }, breakdown: { pagedOptimizerBytes } },
    memoryTarget(gpu, marginFraction),
  );
  // Paged states that do not fit the GPU live in host RAM, each of the node's GPUs its own.
  const spilled = fits.pagedToHostBytes * Math.min(gpus, GPUS_PER_NODE);
  return {
    fits,
    host: spilled > 0 ? { cpuBytes: (host?.cpuBytes ?? 0) + spilled, nvmeBytes: host?.nvmeBytes ?? 0 } : host,
  };
}

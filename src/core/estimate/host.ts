/**
 * Host memory per node when anything is offloaded: the offloaded states in pinned buffers, NVMe's
 * staging copies of the gathered layers, and offloaded activations, for each of the node's GPUs.
 */
import type { OffloadPlacement } from '../sharding.js';

/** GPUs one node holds in this model (the DGX/HGX board); host memory is per node, so it counts that many. */
export const GPUS_PER_NODE = 8;
/** DeepSpeed's pinned host buffer factor (stage3.py additional_buffer_factor). */
const HOST_BUFFER_FACTOR = 1.5;

/** The host step, rounded to whole bytes; null when nothing is offloaded. */
export function hostMemory(
  placed: OffloadPlacement,
  gatheredBytes: number,
  offloadedActivationBytes: number,
  gpus: number,
): { readonly cpuBytes: number; readonly nvmeBytes: number } | null {
  const hostStates = placed.host.weights + placed.host.gradients + placed.host.optimizer;
  const nvmeStates = placed.nvme.weights + placed.nvme.gradients + placed.nvme.optimizer;
  if (hostStates + nvmeStates + offloadedActivationBytes <= 0) return null;
  // Each of the node's GPUs (at most GPUS_PER_NODE) brings its own share.
  const perNode = Math.min(gpus, GPUS_PER_NODE);
  return {
    cpuBytes: Math.round(
      perNode *
        (hostStates * HOST_BUFFER_FACTOR +
          (nvmeStates > 0 ? gatheredBytes * 2 : 0) +
          offloadedActivationBytes),
    ),
    nvmeBytes: Math.round(nvmeStates * perNode),
  };
}

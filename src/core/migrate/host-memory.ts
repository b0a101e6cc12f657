/**
 * Host memory, when anything is offloaded: optimizer states, parameters or activations wait in the
 * target's CPU RAM, pinned. Unknown without the target's environment file.
 */
import type { NoParams } from '../message.js';
import { type Check, only, outcome } from './check.js';

/**
 * Share of the host's RAM an offload may pin before it is a risk: torchtune's activation offloading
 * warns when more than 60 % of virtual memory is in use (`virtual_memory_safe_pct`).
 */
export const HOST_RAM_SAFE_FRACTION = 0.6;

export interface HostMemoryParams {
  /** The target's RAM is unknown (no environment file). */
  readonly 'host-unknown': { readonly needBytes: number };
  readonly 'host-fits': { readonly needBytes: number; readonly ramBytes: number };
  /** Past HOST_RAM_SAFE_FRACTION of the RAM: pinned pages cannot be swapped. */
  readonly 'host-tight': { readonly needBytes: number; readonly ramBytes: number };
  readonly 'host-over': { readonly needBytes: number; readonly ramBytes: number };
}

export interface HostMemoryActionParams {
  readonly 'capture-target-ram': NoParams;
  readonly 'offload-less-or-more-ram': NoParams;
  readonly 'fewer-workers': NoParams;
}

export const HOST_MEMORY: Check<'host-memory', HostMemoryParams, HostMemoryActionParams> = {
  id: 'host-memory',
  statuses: { 'host-unknown': 'unknown', 'host-fits': 'pass', 'host-tight': 'warn', 'host-over': 'fail' },
  run(ctx) {
    const needBytes = ctx.estimate.host?.cpuBytes ?? 0;
    if (!(needBytes > 0)) return only(null);
    const ramBytes = ctx.to.env?.host.memoryBytes;
    if (ramBytes === undefined || !(ramBytes > 0))
      return only(
        outcome(HOST_MEMORY, 'host-unknown', { needBytes }, { code: 'capture-target-ram', params: {} }),
      );
    if (needBytes > ramBytes)
      return only(
        outcome(
          HOST_MEMORY,
          'host-over',
          { needBytes, ramBytes },
          { code: 'offload-less-or-more-ram', params: {} },
        ),
      );
    if (needBytes > HOST_RAM_SAFE_FRACTION * ramBytes)
      return only(
        outcome(HOST_MEMORY, 'host-tight', { needBytes, ramBytes }, { code: 'fewer-workers', params: {} }),
      );
    return only(outcome(HOST_MEMORY, 'host-fits', { needBytes, ramBytes }));
  },
};

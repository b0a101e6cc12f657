/**
 * The allocator: what torch reserves above what it allocated. The caching allocator's reserve grows
 * with the bytes that churn (activations, temporaries); weights and optimizer states are allocated once
 * and pack well. docs/memory-model.md, "Reserved".
 */
import type { Scenario } from '../scenario.js';
import { MIB } from '../units.js';
import type { Phase } from './types.js';

/**
 * Share of the churning (transient) bytes that the caching allocator holds as unusable reserve.
 * MEMORY-MODEL.md gives reserved − allocated as 5–30 % in training; on the 91 H200 runs (bench/gpu) the
 * measured reserve was a median 11.4 % of the bytes this model calls churn.
 */
export const ALLOCATOR_FRAGMENTATION = 0.12;
/**
 * The same share with expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), measured:
 * twelve H200 runs, each run twice, kept a median 7.8 % of the churn above allocated with it (2–31 %)
 * where the default allocator kept 53 % (8–96 %); bench/gpu/results/expandable-*.jsonl.
 */
export const EXPANDABLE_SEGMENTS_FRAGMENTATION = 0.078;

/** The share of the churning bytes the allocator keeps as reserve, for the scenario's allocator setting. */
export function fragmentationShare(scenario: Pick<Scenario, 'expandableSegments'>): number {
  return scenario.expandableSegments ? EXPANDABLE_SEGMENTS_FRAGMENTATION : ALLOCATOR_FRAGMENTATION;
}
/**
 * The allocator's own slack inside torch reserved: blocks rounded up to 2 MiB, 2 MiB and 20 MiB segments
 * only partly used. The least reserve beyond allocated measured on the H200 was 184 MiB (row h200c-002).
 */
export const ALLOCATOR_BASE_RESERVE_BYTES = 64 * MIB;

/** What the allocator step reads: the peak and what of it is allocated once. */
export interface ReserveInput {
  readonly peakPhase: Phase;
  /** torch allocated at the peak. */
  readonly allocatedBytes: number;
  /** Weights on this GPU (all that loading holds besides its quantization transient). */
  readonly weightsBytes: number;
  /** What every phase after loading holds: states, the strategy's buffers, the workspaces. */
  readonly persistentBytes: number;
  /** The gradients at the peak that are allocated once: all of them at the optimizer step, else the accumulated ones. */
  readonly heldGradientBytes: number;
  /**
   * The phase's bytes were carved from one block reserved up front (transformers'
   * caching_allocator_warmup at load): nothing churns.
   */
  readonly oneBlock?: boolean;
}

/** The allocator step: the churn at the peak, its share, and torch reserved. */
export function allocatorReserve(
  input: ReserveInput,
  scenario: Pick<Scenario, 'expandableSegments'>,
): { readonly churnBytes: number; readonly share: number; readonly reservedBytes: number } {
  // Loading holds only the weights besides its quantization transient: the states, buckets and
  // workspaces come later.
  const churn = input.oneBlock
    ? 0
    : Math.max(
        0,
        input.peakPhase === 'load'
          ? input.allocatedBytes - input.weightsBytes
          : input.allocatedBytes - input.persistentBytes - input.heldGradientBytes,
      );
  const share = fragmentationShare(scenario);
  return {
    churnBytes: churn,
    share,
    reservedBytes: input.allocatedBytes + ALLOCATOR_BASE_RESERVE_BYTES + share * churn,
  };
}

/**
 * The allocator: what torch reserves above what it allocated. The caching allocator's reserve grows
 * with the bytes that churn (activations, temporaries); weights and optimizer states are allocated once
 * and pack well. With batches padded to their longest sample the reserve climbs further over the run,
 * by the term src/core/allocator's replay of the allocator gives (docs/allocator.md).
 * docs/memory-model.md, "Reserved".
 */
import type { Scenario } from '../scenario.js';
import { MIB } from '../units.js';
import type { StrategyTerms } from './strategy-terms.js';
import type { Phase, ReserveBasis } from './types.js';

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

/**
 * The reserve a run of padded batches (padding "longest") adds above the same run at its longest
 * length, its high-water over the run: α bytes per byte of the loss's tensors (the logits kept for
 * backward and their gradients, the largest tensors that come in a new size with every longer batch)
 * plus β per byte of the rest of the churn; with expandable segments, a share of the churn. Read off
 * PyTorch's caching allocator replayed (src/core/allocator: CUDACachingAllocator.cpp's rounding,
 * pools, best fit and splitting) over 108 simulated runs of 300 steps, 0.5B–8B decoders, three losses,
 * with and without checkpointing, lengths uniform and short-skewed up to the cap: least squares through
 * the origin, and the runs' 90th percentile with expandable segments (`npm run bench:allocator`, which
 * prints these figures beside the ones it reads; allocator.test.ts checks them against its stored runs).
 * The pressure factors are the same fit of what a card without room must still hold: each padded run
 * replayed under a memory limit, bisected to the least limit it completes under (the allocator releases
 * unsplit cached segments and retries before it fails, CUDACachingAllocator.cpp release_cached_blocks),
 * above the fixed run's reserve (FIXED_RESERVE, which now holds the loss's cached block) — a median 0 %
 * of the churn with the standard loss (p90 5.6 %) where the climb with room is 182 %. The fit is a mean:
 * 32 of the 108 runs need more than it says, 9.1 % of the churn more at their 90th percentile (26.4 %
 * at most), which the bound's measured ratios are
 * wider than. Not fitted to any measured row.
 */
export const RESERVE_GROWTH = {
  lossFactor: 2.104,
  layerFactor: 0.408,
  expandableShare: 0.064,
  pressureLossFactor: 0.0321,
  pressureLayerFactor: 0.0406,
  expandablePressureShare: 0,
} as const;

/**
 * The reserve a run at one fixed length holds above its allocated peak, by the same replay: α bytes per
 * byte of the loss's tensors plus β per byte of the rest of the churn, least squares through the origin
 * over the sweep's runs at their longest length (`npm run bench:allocator`; allocator.test.ts checks the
 * figures against its stored runs). With Hugging Face's loss (step-pattern.ts) the 16-bit logits' block
 * and the fp32 ones it is split from leave about one logits-sized block cached at the peak that no
 * tensor of the peak can use. The replay's layers lack the real kernels' temporaries (cuBLAS, SDPA,
 * autograd's own), so its β is far below what the H200 runs kept (ALLOCATOR_FRAGMENTATION, measured):
 * the estimator holds the larger of the two (fixedReserve). Not fitted to any measured row.
 */
export const FIXED_RESERVE = {
  lossFactor: 0.1728,
  layerFactor: 0.0034,
} as const;

/**
 * The reserve at an optimizer-step peak, per byte the step could have reused: torch's foreach AdamW
 * makes one parameter-sized temporary per tensor (torch/optim/adamw.py `_multi_tensor_adamw`:
 * `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`, torch 2.x) while the activation and
 * loss blocks backward freed sit in the cache. The allocator serves a request only from a cached block
 * at least as large (CUDACachingAllocator.cpp get_free_block, best fit), and most per-token activation
 * tensors are smaller than a weight matrix at fine-tuning lengths, so part of the temporaries take new
 * segments while that cache stays reserved; fp32 temporaries (the states of fp32 weights) are twice as
 * large, so fewer of them fit the cached blocks. k × min(the step's temporaries, the cache backward
 * left), k by the temporaries' element size: least squares through the origin over the full fine-tunes
 * of src/core/allocator/optimizer-sweep.ts whose peak is the optimizer step, bf16-true for the 16-bit
 * factor and bf16-mixed for the fp32 one, each replayed with AdamW's states made at its first step
 * (`npm run bench:optimizer-reserve` prints the fits; allocator.test.ts refits them). Not fitted to any
 * measured row.
 */
export const OPTIMIZER_STEP_RESERVE = { sixteenBit: 0.46, fp32: 0.747 } as const;

/** The step term's factor for temporaries of `elementBytes` bytes each (the optimizer states' dtype). */
export function stepReserveFactor(elementBytes: number): number {
  return elementBytes >= 4 ? OPTIMIZER_STEP_RESERVE.fp32 : OPTIMIZER_STEP_RESERVE.sixteenBit;
}

/**
 * The reserve at a training-step peak, per byte of optimizer state the first step carved out of the
 * cache: torch's optimizers make their states at the first step() (torch/optim/adamw.py `_init_group`:
 * `torch.zeros_like(p)` for exp_avg and exp_avg_sq while the state is empty), with the step's gradients
 * held and the blocks that forward and backward freed sitting in the cache. Best fit hands them those
 * blocks, split (CUDACachingAllocator.cpp get_free_block, should_split), so the next forward finds its
 * own sizes gone and takes new segments for them, while the rests of the split blocks stay reserved.
 * γ × min(the states on the GPU, the cache backward left), beyond the loss-block term: least squares
 * through the origin over the full fine-tunes of src/core/allocator/optimizer-sweep.ts whose peak is in
 * forward or backward (16-bit and fp32 weights pooled: apart they give 0.223 and 0.246), each replayed with the head's and embedding's gradients and AdamW's states
 * (`npm run bench:optimizer-reserve` prints the fit; allocator.test.ts refits it). States made before
 * training (DeepSpeed ZeRO's initialize_optimizer_states), paged or offloaded are not read. Not fitted
 * to any measured row.
 */
export const OPTIMIZER_STATES_RESERVE = 0.239;

/** What the optimizer step's temporaries could reuse of the cache backward left: the smaller of the two. */
export function stepReuseBytes(stepTempBytes: number, stepCacheBytes: number): number {
  return Math.max(0, Math.min(stepTempBytes, stepCacheBytes));
}

/** What the fixed-length reserve reads (fixedReserve). */
export interface FixedReserveInput {
  readonly peakPhase: Phase;
  /** The bytes that churn at the peak. */
  readonly churnBytes: number;
  /** The share of the churn the allocator keeps (fragmentationShare). */
  readonly share: number;
  /** The training step's loss tensors (reserveLossBytes); 0 with expandable segments. */
  readonly lossBytes: number;
  /** The optimizer step's temporaries (optimizerTempBytes). */
  readonly stepTempBytes: number;
  /** Bytes per element of those temporaries: the optimizer states' dtype (optimizerTempElementBytes). */
  readonly stepTempElementBytes: number;
  /** What backward leaves in the cache before the step (reserveStepCacheBytes); 0 with expandable segments. */
  readonly stepCacheBytes: number;
  /** The optimizer states the first step() makes on the GPU out of that cache (reserveStatesBytes); 0 when made before training. */
  readonly statesBytes: number;
}

/**
 * The reserve above allocated at one fixed length, beyond the allocator's base slack, and the term that
 * set it: the share of the churn, or the replay's terms where they say more. The loss's blocks
 * (FIXED_RESERVE) at a training-step peak, not at a load peak (no batch has run) nor at the optimizer
 * step, where they are part of the cache its temporaries may reuse; that reuse (OPTIMIZER_STEP_RESERVE)
 * at an optimizer-step peak only. At a training-step peak the states the first step carved out of the
 * cache (OPTIMIZER_STATES_RESERVE) add to the loss's block. With expandable segments the callers give no loss and no cache: pages
 * are mapped at the lowest free address, so freed blocks coalesce into ranges any later tensor can use.
 */
export function fixedReserve(input: FixedReserveInput): {
  readonly bytes: number;
  readonly basis: ReserveBasis;
} {
  const { peakPhase, churnBytes, share } = input;
  const atStep = peakPhase === 'optimizer-step';
  const loss = atStep || peakPhase === 'load' ? 0 : Math.min(Math.max(0, input.lossBytes), churnBytes);
  const byShare = share * churnBytes;
  const lossBlock = FIXED_RESERVE.lossFactor * loss + FIXED_RESERVE.layerFactor * (churnBytes - loss);
  // The states' carving at a training-step peak; at load no step has run, and at the optimizer step
  // the step's own term reads that cache.
  const carved =
    atStep || peakPhase === 'load'
      ? 0
      : OPTIMIZER_STATES_RESERVE * stepReuseBytes(input.statesBytes, input.stepCacheBytes);
  const byLoss = lossBlock + carved;
  const byStep = atStep
    ? stepReserveFactor(input.stepTempElementBytes) *
      stepReuseBytes(input.stepTempBytes, input.stepCacheBytes)
    : 0;
  if (byStep > byShare && byStep >= byLoss) return { bytes: byStep, basis: 'step-temporaries' };
  if (byLoss > byShare)
    return { bytes: byLoss, basis: carved > lossBlock ? 'optimizer-states' : 'loss-block' };
  return { bytes: byShare, basis: 'churn-share' };
}

/**
 * Reserved bytes in FSDP's communication streams' pools that the peak's tensors cannot use, beyond what
 * of them is allocated at the peak (why a side stream's blocks stay its own, with sources:
 * strategy-terms.ts). The sharded gradients' blocks wait in the reduce-scatter stream's pool from
 * zero_grad to the next backward, so a peak that does not hold them (forward and the start of backward
 * without accumulation, under no_sync accumulation, evaluation) has them reserved; the all-gather output
 * is reserved from the first forward on. None at load: no step has run. Not in the churn: the blocks
 * come back at the same sizes every step. Under memory pressure the allocator frees every stream's
 * cached blocks and retries (release_cached_blocks): the estimate counts them as max_memory_reserved and
 * nvidia-smi show them on a card with room.
 */
export function streamCacheBytes(
  phase: Phase,
  caches: Pick<StrategyTerms, 'streamGradientBytes' | 'streamGatherBytes'>,
  heldGradientBytes: number,
): number {
  if (phase === 'load') return 0;
  return caches.streamGatherBytes + Math.max(0, caches.streamGradientBytes - heldGradientBytes);
}

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
  /** The loss's tensors at the peak of a training step: the logits kept for backward and their gradients. */
  readonly lossBytes: number;
  /** The optimizer step's temporaries (foreach kernels); read at an optimizer-step peak. */
  readonly stepTempBytes?: number;
  /** Bytes per element of those temporaries (FixedReserveInput.stepTempElementBytes). */
  readonly stepTempElementBytes?: number;
  /** What backward leaves in the cache before the step: saved activations, the loss's tensors, its transient. */
  readonly stepCacheBytes?: number;
  /** The optimizer states made at the first step() on the GPU (FixedReserveInput.statesBytes). */
  readonly statesBytes?: number;
  /** Reserved in FSDP's communication streams' pools and not allocated at the peak (streamCacheBytes). */
  readonly streamCacheBytes?: number;
}

/**
 * The reserve padded batches add over a run (RESERVE_GROWTH), in bytes: none for fixed-length or packed
 * batches, nor at a load peak (no batch has run yet). `room`: on a card with room for the climb (what
 * max_memory_reserved and nvidia-smi then show); else what a card with none must hold of it, since the
 * allocator gives back its unsplit cached segments and retries before it fails (release_cached_blocks).
 * With expandable segments, a share of the churn either way.
 */
export function reserveGrowthBytes(
  input: Pick<ReserveInput, 'peakPhase' | 'lossBytes'>,
  churnBytes: number,
  scenario: Pick<Scenario, 'expandableSegments' | 'padding'>,
  room = true,
): number {
  if (scenario.padding !== 'longest' || input.peakPhase === 'load') return 0;
  if (scenario.expandableSegments)
    return (room ? RESERVE_GROWTH.expandableShare : RESERVE_GROWTH.expandablePressureShare) * churnBytes;
  const loss = Math.min(input.lossBytes, churnBytes);
  return room
    ? RESERVE_GROWTH.lossFactor * loss + RESERVE_GROWTH.layerFactor * (churnBytes - loss)
    : RESERVE_GROWTH.pressureLossFactor * loss + RESERVE_GROWTH.pressureLayerFactor * (churnBytes - loss);
}

/**
 * The allocator step: the churn at the peak, its share, and torch reserved. The growth padded batches
 * may add over a run is returned beside it, not in it: it is the climb of batches that reach the cap
 * again and again, and real data mostly does not (Alpaca and MetaMathQA samples are far shorter than
 * their caps, and trainers empty the cache: the measured padded rows are 6–7 % over without it and
 * 32 % over with it). Most of the climb is cache the allocator gives back when a card runs short; what
 * a full card must still hold of it (`needBytes`) is in the estimate's `upper`, so "fits" never rests
 * on the data being kind, nor says no for cache that would be given back.
 */
export function allocatorReserve(
  input: ReserveInput,
  scenario: Pick<Scenario, 'expandableSegments' | 'padding'>,
): {
  readonly churnBytes: number;
  readonly share: number;
  /** The loss's tensors fixedReserve was given; 0 with expandable segments. */
  readonly lossBytes: number;
  /** The cache backward leaves before the optimizer step, as fixedReserve was given it; 0 with expandable segments. */
  readonly stepCacheBytes: number;
  /** The optimizer states fixedReserve was given; 0 with expandable segments. */
  readonly statesBytes: number;
  /** The term that set the reserve above allocated (fixedReserve). */
  readonly basis: ReserveBasis;
  /** FSDP's communication streams' cached blocks, in reserved beside the reserve (streamCacheBytes). */
  readonly streamCacheBytes: number;
  readonly growthBytes: number;
  readonly needBytes: number;
  readonly reservedBytes: number;
} {
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
  const loss = scenario.expandableSegments ? 0 : Math.max(0, input.lossBytes);
  const stepCache = scenario.expandableSegments ? 0 : Math.max(0, input.stepCacheBytes ?? 0);
  const states = scenario.expandableSegments ? 0 : Math.max(0, input.statesBytes ?? 0);
  const growth = reserveGrowthBytes(input, churn, scenario);
  const fixed = fixedReserve({
    peakPhase: input.peakPhase,
    churnBytes: churn,
    share,
    lossBytes: loss,
    stepTempBytes: input.stepTempBytes ?? 0,
    stepTempElementBytes: input.stepTempElementBytes ?? 2,
    stepCacheBytes: stepCache,
    statesBytes: states,
  });
  const streams = Math.max(0, input.streamCacheBytes ?? 0);
  return {
    churnBytes: churn,
    share,
    lossBytes: loss,
    stepCacheBytes: stepCache,
    statesBytes: states,
    basis: fixed.basis,
    streamCacheBytes: streams,
    growthBytes: growth,
    needBytes: Math.min(growth, reserveGrowthBytes(input, churn, scenario, false)),
    reservedBytes: input.allocatedBytes + ALLOCATOR_BASE_RESERVE_BYTES + fixed.bytes + streams,
  };
}

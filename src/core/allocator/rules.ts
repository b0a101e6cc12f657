/**
 * PyTorch's CUDA caching allocator, its sizing rules: how a request is rounded, which pool serves it,
 * how large a segment a miss asks cudaMalloc for, and when a cached block is split. Transcribed from
 * c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch main at commit 001074d2, the torch 2.x allocator;
 * the constants and these functions are unchanged since torch 2.1): kMinBlockSize, kSmallSize,
 * kSmallBuffer, kLargeBuffer, kMinLargeAlloc, kRoundLarge, round_size, get_pool,
 * get_allocation_size, should_split, and get_free_block's max_split_size rules. docs/allocator.md.
 */
import { MIB } from '../units.js';

/** "all sizes are rounded to at least 512 bytes" (kMinBlockSize). */
export const MIN_BLOCK_SIZE = 512;
/** "largest 'small' allocation is 1 MiB" (kSmallSize): requests up to it go to the small pool. */
export const SMALL_SIZE = MIB;
/** "'small' allocations are packed in 2 MiB blocks" (kSmallBuffer); also the small pool's page under expandable segments. */
export const SMALL_BUFFER = 2 * MIB;
/** "'large' allocations may be packed in 20 MiB blocks" (kLargeBuffer); the large pool's page under expandable segments. */
export const LARGE_BUFFER = 20 * MIB;
/** "allocations between 1 and 10 MiB may use kLargeBuffer" (kMinLargeAlloc). */
export const MIN_LARGE_ALLOC = 10 * MIB;
/** "round up large allocations to 2 MiB" (kRoundLarge). */
export const ROUND_LARGE = 2 * MIB;

/** The allocator's settings that change its decisions (PYTORCH_CUDA_ALLOC_CONF). */
export interface AllocatorConfig {
  /** expandable_segments:True: one segment per pool that grows by pages. */
  readonly expandableSegments: boolean;
  /** max_split_size_mb: blocks this large are never split; default unlimited (SIZE_MAX). */
  readonly maxSplitSize: number;
}

export const DEFAULT_ALLOCATOR_CONFIG: AllocatorConfig = {
  expandableSegments: false,
  maxSplitSize: Number.POSITIVE_INFINITY,
};

/** round_size without roundup_power2_divisions (the default): a multiple of 512 bytes, at least 512. */
export function roundSize(bytes: number): number {
  if (bytes < MIN_BLOCK_SIZE) return MIN_BLOCK_SIZE;
  return MIN_BLOCK_SIZE * Math.ceil(bytes / MIN_BLOCK_SIZE);
}

/** get_pool: a rounded size up to 1 MiB is served by the small pool. */
export function isSmall(roundedBytes: number): boolean {
  return roundedBytes <= SMALL_SIZE;
}

/** get_allocation_size: the segment a miss asks cudaMalloc for. */
export function allocationSize(roundedBytes: number): number {
  if (roundedBytes <= SMALL_SIZE) return SMALL_BUFFER;
  if (roundedBytes < MIN_LARGE_ALLOC) return LARGE_BUFFER;
  return ROUND_LARGE * Math.ceil(roundedBytes / ROUND_LARGE);
}

/**
 * should_split: whether the rest of a cached block is cut off as a free block. In the small pool and
 * under expandable segments any rest of 512 bytes or more; in the large pool only a rest over 1 MiB,
 * and never for a request of max_split_size or more.
 */
export function shouldSplit(
  blockBytes: number,
  roundedBytes: number,
  small: boolean,
  config: AllocatorConfig,
): boolean {
  const remaining = blockBytes - roundedBytes;
  if (small || config.expandableSegments) return remaining >= MIN_BLOCK_SIZE;
  return roundedBytes < config.maxSplitSize && remaining > SMALL_SIZE;
}

/**
 * get_free_block's two oversize rules: a request under max_split_size takes no block of
 * max_split_size or more, and a larger request takes no block more than 20 MiB above it.
 */
export function oversizeRefused(blockBytes: number, roundedBytes: number, config: AllocatorConfig): boolean {
  const max = config.maxSplitSize;
  if (roundedBytes < max && blockBytes >= max) return true;
  return roundedBytes >= max && blockBytes >= roundedBytes + LARGE_BUFFER;
}

/**
 * A replay of PyTorch's CUDA caching allocator (DeviceCachingAllocator in
 * c10/cuda/CUDACachingAllocator.cpp, pytorch/pytorch main at 001074d2, the torch 2.x allocator), one
 * stream, no CUDA graphs: the small and large pools, segments from cudaMalloc, best-fit over the cached
 * free blocks (ordered by size, then address), splitting by should_split, coalescing a freed block with
 * its free neighbours, and on a miss a new segment of get_allocation_size bytes; with a memory limit, a
 * miss that does not fit releases the unsplit cached segments and retries (release_cached_blocks), as
 * malloc does. With expandable segments each pool is one segment of address space that maps pages
 * (2 MiB small, 20 MiB large) at its lowest free address as it grows (find_expandable_block, map_block)
 * and unmaps whole free pages when released (unmap_block). Pure: sizes in, statistics out.
 * docs/allocator.md.
 */
import {
  type AllocatorConfig,
  allocationSize,
  DEFAULT_ALLOCATOR_CONFIG,
  isSmall,
  LARGE_BUFFER,
  oversizeRefused,
  roundSize,
  SMALL_BUFFER,
  shouldSplit,
} from './rules.js';

interface Segment {
  readonly base: number;
  /** The page of an expandable segment; 0 for a cudaMalloc segment. */
  readonly page: number;
}

interface Block {
  ptr: number;
  size: number;
  requested: number;
  allocated: boolean;
  mapped: boolean;
  prev: Block | null;
  next: Block | null;
  readonly pool: Pool;
  readonly segment: Segment;
}

interface Pool {
  readonly small: boolean;
  /** Cached free mapped blocks, by size then address (BlockComparatorSize). */
  readonly free: Block[];
  /** Unmapped address ranges of expandable segments, by address (BlockComparatorAddress). */
  readonly unmapped: Block[];
}

/** What the allocator has held: torch's allocated, requested and reserved bytes, now and at their peaks. */
export interface AllocatorStats {
  /** memory_allocated: the sizes of the blocks handed out (rounded, and unsplit rests included). */
  readonly allocatedBytes: number;
  readonly peakAllocatedBytes: number;
  /** The bytes the program asked for. */
  readonly requestedBytes: number;
  readonly peakRequestedBytes: number;
  /** memory_reserved: the segments from cudaMalloc, or the mapped pages of expandable segments. */
  readonly reservedBytes: number;
  readonly peakReservedBytes: number;
  /** cudaMalloc calls and page mappings (num_device_alloc). */
  readonly deviceAllocs: number;
}

/** A request the allocator could not place under its memory limit, even after releasing its cache. */
export class AllocatorOutOfMemory extends Error {
  constructor(readonly requestedBytes: number) {
    super(`allocator simulation: out of memory allocating ${requestedBytes} bytes`);
  }
}

/** An allocation handed out by `malloc`, to give back to `free`. */
export type Allocation = { readonly __allocation: unique symbol };

const bySize = (a: Block, size: number, ptr: number): boolean =>
  a.size < size || (a.size === size && a.ptr < ptr);

function lowerBound(list: readonly Block[], size: number, ptr: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bySize(list[mid]!, size, ptr)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertFree(pool: Pool, block: Block): void {
  pool.free.splice(lowerBound(pool.free, block.size, block.ptr), 0, block);
}

function removeFree(pool: Pool, block: Block): void {
  const at = lowerBound(pool.free, block.size, block.ptr);
  if (pool.free[at] !== block) throw new Error('allocator simulation: free list out of order');
  pool.free.splice(at, 1);
}

function insertUnmapped(pool: Pool, block: Block): void {
  let at = 0;
  while (at < pool.unmapped.length && pool.unmapped[at]!.ptr < block.ptr) at++;
  pool.unmapped.splice(at, 0, block);
}

function removeUnmapped(pool: Pool, block: Block): void {
  const at = pool.unmapped.indexOf(block);
  if (at < 0) throw new Error('allocator simulation: unmapped list out of order');
  pool.unmapped.splice(at, 1);
}

/** Where each new segment's address space starts: far apart, so no two segments touch. */
const SEGMENT_STRIDE = 2 ** 44;

export class CachingAllocatorSim {
  private readonly config: AllocatorConfig;
  private readonly limitBytes: number;
  private readonly smallPool: Pool = { small: true, free: [], unmapped: [] };
  private readonly largePool: Pool = { small: false, free: [], unmapped: [] };
  private nextBase = SEGMENT_STRIDE;
  private allocated = 0;
  private peakAllocated = 0;
  private requested = 0;
  private peakRequested = 0;
  private reserved = 0;
  private peakReserved = 0;
  private deviceAllocs = 0;

  /** `limitBytes`: what the GPU lets the allocator reserve; unlimited by default. */
  constructor(config: Partial<AllocatorConfig> = {}, limitBytes = Number.POSITIVE_INFINITY) {
    this.config = { ...DEFAULT_ALLOCATOR_CONFIG, ...config };
    this.limitBytes = limitBytes;
  }

  stats(): AllocatorStats {
    return {
      allocatedBytes: this.allocated,
      peakAllocatedBytes: this.peakAllocated,
      requestedBytes: this.requested,
      peakRequestedBytes: this.peakRequested,
      reservedBytes: this.reserved,
      peakReservedBytes: this.peakReserved,
      deviceAllocs: this.deviceAllocs,
    };
  }

  /** reset_peak_memory_stats: the peaks start again from what is held now. */
  resetPeaks(): void {
    this.peakAllocated = this.allocated;
    this.peakRequested = this.requested;
    this.peakReserved = this.reserved;
  }

  malloc(bytes: number): Allocation {
    const size = roundSize(bytes);
    const small = isSmall(size);
    const pool = small ? this.smallPool : this.largePool;
    let block = this.getFreeBlock(pool, size);
    if (!block) {
      block = this.allocBlock(pool, size);
      if (!block) {
        this.emptyCache();
        block = this.allocBlock(pool, size);
      }
      if (!block) throw new AllocatorOutOfMemory(bytes);
    }
    if (shouldSplit(block.size, size, small, this.config)) {
      const head: Block = {
        ptr: block.ptr,
        size,
        requested: 0,
        allocated: false,
        mapped: true,
        prev: block.prev,
        next: block,
        pool,
        segment: block.segment,
      };
      if (head.prev) head.prev.next = head;
      block.prev = head;
      block.ptr += size;
      block.size -= size;
      insertFree(pool, block);
      block = head;
    }
    block.allocated = true;
    block.requested = bytes;
    this.allocated += block.size;
    this.requested += bytes;
    if (this.allocated > this.peakAllocated) this.peakAllocated = this.allocated;
    if (this.requested > this.peakRequested) this.peakRequested = this.requested;
    return block as unknown as Allocation;
  }

  free(allocation: Allocation): void {
    const block = allocation as unknown as Block;
    if (!block.allocated) throw new Error('allocator simulation: double free');
    block.allocated = false;
    this.allocated -= block.size;
    this.requested -= block.requested;
    block.requested = 0;
    this.tryMerge(block, block.prev);
    this.tryMerge(block, block.next);
    insertFree(block.pool, block);
  }

  /** torch.cuda.empty_cache (release_cached_blocks): unsplit cached segments go back, free pages are unmapped. */
  emptyCache(): void {
    for (const pool of [this.largePool, this.smallPool]) {
      for (const block of [...pool.free]) {
        if (block.segment.page > 0) this.unmapBlock(block);
        else if (!block.prev && !block.next) {
          removeFree(pool, block);
          this.reserved -= block.size;
        }
      }
    }
  }

  /** get_free_block: the smallest cached block that holds the request, and the oversize rules. */
  private getFreeBlock(pool: Pool, size: number): Block | null {
    let at = lowerBound(pool.free, size, Number.NEGATIVE_INFINITY);
    if (at >= pool.free.length) return null;
    if (this.config.expandableSegments) {
      // A block at the edge of the unmapped space counts as the size it can grow to.
      const reach = (b: Block): number => b.size + (b.next && !b.next.mapped ? b.next.size : 0);
      while (
        pool.free[at]!.segment.page > 0 &&
        at + 1 < pool.free.length &&
        reach(pool.free[at + 1]!) < reach(pool.free[at]!)
      )
        at++;
    }
    const block = pool.free[at]!;
    if (oversizeRefused(block.size, size, this.config)) return null;
    pool.free.splice(at, 1);
    return block;
  }

  /** alloc_block: a new segment (cudaMalloc), or more pages of the pool's expandable segment. */
  private allocBlock(pool: Pool, size: number): Block | null {
    if (this.config.expandableSegments) return this.allocExpandable(pool, size);
    const bytes = allocationSize(size);
    if (this.reserved + bytes > this.limitBytes) return null;
    this.reserved += bytes;
    if (this.reserved > this.peakReserved) this.peakReserved = this.reserved;
    this.deviceAllocs++;
    const segment: Segment = { base: this.nextBase, page: 0 };
    this.nextBase += SEGMENT_STRIDE;
    return {
      ptr: segment.base,
      size: bytes,
      requested: 0,
      allocated: false,
      mapped: true,
      prev: null,
      next: null,
      pool,
      segment,
    };
  }

  /** try_allocate_expandable_block: map pages from the lowest address that has room, merging as it goes. */
  private allocExpandable(pool: Pool, size: number): Block | null {
    let candidate = this.findExpandableBlock(pool, size);
    // An unmapped range gets its first pages (and merges with the free block before it); a free block
    // before the unmapped range stays cached until the pages after it merge into it.
    if (!candidate.mapped && !this.mapBlock(candidate, Math.min(candidate.size, size))) return null;
    while (candidate.size < size) {
      const next = candidate.next!;
      if (!this.mapBlock(next, Math.min(size - candidate.size, next.size))) return null;
      candidate = next;
    }
    removeFree(pool, candidate);
    return candidate;
  }

  /** find_expandable_block: the lowest unmapped range (with the free block before it) with room for `size`. */
  private findExpandableBlock(pool: Pool, size: number): Block {
    const allocatable = (b: Block | null): b is Block => b !== null && !b.allocated;
    for (const unmapped of pool.unmapped) {
      let c = unmapped;
      if (allocatable(c.prev)) c = c.prev;
      let bytes = 0;
      for (let b: Block | null = c; bytes < size && allocatable(b); b = b.next) bytes += b.size;
      if (bytes >= size) return c;
    }
    const page = pool.small ? SMALL_BUFFER : LARGE_BUFFER;
    const segment: Segment = { base: this.nextBase, page };
    this.nextBase += SEGMENT_STRIDE;
    const space: Block = {
      ptr: segment.base,
      // Address space a whole number of pages long (torch reserves 1⅛ of the GPU's memory).
      size: page * Math.floor(SEGMENT_STRIDE / 2 / page),
      requested: 0,
      allocated: false,
      mapped: false,
      prev: null,
      next: null,
      pool,
      segment,
    };
    insertUnmapped(pool, space);
    return space;
  }

  /** map_block: back the first pages of an unmapped range, then merge it with its free neighbours. */
  private mapBlock(toMap: Block, size: number): boolean {
    const page = toMap.segment.page;
    const mapped = Math.min(toMap.size, page * Math.ceil(size / page));
    if (this.reserved + mapped > this.limitBytes) return false;
    removeUnmapped(toMap.pool, toMap);
    toMap.mapped = true;
    if (mapped < toMap.size) {
      const rest: Block = {
        ptr: toMap.ptr + mapped,
        size: toMap.size - mapped,
        requested: 0,
        allocated: false,
        mapped: false,
        prev: toMap,
        next: toMap.next,
        pool: toMap.pool,
        segment: toMap.segment,
      };
      if (rest.next) rest.next.prev = rest;
      toMap.next = rest;
      toMap.size = mapped;
      insertUnmapped(toMap.pool, rest);
    }
    this.tryMerge(toMap, toMap.prev);
    this.tryMerge(toMap, toMap.next);
    insertFree(toMap.pool, toMap);
    this.reserved += mapped;
    if (this.reserved > this.peakReserved) this.peakReserved = this.reserved;
    this.deviceAllocs++;
    return true;
  }

  /** unmap_block: give back the whole pages inside a free block of an expandable segment. */
  private unmapBlock(block: Block): void {
    const { base, page } = block.segment;
    const begin = base + page * Math.ceil((block.ptr - base) / page);
    const end = base + page * Math.floor((block.ptr + block.size - base) / page);
    if (begin >= end) return;
    const pool = block.pool;
    removeFree(pool, block);
    const piece = (ptr: number, size: number, prev: Block | null, next: Block | null): Block => {
      const b: Block = {
        ptr,
        size,
        requested: 0,
        allocated: false,
        mapped: true,
        prev,
        next,
        pool,
        segment: block.segment,
      };
      if (prev) prev.next = b;
      if (next) next.prev = b;
      insertFree(pool, b);
      return b;
    };
    if (begin > block.ptr) piece(block.ptr, begin - block.ptr, block.prev, block);
    if (block.ptr + block.size > end) piece(end, block.ptr + block.size - end, block, block.next);
    block.ptr = begin;
    block.size = end - begin;
    block.mapped = false;
    this.tryMerge(block, block.prev);
    this.tryMerge(block, block.next);
    insertUnmapped(pool, block);
    this.reserved -= end - begin;
  }

  /** try_merge_blocks: absorb a free neighbour of the same mapping into `dst` (which is in no list). */
  private tryMerge(dst: Block, src: Block | null): void {
    if (!src || src.allocated || src.mapped !== dst.mapped) return;
    if (src.mapped) removeFree(src.pool, src);
    else removeUnmapped(src.pool, src);
    if (dst.prev === src) {
      dst.ptr = src.ptr;
      dst.prev = src.prev;
      if (dst.prev) dst.prev.next = dst;
    } else {
      dst.next = src.next;
      if (dst.next) dst.next.prev = dst;
    }
    dst.size += src.size;
  }
}

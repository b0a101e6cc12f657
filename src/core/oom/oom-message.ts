/**
 * What an out-of-memory message says, with exactly the names and units of the `expected` objects in
 * data/validation/oom_corpus.jsonl (README "oom_corpus.jsonl"): byte fields are the printed number
 * times its binary unit, rounded; null where the text does not say.
 */

/** The message families of data/docs/MONITORING.md §A7, plus `not-oom` (a look-alike) and `none`. */
export type OomFamily =
  | 'torch-v1'
  | 'torch-v2'
  | 'cuda-runtime'
  | 'nccl'
  | 'xla'
  | 'tensorflow'
  | 'bitsandbytes'
  | 'host-oom'
  | 'not-oom'
  | 'none';

/** Families that mean memory really ran out (device or host). */
export const OOM_FAMILIES: readonly OomFamily[] = [
  'torch-v1',
  'torch-v2',
  'cuda-runtime',
  'nccl',
  'xla',
  'tensorflow',
  'bitsandbytes',
  'host-oom',
];

/** A `Process {pid} has {X} memory in use` clause of a PyTorch 2.x message. */
export interface OomProcess {
  readonly pid: number;
  readonly bytes: number;
}

/** The corpus's `expected` object. Optional fields appear only when the message carries them. */
export interface OomMessage {
  readonly family: OomFamily;
  /** "Tried to allocate X" (or the family's equivalent); null for "more than 1EB" and numberless messages. */
  readonly requestedBytes: number | null;
  /** The card's total capacity as the allocator saw it (cudaMemGetInfo). */
  readonly totalBytes: number | null;
  /** Free device memory reported by CUDA at the failure. */
  readonly freeBytes: number | null;
  /** Bytes held by PyTorch tensors ("already allocated" in 1.x, "allocated by PyTorch" in 2.x). */
  readonly allocatedByTorchBytes: number | null;
  /** 2.x: reserved by PyTorch but unallocated (cached blocks that could not be released). */
  readonly reservedUnallocatedBytes: number | null;
  /** 1.x: "reserved in total by PyTorch", or the oldest layout's "cached". */
  readonly reservedTotalBytes: number | null;
  readonly gpuIndex: number | null;
  /** Other processes NVML listed on the card; null when the message names none. */
  readonly processes: readonly OomProcess[] | null;
  /** "Including non-PyTorch memory, this process has X memory in use". */
  readonly thisProcessInUseBytes?: number;
  /** "with X allocated in private pools (e.g., CUDA Graphs)". */
  readonly privatePoolsBytes?: number;
  /** "X allowed;" — the cap set by torch.cuda.set_per_process_memory_fraction. */
  readonly allowedBytes?: number;
}

/** Which allocator printed a PyTorch message. */
export type OomBackend = 'cuda' | 'hip' | 'xpu' | 'mps' | 'other';

/**
 * Which layout printed the figures: PyTorch ≤1.4 "cached" (the cached-but-free bytes), 1.5–2.0 "reserved in
 * total", the 2.x sentences, the cudaMallocAsync table, MPS; null for other families.
 */
export type OomLayout = 'v1-cached' | 'v1-reserved' | 'v2' | 'async' | 'mps' | null;

/** One OOM message found in a text, with where it was and what surrounds it. */
export interface OomMatch {
  readonly oom: OomMessage;
  /** The message as printed (one line, whitespace collapsed), for quoting as evidence. */
  readonly quote: string;
  /** 0-based line of the normalized text where the message starts. */
  readonly line: number;
  /** Rank tag of that line (`[rank3]:`, `3: `), null when untagged. */
  readonly rank: number | null;
  readonly backend: OomBackend | null;
  readonly layout: OomLayout;
  /** The request was printed as "more than 1EB memory": a corrupted size, not memory pressure. */
  readonly requestUnbounded: boolean;
  /** Words of the message that name the family ("CUDA out of memory", "RESOURCE_EXHAUSTED", ...). */
  readonly signature: string;
}

/**
 * Reserved-but-unallocated bytes at the failure, whatever the layout: 2.x prints them; 1.5–2.0 print the
 * reserved total (minus allocated); ≤1.4's "cached" is already the free part of the cache. Null when unknown.
 */
export function cachedFreeBytes(match: Pick<OomMatch, 'oom' | 'layout'>): number | null {
  const o = match.oom;
  if (o.reservedUnallocatedBytes !== null) return o.reservedUnallocatedBytes;
  if (o.reservedTotalBytes === null) return null;
  if (match.layout === 'v1-cached') return o.reservedTotalBytes;
  if (o.allocatedByTorchBytes === null) return null;
  return Math.max(0, o.reservedTotalBytes - o.allocatedByTorchBytes);
}

/** The message of a text with no OOM message in it, or of a given family with nothing extracted. */
export function emptyOom(family: OomFamily = 'none'): OomMessage {
  return {
    family,
    requestedBytes: null,
    totalBytes: null,
    freeBytes: null,
    allocatedByTorchBytes: null,
    reservedUnallocatedBytes: null,
    reservedTotalBytes: null,
    gpuIndex: null,
    processes: null,
  };
}

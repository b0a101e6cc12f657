/**
 * What an allocator message's figures say about the phase: whose memory fills the card (this process,
 * the other processes NVML listed, memory no listed process accounts for) and what PyTorch's own
 * figures look like at the failure (nothing allocated yet, a cache that could not be reused, one giant
 * request, a full card). Each rule returns the reason it fired; thresholds are ours, each with its
 * mechanism (data/docs/MONITORING.md §A7 and "Rules the corpus suggests" 1, 5, 6 and 8).
 */
import { GIB, MIB } from '../units.js';
import { cachedFreeBytes, type OomMatch, type OomProcess } from './oom-message.js';

/** A process NVML lists at or under this size is a CUDA context (another rank's), not a job of its own. */
export const RANK_CONTEXT_MAX_BYTES = 1.5 * GIB;
/**
 * What this process may hold beyond PyTorch's own reserve: its CUDA context (0.3–1 GiB), cuBLAS/cuDNN
 * workspaces, NCCL buffers, libraries with their own allocations. The corpus's largest is 3.9 GiB
 * (lerf #73); a "Process N" exceeding PyTorch's reserve by more than this is not this process.
 */
export const OWN_NON_TORCH_MAX_BYTES = 4 * GIB;
/** The message prints sizes with two decimals: "this process" may read a little under PyTorch's reserve. */
export const OWN_SIZE_TOLERANCE_BYTES = 64 * MIB;
/** Memory no process accounts for counts from this much and this share of the card (environment rules too). */
export const UNACCOUNTED_MIN_BYTES = GIB;
export const UNACCOUNTED_SHARE = 0.1;
/** Other processes holding this share of the card (or more than this process) are why it is full. */
export const FOREIGN_CARD_SHARE = 0.25;

/**
 * What PyTorch holds on the card: allocated plus reserved-but-unallocated (2.x), the reserved total
 * (1.5–2.0), or allocated plus the free cache (≤1.4 "cached"). Null when the message does not say.
 */
export function torchHeldBytes(match: Pick<OomMatch, 'oom' | 'layout'>): number | null {
  const o = match.oom;
  if (o.reservedTotalBytes !== null)
    return o.reservedTotalBytes + (match.layout === 'v1-cached' ? (o.allocatedByTorchBytes ?? 0) : 0);
  if (o.allocatedByTorchBytes !== null && o.reservedUnallocatedBytes !== null)
    return o.allocatedByTorchBytes + o.reservedUnallocatedBytes;
  return null;
}

export interface ProcessReading {
  /** The "Process N" line that is this process (a container's PID namespace), when one is. */
  readonly own: OomProcess | null;
  /** The processes that are not this one. */
  readonly foreign: readonly OomProcess[];
  /** What this process holds: its "this process" line, its own "Process N" line, or PyTorch's reserve. */
  readonly ownBytes: number | null;
}

/**
 * Which listed process is this one. PyTorch prints "this process" when NVML's PID is its own, and
 * "Process N" otherwise — also for itself inside a container, where NVML reports host PIDs (kaito
 * #976, pytorch #152135). Without a "this process" line, this process is the listed one whose size
 * covers PyTorch's reserve plus at most OWN_NON_TORCH_MAX_BYTES; a "Process N" that dwarfs what
 * PyTorch holds is another program. When PyTorch's figures are cut off, one line is taken as this
 * process (the container trap is the common case) and of several, the largest.
 */
export function readProcesses(match: Pick<OomMatch, 'oom' | 'layout'>): ProcessReading {
  const o = match.oom;
  const list = o.processes ?? [];
  const held = torchHeldBytes(match);
  if (o.thisProcessInUseBytes !== undefined)
    return { own: null, foreign: list, ownBytes: o.thisProcessInUseBytes };
  if (list.length === 0) return { own: null, foreign: [], ownBytes: held };
  let own: OomProcess | null = null;
  if (held === null) own = [...list].sort((a, b) => b.bytes - a.bytes)[0]!;
  else {
    const fits = list.filter(
      (p) => p.bytes >= held - OWN_SIZE_TOLERANCE_BYTES && p.bytes <= held + OWN_NON_TORCH_MAX_BYTES,
    );
    own = fits.sort((a, b) => Math.abs(a.bytes - held) - Math.abs(b.bytes - held))[0] ?? null;
  }
  return { own, foreign: list.filter((p) => p !== own), ownBytes: own?.bytes ?? held };
}

/** The processes on the card other than this one. */
export function foreignProcesses(match: Pick<OomMatch, 'oom' | 'layout'>): readonly OomProcess[] {
  return readProcesses(match).foreign;
}

export type CardReason = 'foreign-process' | 'memory-outside-processes';

const isTorch = (m: OomMatch) => m.oom.family === 'torch-v1' || m.oom.family === 'torch-v2';

/**
 * Someone else fills the card, so the step that failed is incidental (any step would have):
 * - `foreign-process`: processes larger than a context hold a quarter of the card or more than this
 *   process does, and without them the request would have fit;
 * - `memory-outside-processes`: the card's used memory exceeds this process and every listed one by
 *   ≥ 1 GiB and ≥ 10 % of the card (a process NVML cannot list: another container, a PID namespace it
 *   cannot see), and without it the request would have fit. Needs this process to be identified;
 *   with no process lines at all (NVML unavailable) the rest may be this process's own.
 */
export function cardHeldByOthers(match: OomMatch | null): CardReason | null {
  if (!match || !isTorch(match)) return null;
  const o = match.oom;
  const { own, foreign, ownBytes } = readProcesses(match);
  const wouldFit = (extra: number) =>
    o.requestedBytes === null || o.freeBytes === null || o.freeBytes + extra >= o.requestedBytes;
  const jobs = foreign.filter((p) => p.bytes > RANK_CONTEXT_MAX_BYTES);
  const jobBytes = jobs.reduce((s, p) => s + p.bytes, 0);
  if (
    jobs.length > 0 &&
    wouldFit(jobBytes) &&
    ((o.totalBytes !== null && jobBytes >= FOREIGN_CARD_SHARE * o.totalBytes) ||
      (ownBytes !== null && jobBytes >= ownBytes))
  )
    return 'foreign-process';
  if (o.totalBytes === null || o.freeBytes === null) return null;
  if (o.allocatedByTorchBytes !== null && o.allocatedByTorchBytes > o.totalBytes) return null; // WDDM
  if (o.thisProcessInUseBytes === undefined && own === null) return null;
  const listed = (o.processes ?? []).reduce((s, p) => s + p.bytes, 0) + (o.thisProcessInUseBytes ?? 0);
  const rest = o.totalBytes - o.freeBytes - listed;
  if (rest >= Math.max(UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE * o.totalBytes) && wouldFit(rest))
    return 'memory-outside-processes';
  return null;
}

/**
 * With no process lines (the 1.x layouts never print them; NVML unavailable on Windows and in some
 * containers), the card's used memory beyond what PyTorch holds is this process's own non-PyTorch
 * memory or another program's. Beyond OWN_NON_TORCH_MAX_BYTES, a quarter of the card, and enough that
 * the request would have fit without it, it is another program's (rule 1: "own in-use ≪ T − F →
 * someone else holds memory"). Weaker than a listed process: the traceback comes first.
 */
export function memoryOutsideTorch(match: OomMatch | null): boolean {
  if (!match || !isTorch(match)) return false;
  const o = match.oom;
  if ((o.processes ?? []).length > 0 || o.thisProcessInUseBytes !== undefined) return false;
  const held = torchHeldBytes(match);
  if (held === null || o.totalBytes === null || o.freeBytes === null) return false;
  if (o.allocatedByTorchBytes !== null && o.allocatedByTorchBytes > o.totalBytes) return false; // WDDM
  // Nothing allocated yet reads as the first allocation (phaseFromFigures), whoever fills the card.
  if (o.allocatedByTorchBytes !== null && o.allocatedByTorchBytes < SMALL_SEGMENT_BYTES) return false;
  const rest = o.totalBytes - o.freeBytes - held;
  return (
    rest > OWN_NON_TORCH_MAX_BYTES &&
    rest >= FOREIGN_CARD_SHARE * o.totalBytes &&
    (o.requestedBytes === null || o.freeBytes + rest >= o.requestedBytes)
  );
}

/**
 * Small processes beside this one are other ranks' CUDA contexts (ranks that did not call
 * torch.cuda.set_device create one on GPU 0: pytorch #49481, pi-GAN #22) when there are several, or
 * when the log shows ranks: GPU 0 then holds less for its own rank than the others do.
 */
export function rankContexts(match: OomMatch | null, ranksEvident: boolean): boolean {
  if (!match || !isTorch(match)) return false;
  const foreign = readProcesses(match).foreign;
  return (
    foreign.length > 0 &&
    foreign.every((p) => p.bytes <= RANK_CONTEXT_MAX_BYTES) &&
    (foreign.length >= 2 || ranksEvident)
  );
}

/**
 * Free memory this far above the request is more than rounding: the allocator asks CUDA for the request
 * rounded up to 2 MiB (20 MiB for 1–10 MiB requests), and the driver keeps some memory for itself
 * (the environment rules' free-exceeds-request uses the same bounds).
 */
export const FREE_SLACK_BYTES = 64 * MIB;
export const FREE_SLACK_SHARE = 1.25;

/**
 * The card had room for the request: PyTorch raises only after cudaMalloc failed with its cache
 * released, so free memory well above the request says the card was not full when it failed (WDDM's
 * budget, a driver limit, memory that changed hands between the failure and the report). Not with a
 * `set_per_process_memory_fraction` cap ("X allowed;"), which explains the room.
 */
export function freeCoversRequest(o: OomMatch['oom']): boolean {
  if (o.requestedBytes === null || o.freeBytes === null || o.allowedBytes !== undefined) return false;
  return (
    o.freeBytes >= o.requestedBytes + FREE_SLACK_BYTES && o.freeBytes >= FREE_SLACK_SHARE * o.requestedBytes
  );
}

/** A request at least this share of the card, bigger than what is free, is one giant tensor. */
export const HUGE_REQUEST_SHARE = 0.25;
/** PyTorch tensors filling at least this share of the card mean the step's peak was reached. */
export const FULL_CARD_SHARE = 0.8;
/** Cached-but-unusable memory this many times the request, and at least FRAGMENTED_MIN_BYTES. */
export const FRAGMENTED_REQUEST_MULTIPLE = 4;
export const FRAGMENTED_MIN_BYTES = GIB;
/** The allocator's smallest segment (small pool, 2 MiB: c10/cuda/CUDACachingAllocator.cpp kSmallBuffer). */
export const SMALL_SEGMENT_BYTES = 2 * MIB;

export type FigureReason =
  | 'request-unbounded'
  | 'nothing-allocated'
  | 'fragmented-cache'
  | 'single-huge-request'
  | 'nothing-cached'
  | 'card-full';

export type FigurePhase = 'load' | 'forward' | 'mid-run';

/**
 * PyTorch's own figures, when nothing else places the failure, first rule that holds:
 * - "more than 1EB" is a corrupted size, not a need: ranks whose collectives fell out of step (one
 *   rank's data loader ran out first, a timed-out broadcast) exchange garbage sizes — a run that had
 *   been going → mid-run (NCCL #1284);
 * - less than one 2 MiB segment allocated and cached ("0 bytes is allocated by PyTorch"): no tensor is
 *   on the card yet, so this is the first allocation — the model being loaded or moved → load;
 * - free memory well above the request (freeCoversRequest): the card was not full, so the figures
 *   below, which read how it filled, do not apply → no reading;
 * - cache ≥ 4× the request and ≥ 1 GiB, held but unusable: fragmentation, which builds over many
 *   steps → mid-run (skipped when the words place the failure at the start of the run);
 * - one request ≥ 25 % of the card and more than is free: one giant activation → forward;
 * - less than one 2 MiB segment cached while tensors are allocated (2.x prints it exactly): nothing has
 *   been freed yet, as while weights load one after another → load;
 * - PyTorch tensors ≥ 80 % of the card for a small request: activations filled it — the forward pass
 *   building them, in inference as in training, where the forward keeps them for backward → forward.
 *   (The peak of a training step sits where forward ends and backward begins, docs/memory-model.md §6;
 *   the figures cannot tell which side, and inference has only the forward.)
 */
export function phaseFromFigures(
  match: OomMatch | null,
  startOfRun: boolean,
): { phase: FigurePhase; reason: FigureReason } | null {
  if (!match || !isTorch(match)) return null;
  if (match.requestUnbounded && !startOfRun) return { phase: 'mid-run', reason: 'request-unbounded' };
  const o = match.oom;
  const P = o.allocatedByTorchBytes;
  const R = cachedFreeBytes(match);
  if (P !== null && P < SMALL_SEGMENT_BYTES && R !== null && R < SMALL_SEGMENT_BYTES)
    return { phase: 'load', reason: 'nothing-allocated' };
  // The rules below read how full the card was; a card with room for the request says nothing of that.
  if (freeCoversRequest(o)) return null;
  const A = o.requestedBytes;
  const T = o.totalBytes;
  if (
    !startOfRun &&
    A !== null &&
    R !== null &&
    R >= FRAGMENTED_MIN_BYTES &&
    R >= FRAGMENTED_REQUEST_MULTIPLE * A
  )
    return { phase: 'mid-run', reason: 'fragmented-cache' };
  if (A !== null && T !== null && A >= HUGE_REQUEST_SHARE * T && (o.freeBytes === null || A > o.freeBytes))
    return { phase: 'forward', reason: 'single-huge-request' };
  if (o.reservedUnallocatedBytes !== null && o.reservedUnallocatedBytes < SMALL_SEGMENT_BYTES && (P ?? 0) > 0)
    return { phase: 'load', reason: 'nothing-cached' };
  if (P !== null && T !== null && P >= FULL_CARD_SHARE * T && P <= T)
    return { phase: 'forward', reason: 'card-full' };
  return null;
}

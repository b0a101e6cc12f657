/**
 * A run replayed through the allocator simulation: the weights once, then one training step per batch
 * length (step-pattern.ts), and the allocator's levels after each step. With lengths that vary (batches
 * padded to their longest sample) the reserve climbs over the run while the allocated peak stays at the
 * longest batch's; with one fixed length it settles after the first step. docs/allocator.md.
 */
import type { AllocatorConfig } from './rules.js';
import { type Allocation, AllocatorOutOfMemory, CachingAllocatorSim } from './simulator.js';
import type { StepPattern } from './step-pattern.js';

/** The allocator's levels over a run: after each step, its high-water marks so far. */
export interface RunReplay {
  /** max_memory_reserved after each step. */
  readonly reservedHighWater: readonly number[];
  /** max_memory_allocated after each step. */
  readonly allocatedHighWater: readonly number[];
  /** What the weights alone hold (allocated), before the first step. */
  readonly persistentBytes: number;
  /** What is still allocated after the last step: the weights and what the optimizer keeps. */
  readonly heldBytes: number;
}

/**
 * One training step of `tokens` tokens (micro-batch × padded length). `beforeZeroGrad` runs where the
 * optimizer steps: after backward, with the step's weight gradients still held, before
 * zero_grad(set_to_none=True) frees them (adamwStep).
 */
export function replayStep(
  sim: CachingAllocatorSim,
  pattern: StepPattern,
  tokens: number,
  beforeZeroGrad?: () => void,
): void {
  const bytes = (perToken: number): number => Math.max(1, Math.round(perToken * tokens));
  const layers: Allocation[][] = [];
  const forwardSaved = pattern.recompute ? [pattern.savedPerToken[1]!] : pattern.savedPerToken;
  // Autocast's weight copies that only its cache holds (full checkpointing), freed when forward ends.
  const cached: Allocation[] = [];
  let hidden = sim.malloc(bytes(pattern.savedPerToken[1]!));
  for (let l = 0; l < pattern.layers; l++) {
    const kept: Allocation[] = [];
    const copies = pattern.castCopyBytesPerLayer.map((b) => sim.malloc(b));
    if (pattern.recompute) cached.push(...copies);
    else kept.push(...copies);
    let temp: Allocation | null = null;
    for (let i = 0; i < Math.max(forwardSaved.length, pattern.forwardTempPerToken.length); i++) {
      if (i < forwardSaved.length) kept.push(sim.malloc(bytes(forwardSaved[i]!)));
      if (i < pattern.forwardTempPerToken.length) {
        const next = sim.malloc(bytes(pattern.forwardTempPerToken[i]!));
        if (temp) sim.free(temp);
        temp = next;
      }
    }
    // The layer's output replaces its input as the residual stream.
    const out = sim.malloc(bytes(pattern.savedPerToken[1]!));
    if (temp) sim.free(temp);
    sim.free(hidden);
    hidden = out;
    layers.push(kept);
  }
  const dropped = pattern.lossDroppedPerToken.map((b) => sim.malloc(bytes(b)));
  const loss = pattern.lossSavedPerToken.map((b) => sim.malloc(bytes(b)));
  for (const a of dropped) sim.free(a);
  for (const a of cached) sim.free(a);
  sim.free(hidden);
  // The loss's backward: its fp32 gradients, the logits' own, then the gradient of the last hidden state.
  const lossGrads = pattern.lossBackwardPerToken.map((b) => sim.malloc(bytes(b)));
  for (const a of lossGrads) sim.free(a);
  for (const a of loss) sim.free(a);
  const logitGrads = pattern.lossLogitGradientPerToken.map((b) => sim.malloc(bytes(b)));
  // lm_head's backward: the last hidden state's gradient, then the head's weight gradient.
  let grad = sim.malloc(bytes(pattern.savedPerToken[1]!));
  const gradients: Allocation[] = [];
  if (pattern.headGradientBytes > 0) gradients.push(sim.malloc(pattern.headGradientBytes));
  for (const a of logitGrads) sim.free(a);
  for (let l = pattern.layers - 1; l >= 0; l--) {
    const kept = layers[l]!;
    // Full checkpointing rebuilds the layer's saved tensors from its kept input.
    if (pattern.recompute) {
      for (const b of pattern.castCopyBytesPerLayer) kept.push(sim.malloc(b));
      for (const b of pattern.savedPerToken) kept.push(sim.malloc(bytes(b)));
    }
    let temp: Allocation | null = null;
    for (const b of pattern.backwardTempPerToken) {
      const next = sim.malloc(bytes(b));
      if (temp) sim.free(temp);
      temp = next;
      const done = kept.pop();
      if (done) sim.free(done);
    }
    for (const g of pattern.gradientBytesPerLayer) gradients.push(sim.malloc(g));
    for (const a of kept) sim.free(a);
    const next = sim.malloc(bytes(pattern.savedPerToken[1]!));
    if (temp) sim.free(temp);
    sim.free(grad);
    grad = next;
  }
  // The embedding's backward: its dense gradient from the first hidden state's; tied, added into the
  // head's and freed (StepPattern.tiedEmbeddings).
  if (pattern.embeddingGradientBytes > 0) {
    const embedding = sim.malloc(pattern.embeddingGradientBytes);
    sim.free(grad);
    if (pattern.tiedEmbeddings) sim.free(embedding);
    else gradients.push(embedding);
  } else sim.free(grad);
  // optimizer.step(), then zero_grad(set_to_none=True).
  beforeZeroGrad?.();
  for (const g of gradients) sim.free(g);
}

/** The run: weights first, then a step per entry of `tokensPerStep`, levels recorded after each. */
export function replayRun(
  pattern: StepPattern,
  tokensPerStep: readonly number[],
  config: Partial<AllocatorConfig> = {},
  options: {
    readonly emptyCacheEvery?: number;
    readonly limitBytes?: number;
    /** Replay torch's AdamW at each step (adamwStep): its states from the first, foreach's temporaries. */
    readonly optimizer?: 'foreach' | 'fused';
  } = {},
): RunReplay {
  const sim = new CachingAllocatorSim(config, options.limitBytes);
  for (const w of pattern.weightBytes) sim.malloc(w);
  const optimizerStep = options.optimizer ? adamwStep(sim, pattern, options.optimizer) : undefined;
  const persistentBytes = sim.stats().allocatedBytes;
  const reservedHighWater: number[] = [];
  const allocatedHighWater: number[] = [];
  tokensPerStep.forEach((tokens, step) => {
    replayStep(sim, pattern, tokens, optimizerStep);
    if (options.emptyCacheEvery && (step + 1) % options.emptyCacheEvery === 0) sim.emptyCache();
    const s = sim.stats();
    reservedHighWater.push(s.peakReservedBytes);
    allocatedHighWater.push(s.peakAllocatedBytes);
  });
  return { reservedHighWater, allocatedHighWater, persistentBytes, heldBytes: sim.stats().allocatedBytes };
}

/** A seeded generator of uniform numbers in [0, 1) (mulberry32): the same lengths on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Padded lengths of `steps` batches: each batch `batch` samples long, each sample `1 + ⌊cap · u^skew⌋`
 * tokens for u uniform in [0, 1) (skew 1: lengths uniform up to the cap; 2: mostly short, as
 * instruction data is), the batch padded to its longest sample (DataCollatorWithPadding,
 * padding="longest").
 */
export function paddedLengths(steps: number, batch: number, cap: number, skew = 1, seed = 1): number[] {
  const random = seededRandom(seed);
  const out: number[] = [];
  for (let s = 0; s < steps; s++) {
    let longest = 1;
    for (let b = 0; b < batch; b++)
      longest = Math.max(longest, Math.min(cap, 1 + Math.floor(cap * random() ** skew)));
    out.push(longest);
  }
  return out;
}

/** Fixed against padded lengths: the reserve a run of varying lengths adds, as a share of the churn. */
export interface LengthComparison {
  /** The churn at the longest batch: its allocated peak less the weights. */
  readonly churnBytes: number;
  /** reserved − allocated of the fixed-length run, over the churn. */
  readonly fixedShare: number;
  /** The padded run's reserve high-water above the fixed run's after each step, over the churn. */
  readonly extraShareByStep: readonly number[];
  /** The padded run's allocated high-water less the fixed run's, at the end (≈ 0: same longest batch). */
  readonly allocatedDifferenceBytes: number;
  /**
   * With `pressure`: the least the padded run needs reserved to complete (leastLimitBytes), above the
   * fixed run's reserve, over the churn; never below 0. What a full card must hold, where
   * extraShareByStep is what a card with room shows.
   */
  readonly pressureExtraShare?: number;
}

/**
 * Replays `lengths` (micro-batch `batch`) against a run of the same number of steps all at the longest
 * of them, on the same allocator settings.
 */
export function compareLengths(
  pattern: StepPattern,
  lengths: readonly number[],
  batch: number,
  config: Partial<AllocatorConfig> = {},
  pressure = false,
): LengthComparison {
  const longest = lengths.reduce((a, b) => Math.max(a, b), 0);
  const fixed = replayRun(
    pattern,
    lengths.map(() => longest * batch),
    config,
  );
  const padded = replayRun(
    pattern,
    lengths.map((l) => l * batch),
    config,
  );
  const allocated = fixed.allocatedHighWater.at(-1)!;
  const reserved = fixed.reservedHighWater.at(-1)!;
  const churn = allocated - fixed.persistentBytes;
  const comparison: LengthComparison = {
    churnBytes: churn,
    fixedShare: (reserved - allocated) / churn,
    extraShareByStep: padded.reservedHighWater.map((r) => (r - reserved) / churn),
    allocatedDifferenceBytes: padded.allocatedHighWater.at(-1)! - allocated,
  };
  if (!pressure) return comparison;
  // No climb to give back when the padded run never reserved more than the fixed one.
  const tokens = lengths.map((l) => l * batch);
  const climbed = padded.reservedHighWater.at(-1)!;
  const need =
    climbed <= reserved || survives(pattern, tokens, reserved, config)
      ? reserved
      : leastLimitBytes(pattern, tokens, reserved, climbed, config);
  return { ...comparison, pressureExtraShare: Math.max(0, need - reserved) / churn };
}

/** Whether the run completes when the allocator may reserve at most `limitBytes` (a card that is full). */
export function survives(
  pattern: StepPattern,
  tokensPerStep: readonly number[],
  limitBytes: number,
  config: Partial<AllocatorConfig> = {},
): boolean {
  try {
    replayRun(pattern, tokensPerStep, config, { limitBytes });
    return true;
  } catch (error) {
    if (error instanceof AllocatorOutOfMemory) return false;
    throw error;
  }
}

/** The resolution the least memory a run needs is searched to. */
const NEED_STEP_BYTES = 2 * 2 ** 20;

/**
 * The least the allocator must be let reserve for the run to complete, to 2 MiB, between `lowBytes` (a
 * limit known to fail or the least it could need) and `highBytes` (one known to hold: the run's
 * high-water with room). Under a limit, a cudaMalloc that fails makes the allocator release its
 * unsplit cached segments and retry (CUDACachingAllocator.cpp, release_cached_blocks), so a run whose
 * reserve climbs with room can still finish on a card smaller than its climb; it fails only when what
 * stays cached is split. Bisection: about log2((high − low) / 2 MiB) replays.
 */
export function leastLimitBytes(
  pattern: StepPattern,
  tokensPerStep: readonly number[],
  lowBytes: number,
  highBytes: number,
  config: Partial<AllocatorConfig> = {},
): number {
  let low = lowBytes;
  let high = highBytes;
  while (high - low > NEED_STEP_BYTES) {
    const mid = low + Math.floor((high - low) / 2);
    if (survives(pattern, tokensPerStep, mid, config)) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * The optimizer step of torch's AdamW as the allocator sees it, for replayStep's `beforeZeroGrad`: its
 * two states per trained tensor (exp_avg, exp_avg_sq) are created at the first step() (torch/optim/
 * adamw.py `_init_group`: torch.zeros_like when the state is empty), while the step's gradients are
 * held, so they are carved out of the cache the first forward and backward left; the foreach
 * implementation then makes one temporary per tensor (`torch._foreach_sqrt(exp_avg_sqs)`), freed
 * within the step; the fused one makes none.
 */
export function adamwStep(
  sim: CachingAllocatorSim,
  pattern: StepPattern,
  kind: 'foreach' | 'fused',
): () => void {
  const trained: number[] = [];
  // The head (the shared matrix when tied), the embedding when untied, then the layers.
  if (pattern.headGradientBytes > 0) trained.push(pattern.headGradientBytes);
  if (pattern.embeddingGradientBytes > 0 && !pattern.tiedEmbeddings)
    trained.push(pattern.embeddingGradientBytes);
  for (let l = 0; l < pattern.layers; l++) trained.push(...pattern.gradientBytesPerLayer);
  // The states live all run: allocated once, never freed.
  let made = false;
  return () => {
    if (!made)
      for (const b of trained) {
        sim.malloc(b);
        sim.malloc(b);
      }
    made = true;
    if (kind === 'foreach') for (const t of trained.map((b) => sim.malloc(b))) sim.free(t);
  };
}

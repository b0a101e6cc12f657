/**
 * The simulated runs the optimizer's two reserve terms come from (src/core/estimate/allocator.ts):
 * full fine-tunes with torch's AdamW (foreach) on one GPU, 0.5B–8B decoders with small and large
 * vocabularies, tied and untied heads, 16-bit weights and fp32 ones under autocast, one sequence of 512–8,192 tokens, standard and chunked loss, with
 * and without full checkpointing. Each is replayed for three steps with AdamW's states made at the first
 * (replay.ts adamwStep), and its reserve above the allocated peak is set beside what the estimator reads
 * for the term of the phase its estimate peaks in:
 * - at the optimizer step (OPTIMIZER_STEP_RESERVE): the step's temporaries and the cache backward left;
 * - in forward or backward (OPTIMIZER_STATES_RESERVE): the states, which the first step() carved out of
 *   that cache, so that the next forward takes new segments for the blocks they took.
 * `npm run bench:optimizer-reserve` prints the fits; allocator.test.ts refits them from this simulator.
 */
import { shapeFromConfig } from '../architecture.js';
import { findGpu, findModel } from '../catalog/index.js';
import type { Phase } from '../estimate/types.js';
import { estimate, FIXED_RESERVE, stepReuseBytes } from '../estimate.js';
import { parseScenario } from '../scenario.js';
import { replayRun } from './replay.js';
import { decoderStepPattern } from './step-pattern.js';

export const OPTIMIZER_SWEEP_MODELS = [
  'qwen2.5-0.5b',
  'qwen3-0.6b',
  'llama-3.2-1b',
  'gemma-3-1b',
  'qwen2.5-1.5b',
  'qwen3-1.7b',
  'gemma-2-2b',
  'llama-3.2-3b',
  'qwen2.5-3b',
  'phi-3-mini',
  'mistral-7b-v0.3',
  'qwen2.5-7b',
  'llama-3.1-8b',
] as const;
export const OPTIMIZER_SWEEP_LENGTHS = [512, 1024, 2048, 4096, 8192] as const;
/** 16-bit weights, states and gradients; and fp32 ones trained under autocast (step-pattern.ts weightElementBytes). */
export const OPTIMIZER_SWEEP_PRECISIONS = ['bf16-true', 'bf16-mixed'] as const;

export interface OptimizerSweepRow {
  readonly model: string;
  readonly precision: (typeof OPTIMIZER_SWEEP_PRECISIONS)[number];
  readonly seqLen: number;
  readonly checkpointing: boolean;
  readonly loss: 'standard' | 'chunked';
  /** The phase the estimate peaks in: which of the two terms the row informs. */
  readonly peakPhase: Phase;
  /** The replay's reserve above its allocated peak (third step). */
  readonly gapBytes: number;
  /** What the step's term reads: the smaller of the step's temporaries and the cache backward left (allocator.ts). */
  readonly reuseBytes: number;
  /** What the states' term reads: the smaller of the states and that cache (allocator.ts statesFromCacheBytes). */
  readonly statesReuseBytes: number;
  /** The estimator's loss-block term for the same setup (FIXED_RESERVE on its loss and churn). */
  readonly lossBlockBytes: number;
  /** The estimator's reserve above allocated for the same setup. */
  readonly estimateGapBytes: number;
}

/** Every case, replayed, with the phase its estimate peaks in; in a fixed order. */
export function optimizerSweep(models: readonly string[] = OPTIMIZER_SWEEP_MODELS): OptimizerSweepRow[] {
  const out: OptimizerSweepRow[] = [];
  const gpu = findGpu('h200-sxm')!;
  for (const model of models) {
    const shape = shapeFromConfig(findModel(model)!);
    for (const precision of OPTIMIZER_SWEEP_PRECISIONS)
      for (const seqLen of OPTIMIZER_SWEEP_LENGTHS)
        for (const checkpointing of [false, true])
          for (const loss of ['standard', 'chunked'] as const) {
            const scenario = parseScenario({
              model,
              method: 'full',
              precision,
              optimizer: 'adamw',
              microBatchSize: 1,
              seqLen,
              gradientCheckpointing: checkpointing ? 'full' : 'none',
              loss,
            });
            const e = estimate({ scenario, shape, gpu });
            if (e.peakPhase === 'load') continue;
            const pattern = decoderStepPattern(shape, {
              e: 2,
              weightElementBytes: precision === 'bf16-mixed' ? 4 : 2,
              loss,
              checkpointing,
              fullGradients: true,
              loraRank: 0,
            });
            const run = replayRun(pattern, [seqLen, seqLen, seqLen], {}, { optimizer: 'foreach' });
            const b = e.breakdown;
            const lossBytes = Math.min(b.reserveLossBytes, b.churnBytes);
            out.push({
              model,
              precision,
              seqLen,
              checkpointing,
              loss,
              peakPhase: e.peakPhase,
              gapBytes: run.reservedHighWater[2]! - run.allocatedHighWater[2]!,
              reuseBytes: stepReuseBytes(b.optimizerTempBytes, b.reserveStepCacheBytes),
              statesReuseBytes: stepReuseBytes(b.optimizerBytes, b.reserveStepCacheBytes),
              lossBlockBytes:
                FIXED_RESERVE.lossFactor * lossBytes + FIXED_RESERVE.layerFactor * (b.churnBytes - lossBytes),
              estimateGapBytes: e.peak.reservedBytes - e.peak.allocatedBytes,
            });
          }
  }
  return out;
}

/** y ≈ k·x, least squares through the origin. */
function throughOrigin(pairs: readonly (readonly [x: number, y: number])[]): number {
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of pairs) {
    sxy += x * y;
    sxx += x * x;
  }
  return sxy / sxx;
}

/** The rows whose estimate peaks at the optimizer step. */
export const atOptimizerStep = (rows: readonly OptimizerSweepRow[]): OptimizerSweepRow[] =>
  rows.filter((r) => r.peakPhase === 'optimizer-step');

/** The rows whose estimate peaks in the training step (forward or backward). */
export const inTrainingStep = (rows: readonly OptimizerSweepRow[]): OptimizerSweepRow[] =>
  rows.filter((r) => r.peakPhase === 'forward' || r.peakPhase === 'backward');

/** gap ≈ k·reuse over the optimizer-step rows. */
export function optimizerStepFactor(rows: readonly OptimizerSweepRow[]): number {
  return throughOrigin(atOptimizerStep(rows).map((r) => [r.reuseBytes, r.gapBytes] as const));
}

/**
 * gap − the loss-block term ≈ γ·(states reused) over the training-step rows: what the states add beyond
 * the loss's own cached block, which FIXED_RESERVE already holds (fitted where states are negligible).
 */
export function optimizerStatesFactor(rows: readonly OptimizerSweepRow[]): number {
  return throughOrigin(
    inTrainingStep(rows).map((r) => [r.statesReuseBytes, r.gapBytes - r.lossBlockBytes] as const),
  );
}

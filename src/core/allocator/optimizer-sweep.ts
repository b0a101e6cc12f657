/**
 * The simulated runs the optimizer step's reserve term comes from (src/core/estimate/allocator.ts,
 * OPTIMIZER_STEP_RESERVE): full fine-tunes with torch's AdamW (foreach) on one GPU, 0.5B–8B decoders,
 * one sequence of 512–8,192 tokens, standard and chunked loss, with and without full checkpointing;
 * those whose estimated peak is the optimizer step. Each is replayed for three steps with the states
 * made at the first (replay.ts adamwStep), and its reserve above the allocated peak is set beside what
 * the estimator reads for the term: the step's temporaries and the cache backward left.
 * `npm run bench:optimizer-reserve` prints the fit; allocator.test.ts refits it from this simulator.
 */
import { shapeFromConfig } from '../architecture.js';
import { findGpu, findModel } from '../catalog/index.js';
import { estimate, stepReuseBytes } from '../estimate.js';
import { parseScenario } from '../scenario.js';
import { replayRun } from './replay.js';
import { decoderStepPattern } from './step-pattern.js';

export const OPTIMIZER_SWEEP_MODELS = [
  'qwen2.5-0.5b',
  'llama-3.2-1b',
  'qwen2.5-1.5b',
  'llama-3.2-3b',
  'phi-3-mini',
  'mistral-7b-v0.3',
  'qwen2.5-7b',
  'llama-3.1-8b',
] as const;
export const OPTIMIZER_SWEEP_LENGTHS = [512, 1024, 2048, 4096, 8192] as const;

export interface OptimizerSweepRow {
  readonly model: string;
  readonly seqLen: number;
  readonly checkpointing: boolean;
  readonly loss: 'standard' | 'chunked';
  /** The replay's reserve above its allocated peak (third step). */
  readonly gapBytes: number;
  /** What the term reads: the smaller of the step's temporaries and the cache backward left (allocator.ts). */
  readonly reuseBytes: number;
  /** The estimator's reserve above allocated for the same setup. */
  readonly estimateGapBytes: number;
}

/** Every case whose estimated peak is the optimizer step, replayed; in a fixed order. */
export function optimizerSweep(models: readonly string[] = OPTIMIZER_SWEEP_MODELS): OptimizerSweepRow[] {
  const out: OptimizerSweepRow[] = [];
  const gpu = findGpu('h200-sxm')!;
  for (const model of models) {
    const shape = shapeFromConfig(findModel(model)!);
    for (const seqLen of OPTIMIZER_SWEEP_LENGTHS)
      for (const checkpointing of [false, true])
        for (const loss of ['standard', 'chunked'] as const) {
          const scenario = parseScenario({
            model,
            method: 'full',
            precision: 'bf16-true',
            optimizer: 'adamw',
            microBatchSize: 1,
            seqLen,
            gradientCheckpointing: checkpointing ? 'full' : 'none',
            loss,
          });
          const e = estimate({ scenario, shape, gpu });
          if (e.peakPhase !== 'optimizer-step') continue;
          const pattern = decoderStepPattern(shape, {
            e: 2,
            loss,
            checkpointing,
            fullGradients: true,
            loraRank: 0,
          });
          const run = replayRun(pattern, [seqLen, seqLen, seqLen], {}, { optimizer: 'foreach' });
          out.push({
            model,
            seqLen,
            checkpointing,
            loss,
            gapBytes: run.reservedHighWater[2]! - run.allocatedHighWater[2]!,
            reuseBytes: stepReuseBytes(e.breakdown.optimizerTempBytes, e.breakdown.reserveStepCacheBytes),
            estimateGapBytes: e.peak.reservedBytes - e.peak.allocatedBytes,
          });
        }
  }
  return out;
}

/** gap ≈ k·reuse, least squares through the origin over the rows. */
export function optimizerStepFactor(rows: readonly OptimizerSweepRow[]): number {
  let sxy = 0;
  let sxx = 0;
  for (const r of rows) {
    sxy += r.gapBytes * r.reuseBytes;
    sxx += r.reuseBytes * r.reuseBytes;
  }
  return sxy / sxx;
}

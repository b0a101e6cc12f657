/**
 * The notes step: the assumptions and caveats an estimate states, as data (estimate-notes.ts holds the
 * codes and their params; src/words/estimate-notes.ts words them).
 */
import type { ModelShape } from '../architecture.js';
import type { EstimateNote } from '../estimate-notes.js';
import type { Scenario } from '../scenario.js';
import type { StrategyTraits } from '../sharding.js';
import { sdpaMathPathBytesPerToken } from './layer-activations.js';
import type { ModelStates } from './model-states.js';
import type { PrecisionPlan } from './precision.js';
import {
  autoReduceBucketElements,
  type StrategyTerms,
  ZERO_REDUCE_BUCKET_ELEMENTS,
} from './strategy-terms.js';
import type { TrainingPlan } from './training.js';

export function estimateNotes(
  scenario: Scenario,
  shape: ModelShape,
  plan: PrecisionPlan,
  training: TrainingPlan,
  traits: StrategyTraits,
  states: ModelStates,
  strategy: StrategyTerms,
  exactParams: number | null,
  shapeParams: number,
): EstimateNote[] {
  const notes: EstimateNote[] = [];
  if (states.paged) notes.push({ code: 'paged-optimizer', params: {} });
  if (exactParams !== null && exactParams !== shapeParams)
    notes.push({ code: 'exact-params', params: { fromWeights: exactParams, fromConfig: shapeParams } });
  if (strategy.unshardedAccumulation && strategy.gradsDuringForward > states.gradientsBytes)
    notes.push({ code: 'fsdp-no-sync', params: { bytes: strategy.gradsDuringForward } });
  if (strategy.rootBytes >= 2 ** 30)
    notes.push({ code: 'fsdp-root', params: { bytes: strategy.rootBytes + strategy.rootGradBytes } });
  const context = shape.contextLength;
  if (shape.learnedPositions > 0 && scenario.seqLen > shape.learnedPositions)
    notes.push({
      code: 'past-learned-positions',
      params: { seqLen: scenario.seqLen, positions: shape.learnedPositions },
    });
  else if (context !== undefined && scenario.seqLen > context)
    notes.push({ code: 'past-context', params: { seqLen: scenario.seqLen, context } });
  if (scenario.attention === 'eager' && scenario.seqLen >= 4096)
    notes.push({ code: 'eager-attention', params: {} });
  // Without checkpointing every layer keeps the math path's softmax; with full checkpointing, one layer.
  const mathAttentionBytes =
    scenario.gradientCheckpointing === 'none'
      ? sdpaMathPathBytesPerToken(scenario, shape, plan.computeBytes) *
        scenario.microBatchSize *
        scenario.seqLen *
        training.layersWithGrad
      : 0;
  if (mathAttentionBytes >= 2 ** 30)
    notes.push({ code: 'fp32-math-attention', params: { bytes: mathAttentionBytes } });
  if (scenario.torchCompile && scenario.loss === 'standard')
    notes.push({ code: 'compile-standard-loss', params: {} });
  if (scenario.torchCompile && scenario.gradientCheckpointing === 'none')
    notes.push({ code: 'compile-no-checkpointing', params: {} });
  // The bucket is the config's business: say what the default costs when the scenario does not name one.
  const bucketBytes = strategy.bucketBytes;
  if (
    bucketBytes > 0 &&
    traits.buckets === 'reduce-bucket' &&
    scenario.parallelism.reduceBucketSize === undefined
  ) {
    const autoBytes = bucketBytes * (autoReduceBucketElements(shape) / ZERO_REDUCE_BUCKET_ELEMENTS);
    if (autoBytes < bucketBytes)
      notes.push({
        code: 'zero-default-bucket',
        params: { bytes: Math.round(bucketBytes), autoBytes: Math.round(autoBytes) },
      });
  }
  return notes;
}

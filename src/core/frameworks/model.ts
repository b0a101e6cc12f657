/**
 * The model as the framework builds it: a profile's config.json overrides (`profile.modelConfig`, e.g.
 * litgpt keeping the output head as its own tensor where Hugging Face ties it) applied to the shape the
 * model resolved to. A config the user gave inline with the key set wins: the profile then sets nothing.
 */
import type { ModelShape } from '../architecture.js';
import { paramBreakdown } from '../params.js';
import type { ScenarioProfile } from './decision.js';

/**
 * The shape and exact parameter count under the profile's overrides. Untying the head adds its
 * vocab × hidden parameters (plus any bias) to a count read from the weight files, which store it once.
 * @example shapeUnderProfile(tiedShape, null, { modelConfig: { tie_word_embeddings: false }, ... }).shape.tiedEmbeddings
 * // false
 */
export function shapeUnderProfile(
  shape: ModelShape,
  exactParams: number | null,
  profile: ScenarioProfile | undefined,
): { readonly shape: ModelShape; readonly exactParams: number | null } {
  const tie = profile?.modelConfig?.tie_word_embeddings;
  if (typeof tie !== 'boolean' || tie === shape.tiedEmbeddings) return { shape, exactParams };
  const changed: ModelShape = { ...shape, tiedEmbeddings: tie };
  const added = paramBreakdown(changed).totalParams - paramBreakdown(shape).totalParams;
  return { shape: changed, exactParams: exactParams === null ? null : exactParams + added };
}

/**
 * How a model name reached the catalog (hub-names.ts gives the data), as the line and the note the CLI
 * prints; the words are src/words/models.ts's, in English or Simplified Chinese.
 */
import { PREQUANTIZED_AS } from '../core/catalog/hub-names.js';
import type { ResolvedModel } from '../core/model-ref.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { MODEL_WORDS } from '../words/models.js';

export type { Lang } from '../words/lang.js';

/**
 * "mistralai/Mistral-7B-Instruct-v0.3 → mistral-7b-v0.3 (catalog; instruct variant, same shapes)", or
 * null when the model was named by its catalog id (or is not a catalog model).
 */
export function resolutionLine(model: ResolvedModel, lang: Lang = 'en'): string | null {
  const r = model.resolution;
  if (!r) return null;
  const org = r.resolvedFrom.includes('/') ? r.resolvedFrom.slice(0, r.resolvedFrom.indexOf('/')) : null;
  return say(MODEL_WORDS, lang, {
    code: 'resolved',
    params: {
      typed: r.resolvedFrom,
      id: model.id,
      mirror: r.mirror && org ? org : null,
      release: r.release,
      variant: r.variant,
      prequantized: r.prequantized,
      contextLength: r.contextLength,
    },
  });
}

/**
 * A note when a pre-quantized copy is sized with a quantization other than the one it is stored in;
 * null when they agree or the model is not a pre-quantized copy. The scenario's quantization is left as
 * given: the note names the value that sizes the weights as stored.
 */
export function prequantizedNote(
  model: ResolvedModel,
  quantization: string,
  lang: Lang = 'en',
): string | null {
  const format = model.resolution?.prequantized;
  if (!format) return null;
  const as = PREQUANTIZED_AS[format];
  if (as === quantization) return null;
  const from = model.resolution!.resolvedFrom;
  return as === null
    ? say(MODEL_WORDS, lang, { code: 'not-modelled', params: { from, format, given: quantization } })
    : say(MODEL_WORDS, lang, { code: 'size-as-stored', params: { from, format, given: quantization, as } });
}

/**
 * A note when a Hub name of a multimodal checkpoint reached a catalog entry that is its language model
 * only (`textConfigOnly`): the vision encoder the checkpoint also holds is not in the figures. Null for
 * a catalog id typed as such (the "-text" id says so) and for every other model.
 */
export function textPartNote(model: ResolvedModel, lang: Lang = 'en'): string | null {
  if (!model.resolution || model.catalog?.textConfigOnly !== true) return null;
  return say(MODEL_WORDS, lang, {
    code: 'text-part-only',
    params: { from: model.resolution.resolvedFrom, id: model.id },
  });
}

/** The notes a model's name calls for under the scenario's quantization, in the order they print. */
export function modelNotes(model: ResolvedModel, quantization: string, lang: Lang = 'en'): string[] {
  return [prequantizedNote(model, quantization, lang), textPartNote(model, lang)].filter(
    (n): n is string => n !== null,
  );
}

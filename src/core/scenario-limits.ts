/**
 * The limits of a scenario that depend on its model: the checks parseScenario cannot make, because the
 * model's shape is known only once its reference is resolved (catalog, config.json, Hub). Every place
 * where a scenario meets its resolved model calls checkScenarioAgainstModel before estimating.
 */
import type { ModelShape } from './architecture.js';
import { HeadroomUserError } from './errors.js';
import type { Scenario } from './scenario.js';

/** How the model is named in a message: its id, or "the inline config". */
function named(id: string): string {
  return id === 'inline config' ? 'the inline config' : id;
}

/**
 * Throws an out-of-range HeadroomUserError (naming the field, the model and its figure) when the scenario
 * asks for more than the model has:
 * - a LoRA rank above the hidden size. LoRA adds B·A with A of rank r × in and B of out × r; the product
 *   has rank at most min(in, out, r) (Hu et al., "LoRA", 2021, §4.1), and every matrix LoRA adapts in a
 *   decoder reads or writes the hidden state or a narrower latent (attention and MLP projections, MLA's
 *   low-rank ones, the head), so min(in, out) ≤ hidden size: a rank past it only adds parameters.
 * - more trainable layers (method freeze) than the model has decoder blocks.
 * @example checkScenarioAgainstModel(parseScenario({ model: 'llama-3.1-8b', method: 'freeze', trainableLayers: 40 }), { id: 'llama-3.1-8b', shape })
 */
export function checkScenarioAgainstModel(
  scenario: Scenario,
  model: { readonly id: string; readonly shape: ModelShape },
): void {
  const { hiddenSize, numLayers } = model.shape;
  const rank = scenario.lora?.rank;
  if (rank !== undefined && rank > hiddenSize) {
    throw new HeadroomUserError({
      code: 'out-of-range',
      where: 'lora.rank',
      message: `lora.rank: ${rank} is more than the hidden size of ${named(model.id)}, ${hiddenSize}: a LoRA rank above it adds parameters, not capacity`,
      hint: `a rank from 1 to ${hiddenSize}; 8 to 256 are the usual ones`,
      params: { value: rank, max: hiddenSize },
    });
  }
  const layers = scenario.trainableLayers;
  if (layers !== undefined && layers > numLayers) {
    throw new HeadroomUserError({
      code: 'out-of-range',
      where: 'trainableLayers',
      message: `trainableLayers: ${layers} is more than the ${numLayers} layers ${named(model.id)} has`,
      hint: `from 1 to ${numLayers}; method full trains every layer and the embeddings too`,
      params: { value: layers, max: numLayers },
    });
  }
}

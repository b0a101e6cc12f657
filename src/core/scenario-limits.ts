/**
 * The limits of a scenario that depend on its model: the checks parseScenario cannot make, because the
 * model's shape is known only once its reference is resolved (catalog, config.json, Hub). Every place
 * where a scenario meets its resolved model calls checkScenarioAgainstModel before estimating.
 */
import type { ModelShape } from './architecture.js';
import { fieldError } from './scenario/field-errors.js';
import type { Scenario } from './scenario.js';

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
  // The words name the model (the inline config as such): src/words/errors.ts.
  if (rank !== undefined && rank > hiddenSize) {
    throw fieldError(
      'rank-above-hidden',
      ['lora', 'rank'],
      { value: rank, max: hiddenSize },
      { model: model.id },
    );
  }
  const layers = scenario.trainableLayers;
  if (layers !== undefined && layers > numLayers) {
    throw fieldError(
      'layers-above-model',
      ['trainableLayers'],
      { value: layers, max: numLayers },
      { model: model.id },
    );
  }
}

import { describe, expect, it } from 'vitest';
import { resolveModelRef } from './model-ref.js';
import { parseScenario } from './scenario.js';
import { checkScenarioAgainstModel } from './scenario-limits.js';
import { userErrorOf } from './test-helpers/user-error.js';

// Catalog shapes: llama-3.1-8b has hidden size 4096 and 32 layers (its config.json).
const llama = resolveModelRef('llama-3.1-8b')!;
const check = (fields: Record<string, unknown>) => () =>
  checkScenarioAgainstModel(parseScenario({ model: 'llama-3.1-8b', ...fields }), llama);

describe('checkScenarioAgainstModel', () => {
  it('takes what the model has: a rank up to the hidden size, every layer trainable', () => {
    expect([llama.shape.hiddenSize, llama.shape.numLayers]).toEqual([4096, 32]);
    expect(check({ method: 'lora', lora: { rank: 4096 } })).not.toThrow();
    expect(check({ method: 'freeze', trainableLayers: 32 })).not.toThrow();
    expect(check({})).not.toThrow();
  });

  it('a LoRA rank past the hidden size is out of range, naming the model and its hidden size', () => {
    const error = userErrorOf(check({ method: 'lora', lora: { rank: 4097 } }));
    expect([error.code, error.where, error.message, error.hint]).toEqual([
      'out-of-range',
      'lora.rank',
      'lora.rank: 4097 is more than the hidden size of llama-3.1-8b, 4096: a LoRA rank above it adds parameters, not capacity',
      'a rank from 1 to 4096; 8 to 256 are the usual ones',
    ]);
    expect(error.params).toEqual({ value: 4097, max: 4096 });
  });

  it('more trainable layers than the model has is out of range, naming the count', () => {
    const error = userErrorOf(check({ method: 'freeze', trainableLayers: 40 }));
    expect([error.code, error.where, error.message]).toEqual([
      'out-of-range',
      'trainableLayers',
      'trainableLayers: 40 is more than the 32 layers llama-3.1-8b has',
    ]);
    expect(error.params).toEqual({ value: 40, max: 32 });
  });

  it('an inline config is named as such', () => {
    const inline = resolveModelRef({ ...llama.catalog!, num_hidden_layers: 2 })!;
    const error = userErrorOf(() =>
      checkScenarioAgainstModel(
        parseScenario({ model: { num_hidden_layers: 2 }, method: 'freeze', trainableLayers: 3 }),
        inline,
      ),
    );
    expect(error.message).toBe('trainableLayers: 3 is more than the 2 layers the inline config has');
  });
});

/**
 * The framework profiles as every edge meets them: through parseScenario (and the estimate's model),
 * not through behaviourDefaults alone.
 */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../architecture.js';
import { findModel } from '../catalog/index.js';
import { HeadroomUserError } from '../errors.js';
import { estimate } from '../estimate.js';
import { resolveModelRef } from '../model-ref.js';
import { parseScenario } from '../scenario.js';

const LITGPT_QLORA = {
  model: 'llama-2-7b',
  method: 'qlora',
  quantization: 'nf4',
  framework: 'litgpt',
  versions: { bitsandbytes: '0.41.1' },
} as const;

function thrown(fn: () => unknown): HeadroomUserError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('parseScenario with a framework', () => {
  it('fills the fields the profile decides (behaviourDefaults’ litgpt QLoRA example)', () => {
    const s = parseScenario(LITGPT_QLORA);
    expect(s.lora?.adapterDtype).toBe('model');
    expect(s.quantizeHead).toBe(true);
    expect(s.quantizedFrom).toBe('fp16');
    expect(s.quantizedInputsKept).toBe('next-forward');
    expect(s.loss).toBe('chunked');
    expect(s.padding).toBe('longest');
    expect(s.profile?.framework).toBe('litgpt');
    expect(s.profile?.modelConfig).toEqual({ tie_word_embeddings: false });
    expect(s.profile?.applied.find((a) => a.field === 'quantizedInputsKept')).toEqual({
      field: 'quantizedInputsKept',
      value: 'next-forward',
      factId: 'litgpt.inputs-kept-next-forward',
    });
  });

  it('lets an explicit field win, and does not list it as applied', () => {
    const s = parseScenario({
      ...LITGPT_QLORA,
      loss: 'standard',
      quantizedInputsKept: 'none',
      padding: 'packed',
    });
    expect([s.loss, s.quantizedInputsKept, s.padding]).toEqual(['standard', 'none', 'packed']);
    const fields = s.profile?.applied.map((a) => a.field) ?? [];
    expect(fields).not.toContain('loss');
    expect(fields).not.toContain('quantizedInputsKept');
    expect(fields).toContain('quantizeHead');
  });

  it('leaves a scenario without a framework as it was: no profile, the table’s defaults', () => {
    const s = parseScenario({ model: 'llama-2-7b', method: 'qlora', quantization: 'nf4' });
    expect(s.profile).toBeUndefined();
    expect([s.loss, s.padding, s.quantizeHead, s.lora?.adapterDtype]).toEqual([
      'standard',
      'max-length',
      undefined,
      undefined,
    ]);
  });

  it('parses its own output to the same scenario, and a field changed since is the user’s', () => {
    const once = parseScenario(LITGPT_QLORA);
    expect(parseScenario(once)).toEqual(once);
    const changed = parseScenario({ ...once, loss: 'standard' });
    expect(changed.loss).toBe('standard');
    expect(changed.profile?.applied.map((a) => a.field)).not.toContain('loss');
    // Another framework re-derives: hf-trainer keeps PEFT's fp32 adapters and the head in 16 bits.
    const moved = parseScenario({ ...once, framework: 'hf-trainer' });
    expect(moved.lora?.adapterDtype).toBeUndefined();
    expect(moved.quantizeHead).toBeUndefined();
    expect(moved.profile?.framework).toBe('hf-trainer');
  });

  it('records what it assumed for versions not given', () => {
    const s = parseScenario({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      framework: 'hf-trainer',
    });
    expect(s.profile?.assumed.length).toBeGreaterThan(0);
    expect(s.profile?.assumed.find((a) => a.target === 'quantizedInputsKept')).toMatchObject({
      package: 'bitsandbytes',
      why: 'current-release',
      factId: 'bnb.inputs-kept-none',
    });
    // Given versions are judged, not assumed: bitsandbytes 0.42 keeps the input for the step.
    const old = parseScenario({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      framework: 'hf-trainer',
      versions: { bitsandbytes: '0.42.0' },
    });
    expect(old.quantizedInputsKept).toBe('step');
    expect(old.profile?.assumed.map((a) => a.target)).not.toContain('quantizedInputsKept');
  });

  it('names the field of an unknown framework or a bad version', () => {
    const framework = thrown(() => parseScenario({ model: 'llama-2-7b', framework: 'nemo' }));
    expect(framework.where).toBe('framework');
    expect(framework.message).toContain('hf-trainer');
    const version = thrown(() => parseScenario({ ...LITGPT_QLORA, versions: { torch: 2 } }));
    expect(version.where).toBe('versions.torch');
    const pkg = thrown(() => parseScenario({ ...LITGPT_QLORA, versions: { pytorch: '2.5.1' } }));
    expect(pkg.where).toBe('versions.pytorch');
  });
});

describe('the profile’s model config in the estimate', () => {
  const catalogShape = (id: string) => resolveModelRef(id)!.shape;

  it('unties a tied head for litgpt, adding vocab × hidden parameters', () => {
    const plain = parseScenario({ model: 'qwen2.5-0.5b', method: 'lora' });
    const litgpt = parseScenario({ model: 'qwen2.5-0.5b', method: 'lora', framework: 'litgpt' });
    const shape = catalogShape('qwen2.5-0.5b');
    expect(shape.tiedEmbeddings).toBe(true);
    const a = estimate({ scenario: plain, shape });
    const b = estimate({ scenario: litgpt, shape });
    expect(b.params.total - a.params.total).toBe(shape.vocabSize * shape.hiddenSize);
    // A count from the weight files gets the untied head too.
    const exact = estimate({ scenario: litgpt, shape, exactParams: 494_032_768 });
    expect(exact.params.total).toBe(494_032_768 + shape.vocabSize * shape.hiddenSize);
  });

  it('keeps a tie the user’s inline config states', () => {
    const config = { ...findModel('qwen2.5-0.5b')!, tie_word_embeddings: true };
    const s = parseScenario({ model: config, method: 'lora', framework: 'litgpt' });
    expect(s.profile?.modelConfig).toBeUndefined();
    const shape = shapeFromConfig(config);
    expect(estimate({ scenario: s, shape }).params.total).toBe(
      estimate({ scenario: parseScenario({ model: config, method: 'lora' }), shape }).params.total,
    );
  });
});

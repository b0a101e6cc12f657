import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from './architecture.js';
import { MODELS } from './catalog/index.js';
import { paramBreakdown } from './params.js';

describe('parameter counts of every catalog model', () => {
  it.each(MODELS.map((m) => [m.id, m] as const))('%s matches its published total', (_id, model) => {
    const shape = shapeFromConfig(model, model.id);
    expect(paramBreakdown(shape).totalParams).toBe(model.params.total);
  });

  it('counts MoE experts in full for weights (Qwen3-30B-A3B: 30.5B total)', () => {
    const qwen = MODELS.find((m) => m.id === 'qwen3-30b-a3b')!;
    const p = paramBreakdown(shapeFromConfig(qwen));
    const experts = p.linears.filter((m) => m.group === 'expert');
    expect(experts.every((m) => m.count === 48 * 128 && m.activeCount === 48 * 8)).toBe(true);
    expect(p.totalParams).toBe(30_532_122_624);
  });

  it('counts tied embeddings once (Llama-3.2-1B has no separate lm_head)', () => {
    const p = paramBreakdown(shapeFromConfig(MODELS.find((m) => m.id === 'llama-3.2-1b')!));
    expect(p.lmHeadParams).toBe(0);
    expect(p.embeddingParams).toBe(128256 * 2048);
  });
});

describe('shapeFromConfig reads each architecture through the table', () => {
  it('reads GPT-2 config keys (n_embd, n_layer, n_head, n_inner null → 4h) and its learned positions', () => {
    const shape = shapeFromConfig({
      model_type: 'gpt2',
      n_embd: 768,
      n_layer: 12,
      n_head: 12,
      n_inner: null,
      n_positions: 1024,
      vocab_size: 50257,
    });
    expect(shape).toMatchObject({
      hiddenSize: 768,
      numLayers: 12,
      numHeads: 12,
      numKvHeads: 12,
      intermediateSize: 3072,
      learnedPositions: 1024,
      tiedEmbeddings: true,
      mlp: 'plain',
      norm: 'layer',
    });
    expect(paramBreakdown(shape).totalParams).toBe(124_439_808);
  });

  it('halves the Qwen v1 intermediate size (QWenMLP uses intermediate_size // 2)', () => {
    const shape = shapeFromConfig({
      model_type: 'qwen',
      hidden_size: 4096,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      intermediate_size: 22016,
      vocab_size: 151936,
    });
    expect(shape.intermediateSize).toBe(11008);
    expect(paramBreakdown(shape).totalParams).toBe(7_721_324_544);
  });

  it('reads Falcon-7B multi-query attention from multi_query and its single shared norm', () => {
    const shape = shapeFromConfig({
      model_type: 'falcon',
      hidden_size: 4544,
      num_hidden_layers: 32,
      num_attention_heads: 71,
      multi_query: true,
      parallel_attn: true,
      vocab_size: 65024,
    });
    expect(shape).toMatchObject({
      numKvHeads: 1,
      normsPerLayer: 1,
      intermediateSize: 18176,
      tiedEmbeddings: true,
    });
    expect(paramBreakdown(shape).totalParams).toBe(6_921_720_704);
  });

  it('reads a Gemma-3 multimodal config through its text_config', () => {
    const shape = shapeFromConfig({
      model_type: 'gemma3',
      text_config: {
        model_type: 'gemma3_text',
        hidden_size: 2560,
        intermediate_size: 10240,
        num_hidden_layers: 34,
        num_attention_heads: 8,
        num_key_value_heads: 4,
        head_dim: 256,
        vocab_size: 262208,
      },
    });
    expect(shape).toMatchObject({
      modelType: 'gemma3_text',
      numLayers: 34,
      headDim: 256,
      normsPerLayer: 4,
      qkNorm: true,
      tiedEmbeddings: true,
    });
    expect(paramBreakdown(shape).totalParams).toBe(3_880_263_168);
  });

  it('reads an unknown architecture with the standard fields as llama-like', () => {
    const shape = shapeFromConfig({
      model_type: 'olmo2',
      hidden_size: 2048,
      num_hidden_layers: 16,
      num_attention_heads: 16,
      intermediate_size: 8192,
      vocab_size: 100352,
    });
    expect(shape).toMatchObject({ mlp: 'gated', norm: 'rms', numKvHeads: 16, headDim: 128 });
  });

  it('names the missing field when a config is incomplete', () => {
    expect(() =>
      shapeFromConfig(
        { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, vocab_size: 32000 },
        'my/config.json',
      ),
    ).toThrow(
      /my\/config.json has no usable layer count \(looked for num_hidden_layers, n_layer, num_layers\)/,
    );
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { resolveModelRef } from '../model-ref.js';
import { MIRROR_ORGS, matchHubName, RELEASES, VARIANT_RULES } from './hub-names.js';
import { findModel, MODELS, nearestModelIds, searchModels } from './index.js';

const resolution = (ref: string) => matchHubName(ref)?.resolution ?? null;

describe('matchHubName: the spellings users type', () => {
  it.each([
    ['mistralai/Mistral-7B-Instruct-v0.3', 'mistral-7b-v0.3', { variant: 'instruct' }],
    ['Qwen/Qwen2-7B', 'qwen2.5-7b', { variant: null, release: 'qwen2' }],
    ['Qwen/Qwen2-7B-Instruct', 'qwen2.5-7b', { variant: 'instruct', release: 'qwen2' }],
    ['qwen/qwen2.5-7b-instruct', 'qwen2.5-7b', { variant: 'instruct' }],
    ['QWEN/QWEN2.5-7B', 'qwen2.5-7b', { variant: null }],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct', 'llama-3.1-8b', { variant: 'instruct' }],
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama-3.1-8b', { variant: 'instruct' }],
    ['google/gemma-2-9b-it', 'gemma-2-9b', { variant: 'instruct' }],
    ['microsoft/Phi-3-mini-4k-instruct', 'phi-3-mini', { variant: null }],
    ['unsloth/Llama-3.2-3B-Instruct', 'llama-3.2-3b', { variant: 'instruct', mirror: 'unsloth' }],
    ['NousResearch/Meta-Llama-3-8B', 'llama-3-8b', { mirror: 'nousresearch' }],
    ['meta-llama/Llama-2-7b-chat-hf', 'llama-2-7b', { variant: 'chat' }],
    ['mistralai/Mistral-7B-Instruct-v0.2', 'mistral-7b-v0.2', { variant: 'instruct', mirror: null }],
    ['Qwen/Qwen3-8B-Base', 'qwen3-8b', { variant: 'base' }],
    ['google/gemma-3-4b-pt', 'gemma-3-4b-text', { variant: 'base' }],
    ['google/gemma-3-4b-it', 'gemma-3-4b-text', { variant: null }],
    ['TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T', 'tinyllama-1.1b', { variant: 'base' }],
    [
      'Qwen/Qwen3-4B-Instruct-2507',
      'qwen3-4b',
      { variant: 'instruct', release: '2507', contextLength: 262144 },
    ],
    ['Qwen/Qwen3-30B-A3B-Thinking-2507', 'qwen3-30b-a3b', { variant: 'thinking', release: '2507' }],
    ['Mistral-7B-Instruct-v0.3', 'mistral-7b-v0.3', { variant: 'instruct' }],
    ['qwen2.5-7b-instruct', 'qwen2.5-7b', { variant: 'instruct' }],
  ])('%s → %s', (ref, id, expected) => {
    const match = matchHubName(ref);
    expect(match?.model.id).toBe(id);
    expect(match?.resolution).toMatchObject({ resolvedFrom: ref, ...expected });
  });

  it('says nothing about a name that is the catalog id itself', () => {
    expect(matchHubName('llama-3.1-8b')).toEqual({ model: findModel('llama-3.1-8b'), resolution: null });
  });

  it.each([
    ['unsloth/Llama-3.2-3B-Instruct-bnb-4bit', 'llama-3.2-3b', 'bnb-4bit'],
    ['unsloth/Meta-Llama-3.1-8B-Instruct-unsloth-bnb-4bit', 'llama-3.1-8b', 'bnb-4bit'],
    ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4', 'qwen2.5-7b', 'gptq-int4'],
    ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8', 'qwen2.5-7b', 'gptq-int8'],
    ['Qwen/Qwen2.5-7B-Instruct-AWQ', 'qwen2.5-7b', 'awq-int4'],
    ['TheBloke/Llama-2-7B-Chat-GPTQ', 'llama-2-7b', 'gptq-int4'],
    ['TheBloke/Mistral-7B-Instruct-v0.2-AWQ', 'mistral-7b-v0.2', 'awq-int4'],
    ['hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4', 'llama-3.1-8b', 'awq-int4'],
    ['hugging-quants/Meta-Llama-3.1-8B-Instruct-BNB-NF4', 'llama-3.1-8b', 'bnb-nf4'],
    ['unsloth/Qwen3-4B-FP8', 'qwen3-4b', 'fp8'],
  ])('%s is %s stored pre-quantized (%s)', (ref, id, format) => {
    expect(matchHubName(ref)?.model.id).toBe(id);
    expect(resolution(ref)?.prequantized).toBe(format);
  });

  it.each([
    // Another shape: a vision tower, another size, a longer-context build, another family.
    'meta-llama/Llama-3.2-11B-Vision-Instruct',
    'meta-llama/Llama-3.2-90B-Vision-Instruct',
    'Qwen/Qwen2.5-7B-Instruct-1M',
    'Qwen/Qwen2.5-VL-7B-Instruct',
    'Qwen/Qwen2.5-Coder-7B-Instruct',
    'Qwen/Qwen2.5-Math-7B',
    'microsoft/Phi-3-mini-128k-instruct',
    'microsoft/Phi-3.5-mini-instruct',
    'codellama/CodeLlama-7b-Instruct-hf',
    'mistralai/Mistral-7B-Instruct-v0.4',
    // Qwen2-72B: no config was found to check its shapes against Qwen2.5-72B.
    'Qwen/Qwen2-72B-Instruct',
    // Not a transformers checkpoint.
    'TheBloke/Llama-2-7B-Chat-GGUF',
    // An org that is no known copy: its upload may be a fine-tune with another vocabulary.
    'acme/Llama-3.1-8B-Instruct',
    'someone/qwen2.5-7b',
    // No variant rule is verified for these families.
    'Qwen/Qwen-7B-Chat',
    'deepseek-ai/DeepSeek-V2-Lite-Chat',
    'meta-llama/Llama-3.1-8B-Instruct/extra',
  ])('%s does not resolve to a catalog model', (ref) => {
    expect(matchHubName(ref)).toBeNull();
  });
});

/** The weight-shape fields of a config: what decides every parameter's size. */
const SHAPE_FIELDS = [
  'hidden_size',
  'intermediate_size',
  'num_hidden_layers',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'vocab_size',
  'tie_word_embeddings',
] as const;
type ShapeFacts = Partial<Record<(typeof SHAPE_FIELDS)[number], number | boolean>>;

/**
 * The variants' own configs, as published. mlc: mlc-ai/mlc-llm@79d603f0 python/mlc_llm/model/
 * model_preset.py, whose presets are config.json dumps of the Instruct checkpoints (the Llama 3.x ones
 * have eos_token_id [128001, 128008, 128009], the Qwen2 ones 151645, gemma2_2b [1, 107]). litgpt:
 * Lightning-AI/litgpt@26857050 litgpt/config.py entries written for the variant itself (only the
 * fields the entry states).
 */
const PUBLISHED: ReadonlyArray<readonly [string, string, ShapeFacts]> = [
  [
    'meta-llama/Llama-3.1-8B-Instruct',
    'mlc llama3_1_8b',
    {
      hidden_size: 4096,
      intermediate_size: 14336,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      vocab_size: 128256,
      tie_word_embeddings: false,
    },
  ],
  [
    'meta-llama/Llama-3.1-70B-Instruct',
    'mlc llama3_1_70b',
    {
      hidden_size: 8192,
      intermediate_size: 28672,
      num_hidden_layers: 80,
      num_attention_heads: 64,
      num_key_value_heads: 8,
      vocab_size: 128256,
      tie_word_embeddings: false,
    },
  ],
  [
    'meta-llama/Llama-3.2-1B-Instruct',
    'mlc llama3_2_1b',
    {
      hidden_size: 2048,
      intermediate_size: 8192,
      num_hidden_layers: 16,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      head_dim: 64,
      vocab_size: 128256,
      tie_word_embeddings: true,
    },
  ],
  [
    'meta-llama/Llama-3.2-3B-Instruct',
    'mlc llama3_2_3b',
    {
      hidden_size: 3072,
      intermediate_size: 8192,
      num_hidden_layers: 28,
      num_attention_heads: 24,
      num_key_value_heads: 8,
      head_dim: 128,
      vocab_size: 128256,
      tie_word_embeddings: true,
    },
  ],
  [
    'Qwen/Qwen2.5-3B-Instruct',
    'mlc qwen2.5_3b',
    {
      hidden_size: 2048,
      intermediate_size: 11008,
      num_hidden_layers: 36,
      num_attention_heads: 16,
      num_key_value_heads: 2,
      vocab_size: 151936,
      tie_word_embeddings: true,
    },
  ],
  [
    'Qwen/Qwen2-0.5B-Instruct',
    'mlc qwen2_0_5b',
    {
      hidden_size: 896,
      intermediate_size: 4864,
      num_hidden_layers: 24,
      num_attention_heads: 14,
      num_key_value_heads: 2,
      vocab_size: 151936,
      tie_word_embeddings: true,
    },
  ],
  [
    'Qwen/Qwen2-0.5B',
    'rwth-i6/i6_experiments qwen2_configs.py "Qwen2-0_5B"',
    {
      hidden_size: 896,
      intermediate_size: 4864,
      num_hidden_layers: 24,
      num_attention_heads: 14,
      num_key_value_heads: 2,
      vocab_size: 151936,
      tie_word_embeddings: true,
    },
  ],
  [
    'Qwen/Qwen2-1.5B-Instruct',
    'mlc qwen2_1_5b',
    {
      hidden_size: 1536,
      intermediate_size: 8960,
      num_hidden_layers: 28,
      num_attention_heads: 12,
      num_key_value_heads: 2,
      vocab_size: 151936,
      tie_word_embeddings: true,
    },
  ],
  [
    'Qwen/Qwen2-7B-Instruct',
    'mlc qwen2_7b',
    {
      hidden_size: 3584,
      intermediate_size: 18944,
      num_hidden_layers: 28,
      num_attention_heads: 28,
      num_key_value_heads: 4,
      vocab_size: 152064,
      tie_word_embeddings: false,
    },
  ],
  [
    'Qwen/Qwen2-7B',
    'find_string id 3761174183 (llm_config "_name_or_path": "Qwen/Qwen2-7B")',
    {
      hidden_size: 3584,
      intermediate_size: 18944,
      num_hidden_layers: 28,
      num_attention_heads: 28,
      num_key_value_heads: 4,
      vocab_size: 152064,
      tie_word_embeddings: false,
    },
  ],
  [
    'google/gemma-2-2b-it',
    'mlc gemma2_2b',
    {
      hidden_size: 2304,
      intermediate_size: 9216,
      num_hidden_layers: 26,
      num_attention_heads: 8,
      num_key_value_heads: 4,
      head_dim: 256,
      vocab_size: 256000,
    },
  ],
  [
    'mistralai/Mistral-7B-Instruct-v0.3',
    'litgpt Mistral-7B-Instruct-v0.3',
    { intermediate_size: 14336, num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: 32768 },
  ],
  [
    'mistralai/Mistral-7B-Instruct-v0.2',
    'litgpt Mistral-7B-Instruct-v0.2',
    { intermediate_size: 14336, num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: 32000 },
  ],
  [
    'codellama/CodeLlama-34b-Instruct-hf',
    'litgpt CodeLlama-34b-Instruct-hf',
    {
      hidden_size: 8192,
      intermediate_size: 22016,
      num_hidden_layers: 48,
      num_attention_heads: 64,
      num_key_value_heads: 8,
      vocab_size: 32000,
    },
  ],
  [
    'Qwen/Qwen3-4B-Instruct-2507',
    'litgpt Qwen3-4B-{}-2507',
    {
      hidden_size: 2560,
      intermediate_size: 9728,
      num_hidden_layers: 36,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      head_dim: 128,
      vocab_size: 151936,
    },
  ],
  [
    'Qwen/Qwen3-30B-A3B-Base',
    'litgpt Qwen3-30B-A3B-Base',
    {
      hidden_size: 2048,
      intermediate_size: 6144,
      num_hidden_layers: 48,
      num_attention_heads: 32,
      num_key_value_heads: 4,
      vocab_size: 151936,
    },
  ],
];

describe('a variant resolves to a catalog model with its own shapes', () => {
  it.each(PUBLISHED)('%s (%s)', (ref, _source, facts) => {
    const catalog = findModel(ref);
    expect(catalog, `${ref} resolves`).toBeDefined();
    const fields = Object.keys(facts) as (keyof ShapeFacts)[];
    expect(Object.fromEntries(fields.map((f) => [f, catalog![f]]))).toEqual(facts);
  });

  it('Llama 3 and 3.1 instruct and base share the 128256-token vocabulary and every other shape', () => {
    for (const [instruct, base] of [
      ['meta-llama/Meta-Llama-3-8B-Instruct', 'meta-llama/Meta-Llama-3-8B'],
      ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B'],
    ] as const) {
      const a = resolveModelRef(instruct)!;
      const b = resolveModelRef(base)!;
      expect(a.shape).toEqual(b.shape);
      expect(a.shape.vocabSize).toBe(128256);
    }
  });

  it('the 2507 re-release keeps every shape and takes its own 262144-token context', () => {
    const dated = resolveModelRef('Qwen/Qwen3-4B-Instruct-2507')!;
    const original = resolveModelRef('qwen3-4b')!;
    expect(dated.shape.contextLength).toBe(262144);
    expect(original.shape.contextLength).toBe(40960);
    expect({ ...dated.shape, contextLength: 0 }).toEqual({ ...original.shape, contextLength: 0 });
  });
});

describe("unsloth's re-uploads", () => {
  const fixture = JSON.parse(
    readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'hub-names', 'unsloth-mapper.json'), 'utf8'),
  ) as { pairs: [string, string][] };

  it('resolve as the original their mapper names, and not at all when the original does not (Qwen3-VL, gemma-4…)', () => {
    expect(fixture.pairs.length).toBeGreaterThan(600);
    const differ = fixture.pairs.filter(
      ([copy, original]) => (findModel(copy)?.id ?? null) !== (findModel(original)?.id ?? null),
    );
    expect(differ).toEqual([]);
  });

  it('are named unsloth copies, pre-quantized exactly when the name says so', () => {
    const resolved = fixture.pairs.filter(([copy]) => findModel(copy));
    expect(resolved.length).toBeGreaterThan(200);
    for (const [copy] of resolved) {
      const r = resolution(copy)!;
      expect(r.mirror, copy).toBe('unsloth');
      expect(r.prequantized !== null, copy).toBe(/-(bnb-4bit|fp8(-block|-dynamic)?)$/i.test(copy));
    }
  });

  it('keep the irregular short names of the first uploads', () => {
    expect(findModel('unsloth/mistral-7b-bnb-4bit')?.id).toBe('mistral-7b-v0.1');
    expect(findModel('unsloth/tinyllama-chat')?.id).toBe('tinyllama-1.1b');
    expect(resolution('unsloth/tinyllama')?.variant).toBe('base');
  });
});

describe('the rule tables', () => {
  const families = [...MODELS.map((m) => m.id), ...RELEASES.map((r) => r.name)];
  it('every variant rule and mirror applies to some catalog model, and every release names one', () => {
    for (const rule of VARIANT_RULES)
      expect(
        families.some((f) => rule.models.test(f)),
        rule.reason,
      ).toBe(true);
    for (const mirror of MIRROR_ORGS)
      expect(
        MODELS.some((m) => mirror.models.test(m.id)),
        mirror.org,
      ).toBe(true);
    for (const r of RELEASES) expect(findModel(r.model)?.id).toBe(r.model);
  });

  it("every catalog model's id and repo resolve to that model (no two share a name)", () => {
    for (const m of MODELS) {
      expect(findModel(m.id)?.id).toBe(m.id);
      expect(findModel(m.hfRepo)?.id, m.hfRepo).toBe(m.id);
      expect(findModel(m.hfRepo.toUpperCase())?.id, m.hfRepo).toBe(m.id);
    }
  });

  it('every rule says why the shapes are the same', () => {
    for (const rule of [...VARIANT_RULES, ...MIRROR_ORGS]) expect(rule.reason.length).toBeGreaterThan(40);
  });
});

describe('nearestModelIds', () => {
  it('compares names without org, case and variant suffixes', () => {
    expect(nearestModelIds('acme/Llama-3.1-8B-Instruct')[0]).toBe('llama-3.1-8b');
    expect(nearestModelIds('Qwen/Qwen2-72B-Instruct')[0]).toBe('qwen2.5-72b');
    expect(nearestModelIds('Qwen/Qwen2.5-7B-Instruct-1M')[0]).toBe('qwen2.5-7b');
    expect(nearestModelIds('mistralai/Mistral-7B-Instruct-v0.4')).toEqual([
      'mistral-7b-v0.3',
      'mistral-7b-v0.1',
      'mistral-7b-v0.2',
    ]);
  });
});

describe('searchModels', () => {
  it('finds a catalog model by a Hub id under another spelling, first', () => {
    expect(searchModels('Qwen/Qwen2-7B-Instruct').map((m) => m.id)).toEqual(['qwen2.5-7b']);
    expect(searchModels('unsloth/Llama-3.2-3B-Instruct-bnb-4bit').map((m) => m.id)).toEqual(['llama-3.2-3b']);
    expect(searchModels('llama 8b').map((m) => m.id)).toEqual([
      'llama-3-8b',
      'llama-3.1-8b',
      'deepseek-r1-distill-llama-8b',
    ]);
  });
});

/**
 * From a Hugging Face config.json to the one shape the estimator reads. Every architecture difference
 * lives in the ARCHITECTURES table below (config field names, norms, biases, module names); the
 * estimator never branches on a model name.
 */
import { type ConfigFigure, fileError } from './file-errors.js';

/** A linear module role, in Llama naming; the table maps each architecture's own names onto these. */
export type LinearRole = 'q_proj' | 'k_proj' | 'v_proj' | 'o_proj' | 'gate_proj' | 'up_proj' | 'down_proj';

export const LINEAR_ROLES: readonly LinearRole[] = [
  'q_proj',
  'k_proj',
  'v_proj',
  'o_proj',
  'gate_proj',
  'up_proj',
  'down_proj',
];

export interface MoeShape {
  /** Routed experts per MoE layer. */
  readonly numExperts: number;
  /** Experts each token is sent to. */
  readonly topK: number;
  /** MLP width of one routed expert. */
  readonly expertIntermediateSize: number;
  /** Always-on shared experts (DeepSeek); their combined width is sharedExperts × expertIntermediateSize. */
  readonly sharedExperts: number;
  /** Leading layers that keep a dense MLP (DeepSeek `first_k_dense_replace`). */
  readonly denseLayers: number;
}

export interface MlaShape {
  readonly qLoraRank: number | null;
  readonly kvLoraRank: number;
  readonly qkNopeHeadDim: number;
  readonly qkRopeHeadDim: number;
  readonly vHeadDim: number;
}

/** Everything the memory model needs to know about a decoder-only transformer. */
export interface ModelShape {
  readonly modelType: string;
  readonly hiddenSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  /** Query/key head dimension (may differ from hidden / heads, e.g. Gemma-7B). */
  readonly headDim: number;
  /** Value head dimension (equals headDim except for MLA). */
  readonly valueHeadDim: number;
  readonly vocabSize: number;
  /** Width of a dense MLP (already halved for Qwen v1, whose config stores twice the width). */
  readonly intermediateSize: number;
  readonly mlp: 'gated' | 'plain';
  readonly norm: 'rms' | 'layer';
  readonly normsPerLayer: number;
  readonly qkNorm: boolean;
  readonly qkvBias: boolean;
  /** Biases on o_proj and both/all MLP matrices (GPT-2, GPT-NeoX, BLOOM, Phi-1/2). */
  readonly linearBias: boolean;
  readonly tiedEmbeddings: boolean;
  /**
   * The logits are soft-capped, tanh(logits / c) · c (Gemma-2: final_logit_softcapping). The tanh keeps
   * its output for backward: one more copy of the logits. Absent means no cap.
   */
  readonly finalLogitSoftcap?: boolean;
  /**
   * The attention scores are soft-capped the same way (Gemma-2: attn_logit_softcapping). Eager attention
   * keeps the tanh output for backward: one more 16-bit copy of the scores. Absent means no cap.
   */
  readonly attnLogitSoftcap?: boolean;
  /** q, k and v come from one fused projection (Phi-3 qkv_proj, GPT-NeoX/Falcon query_key_value, GPT-2 c_attn). */
  readonly fusedQkv?: boolean;
  /** Learned absolute position embeddings (GPT-2), rows. 0 for RoPE/ALiBi. */
  readonly learnedPositions: number;
  /**
   * The context window the model was built or extended for (max_position_embeddings; n_positions for
   * GPT-2, seq_length for Qwen v1), when the config says.
   */
  readonly contextLength?: number;
  /** A LayerNorm right after the token embedding (BLOOM). */
  readonly embeddingNorm: boolean;
  readonly moe: MoeShape | null;
  readonly mla: MlaShape | null;
  /**
   * The module names each role answers to as a LoRA target, e.g. c_attn for q/k/v in GPT-2: a Llama-style
   * alias first where one is accepted, the name the model's own code uses last (PEFT's all-linear finds
   * that one; a name shared by several roles is one fused module).
   */
  readonly moduleNames: Readonly<Record<LinearRole, readonly string[]>>;
  /** Config dtype as published ("bfloat16", "float16", "float32"), or null. */
  readonly torchDtype: string | null;
}

type Config = Readonly<Record<string, unknown>>;

interface ArchitectureSpec {
  /** Config keys tried in order for each field. */
  readonly keys: {
    readonly hidden: readonly string[];
    readonly layers: readonly string[];
    readonly heads: readonly string[];
    readonly kvHeads: readonly string[];
    readonly intermediate: readonly string[];
  };
  readonly mlp: 'gated' | 'plain';
  readonly norm: 'rms' | 'layer';
  readonly normsPerLayer: number | ((config: Config) => number);
  readonly qkNorm: boolean;
  readonly qkvBias: boolean | ((config: Config) => boolean);
  readonly linearBias: boolean;
  /** Multiplier applied to the config's intermediate size (Qwen v1 stores twice the MLP width). */
  readonly intermediateFactor: number;
  /** Intermediate size when the config has none, as a multiple of hidden (GPT-2, Falcon, BLOOM: 4h). */
  readonly defaultIntermediateFactor: number;
  readonly learnedPositionKeys: readonly string[];
  readonly embeddingNorm: boolean;
  /** `tie_word_embeddings` when the config omits it (the config class default). */
  readonly defaultTiedEmbeddings: boolean;
  /** The config class's final_logit_softcapping default is a number (Gemma2Config: 30.0). */
  readonly defaultFinalLogitSoftcap?: boolean;
  /** The config class's attn_logit_softcapping default is a number (Gemma2Config: 50.0). */
  readonly defaultAttnLogitSoftcap?: boolean;
  readonly moduleNames: Readonly<Record<LinearRole, readonly string[]>>;
  /** Key/value heads when the config has no kv-head field: a function of the config (MQA flags etc.). */
  readonly kvHeadsFallback?: (config: Config) => number | undefined;
}

/** The context window a config declares, under the names the architectures use for it. */
function contextOf(config: Config, source: string): { contextLength?: number } {
  const keys = ['max_position_embeddings', 'n_positions', 'seq_length', 'max_seq_len'];
  const n = readDim(config, keys, source, 'context');
  return n !== undefined ? { contextLength: n } : {};
}

/** A number caps the logits, null switches the cap off, and a missing key takes the class default. */
function softcapOf(config: Config, key: string, classDefault: boolean | undefined): boolean {
  const cap = config[key];
  if (cap === undefined) return classDefault === true;
  return typeof cap === 'number' && cap > 0;
}

/** q, k and v share a module name: one fused projection makes all three. */
function fusedQkv(names: Readonly<Record<LinearRole, readonly string[]>>): boolean {
  return names.q_proj.some((name) => names.k_proj.includes(name) && names.v_proj.includes(name));
}

const STANDARD_KEYS = {
  hidden: ['hidden_size', 'n_embd', 'd_model'],
  layers: ['num_hidden_layers', 'n_layer', 'num_layers'],
  heads: ['num_attention_heads', 'n_head', 'num_heads'],
  kvHeads: ['num_key_value_heads', 'num_kv_heads', 'n_head_kv', 'multi_query_group_num'],
  intermediate: ['intermediate_size', 'n_inner', 'ffn_hidden_size', 'ffn_dim'],
} as const;

const LLAMA_NAMES: Record<LinearRole, readonly string[]> = {
  q_proj: ['q_proj'],
  k_proj: ['k_proj'],
  v_proj: ['v_proj'],
  o_proj: ['o_proj'],
  gate_proj: ['gate_proj'],
  up_proj: ['up_proj'],
  down_proj: ['down_proj'],
};

/** Phi-3 fuses q/k/v into qkv_proj and gate/up into gate_up_proj (HF modeling_phi3.py). */
const PHI3_NAMES: Record<LinearRole, readonly string[]> = {
  ...LLAMA_NAMES,
  q_proj: ['q_proj', 'qkv_proj'],
  k_proj: ['k_proj', 'qkv_proj'],
  v_proj: ['v_proj', 'qkv_proj'],
  gate_proj: ['gate_proj', 'gate_up_proj'],
  up_proj: ['up_proj', 'gate_up_proj'],
};

/** GPT-NeoX, Falcon and BLOOM: fused query_key_value, dense, dense_h_to_4h, dense_4h_to_h. */
const NEOX_NAMES: Record<LinearRole, readonly string[]> = {
  q_proj: ['q_proj', 'query_key_value'],
  k_proj: ['k_proj', 'query_key_value'],
  v_proj: ['v_proj', 'query_key_value'],
  o_proj: ['o_proj', 'dense'],
  gate_proj: [],
  up_proj: ['up_proj', 'dense_h_to_4h'],
  down_proj: ['down_proj', 'dense_4h_to_h'],
};

/** GPT-2: fused c_attn, c_proj (attention and MLP share the name), c_fc (HF modeling_gpt2.py). */
const GPT2_NAMES: Record<LinearRole, readonly string[]> = {
  q_proj: ['q_proj', 'c_attn'],
  k_proj: ['k_proj', 'c_attn'],
  v_proj: ['v_proj', 'c_attn'],
  o_proj: ['o_proj', 'c_proj'],
  gate_proj: [],
  up_proj: ['up_proj', 'c_fc'],
  down_proj: ['down_proj', 'c_proj'],
};

/** Phi-1/1.5/2: q_proj, k_proj, v_proj, dense, fc1, fc2 (HF modeling_phi.py). */
const PHI_NAMES: Record<LinearRole, readonly string[]> = {
  ...LLAMA_NAMES,
  o_proj: ['o_proj', 'dense'],
  gate_proj: [],
  up_proj: ['up_proj', 'fc1'],
  down_proj: ['down_proj', 'fc2'],
};

/** Qwen v1 (remote code): c_attn fused q/k/v, attn.c_proj, w1/w2 gate and up, mlp.c_proj. */
const QWEN1_NAMES: Record<LinearRole, readonly string[]> = {
  q_proj: ['q_proj', 'c_attn'],
  k_proj: ['k_proj', 'c_attn'],
  v_proj: ['v_proj', 'c_attn'],
  o_proj: ['o_proj', 'c_proj'],
  gate_proj: ['gate_proj', 'w1'],
  up_proj: ['up_proj', 'w2'],
  down_proj: ['down_proj', 'c_proj'],
};

/** Mixtral experts are w1 (gate), w3 (up), w2 (down) (HF modeling_mixtral.py). */
const MIXTRAL_NAMES: Record<LinearRole, readonly string[]> = {
  ...LLAMA_NAMES,
  gate_proj: ['gate_proj', 'w1'],
  up_proj: ['up_proj', 'w3'],
  down_proj: ['down_proj', 'w2'],
};

/** DeepSeek-V2 MLA: q_proj (or q_a/q_b), kv_a_proj_with_mqa (counted as k), kv_b_proj (counted as v), o_proj. */
const DEEPSEEK_V2_NAMES: Record<LinearRole, readonly string[]> = {
  ...LLAMA_NAMES,
  q_proj: ['q_proj', 'q_a_proj', 'q_b_proj'],
  k_proj: ['k_proj', 'kv_a_proj_with_mqa'],
  v_proj: ['v_proj', 'kv_b_proj'],
};

const llamaLike = (overrides: Partial<ArchitectureSpec> = {}): ArchitectureSpec => ({
  keys: STANDARD_KEYS,
  mlp: 'gated',
  norm: 'rms',
  normsPerLayer: 2,
  qkNorm: false,
  qkvBias: false,
  linearBias: false,
  intermediateFactor: 1,
  defaultIntermediateFactor: 4,
  learnedPositionKeys: [],
  embeddingNorm: false,
  defaultTiedEmbeddings: false,
  moduleNames: LLAMA_NAMES,
  ...overrides,
});

const falconNorms = (config: Config): number =>
  config.new_decoder_architecture === true ? 2 : config.parallel_attn === false ? 2 : 1;

const falconKvHeads = (config: Config): number | undefined => {
  if (config.new_decoder_architecture === true) return undefined;
  return config.multi_query === false ? undefined : 1;
};

/**
 * The architecture table: one row per Hugging Face `model_type`. Facts from each model's HF modeling
 * file (transformers/models/<type>/modeling_<type>.py) and the catalog notes in data/catalog.
 */
export const ARCHITECTURES = {
  llama: llamaLike(),
  mistral: llamaLike(),
  mixtral: llamaLike({ moduleNames: MIXTRAL_NAMES }),
  qwen2: llamaLike({ qkvBias: true }),
  qwen2_moe: llamaLike({ qkvBias: true }),
  qwen3: llamaLike({ qkNorm: true }),
  qwen3_moe: llamaLike({ qkNorm: true }),
  gemma: llamaLike({ defaultTiedEmbeddings: true }),
  // Gemma2Config defaults final_logit_softcapping to 30.0 and attn_logit_softcapping to 50.0
  // (transformers configuration_gemma2.py).
  gemma2: llamaLike({
    normsPerLayer: 4,
    defaultTiedEmbeddings: true,
    defaultFinalLogitSoftcap: true,
    defaultAttnLogitSoftcap: true,
  }),
  gemma3_text: llamaLike({ normsPerLayer: 4, qkNorm: true, defaultTiedEmbeddings: true }),
  gemma3: llamaLike({ normsPerLayer: 4, qkNorm: true, defaultTiedEmbeddings: true }),
  phi3: llamaLike({ moduleNames: PHI3_NAMES }),
  phi: llamaLike({
    mlp: 'plain',
    norm: 'layer',
    normsPerLayer: 1,
    qkvBias: true,
    linearBias: true,
    moduleNames: PHI_NAMES,
  }),
  falcon: llamaLike({
    mlp: 'plain',
    norm: 'layer',
    normsPerLayer: falconNorms,
    qkvBias: (config) => config.bias === true,
    moduleNames: NEOX_NAMES,
    kvHeadsFallback: falconKvHeads,
    defaultTiedEmbeddings: true,
  }),
  gpt_neox: llamaLike({
    mlp: 'plain',
    norm: 'layer',
    qkvBias: true,
    linearBias: true,
    moduleNames: NEOX_NAMES,
  }),
  gpt2: llamaLike({
    mlp: 'plain',
    norm: 'layer',
    qkvBias: true,
    linearBias: true,
    learnedPositionKeys: ['n_positions', 'max_position_embeddings'],
    moduleNames: GPT2_NAMES,
    defaultTiedEmbeddings: true,
  }),
  bloom: llamaLike({
    mlp: 'plain',
    norm: 'layer',
    qkvBias: true,
    linearBias: true,
    embeddingNorm: true,
    moduleNames: NEOX_NAMES,
    defaultTiedEmbeddings: true,
  }),
  qwen: llamaLike({ qkvBias: true, intermediateFactor: 0.5, moduleNames: QWEN1_NAMES }),
  deepseek_v2: llamaLike({ moduleNames: DEEPSEEK_V2_NAMES }),
  deepseek_v3: llamaLike({ moduleNames: DEEPSEEK_V2_NAMES }),
} satisfies Record<string, ArchitectureSpec>;

/** The architectures named in the table; any other model_type with the standard fields is read as llama-like. */
export type KnownModelType = keyof typeof ARCHITECTURES;

function isKnown(type: string): type is KnownModelType {
  return Object.hasOwn(ARCHITECTURES, type);
}

/**
 * The widest value a config may declare for each kind of figure. Real configs stay far below (hidden
 * 25,600 and vocabulary 256 k at most today, a 10 M-token context for Llama 4 Scout); a larger one is a
 * damaged file, and taking it would only overflow the estimate.
 */
export const CONFIG_LIMITS = {
  width: 1 << 20,
  count: 1 << 16,
  vocab: 1 << 26,
  context: 1 << 30,
} as const;

type Limit = keyof typeof CONFIG_LIMITS;

/** Where the config field at fault is, and what it must be: a user error naming the file and the key. */
function badDimension(source: string, key: string, value: unknown, min: number, max: number) {
  const shown =
    typeof value === 'string'
      ? JSON.stringify(value.slice(0, 40))
      : typeof value === 'number'
        ? String(value)
        : Array.isArray(value)
          ? 'a list'
          : `a ${value === null ? 'null' : typeof value}`;
  return fileError(
    'config-dimension',
    { file: source, field: key, min, max, value: shown },
    `${source}: ${key}`,
    'invalid-field',
  );
}

/**
 * The first of `keys` the config sets (null counts as unset), checked: a whole number in
 * [min, CONFIG_LIMITS[limit]], else a user error naming the key. Undefined when none is set.
 */
function readDim(
  config: Config,
  keys: readonly string[],
  source: string,
  limit: Limit,
  min = 1,
): number | undefined {
  for (const key of keys) {
    const value = config[key];
    if (value === undefined || value === null) continue;
    const max = CONFIG_LIMITS[limit];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      throw badDimension(source, key, value, min, max);
    return value;
  }
  return undefined;
}

function requireNumber(
  config: Config,
  keys: readonly string[],
  source: string,
  figure: ConfigFigure,
  limit: Limit = 'width',
): number {
  const value = readDim(config, keys, source, limit);
  if (value === undefined) {
    throw fileError(
      'config-missing-figure',
      { file: source, figure, keys },
      `${source}: ${keys[0]}`,
      'invalid-field',
    );
  }
  return value;
}

/** An object-valued part of a config (`text_config`, the catalog's `moe`), or null for anything else. */
function objectAt(config: Config, key: string): Config | null {
  const value = config[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Config) : null;
}

function readMoe(config: Config, intermediate: number, layers: number, source: string): MoeShape | null {
  const experts = readDim(
    config,
    ['num_experts', 'num_local_experts', 'n_routed_experts'],
    source,
    'count',
    0,
  );
  if (experts === undefined || experts <= 1) return null;
  const topK = readDim(config, ['num_experts_per_tok', 'moe_top_k', 'top_k'], source, 'count') ?? 2;
  if (topK > experts) throw badDimension(source, 'num_experts_per_tok', topK, 1, experts);
  const denseLayers = readDim(config, ['first_k_dense_replace'], source, 'count', 0) ?? 0;
  if (denseLayers > layers) throw badDimension(source, 'first_k_dense_replace', denseLayers, 0, layers);
  return {
    numExperts: experts,
    topK,
    expertIntermediateSize: readDim(config, ['moe_intermediate_size'], source, 'width') ?? intermediate,
    sharedExperts: readDim(config, ['n_shared_experts', 'num_shared_experts'], source, 'count', 0) ?? 0,
    denseLayers,
  };
}

function readMla(config: Config, source: string): MlaShape | null {
  const kvLoraRank = readDim(config, ['kv_lora_rank'], source, 'width');
  if (kvLoraRank === undefined) return null;
  return {
    qLoraRank: readDim(config, ['q_lora_rank'], source, 'width') ?? null,
    kvLoraRank,
    qkNopeHeadDim: readDim(config, ['qk_nope_head_dim'], source, 'width', 0) ?? 128,
    qkRopeHeadDim: readDim(config, ['qk_rope_head_dim'], source, 'width', 0) ?? 64,
    vHeadDim: readDim(config, ['v_head_dim'], source, 'width') ?? 128,
  };
}

/**
 * Reads a Hugging Face config.json object (or a catalog entry, which uses the same keys) into a
 * ModelShape. Multimodal configs with a `text_config` are read from their text part.
 * @example shapeFromConfig({ model_type: 'llama', hidden_size: 4096, ... })
 */
export function shapeFromConfig(raw: Config, source = 'config.json'): ModelShape {
  const text = objectAt(raw, 'text_config');
  const config: Config = text ? { ...raw, ...text } : raw;
  const rawType = typeof config.model_type === 'string' ? config.model_type : '';
  const modelType = rawType.split(' ')[0] ?? rawType;
  const spec: ArchitectureSpec = isKnown(modelType) ? ARCHITECTURES[modelType] : ARCHITECTURES.llama;
  const hidden = requireNumber(config, spec.keys.hidden, source, 'hidden');
  const layers = requireNumber(config, spec.keys.layers, source, 'layers', 'count');
  const heads = requireNumber(config, spec.keys.heads, source, 'heads', 'count');
  const kvHeads =
    readDim(config, spec.keys.kvHeads, source, 'count') ?? spec.kvHeadsFallback?.(config) ?? heads;
  if (!Number.isInteger(kvHeads) || kvHeads < 1 || kvHeads > CONFIG_LIMITS.count)
    throw badDimension(source, spec.keys.kvHeads[0]!, kvHeads, 1, CONFIG_LIMITS.count);
  const vocab = requireNumber(config, ['vocab_size', 'padded_vocab_size'], source, 'vocab', 'vocab');
  const configuredIntermediate = readDim(config, spec.keys.intermediate, source, 'width');
  const intermediate = Math.round(
    configuredIntermediate === undefined
      ? hidden * spec.defaultIntermediateFactor
      : configuredIntermediate * spec.intermediateFactor,
  );
  const headDim = readDim(config, ['head_dim', 'kv_channels'], source, 'width') ?? hidden / heads;
  const catalogMla = objectAt(config, 'mla');
  const mla = readMla(config, source) ?? (catalogMla ? readMla(catalogMla, source) : null);
  const flags = objectAt(config, 'architectureFlags') ?? undefined;
  const flaggedNorms = flags ? readDim(flags, ['normsPerLayer'], source, 'count', 0) : undefined;
  const normsPerLayer =
    flaggedNorms !== undefined
      ? flaggedNorms
      : typeof spec.normsPerLayer === 'function'
        ? spec.normsPerLayer(config)
        : spec.normsPerLayer;
  const qkvBias =
    typeof flags?.qkvBias === 'boolean'
      ? flags.qkvBias
      : typeof spec.qkvBias === 'function'
        ? spec.qkvBias(config)
        : spec.qkvBias;
  const catalogMoe = objectAt(config, 'moe');
  const moe = readMoe(catalogMoe ? { ...config, ...catalogMoe } : config, intermediate, layers, source);
  return {
    modelType: modelType || 'llama',
    hiddenSize: hidden,
    numLayers: layers,
    numHeads: heads,
    numKvHeads: kvHeads,
    headDim: mla ? mla.qkNopeHeadDim + mla.qkRopeHeadDim : headDim,
    valueHeadDim: mla ? mla.vHeadDim : headDim,
    vocabSize: vocab,
    intermediateSize: intermediate,
    mlp: spec.mlp,
    norm: spec.norm,
    normsPerLayer,
    qkNorm: typeof flags?.qkNorm === 'boolean' ? flags.qkNorm : spec.qkNorm,
    qkvBias,
    linearBias: spec.linearBias,
    tiedEmbeddings:
      typeof config.tie_word_embeddings === 'boolean'
        ? config.tie_word_embeddings
        : spec.defaultTiedEmbeddings,
    ...(softcapOf(config, 'final_logit_softcapping', spec.defaultFinalLogitSoftcap)
      ? { finalLogitSoftcap: true }
      : {}),
    ...(softcapOf(config, 'attn_logit_softcapping', spec.defaultAttnLogitSoftcap)
      ? { attnLogitSoftcap: true }
      : {}),
    ...(fusedQkv(spec.moduleNames) ? { fusedQkv: true } : {}),
    learnedPositions: readDim(config, spec.learnedPositionKeys, source, 'context') ?? 0,
    ...contextOf(config, source),
    embeddingNorm: spec.embeddingNorm,
    moe,
    mla,
    moduleNames: spec.moduleNames,
    torchDtype: typeof config.torch_dtype === 'string' ? config.torch_dtype : null,
  };
}

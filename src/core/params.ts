/**
 * Parameter accounting for a ModelShape: every linear module with its dimensions, plus embeddings,
 * norms and the LM head. The LoRA, quantization and sharding terms of the memory model all read this.
 */
import type { LinearRole, ModelShape } from './architecture.js';

/** One kind of linear module, summed over the layers that have it. */
export interface LinearModule {
  readonly role: LinearRole;
  /** Where it sits: attention, a dense MLP, a routed expert, or a shared expert. */
  readonly group: 'attention' | 'mlp' | 'expert' | 'shared-expert';
  readonly inFeatures: number;
  readonly outFeatures: number;
  readonly bias: boolean;
  /** Instances across the whole model (layers × experts). */
  readonly count: number;
  /** Instances a single token passes through, across all layers (top-k experts only). */
  readonly activeCount: number;
}

export interface ParamBreakdown {
  /** Token embeddings, learned position embeddings and any embedding norm. */
  readonly embeddingParams: number;
  /** The untied LM head (0 when tied to the embeddings: counted once). */
  readonly lmHeadParams: number;
  /** Every norm weight and bias, q/k norms and the final norm. */
  readonly normParams: number;
  /** MoE routers. */
  readonly routerParams: number;
  readonly linears: readonly LinearModule[];
  /** Weights and biases of all linear modules in the decoder blocks. */
  readonly linearParams: number;
  /** One decoder block's parameters (the largest block for MoE with dense first layers). */
  readonly largestLayerParams: number;
  readonly totalParams: number;
}

/** Parameters of one linear module instance, bias included. */
export function linearModuleParams(module: LinearModule): number {
  return module.inFeatures * module.outFeatures + (module.bias ? module.outFeatures : 0);
}

function attentionModules(shape: ModelShape): LinearModule[] {
  const L = shape.numLayers;
  const h = shape.hiddenSize;
  const qOut = shape.numHeads * shape.headDim;
  const kvOut = shape.numKvHeads * shape.headDim;
  const vOut = shape.numKvHeads * shape.valueHeadDim;
  const oIn = shape.numHeads * shape.valueHeadDim;
  const make = (role: LinearRole, inFeatures: number, outFeatures: number, bias: boolean): LinearModule => ({
    role,
    group: 'attention',
    inFeatures,
    outFeatures,
    bias,
    count: L,
    activeCount: L,
  });
  if (shape.mla) {
    // DeepSeek-V2 multi-head latent attention (HF modeling_deepseek.py): q (optionally through a
    // low-rank q_a/q_b pair), kv_a to the latent plus the shared rope key, kv_b back to per-head k and v.
    const { qLoraRank, kvLoraRank, qkRopeHeadDim } = shape.mla;
    const q =
      qLoraRank === null
        ? [make('q_proj', h, qOut, false)]
        : [make('q_proj', h, qLoraRank, false), make('q_proj', qLoraRank, qOut, false)];
    const kvB = shape.numHeads * (shape.mla.qkNopeHeadDim + shape.mla.vHeadDim);
    return [
      ...q,
      make('k_proj', h, kvLoraRank + qkRopeHeadDim, false),
      make('v_proj', kvLoraRank, kvB, false),
      make('o_proj', oIn, h, false),
    ];
  }
  return [
    make('q_proj', h, qOut, shape.qkvBias),
    make('k_proj', h, kvOut, shape.qkvBias),
    make('v_proj', h, vOut, shape.qkvBias),
    make('o_proj', oIn, h, shape.linearBias),
  ];
}

function mlpModules(
  shape: ModelShape,
  width: number,
  group: LinearModule['group'],
  count: number,
  activeCount: number,
): LinearModule[] {
  const h = shape.hiddenSize;
  const bias = shape.linearBias;
  const make = (
    role: LinearRole,
    inFeatures: number,
    outFeatures: number,
    withBias: boolean,
  ): LinearModule => ({
    role,
    group,
    inFeatures,
    outFeatures,
    bias: withBias,
    count,
    activeCount,
  });
  if (shape.mlp === 'plain') return [make('up_proj', h, width, bias), make('down_proj', width, h, bias)];
  return [
    make('gate_proj', h, width, false),
    make('up_proj', h, width, false),
    make('down_proj', width, h, false),
  ];
}

/** Every linear module of the decoder blocks, dense and MoE. */
export function linearModules(shape: ModelShape): LinearModule[] {
  const L = shape.numLayers;
  const modules = attentionModules(shape);
  const moe = shape.moe;
  if (!moe) return [...modules, ...mlpModules(shape, shape.intermediateSize, 'mlp', L, L)];
  const moeLayers = L - moe.denseLayers;
  if (moe.denseLayers > 0) {
    modules.push(...mlpModules(shape, shape.intermediateSize, 'mlp', moe.denseLayers, moe.denseLayers));
  }
  modules.push(
    ...mlpModules(
      shape,
      moe.expertIntermediateSize,
      'expert',
      moeLayers * moe.numExperts,
      moeLayers * moe.topK,
    ),
  );
  if (moe.sharedExperts > 0) {
    const sharedWidth = moe.expertIntermediateSize * moe.sharedExperts;
    modules.push(...mlpModules(shape, sharedWidth, 'shared-expert', moeLayers, moeLayers));
  }
  return modules;
}

/**
 * Counts parameters by part. Formula as in data/catalog/README.md (embeddings + per-layer attention,
 * MLP and norms + final norm + untied head), extended for biases, LayerNorm biases, q/k norms, MLA and MoE.
 */
export function paramBreakdown(shape: ModelShape): ParamBreakdown {
  // Shapes are immutable values; planners call the estimator thousands of times on one shape.
  const cached = BREAKDOWNS.get(shape);
  if (cached) return cached;
  const computed = computeBreakdown(shape);
  BREAKDOWNS.set(shape, computed);
  return computed;
}

const BREAKDOWNS = new WeakMap<ModelShape, ParamBreakdown>();

function computeBreakdown(shape: ModelShape): ParamBreakdown {
  const h = shape.hiddenSize;
  const L = shape.numLayers;
  const normWidth = shape.norm === 'layer' ? 2 : 1; // LayerNorm has a bias, RMSNorm does not
  const linears = linearModules(shape);
  const linearParams = linears.reduce((sum, m) => sum + linearModuleParams(m) * m.count, 0);
  const embeddingParams =
    shape.vocabSize * h + shape.learnedPositions * h + (shape.embeddingNorm ? normWidth * h : 0);
  // Phi-1/2 give the LM head a bias (HF modeling_phi.py: nn.Linear(..., bias=True)).
  const lmHeadBias = shape.modelType === 'phi' ? shape.vocabSize : 0;
  const lmHeadParams = shape.tiedEmbeddings ? 0 : shape.vocabSize * h + lmHeadBias;
  const qkNormParams = shape.qkNorm ? 2 * shape.headDim : 0;
  const mlaNormParams = shape.mla ? shape.mla.kvLoraRank + (shape.mla.qLoraRank ?? 0) : 0;
  const perLayerNorms = shape.normsPerLayer * normWidth * h + qkNormParams + mlaNormParams;
  const normParams = L * perLayerNorms + normWidth * h;
  const moeLayers = shape.moe ? L - shape.moe.denseLayers : 0;
  const routerParams = shape.moe ? moeLayers * shape.moe.numExperts * h : 0;
  const perLayer = (group: (m: LinearModule) => boolean, layers: number): number =>
    linears.filter(group).reduce((sum, m) => sum + (linearModuleParams(m) * m.count) / layers, 0);
  const attentionPerLayer = perLayer((m) => m.group === 'attention', L);
  const densePerLayer = shape.moe
    ? shape.moe.denseLayers > 0
      ? perLayer((m) => m.group === 'mlp', shape.moe.denseLayers)
      : 0
    : perLayer((m) => m.group === 'mlp', L);
  const moePerLayer =
    moeLayers > 0
      ? perLayer((m) => m.group === 'expert' || m.group === 'shared-expert', moeLayers) +
        routerParams / moeLayers
      : 0;
  const largestLayerParams = attentionPerLayer + perLayerNorms + Math.max(densePerLayer, moePerLayer);
  return {
    embeddingParams,
    lmHeadParams,
    normParams,
    routerParams,
    linears,
    linearParams,
    largestLayerParams: Math.round(largestLayerParams),
    totalParams: embeddingParams + lmHeadParams + normParams + routerParams + linearParams,
  };
}

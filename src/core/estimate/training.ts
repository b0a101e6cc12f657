/**
 * The training plan: what the method trains (all of it, the top layers, LoRA adapters and
 * modules_to_save copies), resolved against the model's linear modules.
 */
import { LINEAR_ROLES, type LinearRole, type ModelShape } from '../architecture.js';
import type { LinearModule, ParamBreakdown } from '../params.js';
import { fieldError, shown } from '../scenario/field-errors.js';
import type { Scenario } from '../scenario.js';

export interface TrainingPlan {
  /** Trainable parameters (whole model, before sharding). */
  readonly trainableParams: number;
  /** Extra weights stored for training only (LoRA adapters, modules_to_save copies). */
  readonly extraWeightParams: number;
  /** Trainable parameters kept at the model's own precision: all of full/freeze, modules_to_save copies of LoRA. */
  readonly denseTrainableParams: number;
  /** Roles whose weights are trained in the layers that train (full, freeze). */
  readonly fullyTrainedLayers: number;
  /** Roles that carry a LoRA adapter, with the adapter's in/out widths per instance. */
  readonly adapted: ReadonlyMap<
    string,
    {
      readonly roles: readonly LinearRole[];
      readonly inFeatures: number;
      readonly outFeatures: number;
      readonly count: number;
    }
  >;
  readonly lmHeadTrained: boolean;
  readonly lmHeadAdapted: boolean;
  readonly embeddingTrained: boolean;
  /** Layers through which gradients must flow (and so save activations). */
  readonly layersWithGrad: number;
}

const EMBED_NAMES = new Set([
  'embed_tokens',
  'wte',
  'embed_in',
  'word_embeddings',
  'tok_embeddings',
  'embeddings',
]);
const HEAD_NAMES = new Set(['lm_head', 'embed_out', 'output']);

/** Resolved targets per LoRA config and shape: planners re-estimate one scenario many times. */
const TARGETS = new WeakMap<object, WeakMap<ModelShape, TrainingPlan['adapted']>>();
/**
 * The LoRA plan per LoRA config and shape, for the same reason: it reads nothing else (the shape's
 * parameters are paramBreakdown's of the shape, which the estimate passes).
 */
const LORA_PLANS = new WeakMap<object, WeakMap<ModelShape, TrainingPlan>>();

function resolveTargets(
  scenario: Scenario,
  shape: ModelShape,
  linears: readonly LinearModule[],
): TrainingPlan['adapted'] {
  const lora = scenario.lora!;
  let byShape = TARGETS.get(lora);
  if (!byShape) {
    byShape = new WeakMap<ModelShape, TrainingPlan['adapted']>();
    TARGETS.set(lora, byShape);
  }
  const cached = byShape.get(shape);
  if (cached) return cached;
  const resolved = computeTargets(lora, shape, linears);
  byShape.set(shape, resolved);
  return resolved;
}

function computeTargets(
  lora: NonNullable<Scenario['lora']>,
  shape: ModelShape,
  linears: readonly LinearModule[],
): TrainingPlan['adapted'] {
  const adapted = new Map<
    string,
    { roles: LinearRole[]; inFeatures: number; outFeatures: number; count: number }
  >();
  const names =
    lora.targets === 'all-linear'
      ? // PEFT "all-linear": every linear module except the output head (peft/tuners/tuners_utils.py),
        // under the model's own names (the last of each role's names): a fused qkv_proj or gate_up_proj
        // is one module with one adapter, as PEFT finds it.
        [
          ...new Set(
            LINEAR_ROLES.filter(
              (role) => shape.moduleNames[role].length > 0 && linears.some((m) => m.role === role),
            ).map((role) => shape.moduleNames[role].at(-1)!),
          ),
        ]
      : lora.targets.filter((name) => !HEAD_NAMES.has(name));
  for (const name of names) {
    const roles = LINEAR_ROLES.filter((role) => shape.moduleNames[role].includes(name) || role === name);
    const present = roles.filter((role) => linears.some((m) => m.role === role));
    if (present.length === 0) {
      const known = [
        ...new Set(
          LINEAR_ROLES.flatMap((role) =>
            linears.some((m) => m.role === role) ? shape.moduleNames[role] : [],
          ),
        ),
      ];
      throw fieldError('not-a-linear-module', ['lora', 'targets'], {
        value: shown(name),
        modelType: shape.modelType,
        known: [...known, 'lm_head'],
      });
    }
    // A fused module name (query_key_value, c_attn, gate_up_proj) is one adapter over all the roles it
    // covers; a Llama-style name on a fused architecture adapts that slice alone (litgpt, PEFT fan-in).
    const modules = linears.filter((m) => present.includes(m.role));
    const groups = new Map<string, LinearModule[]>();
    for (const m of modules) {
      const key = `${m.group}:${m.inFeatures}:${m.count}`;
      groups.set(key, [...(groups.get(key) ?? []), m]);
    }
    const isFused = present.length > 1 && !LINEAR_ROLES.includes(name as LinearRole);
    for (const [key, group] of groups) {
      if (isFused) {
        const first = group[0]!;
        adapted.set(`${name}@${key}`, {
          roles: group.map((m) => m.role),
          inFeatures: first.inFeatures,
          outFeatures: group.reduce((sum, m) => sum + m.outFeatures, 0),
          count: first.count,
        });
      } else {
        for (const m of group) {
          adapted.set(`${m.role}@${key}:${m.outFeatures}`, {
            roles: [m.role],
            inFeatures: m.inFeatures,
            outFeatures: m.outFeatures,
            count: m.count,
          });
        }
      }
    }
  }
  return adapted;
}

/** No adapters (full, freeze): one empty map for every estimate, never written to. */
const NO_ADAPTERS: TrainingPlan['adapted'] = new Map();

export function trainingPlan(scenario: Scenario, shape: ModelShape, params: ParamBreakdown): TrainingPlan {
  const none = NO_ADAPTERS;
  if (scenario.method === 'full') {
    return {
      trainableParams: params.totalParams,
      extraWeightParams: 0,
      denseTrainableParams: params.totalParams,
      fullyTrainedLayers: shape.numLayers,
      adapted: none,
      lmHeadTrained: true,
      lmHeadAdapted: false,
      embeddingTrained: true,
      layersWithGrad: shape.numLayers,
    };
  }
  if (scenario.method === 'freeze') {
    const k = Math.min(scenario.trainableLayers ?? 2, shape.numLayers);
    const perLayer =
      (params.linearParams + params.routerParams) / shape.numLayers +
      (params.normParams - shape.hiddenSize) / shape.numLayers;
    return {
      trainableParams: Math.round(perLayer * k),
      extraWeightParams: 0,
      denseTrainableParams: Math.round(perLayer * k),
      fullyTrainedLayers: k,
      adapted: none,
      lmHeadTrained: false,
      lmHeadAdapted: false,
      embeddingTrained: false,
      layersWithGrad: k,
    };
  }
  const lora = scenario.lora!;
  let byShape = LORA_PLANS.get(lora);
  if (!byShape) {
    byShape = new WeakMap<ModelShape, TrainingPlan>();
    LORA_PLANS.set(lora, byShape);
  }
  const known = byShape.get(shape);
  if (known) return known;
  const planned = Object.freeze(loraPlan(scenario, shape, params));
  byShape.set(shape, planned);
  return planned;
}

/** What LoRA trains: the adapters on the resolved targets, and the modules_to_save copies. */
function loraPlan(scenario: Scenario, shape: ModelShape, params: ParamBreakdown): TrainingPlan {
  const lora = scenario.lora!;
  const adapted = resolveTargets(scenario, shape, params.linears);
  const rank = lora.rank;
  let adapterParams = 0;
  for (const a of adapted.values()) adapterParams += rank * (a.inFeatures + a.outFeatures) * a.count;
  const targets = lora.targets === 'all-linear' ? [] : lora.targets;
  const lmHeadAdapted = targets.some((t) => HEAD_NAMES.has(t));
  const headRows = shape.vocabSize;
  if (lmHeadAdapted) adapterParams += rank * (shape.hiddenSize + headRows);
  const saved = lora.modulesToSave;
  for (const name of saved) {
    if (!EMBED_NAMES.has(name) && !HEAD_NAMES.has(name)) {
      throw fieldError('module-not-sizable', ['lora', 'modulesToSave'], { value: shown(name) });
    }
  }
  const embeddingTrained = saved.some((n) => EMBED_NAMES.has(n));
  const lmHeadTrained = saved.some((n) => HEAD_NAMES.has(n));
  // PEFT's ModulesToSaveWrapper keeps the frozen original and a trainable copy.
  const embedRows = shape.vocabSize * shape.hiddenSize;
  const savedParams = (embeddingTrained ? embedRows : 0) + (lmHeadTrained ? embedRows : 0);
  return {
    trainableParams: adapterParams + savedParams,
    extraWeightParams: adapterParams + savedParams,
    denseTrainableParams: savedParams,
    fullyTrainedLayers: 0,
    adapted,
    lmHeadTrained,
    lmHeadAdapted,
    embeddingTrained,
    layersWithGrad: shape.numLayers,
  };
}

/**
 * Framework profiles (issue #19): what each training stack does that a scenario would otherwise have to
 * state, as one table of sourced facts, and the resolver that fills the fields a user left out. An
 * explicit field always wins. Results are data (fields, codes, params); docs/frameworks.md explains them.
 */
import { SCENARIO_FIELDS } from '../scenario/fields.js';
import {
  BITSANDBYTES_QUANTIZATIONS,
  defaultPrecision,
  FRAMEWORKS,
  type Framework,
  type Quantization,
  type VersionKey,
  type Versions,
} from '../scenario/values.js';
import type { AppliedField, Assumption, ImpliedMechanism, ScenarioProfile } from './decision.js';
import {
  ACCELERATE_FACTS,
  AXOLOTL_FACTS,
  BNB_TRAINER_FACTS,
  DEEPSPEED_FACTS,
  HF_TRAINER_FACTS,
  LLAMA_FACTORY_FACTS,
  MS_SWIFT_FACTS,
  peftFacts,
  TRL_FACTS,
  UNSLOTH_FACTS,
} from './facts-hf.js';
import {
  LITGPT_FACTS,
  LITGPT_PINS,
  PYTORCH_FACTS,
  TORCHTITAN_FACTS,
  TORCHTUNE_FACTS,
} from './facts-native.js';
import {
  type Applies,
  BEHAVIOUR_FIELDS,
  type BehaviourField,
  type BehaviourValue,
  type Fact,
  type Profile,
  type SameAs,
  type VersionCondition,
} from './types.js';
import { inRange, parseVersion } from './version.js';

/** The scenario's own defaults (docs/scenario.md), which the facts' applies-conditions see for a field left out. */
const DEFAULT = {
  method: SCENARIO_FIELDS.method.default,
  quantization: SCENARIO_FIELDS.quantization.default,
  optimizer: SCENARIO_FIELDS.optimizer.default,
  microBatchSize: SCENARIO_FIELDS.microBatchSize.default,
  seqLen: SCENARIO_FIELDS.seqLen.default,
} as const;

const HF_PACKAGES: readonly VersionKey[] = ['transformers', 'torch', 'peft', 'bitsandbytes', 'accelerate'];

/** Every framework's profile. Facts are in priority order: the framework's own before the stack it runs on. */
export const FRAMEWORK_PROFILES: Readonly<Record<Framework, Profile>> = {
  'hf-trainer': {
    packages: [...HF_PACKAGES, 'trl', 'deepspeed'],
    facts: [...TRL_FACTS, ...peftFacts(true), ...BNB_TRAINER_FACTS, ...HF_TRAINER_FACTS],
  },
  axolotl: {
    packages: ['axolotl', ...HF_PACKAGES],
    facts: [...AXOLOTL_FACTS, ...peftFacts(true), ...BNB_TRAINER_FACTS, ...HF_TRAINER_FACTS],
  },
  'llama-factory': {
    packages: ['llamaFactory', ...HF_PACKAGES],
    facts: [...LLAMA_FACTORY_FACTS, ...peftFacts(true), ...BNB_TRAINER_FACTS, ...HF_TRAINER_FACTS],
  },
  'ms-swift': {
    packages: ['msSwift', ...HF_PACKAGES],
    facts: [...MS_SWIFT_FACTS, ...peftFacts(true), ...BNB_TRAINER_FACTS, ...HF_TRAINER_FACTS],
  },
  unsloth: {
    packages: ['unsloth', 'trl', ...HF_PACKAGES],
    facts: [...UNSLOTH_FACTS, ...TRL_FACTS, ...peftFacts(true), ...BNB_TRAINER_FACTS, ...HF_TRAINER_FACTS],
  },
  torchtune: { packages: ['torchtune', 'torch', 'torchao'], facts: TORCHTUNE_FACTS },
  litgpt: {
    packages: ['litgpt', 'lightning', 'torch', 'bitsandbytes'],
    pins: LITGPT_PINS,
    facts: LITGPT_FACTS,
  },
  torchtitan: { packages: ['torchtitan', 'torch', 'torchao'], facts: TORCHTITAN_FACTS },
  accelerate: {
    packages: ['accelerate', 'torch', 'peft', 'bitsandbytes'],
    facts: [...ACCELERATE_FACTS, ...peftFacts(false), ...PYTORCH_FACTS],
  },
  deepspeed: {
    packages: ['deepspeed', 'torch', 'peft', 'bitsandbytes'],
    facts: [...DEEPSPEED_FACTS, ...peftFacts(false), ...PYTORCH_FACTS],
  },
  pytorch: { packages: ['torch', 'peft', 'bitsandbytes'], facts: [...PYTORCH_FACTS, ...peftFacts(false)] },
};

export type {
  AppliedField,
  Assumption,
  AssumptionReason,
  ImpliedMechanism,
  ScenarioProfile,
} from './decision.js';

/** What a framework profile decides for one scenario. */
export interface BehaviourDefaults {
  readonly framework: Framework;
  /** The versions the facts were judged against: the given ones plus any the framework pins. */
  readonly versions: Versions;
  /**
   * The fields to add to the scenario as a user would write them (nested: `{ lora: { adapterDtype } }`);
   * only fields the scenario does not set.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /** config.json overrides for the model (a framework that unties the head). */
  readonly modelConfig?: Readonly<Record<string, BehaviourValue>>;
  readonly applied: readonly AppliedField[];
  readonly assumed: readonly Assumption[];
  /** Mechanisms the framework implies that the estimator does not model yet. */
  readonly mechanisms: readonly ImpliedMechanism[];
}

type Raw = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(raw: Raw, path: string): unknown {
  let node: unknown = raw;
  for (const key of path.split('.')) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Whether the user set a field; the model's own config.json counts for modelConfig fields. */
function isSet(raw: Raw, field: BehaviourField): boolean {
  if (field.startsWith('modelConfig.')) {
    return isRecord(raw.model) && raw.model[field.slice('modelConfig.'.length)] !== undefined;
  }
  const value = at(raw, field);
  return value !== undefined && value !== null;
}

/** The scenario as the applies-conditions see it: the user's fields, defaults, and fields resolved so far. */
interface View {
  readonly method: string;
  readonly quantization: string;
  readonly quantizer: unknown;
  readonly strategy: string;
  readonly gpus: number;
  readonly optimizer: string;
  readonly precision: string;
  readonly evaluates: boolean;
}

function viewOf(raw: Raw, resolved: ReadonlyMap<BehaviourField, BehaviourValue>): View {
  const parallelism = isRecord(raw.parallelism) ? raw.parallelism : {};
  return {
    method: typeof raw.method === 'string' ? raw.method : DEFAULT.method,
    quantization: typeof raw.quantization === 'string' ? raw.quantization : DEFAULT.quantization,
    quantizer: raw.quantizer ?? resolved.get('quantizer'),
    strategy: typeof parallelism.strategy === 'string' ? parallelism.strategy : 'single',
    gpus: typeof parallelism.gpus === 'number' ? parallelism.gpus : 1,
    optimizer: typeof raw.optimizer === 'string' ? raw.optimizer : DEFAULT.optimizer,
    precision: precisionOf(raw, resolved),
    evaluates: isRecord(raw.evaluation),
  };
}

function precisionOf(raw: Raw, resolved: ReadonlyMap<BehaviourField, BehaviourValue>): string {
  if (typeof raw.precision === 'string') return raw.precision;
  const fromProfile = resolved.get('precision');
  if (typeof fromProfile === 'string') return fromProfile;
  const method = typeof raw.method === 'string' ? raw.method : DEFAULT.method;
  // As the field table's default: a base loaded in fp32 and not quantized trains under autocast.
  const loadDtype = raw.loadDtype ?? resolved.get('loadDtype');
  const quantization = typeof raw.quantization === 'string' ? raw.quantization : DEFAULT.quantization;
  if (loadDtype === 'fp32' && quantization === 'none') return 'bf16-mixed';
  return defaultPrecision(method as Parameters<typeof defaultPrecision>[0]);
}

function quantizedBy(view: View): 'bitsandbytes' | 'torchao' | undefined {
  if (view.quantizer === 'torchao') return 'torchao';
  return BITSANDBYTES_QUANTIZATIONS.has(view.quantization as Quantization) ? 'bitsandbytes' : undefined;
}

function applies(condition: Applies | undefined, view: View): boolean {
  if (!condition) return true;
  const among = (list: readonly string[] | undefined, value: string): boolean =>
    list === undefined || list.includes(value);
  return (
    among(condition.methods, view.method) &&
    among(condition.quantizations, view.quantization) &&
    among(condition.strategies, view.strategy) &&
    among(condition.optimizers, view.optimizer) &&
    among(condition.precisions, view.precision) &&
    (condition.quantizedBy === undefined || condition.quantizedBy === quantizedBy(view)) &&
    (condition.multiGpu === undefined || view.gpus > 1) &&
    (condition.evaluates === undefined || view.evaluates)
  );
}

/** A fact's value: its own, or the field it is the same as, as the user gave it or by default. */
function factValue(value: BehaviourValue | SameAs, raw: Raw): BehaviourValue {
  if (typeof value !== 'object') return value;
  const given = raw[value.sameAs];
  return typeof given === 'number' ? given : DEFAULT[value.sameAs];
}

/** Holds, fails, or holds only by assumption (listing the packages whose version was not known). */
type Judgement =
  | { readonly holds: false }
  | { readonly holds: true; readonly unknown: readonly VersionKey[] };

function judge(conditions: readonly VersionCondition[] | undefined, versions: Versions): Judgement {
  const unknown: VersionKey[] = [];
  for (const condition of conditions ?? []) {
    const version = versions[condition.package];
    const inside =
      version === undefined || parseVersion(version) === undefined ? undefined : inRange(condition, version);
    if (inside === false) return { holds: false };
    if (inside === undefined) unknown.push(condition.package);
  }
  return { holds: true, unknown };
}

function versionsWithPins(profile: Profile, given: Versions): { versions: Versions; assumed: Assumption[] } {
  const versions: Partial<Record<VersionKey, string>> = { ...given };
  const assumed: Assumption[] = [];
  for (const pin of profile.pins ?? []) {
    if (versions[pin.package] !== undefined) continue;
    const own = versions[pin.when.package];
    if (own === undefined || inRange(pin.when, own) !== true) continue;
    versions[pin.package] = pin.version;
    assumed.push({
      target: `versions.${pin.package}`,
      value: pin.version,
      package: pin.package,
      why: 'pinned-by-framework',
      factId: `${pin.when.package}.pins.${pin.package}`,
    });
  }
  return { versions, assumed };
}

function setPath(target: Record<string, unknown>, path: string, value: BehaviourValue): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/**
 * The behaviour fields a framework implies for the fields `scenarioSoFar` (a scenario as the user wrote
 * it, before defaults) leaves out, with what was assumed for unknown versions and the mechanisms the
 * estimator does not model yet.
 * @example behaviourDefaults('litgpt', { bitsandbytes: '0.41.1' }, { model: 'llama-2-7b', method: 'qlora', quantization: 'nf4' }).fields
 * // { precision: 'bf16-mixed', lora: { adapterDtype: 'model' }, quantizeHead: true, quantizedFrom: 'fp16', quantizedInputsKept: 'next-forward', loss: 'chunked', padding: 'longest', evaluation: { microBatchSize: 1, generateTokens: 2048, generateBatch: 1 } }
 */
export function behaviourDefaults(
  framework: Framework,
  versions: Versions | undefined,
  scenarioSoFar: Raw,
): BehaviourDefaults {
  const profile = FRAMEWORK_PROFILES[framework];
  const pinned = versionsWithPins(profile, versions ?? {});
  const assumed: Assumption[] = [...pinned.assumed];
  const applied: AppliedField[] = [];
  const resolved = new Map<BehaviourField, BehaviourValue>();
  const holds = (fact: Fact, view: View): Judgement => {
    if (!applies(fact.applies, view)) return { holds: false };
    const judgement = judge(fact.when, pinned.versions);
    if (!judgement.holds || judgement.unknown.length === 0) return judgement;
    return fact.ifUnknown?.assume ? judgement : { holds: false };
  };
  const note = (
    fact: Fact,
    target: Assumption['target'],
    value: Assumption['value'],
    unknown: readonly VersionKey[],
  ) => {
    if (!fact.ifUnknown?.assume) return;
    for (const pkg of unknown)
      assumed.push({ target, value, package: pkg, why: fact.ifUnknown.why, factId: fact.id });
  };

  for (const field of BEHAVIOUR_FIELDS) {
    if (isSet(scenarioSoFar, field)) continue;
    const view = viewOf(scenarioSoFar, resolved);
    for (const fact of profile.facts) {
      if (fact.kind !== 'sets' || fact.field !== field) continue;
      const judgement = holds(fact, view);
      if (!judgement.holds) continue;
      const value = factValue(fact.value, scenarioSoFar);
      resolved.set(field, value);
      applied.push({ field, value, factId: fact.id });
      note(fact, field, value, judgement.unknown);
      break;
    }
  }

  const view = viewOf(scenarioSoFar, resolved);
  const mechanisms: ImpliedMechanism[] = [];
  for (const fact of profile.facts) {
    if (fact.kind !== 'mechanism') continue;
    const judgement = holds(fact, view);
    if (!judgement.holds) continue;
    mechanisms.push({ code: fact.mechanism, params: fact.params, factId: fact.id });
    note(fact, fact.mechanism, fact.params, judgement.unknown);
  }

  const fields: Record<string, unknown> = {};
  const modelConfig: Record<string, BehaviourValue> = {};
  for (const { field, value } of applied) {
    if (field.startsWith('modelConfig.')) modelConfig[field.slice('modelConfig.'.length)] = value;
    else setPath(fields, field, value);
  }
  return {
    framework,
    versions: pinned.versions,
    fields,
    ...(Object.keys(modelConfig).length === 0 ? {} : { modelConfig }),
    applied,
    assumed,
    mechanisms,
  };
}

/** A copy of JSON-shaped input: objects and arrays copied, everything else shared. */
function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)]));
  return value;
}

function mergeAbsent(target: Record<string, unknown>, patch: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (isRecord(value)) {
      if (target[key] === undefined || target[key] === null) target[key] = {};
      if (isRecord(target[key])) mergeAbsent(target[key] as Record<string, unknown>, value);
    } else if (target[key] === undefined || target[key] === null) {
      target[key] = value;
    }
  }
}

/**
 * A scenario as the user wrote it with its framework's behaviour fields added where it sets none (a
 * copy; the input is not changed). Unchanged, and no defaults, when it names no known framework. The
 * result still goes through parseScenario; `defaults.modelConfig` is for the model's config.json.
 */
export function withFrameworkDefaults(raw: Raw): {
  scenario: Record<string, unknown>;
  defaults?: BehaviourDefaults;
} {
  const framework = raw.framework;
  const copy = clone(raw) as Record<string, unknown>;
  if (typeof framework !== 'string' || !(FRAMEWORKS as readonly string[]).includes(framework)) {
    return { scenario: copy };
  }
  const versions = isRecord(raw.versions) ? (raw.versions as Versions) : undefined;
  const defaults = behaviourDefaults(framework as Framework, versions, raw);
  mergeAbsent(copy, defaults.fields);
  return { scenario: copy, defaults };
}

/** What a parsed scenario carries of the profile's decision (its `profile`): the data, not the patch. */
export function scenarioProfile(defaults: BehaviourDefaults): ScenarioProfile {
  return {
    framework: defaults.framework,
    versions: defaults.versions,
    applied: defaults.applied,
    assumed: defaults.assumed,
    mechanisms: defaults.mechanisms,
    ...(defaults.modelConfig ? { modelConfig: defaults.modelConfig } : {}),
  };
}

function deletePath(target: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) return;
    node = node[key] as Record<string, unknown>;
  }
  delete node[keys[keys.length - 1]!];
}

/**
 * A scenario parsed before (it carries `earlier`, its `profile`) as the user wrote it: each field the
 * profile set and that still holds the profile's value is taken out again, so parsing it once more
 * derives the same fields, or others when the framework, versions or method changed. A field changed
 * since is the user's now. The input is not changed.
 */
export function withoutProfileFields(raw: Raw, earlier: unknown): Record<string, unknown> {
  const copy = clone(raw) as Record<string, unknown>;
  const applied = isRecord(earlier) && Array.isArray(earlier.applied) ? earlier.applied : [];
  for (const entry of applied) {
    if (!isRecord(entry) || typeof entry.field !== 'string' || entry.field.startsWith('modelConfig.'))
      continue;
    if (at(copy, entry.field) === entry.value) deletePath(copy, entry.field);
  }
  return copy;
}

/** Every fact of every profile, once (shared facts appear in several profiles). */
export function allFacts(): Fact[] {
  const byId = new Map<string, Fact>();
  for (const profile of Object.values(FRAMEWORK_PROFILES)) {
    for (const fact of profile.facts) byId.set(fact.id, fact);
  }
  return [...byId.values()];
}

/**
 * The scenario: one fine-tuning setup as a user describes it (docs/scenario.md is the contract). The
 * fields are declared once, in the field table (scenario/fields.ts); parsing fills defaults and
 * rejects bad values with an error naming the field and the accepted values, as the table says.
 * This file is the entry other modules import.
 */

import { scenarioProfile, withFrameworkDefaults, withoutProfileFields } from './frameworks/profiles.js';
import { LIMITS, SCENARIO_FIELDS, SCENARIO_GROUPS, SCENARIO_TABLE } from './scenario/fields.js';
import { parserOf } from './scenario/parse.js';
import { given, loose } from './scenario/table.js';
import type { Scenario } from './scenario/types.js';
import { allocConfExpandsSegments } from './scenario/values.js';

export type {
  AppliedField,
  Assumption,
  AssumptionReason,
  ImpliedMechanism,
  ScenarioProfile,
} from './frameworks/decision.js';
export type { FieldErrorParams, FieldErrorReason } from './scenario/field-errors.js';
export type {
  AnyTable,
  FieldDecl,
  FieldKind,
  FieldTable,
  FlagDecl,
  FormDecl,
  GroupDecl,
  Rule,
} from './scenario/table.js';
export type {
  DerivedKey,
  EvaluationConfig,
  FieldPath,
  GroupKey,
  LoraConfig,
  ModelRef,
  Scenario,
  ScenarioView,
  ValueAt,
} from './scenario/types.js';
export type {
  Attention,
  Checkpointing,
  Framework,
  KbitUpcast,
  LoadDtype,
  Loss,
  Method,
  OffloadTarget,
  Optimizer,
  Padding,
  Precision,
  Quantization,
  QuantizedFrom,
  QuantizedInputsKept,
  Quantizer,
  Strategy,
  VersionKey,
  Versions,
} from './scenario/values.js';
export {
  ACTIVATION_OFFLOADS,
  ADAPTER_DTYPES,
  ATTENTIONS,
  allocConfExpandsSegments,
  BITSANDBYTES_QUANTIZATIONS,
  CHECKPOINTING,
  defaultPrecision,
  FRAMEWORKS,
  fusesInTorch,
  KBIT_UPCASTS,
  LOAD_DTYPES,
  LOSSES,
  METHODS,
  OFFLOADS,
  OPTIMIZERS,
  PADDINGS,
  PRECISIONS,
  QUANTIZATIONS,
  QUANTIZED_FROM,
  QUANTIZED_INPUTS_KEPT,
  QUANTIZERS,
  STRATEGIES,
  torchaoQuantizes,
  usesBitsandbytes,
  VERSION_KEYS,
} from './scenario/values.js';
export { SCENARIO_FIELDS, SCENARIO_GROUPS, SCENARIO_TABLE };

const parseTable = parserOf(loose(SCENARIO_TABLE));
const parse = (input: unknown): Scenario => parseTable(input) as unknown as Scenario;

/**
 * Validates a scenario object (parsed JSON or built from flags) and fills every default. A scenario that
 * names its `framework` first gets the behaviour fields it leaves out from that framework's profile
 * (src/core/frameworks, docs/frameworks.md), judged against its `versions`; an explicit field always
 * wins, and the result carries what the profile decided as `profile`. A scenario parsed before may be
 * parsed again: its `profile` is read back, not refused.
 * Throws HeadroomUserError naming the field and the accepted values.
 * @example parseScenario({ model: 'llama-3.1-8b', method: 'qlora', quantization: 'nf4' })
 * @example parseScenario({ model: 'llama-2-7b', method: 'qlora', quantization: 'nf4', framework: 'litgpt' }).quantizeHead
 * // true (litgpt's BitsandbytesPrecision converts the head too); profile.applied names the fact
 */
export function parseScenario(input: unknown): Scenario {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return parse(input);
  const record = input as Readonly<Record<string, unknown>>;
  if (record.framework === undefined && record.profile === undefined) return parse(input);
  const { profile: earlier, ...own } = record;
  const raw = earlier === undefined ? own : withoutProfileFields(own, earlier);
  // The profile reads these two, so they are checked first, with the errors their fields give.
  if (given(raw.framework)) SCENARIO_FIELDS.framework.kind.parse(raw.framework, ['framework']);
  if (given(raw.versions)) SCENARIO_FIELDS.versions.kind.parse(raw.versions, ['versions']);
  const { scenario, defaults } = withFrameworkDefaults(raw);
  const parsed = parse(scenario);
  return defaults ? { ...parsed, profile: scenarioProfile(defaults) } : parsed;
}

/** Defaults as docs/scenario.md states them (precision: defaultPrecision, by method), from the field table. */
export const SCENARIO_DEFAULTS = {
  method: SCENARIO_FIELDS.method.default,
  quantization: SCENARIO_FIELDS.quantization.default,
  optimizer: SCENARIO_FIELDS.optimizer.default,
  microBatchSize: SCENARIO_FIELDS.microBatchSize.default,
  seqLen: SCENARIO_FIELDS.seqLen.default,
  gradAccumSteps: SCENARIO_FIELDS.gradAccumSteps.default,
  gradientCheckpointing: SCENARIO_FIELDS.gradientCheckpointing.default,
  attention: SCENARIO_FIELDS.attention.default,
  loss: SCENARIO_FIELDS.loss.default,
  lora: {
    rank: SCENARIO_FIELDS['lora.rank'].default,
    dropout: SCENARIO_FIELDS['lora.dropout'].default,
    targets: SCENARIO_FIELDS['lora.targets'].default as readonly string[],
  },
  trainableLayers: SCENARIO_FIELDS.trainableLayers.default,
} as const;

/** The most a count field takes; its unit and why no run needs more are words (src/words/fields.ts). */
export interface CountLimit {
  readonly max: number;
}

/**
 * The largest value each count field accepts (by its docs/scenario.md path), without knowing the
 * model: the table's limits (scenario/fields.ts, with their sources).
 */
export const SCENARIO_LIMITS = Object.fromEntries(
  Object.entries(LIMITS).map(([path, max]) => [path, { max }]),
) as { readonly [P in keyof typeof LIMITS]: CountLimit };

/**
 * The scenario of a run whose environment had this allocator setting: expandable segments on when the
 * setting turns them on and the user did not decline them (--no-expandable-segments).
 */
export function withAllocatorSetting(
  scenario: Scenario,
  allocConf: string | undefined,
  declined: boolean,
): Scenario {
  if (scenario.expandableSegments || declined || !allocConfExpandsSegments(allocConf)) return scenario;
  return { ...scenario, expandableSegments: true };
}

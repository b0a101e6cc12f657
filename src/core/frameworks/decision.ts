/**
 * What a framework profile decided for one scenario, as data (issue #19): the fields it set, what it
 * assumed for versions the user did not give, and the mechanisms it implies that the estimator does not
 * model yet. The parsed scenario carries it as `profile`; the edges render it (src/words/frameworks.ts).
 */
import type { Framework, VersionKey, Versions } from '../scenario/values.js';
import type { BehaviourField, BehaviourValue, MechanismCode, MechanismParams } from './types.js';

/** Why a value was assumed rather than read from the user's versions. */
export type AssumptionReason =
  /** No version given (or it did not parse): the behaviour of today's release. */
  | 'current-release'
  /** No version given: the more memory-hungry behaviour, because the estimate must not be optimistic. */
  | 'more-memory'
  /** The package version was not given but the framework version pins it. */
  | 'pinned-by-framework';

export interface Assumption {
  /** The field or mechanism the assumption decided, or `versions.<package>` for an inferred version. */
  readonly target: BehaviourField | MechanismCode | `versions.${VersionKey}`;
  readonly value: BehaviourValue | MechanismParams;
  /** The package whose version was not known. */
  readonly package: VersionKey;
  readonly why: AssumptionReason;
  /** The fact (or pin) it came from. */
  readonly factId: string;
}

export interface AppliedField {
  readonly field: BehaviourField;
  readonly value: BehaviourValue;
  readonly factId: string;
}

export interface ImpliedMechanism {
  readonly code: MechanismCode;
  readonly params: MechanismParams;
  readonly factId: string;
}

/**
 * A parsed scenario's `profile`: what its framework decided. `applied` lists only fields the user left
 * out (an explicit field always wins); `modelConfig` is the config.json override among them (a framework
 * that keeps the head untied), applied where the estimate reads the model's shape.
 */
export interface ScenarioProfile {
  readonly framework: Framework;
  /** The versions the facts were judged against: the given ones plus any the framework pins. */
  readonly versions: Versions;
  readonly applied: readonly AppliedField[];
  readonly assumed: readonly Assumption[];
  readonly mechanisms: readonly ImpliedMechanism[];
  readonly modelConfig?: Readonly<Record<string, BehaviourValue>>;
}

/**
 * What the scenario would be on an older install. Where the user did not give a package's version, the
 * profile assumed today's release's behaviour (`assumed`, why "current-release"); an older release may
 * need more memory (bitsandbytes before 0.43.2 keeps each 4-bit layer's input until the next forward).
 * The upper bound must hold for either, so it is taken over the scenario and these alternatives.
 */

import type { VersionKey } from '../scenario/values.js';
import { parseScenario, type Scenario } from '../scenario.js';

/** A version older than any release a fact names: every `below` condition holds for it. */
const OLDEST = '0.0.1';

/**
 * The scenario again with each package whose version was assumed at today's release set to the oldest
 * version instead, one alternative per package; only those whose profile decides something else.
 */
export function olderInstallAlternatives(scenario: Scenario): readonly Scenario[] {
  const profile = scenario.profile;
  if (!profile) return NONE;
  // Each alternative is a whole parse of the scenario: done once per scenario, not on every estimate
  // of it (a planner's or bench:speed's), and let go with it.
  const known = ALTERNATIVES.get(scenario);
  if (known) return known;
  const found = Object.freeze(alternativesOf(scenario, profile));
  ALTERNATIVES.set(scenario, found);
  return found;
}

const NONE: readonly Scenario[] = Object.freeze([]);
const ALTERNATIVES = new WeakMap<Scenario, readonly Scenario[]>();

function alternativesOf(scenario: Scenario, profile: NonNullable<Scenario['profile']>): Scenario[] {
  const packages = [
    ...new Set(profile.assumed.filter((a) => a.why === 'current-release').map((a) => a.package)),
  ] as VersionKey[];
  const out: Scenario[] = [];
  for (const pkg of packages) {
    const older = parseScenario({
      ...scenario,
      versions: { ...profile.versions, ...scenario.versions, [pkg]: OLDEST },
    });
    const before = JSON.stringify(profile.applied.map((a) => [a.field, a.value]));
    const after = JSON.stringify(older.profile?.applied.map((a) => [a.field, a.value]) ?? []);
    if (after !== before) out.push(older);
  }
  return out;
}

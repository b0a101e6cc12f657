/**
 * The property suite of every parser (test/fuzz/properties.ts), with a fixed seed and a bounded count:
 * random and mutated real inputs give a typed result or a user error, never another exception.
 * FUZZ_RUNS sets the count per parser (bench:fuzz runs the same properties for minutes).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { FUZZ_SEED, PROPERTIES, propertyOf } from './properties.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

describe('every parser gives a typed result or a user error', () => {
  for (const property of PROPERTIES) {
    it(property.name, () => {
      fc.assert(propertyOf(property), { seed: FUZZ_SEED, numRuns: RUNS });
    });
  }
});

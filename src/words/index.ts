/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */

import { CALIBRATION } from './calibration.js';
import { CALIBRATION_HINTS } from './calibration-hints.js';
import type { AnyDomain } from './catalog.js';
import { DIAGNOSIS } from './diagnosis.js';
import { ESTIMATE_ERROR } from './estimate-error.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { EVIDENCE } from './evidence.js';
import { FINDING_ACTIONS } from './finding-actions.js';
import { FINDINGS } from './findings.js';
import { REMEDIES } from './remedies.js';

export const DOMAINS: readonly AnyDomain[] = [
  ESTIMATE_NOTES,
  FINDINGS,
  FINDING_ACTIONS,
  EVIDENCE,
  REMEDIES,
  DIAGNOSIS,
  ESTIMATE_ERROR,
  CALIBRATION,
  CALIBRATION_HINTS,
];

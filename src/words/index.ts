/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import type { AnyDomain } from './catalog.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { FLEET_FINDINGS } from './fleet.js';
import { UI_FLEET } from './ui-fleet.js';

export const DOMAINS: readonly AnyDomain[] = [ESTIMATE_NOTES, FLEET_FINDINGS, UI_FLEET];

/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import type { AnyDomain } from './catalog.js';
import { ENV_MISSING, ENV_WORDS } from './env.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';

export const DOMAINS: readonly AnyDomain[] = [ESTIMATE_NOTES, ENV_MISSING, ENV_WORDS];

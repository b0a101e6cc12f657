/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */

import { ADVICE } from './advice.js';
import type { AnyDomain } from './catalog.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { ESTIMATE_VIEW } from './estimate-view.js';
import { PEAK_TERM_WORDS } from './peak-terms.js';

export const DOMAINS: readonly AnyDomain[] = [ESTIMATE_NOTES, PEAK_TERM_WORDS, ADVICE, ESTIMATE_VIEW];

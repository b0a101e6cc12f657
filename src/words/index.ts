/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import type { AnyDomain } from './catalog.js';
import { ERROR_HINTS, ERROR_SOURCES, ERROR_WORDS } from './errors.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { FIELD_WORDS_DOMAIN } from './fields.js';
import { UI_ESTIMATE } from './ui-estimate.js';

export const DOMAINS: readonly AnyDomain[] = [
  ESTIMATE_NOTES,
  FIELD_WORDS_DOMAIN,
  ERROR_WORDS,
  ERROR_HINTS,
  ERROR_SOURCES,
  UI_ESTIMATE,
];

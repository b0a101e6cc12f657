/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import type { AnyDomain } from './catalog.js';
import { ENV_MISSING, ENV_WORDS } from './env.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import {
  MIGRATE_ACTIONS,
  MIGRATE_CHECK_TITLES,
  MIGRATE_CHECKS,
  VERSION_DIFFS,
  VERSION_PROBLEMS,
} from './migrate-checks.js';
import { MIGRATE_NOT_CHECKED, MIGRATE_REPORT } from './migrate-report.js';
import { UI_MIGRATE } from './ui-migrate.js';

export const DOMAINS: readonly AnyDomain[] = [
  ESTIMATE_NOTES,
  MIGRATE_CHECK_TITLES,
  MIGRATE_CHECKS,
  MIGRATE_ACTIONS,
  VERSION_DIFFS,
  VERSION_PROBLEMS,
  MIGRATE_NOT_CHECKED,
  MIGRATE_REPORT,
  ENV_MISSING,
  ENV_WORDS,
  UI_MIGRATE,
];

/**
 * An upper-bound table with no kinds: every ratio is 1, so an estimate's upper bound is its point. Tests
 * of a search's mechanics (the plan's ladder, the diagnosis's remedies, the migration checklist) mock
 * src/core/estimate/upper-table.ts with it, so that their boundaries do not move each time
 * `npm run upper:build` regenerates the table from new measurements; the tests of the verdict itself
 * (margin, estimate, fit, capacity) use the real table.
 *   vi.mock('./estimate/upper-table.js', () => import('./test-helpers/point-upper.js'));
 */
import type { UpperTable } from '../estimate/upper.js';

export const UPPER_TABLE: UpperTable = { quantile: 0.9, minRows: 10, minSources: 3, kinds: {} };

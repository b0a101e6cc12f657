/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import type { AnyDomain } from './catalog.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { HUB_PROGRESS } from './hub-progress.js';
import { REPORT } from './report.js';
import { RUN, RUN_END, RUN_EVENTS, RUN_PRELAUNCH, RUN_PRELAUNCH_HINTS, RUN_STATUS } from './run.js';
import { RUNS } from './runs.js';
import { UI_RUNS } from './ui-runs.js';

export const DOMAINS: readonly AnyDomain[] = [
  ESTIMATE_NOTES,
  RUN,
  RUN_PRELAUNCH,
  RUN_PRELAUNCH_HINTS,
  RUN_EVENTS,
  RUN_END,
  RUN_STATUS,
  RUNS,
  REPORT,
  HUB_PROGRESS,
  UI_RUNS,
];

/**
 * Every domain of the catalog, one line each. A domain added to the product is added here, and
 * catalog.test.ts renders each of its codes in every language.
 */
import { ADVICE } from './advice.js';
import { CALIBRATION } from './calibration.js';
import { CALIBRATION_HINTS } from './calibration-hints.js';
import { CAPACITY } from './capacity.js';
import type { AnyDomain } from './catalog.js';
import { CHART } from './chart.js';
import { DIAGNOSE_SNAPSHOT } from './diagnose-snapshot.js';
import { DIAGNOSIS } from './diagnosis.js';
import { ENV_MISSING, ENV_WORDS } from './env.js';
import { ERROR_HINTS, ERROR_SOURCES, ERROR_WORDS } from './errors.js';
import { ESTIMATE_ERROR } from './estimate-error.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import { ESTIMATE_VIEW } from './estimate-view.js';
import { EVIDENCE } from './evidence.js';
import { FIELD_WORDS_DOMAIN } from './fields.js';
import { FILE_ERROR_DOMAINS } from './file-errors.js';
import { FINDING_ACTIONS } from './finding-actions.js';
import { FINDINGS } from './findings.js';
import { FIT_LIMITS, FIT_REPORT } from './fit.js';
import { FLEET_FINDINGS } from './fleet.js';
import { FRAMEWORK_PROFILE } from './frameworks.js';
import { HUB_PROGRESS } from './hub-progress.js';
import { IMPORT_REPORT } from './import.js';
import { IMPORT_REASONS } from './import-reasons.js';
import { MARGIN } from './margin.js';
import {
  MIGRATE_ACTIONS,
  MIGRATE_CHECK_TITLES,
  MIGRATE_CHECKS,
  VERSION_DIFFS,
  VERSION_PROBLEMS,
} from './migrate-checks.js';
import { MIGRATE_NOT_CHECKED, MIGRATE_REPORT } from './migrate-report.js';
import { MODEL_WORDS } from './models.js';
import { PEAK_TERM_WORDS } from './peak-terms.js';
import { PLAN_DROPPED } from './plan-dropped.js';
import { PLAN_REPORT } from './plan-report.js';
import { PLAN_RISKS } from './plan-risks.js';
import { PLAN_RUNGS } from './plan-rungs.js';
import { REMEDIES } from './remedies.js';
import { REPORT } from './report.js';
import { RUN, RUN_END, RUN_EVENTS, RUN_PRELAUNCH, RUN_PRELAUNCH_HINTS, RUN_STATUS } from './run.js';
import { RUN_SNAPSHOT } from './run-snapshot.js';
import { RUNS } from './runs.js';
import { LINK_NAMES, TIME_NOTES } from './time-notes.js';
import { UI_ESTIMATE } from './ui-estimate.js';
import { UI_FLEET } from './ui-fleet.js';
import { UI_MIGRATE } from './ui-migrate.js';
import { UI_PLAN } from './ui-plan.js';
import { UI_RUNS } from './ui-runs.js';

export const DOMAINS: readonly AnyDomain[] = [
  ESTIMATE_NOTES,
  FRAMEWORK_PROFILE,
  PLAN_RUNGS,
  PLAN_RISKS,
  PLAN_DROPPED,
  PLAN_REPORT,
  MARGIN,
  UI_PLAN,
  FIT_LIMITS,
  FIT_REPORT,
  TIME_NOTES,
  LINK_NAMES,
  CAPACITY,
  MODEL_WORDS,
  IMPORT_REASONS,
  IMPORT_REPORT,
  CHART,
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
  FLEET_FINDINGS,
  UI_FLEET,
  FIELD_WORDS_DOMAIN,
  ERROR_WORDS,
  ERROR_HINTS,
  ERROR_SOURCES,
  ...FILE_ERROR_DOMAINS,
  UI_ESTIMATE,
  FINDINGS,
  FINDING_ACTIONS,
  EVIDENCE,
  REMEDIES,
  DIAGNOSIS,
  DIAGNOSE_SNAPSHOT,
  ESTIMATE_ERROR,
  CALIBRATION,
  CALIBRATION_HINTS,
  PEAK_TERM_WORDS,
  ADVICE,
  ESTIMATE_VIEW,
  RUN,
  RUN_PRELAUNCH,
  RUN_PRELAUNCH_HINTS,
  RUN_EVENTS,
  RUN_END,
  RUN_STATUS,
  RUN_SNAPSHOT,
  RUNS,
  REPORT,
  HUB_PROGRESS,
  UI_RUNS,
];

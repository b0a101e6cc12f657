/** Headroom's library entry: the pure core (runs in Node and the browser). Hand-picked, no barrels. */
export { type Advice, type AdviceParams, type Attack, attackFirst } from './core/advice.js';
export { type ModelShape, shapeFromConfig } from './core/architecture.js';
export { type CapacityOption, type CapacityResult, planCapacity } from './core/capacity.js';
export type { CatalogModel } from './core/catalog/catalog-model.js';
export type { GpuSpec } from './core/catalog/gpu-spec.js';
export { findGpu, findModel, GPUS, MODELS, searchGpus, searchModels } from './core/catalog/index.js';
export { type EnvSnapshot, parseEnvSnapshot } from './core/env.js';
export { HeadroomUserError, isUserError } from './core/errors.js';
export {
  type Components,
  type Estimate,
  type EstimateInput,
  estimate,
  type Phase,
} from './core/estimate.js';
export type { EstimateNote, EstimateNoteParams } from './core/estimate-notes.js';
export { type FitResult, fitLimits } from './core/fit.js';
export { importConfig } from './core/import/import-config.js';
export type { ImportReport } from './core/import/import-report.js';
export {
  type Fit,
  fitVerdict,
  type MemoryTarget,
  memoryTarget,
  requiredDeviceBytes,
  usableBytes,
} from './core/margin.js';
export {
  type CheckItem,
  checkMigration,
  type MigrateCheckParams,
  type MigrationReport,
} from './core/migrate.js';
export { type ResolvedModel, resolveModelRef } from './core/model-ref.js';
export { type ParamBreakdown, paramBreakdown } from './core/params.js';
export { type DroppedRung, droppedNote, makePlan, type Plan, type Rung } from './core/plan.js';
export { countSafetensorsParameters, parseSafetensorsHeader } from './core/safetensors.js';
export { parseScenario, type Scenario } from './core/scenario.js';
export { deepspeedZero2Estimate, deepspeedZero3Estimate, shardModelStates } from './core/sharding.js';
export { type StepTime, stepTime } from './core/time-model.js';
export { formatBytes } from './core/units.js';
export { ADVICE } from './words/advice.js';
export { type Domain, defineDomain, say } from './words/catalog.js';
export { ESTIMATE_NOTES } from './words/estimate-notes.js';
export { type Lang, langOf } from './words/lang.js';
export { type CheckWords, checkWords, MIGRATE_CHECKS } from './words/migrate-checks.js';
export { PEAK_TERM_WORDS } from './words/peak-terms.js';
export { PLAN_DROPPED } from './words/plan-dropped.js';
export { PLAN_RISKS } from './words/plan-risks.js';
export { PLAN_RUNGS } from './words/plan-rungs.js';
export { describeScenario } from './words/scenario-line.js';

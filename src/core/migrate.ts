/**
 * Moving a working run to other hardware: a checklist of what will break before the run does — memory
 * fit with the margin, host memory for what is offloaded, GPU count, bf16 support, the parallel strategy
 * against the interconnect, checkpoint and dataset size against the disk, version drift, checkpoint
 * frequency against preemption — then a two-step plan (a smoke run, then the full run). Each side is a
 * captured environment, or a catalog GPU standing in for one, in which case the items that need the
 * machine say they were not checked.
 *
 * Each check is one file of src/core/migrate/ (listed in order in checks.ts); its item is data — a
 * status, a reason code with raw params, an action code with raw params — worded by
 * src/words/migrate-checks.ts. This file is the entry: import from here.
 */
export type { Bf16ActionParams, Bf16Params, Bf16Source } from './migrate/bf16.js';
export { BF16_MIN_COMPUTE_CAPABILITY } from './migrate/bf16.js';
export type { Check, CheckOutcome, CheckRun, CheckStatus } from './migrate/check.js';
export { checkpointBytes } from './migrate/checkpoint-bytes.js';
export type {
  CheckpointDiskActionParams,
  CheckpointDiskParams,
  DiskFigures,
  DiskNeed,
} from './migrate/checkpoint-disk.js';
export { DISK_WARN_SHARE } from './migrate/checkpoint-disk.js';
export type {
  CheckpointFrequencyActionParams,
  CheckpointFrequencyParams,
  IntervalFigures,
} from './migrate/checkpoint-frequency.js';
export { MAX_LOST_SECONDS, MAX_SAVE_SHARE } from './migrate/checkpoint-frequency.js';
export type {
  CheckAction,
  CheckId,
  CheckItem,
  MigrateActionParams,
  MigrateCheckParams,
  NotChecked,
  NotCheckedParams,
} from './migrate/checks.js';
export { CHECK_IDS, CHECKS } from './migrate/checks.js';
export type { BnbOnTarget, MigrateContext, MigrateInput, MigrateSide, UsableOn } from './migrate/context.js';
export { DEFAULT_KEEP_CHECKPOINTS } from './migrate/context.js';
export type { GpuCountActionParams, GpuCountNotChecked, GpuCountParams } from './migrate/gpu-count.js';
export type { HostMemoryActionParams, HostMemoryParams } from './migrate/host-memory.js';
export { HOST_RAM_SAFE_FRACTION } from './migrate/host-memory.js';
export type {
  CommFigures,
  InterconnectActionParams,
  InterconnectNotChecked,
  InterconnectParams,
} from './migrate/interconnect.js';
export type { MemoryFitActionParams, MemoryFitParams } from './migrate/memory-fit.js';
export type { MigrationReport } from './migrate/report.js';
export { checkMigration } from './migrate/report.js';
export type { FullRun, SmokeRun } from './migrate/smoke-run.js';
export { SMOKE_PEAK_TOLERANCE, SMOKE_STEPS } from './migrate/smoke-run.js';
export type {
  VersionDiff,
  VersionDiffParams,
  VersionProblem,
  VersionProblemParams,
  VersionsActionParams,
  VersionsParams,
} from './migrate/versions.js';
export { requiredPackages } from './migrate/versions.js';

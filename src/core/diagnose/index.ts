/** The diagnoser: findings as data (codes and raw figures), in the troubleshooting order. Their words are src/words'. */
export { type DiagnoseInput, type Diagnosis, type DiagnosisResult, diagnose } from './diagnose.js';
export {
  EVIDENCE_LABELS,
  type Evidence,
  type EvidenceLabel,
  type EvidenceValue,
  type EvidenceValueParams,
  type MemoryPart,
} from './evidence.js';
export {
  FINDING_GROUP,
  FINDING_ORDER,
  type Finding,
  type FindingCode,
  type FindingGroup,
  type FindingOf,
  type FindingParams,
  type Remedy,
  type Severity,
} from './finding.js';
/** @deprecated issue #18: a language handle without words; render with src/words (diagnosis.ts findingWords). */
export { priceRemedies, type RemediedPart, type ScenarioContext } from './remedies.js';
export type { RemedyChange, RemedyCode, RemedyParams } from './remedy-codes.js';
export { probeCapacityBytes, timelineFromSteps, timelinePhase, timelineStepOf } from './run-timeline.js';
export {
  type GpuSampleColumns,
  namedCard,
  type ProcessSampleColumns,
  type RunSamples,
  type SampleColumns,
  SampleWriter,
  sampleColumns,
  smallestCardBytes,
} from './samples.js';
export {
  EXPLAIN_SITES,
  explainSnapshot,
  type SnapshotExplainFinding,
  type SnapshotExplainParams,
  type SnapshotExplanation,
  type SnapshotMoment,
  type SnapshotSource,
} from './snapshot.js';
export type { Timeline, TimelineColumns, TimelinePhase, TimelineStep } from './timeline.js';
export { TimelineWriter, timelineColumns, timelineStepAt } from './timeline.js';

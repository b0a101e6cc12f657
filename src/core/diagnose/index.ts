/** The diagnoser: findings as data, in the troubleshooting order, with the words in one catalog. */
export type { RunSamples } from './card-rules.js';
export { type DiagnoseInput, type Diagnosis, type DiagnosisResult, diagnose } from './diagnose.js';
export {
  type Evidence,
  FINDING_GROUP,
  FINDING_ORDER,
  type Finding,
  type FindingCode,
  type FindingGroup,
  type Remedy,
  type Severity,
} from './finding.js';
export {
  CATALOGS,
  catalogFor,
  EN,
  type EvidenceLabel,
  type FindingParams,
  type Lang,
  type MessageCatalog,
  ZH,
} from './messages.js';
export { priceRemedies, type RemediedPart, remedyFigure, type ScenarioContext } from './remedies.js';
export { probeCapacityBytes, timelineFromSteps, timelinePhase } from './run-timeline.js';
export type { Timeline, TimelinePhase, TimelineStep } from './timeline.js';

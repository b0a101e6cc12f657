/** What every diagnosis rule reads, and how it words a finding from the message catalog. */
import type { GpuSpec } from '../catalog/gpu-spec.js';
import type { Estimate } from '../estimate.js';
import type { LogLine, OomMatch, PhaseReading } from '../oom/index.js';
import { formatBytes } from '../units.js';
import type { RunSamples } from './card-rules.js';
import {
  type Evidence,
  FINDING_GROUP,
  type Finding,
  type FindingCode,
  type Remedy,
  type Severity,
} from './finding.js';
import type { EvidenceLabel, FindingParams, MessageCatalog } from './messages.js';
import type { ScenarioContext } from './remedies.js';
import type { Timeline } from './timeline.js';

export interface RuleInput {
  /** The log's lines, cleaned (rank prefixes, quoting and colours removed). */
  readonly lines: readonly LogLine[];
  /** The out-of-memory message the log is about; null when there is none. */
  readonly match: OomMatch | null;
  /** Every out-of-memory message in the log. */
  readonly matches: readonly OomMatch[];
  /** A look-alike error, when there is no real OOM message. */
  readonly lookAlike: OomMatch | null;
  readonly phase: PhaseReading;
  readonly timeline: Timeline | null;
  /** A recorded run's nvidia-smi samples. */
  readonly samples: RunSamples | null;
  /** Whether there was any text to read (a log, a traceback); a recorded run that did not fail has none. */
  readonly hasText: boolean;
  readonly scenario: ScenarioContext | null;
  /** The scenario's estimate, when a scenario is known. */
  readonly baseline: Estimate | null;
  /** The installed bitsandbytes, as the probe recorded it. */
  readonly bitsandbytes: string | null;
  /** The card: the OOM's total capacity, else the recorded card, else the scenario's --gpu; null when none is known. */
  readonly capacityBytes: number | null;
  /** The catalog GPU: the scenario's --gpu, else the one given, else the recorded card's; null when unknown. */
  readonly gpu: GpuSpec | null;
  readonly catalog: MessageCatalog;
}

/** Builds a finding with its words from the catalog. */
export function say<C extends FindingCode>(
  input: Pick<RuleInput, 'catalog'>,
  code: C,
  severity: Severity,
  params: FindingParams[C],
  evidence: readonly Evidence[],
  remedies?: readonly Remedy[],
): Finding {
  const text = input.catalog.findings[code] as {
    readonly title: (p: FindingParams[C]) => string;
    readonly action: (p: FindingParams[C]) => string;
  };
  return {
    code,
    severity,
    group: FINDING_GROUP[code],
    title: text.title(params),
    evidence,
    action: text.action(params),
    ...(remedies !== undefined && remedies.length > 0 ? { remedies } : {}),
  };
}

/** One evidence line with its label from the catalog. */
export function ev(
  input: Pick<RuleInput, 'catalog'>,
  label: EvidenceLabel,
  value: string,
  quote?: string | null,
): Evidence {
  return { label: input.catalog.labels[label], value, ...(quote ? { quote } : {}) };
}

/** Bytes for evidence: "22.00 MiB". */
export const bytes = (n: number): string => formatBytes(n);

/** A share as a whole percent: "97 %". */
export const percent = (part: number, whole: number): string => `${Math.round((100 * part) / whole)} %`;

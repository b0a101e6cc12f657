/** What every diagnosis rule reads, and how it states a finding and its evidence as data. */
import type { GpuSpec } from '../catalog/gpu-spec.js';
import type { Estimate } from '../estimate.js';
import type { LogLine, OomMatch, PhaseReading } from '../oom/index.js';
import type { RankRecord } from '../run-record.js';
import type { Evidence, EvidenceLabel, EvidenceValue, EvidenceValueParams } from './evidence.js';
import {
  FINDING_GROUP,
  type Finding,
  type FindingCode,
  type FindingParams,
  type Remedy,
  type Severity,
} from './finding.js';
import type { ScenarioContext } from './remedies.js';
import type { RunSamples, SampleColumns } from './samples.js';
import type { Timeline } from './timeline.js';

export type { RunSamples, SampleColumns };

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
  /** A recorded run's ranks (their peaks per level and the phase of each peak); empty otherwise. */
  readonly ranks: readonly RankRecord[];
  /** A recorded run's nvidia-smi samples, as columns (samples.ts). */
  readonly samples: SampleColumns | null;
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
}

/** A finding of `code` with its figures; its group follows from the code. */
export function say<C extends FindingCode>(
  code: C,
  severity: Severity,
  params: FindingParams[C],
  evidence: readonly Evidence[],
  remedies?: readonly Remedy[],
): Finding {
  return {
    code,
    severity,
    group: FINDING_GROUP[code],
    params,
    evidence,
    ...(remedies !== undefined && remedies.length > 0 ? { remedies } : {}),
  } as Finding;
}

/** One evidence value. */
export function value<C extends keyof EvidenceValueParams & string>(
  code: C,
  params: EvidenceValueParams[C],
): EvidenceValue {
  return { code, params } as EvidenceValue;
}

/** One evidence line: its label, its value, and the log text it was read from. */
export function ev(label: EvidenceLabel, v: EvidenceValue, quote?: string | null): Evidence {
  return { label, value: v, ...(quote ? { quote } : {}) };
}

/** A size as evidence. */
export const bytes = (n: number): EvidenceValue => value('bytes', { bytes: n });

/** A whole number as evidence (a rank, a step), written as it is. */
export const count = (n: number): EvidenceValue => value('count', { n });

/**
 * `headroom diagnose RUN`: a recorded run's diagnosis from the ledger — its step timeline per rank and
 * device, the out-of-memory text the probe or stderr caught, its nvidia-smi samples and its scenario —
 * through the pure diagnoser (src/core/diagnose). The CLI and the dashboard server call this.
 */

import { findGpu } from '../core/catalog/index.js';
import {
  type DiagnosisResult,
  diagnose,
  probeCapacityBytes,
  type ScenarioContext,
  type Timeline,
  timelineFromSteps,
} from '../core/diagnose/index.js';
import { matchCatalogGpu } from '../core/env.js';
import type { RunRecord } from '../core/run-record.js';
import { MIB } from '../core/units.js';
import type { Ledger } from './ledger.js';
import { recordedBitsandbytes, requireRun, runScenarioContextSync } from './run-context.js';

export interface DiagnoseRunOptions {
  /**
   * The setup whose estimate prices the remedies. Undefined: the run's stored scenario when its model is
   * a catalog id or an inline config (no I/O); null: none.
   */
  readonly scenario?: ScenarioContext | null;
}

/** A recorded run's diagnosis, as data; `--json` prints `{ oom, phase, findings }` with their words. */
export interface RunDiagnosis extends DiagnosisResult {
  readonly run: RunRecord;
  readonly timeline: Timeline;
  /** The setup the remedies were priced with; null when none was known. */
  readonly scenario: ScenarioContext | null;
}

/**
 * Diagnoses a recorded run. Throws HeadroomUserError when `run` names no run.
 * @example diagnoseRun(Ledger.open(headroomHome(process.env)), 'last').findings.map((f) => f.code)
 */
export function diagnoseRun(
  ledger: Ledger,
  run: RunRecord | number | string,
  options: DiagnoseRunOptions = {},
): RunDiagnosis {
  const record = typeof run === 'object' ? run : requireRun(ledger, run);
  const events = ledger.events(record.id, ['device']);
  const gpus = ledger.gpuSamples(record.id);
  const cardTotals = gpus.map((g) => g.totalBytes).filter((t): t is number => t !== null && t > 0);
  // torch's own figure for the device first (what the allocator works against), else nvidia-smi's.
  const capacityBytes =
    probeCapacityBytes(events) ?? (cardTotals.length > 0 ? Math.min(...cardTotals) : null);
  const timeline = timelineFromSteps(ledger.steps(record.id), capacityBytes);
  const scenario = options.scenario === undefined ? runScenarioContextSync(record) : options.scenario;
  // The card nvidia-smi recorded, as a catalog GPU (its CUDA context, when no scenario names one).
  const card = gpus.find((g) => g.name !== null);
  const cardId = card
    ? matchCatalogGpu(card.name!, card.totalBytes === null ? null : card.totalBytes / MIB)
    : null;
  const result = diagnose({
    text: ledger.oomText(record.id),
    timeline,
    ranks: record.ranks,
    samples: { gpus, processes: ledger.processSamples(record.id) },
    capacityBytes,
    gpu: cardId === null ? null : (findGpu(cardId) ?? null),
    scenario,
    bitsandbytes: recordedBitsandbytes(ledger, record.id),
  });
  return { ...result, run: record, timeline, scenario };
}

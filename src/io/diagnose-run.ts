/**
 * `headroom diagnose RUN`: a recorded run's diagnosis from the ledger — its step timeline per rank and
 * device, the out-of-memory text the probe or stderr caught, its nvidia-smi samples and its scenario —
 * through the pure diagnoser (src/core/diagnose). The CLI and the dashboard server call this.
 */

import { readFileSync, statSync } from 'node:fs';
import { findGpu } from '../core/catalog/index.js';
import {
  type DiagnosisResult,
  diagnose,
  explainSnapshot,
  namedCard,
  probeCapacityBytes,
  type ScenarioContext,
  type SnapshotExplainFinding,
  type SnapshotExplanation,
  smallestCardBytes,
  type Timeline,
} from '../core/diagnose/index.js';
import { matchCatalogGpu } from '../core/env.js';
import { isUserError } from '../core/errors.js';
import { estimate } from '../core/estimate.js';
import type { RunRecord } from '../core/run-record.js';
import { analyseSnapshot } from '../core/snapshot/analyse.js';
import { MIB } from '../core/units.js';
import type { Ledger } from './ledger.js';
import { MAX_SNAPSHOT_BYTES, runSnapshotFile } from './read-snapshot.js';
import { recordedBitsandbytes, requireRun, runScenarioContextSync } from './run-context.js';

export interface DiagnoseRunOptions {
  /**
   * The setup whose estimate prices the remedies. Undefined: the run's stored scenario when its model is
   * a catalog id or an inline config (no I/O); null: none.
   */
  readonly scenario?: ScenarioContext | null;
  /** Read the allocator snapshot the run's probe wrote, when it has one (a large file takes seconds). */
  readonly snapshot?: boolean;
  /**
   * The run's step timeline when the caller has read the steps already (the dashboard reads them once
   * for the chart and the diagnosis); the ledger's steps otherwise.
   */
  readonly timelineSteps?: Timeline['steps'];
}

/** What the run's allocator snapshot says, or why it could not be read. */
export interface RunSnapshotDiagnosis {
  readonly explanation: SnapshotExplanation | null;
  readonly problem: SnapshotExplainFinding | null;
}

/** A recorded run's diagnosis, as data; `--json` prints `{ oom, phase, findings }` with their words. */
export interface RunDiagnosis extends DiagnosisResult {
  readonly run: RunRecord;
  readonly timeline: Timeline;
  /** The setup the remedies were priced with; null when none was known. */
  readonly scenario: ScenarioContext | null;
  /** The snapshot's explanation (options.snapshot); null when not asked or the run has none. */
  readonly snapshot: RunSnapshotDiagnosis | null;
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
  // The nvidia-smi samples as columns, not a record per row (500,000 of each kind are about 45 MB so).
  const samples = ledger.rows.sampleColumns(record.id);
  // torch's own figure for the device first (what the allocator works against), else nvidia-smi's.
  const capacityBytes = probeCapacityBytes(events) ?? smallestCardBytes(samples);
  // The steps the caller already read as the timeline, else read from the rows straight into its
  // columns (not first into a record per step).
  const timeline: Timeline = {
    steps: options.timelineSteps ?? ledger.rows.timeline(record.id),
    capacityBytes,
  };
  const scenario = options.scenario === undefined ? runScenarioContextSync(record) : options.scenario;
  // The card nvidia-smi recorded, as a catalog GPU (its CUDA context, when no scenario names one).
  const card = namedCard(samples);
  const cardId = card
    ? matchCatalogGpu(card.name, card.totalBytes === null ? null : card.totalBytes / MIB)
    : null;
  const result = diagnose({
    text: ledger.oomText(record.id),
    timeline,
    ranks: record.ranks,
    samples,
    capacityBytes,
    gpu: cardId === null ? null : (findGpu(cardId) ?? null),
    scenario,
    bitsandbytes: recordedBitsandbytes(ledger, record.id),
  });
  const snapshot = options.snapshot ? runSnapshotDiagnosis(ledger, record, scenario) : null;
  return { ...result, run: record, timeline, scenario, snapshot };
}

/**
 * The run's allocator snapshot explained (src/core/diagnose/snapshot.ts), with the estimate of its
 * scenario beside the parts; null when the run's probe wrote none.
 */
export function runSnapshotDiagnosis(
  ledger: Ledger,
  run: RunRecord,
  scenario: ScenarioContext | null,
): RunSnapshotDiagnosis | null {
  if (run.snapshots.length === 0) return null;
  const file = runSnapshotFile(run, ledger.runDir(run.id));
  if (!file.ok) {
    const path = file.path ?? '';
    return { explanation: null, problem: { code: 'snapshot-refused', params: { path } } };
  }
  const pointer = file.snapshot!;
  let bytes: Uint8Array;
  try {
    if (statSync(file.path).size > MAX_SNAPSHOT_BYTES)
      return unreadable(file.path, `over ${MAX_SNAPSHOT_BYTES} bytes`);
    const buffer = readFileSync(file.path);
    bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch {
    return { explanation: null, problem: { code: 'snapshot-missing', params: { path: file.path } } };
  }
  try {
    const report = analyseSnapshot(bytes, { source: file.path, top: 1000 });
    const planned = scenario
      ? estimate({
          scenario: scenario.scenario,
          shape: scenario.shape,
          exactParams: scenario.exactParams ?? null,
          gpu: scenario.gpu ?? null,
        })
      : null;
    const source = { path: file.path, rank: pointer.rank, reason: pointer.reason, bytes: pointer.bytes };
    return { explanation: explainSnapshot(report, source, planned), problem: null };
  } catch (error) {
    if (!isUserError(error)) throw error;
    return unreadable(file.path, error.message);
  }
}

function unreadable(path: string, detail: string): RunSnapshotDiagnosis {
  return { explanation: null, problem: { code: 'snapshot-unreadable', params: { path, detail } } };
}

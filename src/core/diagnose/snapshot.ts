/**
 * `diagnose RUN` with the allocator snapshot the run's probe wrote: what was live at the moment of
 * failure, in the estimate's five parts (weights, gradients, optimizer states, activations, runtime),
 * its largest allocation sites, and — when the run has a scenario — which part the estimate got wrong.
 * The snapshot's own analysis is src/core/snapshot (analyse.ts, attribute.ts, compare.ts); this picks
 * the moment and turns it into findings as data. Words: src/words/diagnose-snapshot.ts.
 */
import type { Estimate } from '../estimate.js';
import type { MessageOf } from '../message.js';
import type { SnapshotReason } from '../run-record.js';
import {
  type LiveView,
  mainPeak,
  type SiteBytes,
  type SnapshotReport,
  UNATTRIBUTED_SHARE,
} from '../snapshot/analyse.js';
import { SNAPSHOT_PARTS, type SnapshotPart } from '../snapshot/attribute.js';
import { compareViewWithEstimate, type SnapshotComparison } from '../snapshot/compare.js';

/**
 * Which moment of the snapshot is read: an out-of-memory event of its trace (what was live when the
 * allocation failed); the snapshot itself when the probe wrote it on the OOM (the observer runs before
 * the exception frees anything); else the trace's peak; else the moment it was written.
 */
export type SnapshotMoment = 'oom-event' | 'oom-snapshot' | 'trace-peak' | 'end-state';

/** The findings of a run's snapshot, each a code and its raw figures. */
export interface SnapshotExplainParams {
  /** What was live at the moment, and its largest part. */
  readonly 'live-parts': {
    readonly moment: SnapshotMoment;
    readonly liveBytes: number;
    readonly part: SnapshotPart;
    readonly partBytes: number;
    /** The part's share of the live bytes. */
    readonly share: number;
    /** The allocation that failed (an OOM event); null when the trace did not record it. */
    readonly requestedBytes: number | null;
  };
  readonly 'unattributed-share': {
    readonly bytes: number;
    readonly share: number;
    readonly beforeRecordingBytes: number;
  };
  readonly 'estimate-part-low': EstimatePartFigures;
  readonly 'estimate-part-high': EstimatePartFigures;
  /** Every part within the compare's bounds (compare.ts PART_ERROR_SHARE, PART_ERROR_MIN_BYTES). */
  readonly 'estimate-parts-agree': { readonly estimateBytes: number; readonly measuredBytes: number };
  /** The snapshot could not be used: none on disk, refused (outside the run's folders) or not readable. */
  readonly 'snapshot-missing': { readonly path: string };
  readonly 'snapshot-refused': { readonly path: string };
  readonly 'snapshot-unreadable': { readonly path: string; readonly detail: string };
}

export interface EstimatePartFigures {
  readonly part: SnapshotPart;
  readonly estimateBytes: number;
  readonly measuredBytes: number;
  /** (estimate − measured) / measured; null when nothing of the part was measured. */
  readonly error: number | null;
}

export type SnapshotExplainFinding = MessageOf<SnapshotExplainParams>;

/** The snapshot file a diagnosis read (the ledger's pointer, src/core/run-record.ts RunSnapshot). */
export interface SnapshotSource {
  readonly path: string;
  readonly rank: number;
  readonly reason: SnapshotReason;
  readonly bytes: number;
}

export interface SnapshotExplanation {
  readonly source: SnapshotSource;
  readonly moment: SnapshotMoment;
  readonly requestedBytes: number | null;
  readonly liveBytes: number;
  readonly parts: Readonly<Record<SnapshotPart, number>>;
  readonly unattributedBytes: number;
  /** The largest allocation sites at that moment, largest first. */
  readonly sites: readonly SiteBytes[];
  /** The estimate of the run's scenario beside the parts; null without a scenario. */
  readonly comparison: SnapshotComparison | null;
  readonly findings: readonly SnapshotExplainFinding[];
}

/** Sites a diagnosis lists. */
export const EXPLAIN_SITES = 5;

/** The moment to read and what was live then. */
export function failureMoment(
  report: SnapshotReport,
  reason: SnapshotReason,
): { moment: SnapshotMoment; view: LiveView; requestedBytes: number | null } {
  const oom = report.ooms.at(-1);
  if (oom) return { moment: 'oom-event', view: oom.live, requestedBytes: oom.requestedBytes };
  if (reason === 'oom') return { moment: 'oom-snapshot', view: report.end, requestedBytes: null };
  const peak = mainPeak(report);
  if (peak) return { moment: 'trace-peak', view: peak.live, requestedBytes: null };
  return { moment: 'end-state', view: report.end, requestedBytes: null };
}

/**
 * Explains a run's OOM from its snapshot: the parts at the moment of failure, the top sites, and with
 * an estimate which part it got wrong (the same comparison as `headroom snapshot --scenario`, at that
 * moment).
 * @example explainSnapshot(analyseSnapshot(bytes), source, estimate(...)).findings[0].code // 'live-parts'
 */
export function explainSnapshot(
  report: SnapshotReport,
  source: SnapshotSource,
  estimate: Estimate | null,
): SnapshotExplanation {
  const { moment, view, requestedBytes } = failureMoment(report, source.reason);
  const findings: SnapshotExplainFinding[] = [];
  let largest: SnapshotPart | null = null;
  for (const part of SNAPSHOT_PARTS)
    if (view.parts[part] > 0 && (largest === null || view.parts[part] > view.parts[largest])) largest = part;
  if (largest !== null && view.liveBytes > 0) {
    findings.push({
      code: 'live-parts',
      params: {
        moment,
        liveBytes: view.liveBytes,
        part: largest,
        partBytes: view.parts[largest],
        share: view.parts[largest] / view.liveBytes,
        requestedBytes,
      },
    });
  }
  if (view.liveBytes > 0 && view.unattributedBytes / view.liveBytes >= UNATTRIBUTED_SHARE) {
    findings.push({
      code: 'unattributed-share',
      params: {
        bytes: view.unattributedBytes,
        share: view.unattributedBytes / view.liveBytes,
        beforeRecordingBytes: view.beforeRecordingBytes,
      },
    });
  }
  const basis = moment === 'oom-event' ? 'oom' : moment === 'trace-peak' ? 'trace-peak' : 'end-state';
  const comparison = estimate ? compareViewWithEstimate(basis, view, estimate) : null;
  if (comparison) {
    const wrong = comparison.findings.filter(
      (f) => f.code === 'estimate-part-low' || f.code === 'estimate-part-high',
    );
    for (const f of wrong) {
      const p = comparison.parts.find((x) => x.part === f.params.part)!;
      const params = {
        part: p.part,
        estimateBytes: p.estimateBytes,
        measuredBytes: p.measuredBytes,
        error: p.error,
      };
      findings.push(f.code === 'estimate-part-low' ? { code: f.code, params } : { code: f.code, params });
    }
    if (wrong.length === 0) {
      findings.push({
        code: 'estimate-parts-agree',
        params: { estimateBytes: comparison.estimateAllocatedBytes, measuredBytes: comparison.measuredBytes },
      });
    }
  }
  return {
    source,
    moment,
    requestedBytes,
    liveBytes: view.liveBytes,
    parts: view.parts,
    unattributedBytes: view.unattributedBytes,
    sites: view.sites.slice(0, EXPLAIN_SITES),
    comparison,
    findings,
  };
}

/**
 * A snapshot's measured parts beside an estimate's: which part the estimate got wrong, and by how much.
 * Both sides are torch-allocated bytes: the estimate's five parts without what it adds above the
 * allocator (its reserve and fragmentation, the CUDA context, NCCL, paged optimizer states in managed
 * memory), the snapshot's live bytes at its trace peak (or at the snapshot, without a trace).
 */
import type { Estimate } from '../estimate.js';
import type { EstimatePartParams, LiveView, SnapshotFinding, SnapshotReport } from './analyse.js';
import { mainPeak } from './analyse.js';
import { SNAPSHOT_PARTS, type SnapshotPart } from './attribute.js';

export interface PartComparison {
  readonly part: SnapshotPart;
  readonly estimateBytes: number;
  readonly measuredBytes: number;
  /** (estimate − measured) / measured; negative: the estimate is too low. Null when nothing was measured. */
  readonly error: number | null;
}

export interface SnapshotComparison {
  /** Which moment of the snapshot was measured (`oom`: an out-of-memory event of the trace). */
  readonly basis: 'trace-peak' | 'end-state' | 'oom';
  readonly parts: readonly PartComparison[];
  /** The estimate's torch-allocated peak (peak.allocatedBytes). */
  readonly estimateAllocatedBytes: number;
  /** The measured live bytes (the parts plus what could not be attributed). */
  readonly measuredBytes: number;
  readonly unattributedBytes: number;
  /** (estimate allocated − measured) / measured. */
  readonly totalError: number | null;
  /** The part with the largest difference in bytes; null when every part agrees. */
  readonly worst: SnapshotPart | null;
  readonly findings: readonly SnapshotFinding[];
}

/** A part is named as wrong from this relative error and this many bytes on. */
export const PART_ERROR_SHARE = 0.2;
export const PART_ERROR_MIN_BYTES = 256 * 2 ** 20;

/**
 * The estimate's parts at the allocator's level: they add up to peak.allocatedBytes. Runtime keeps the
 * torch-allocated buffers (cuBLAS workspaces, communication buckets) and gives back what the estimate
 * counts above the allocator; paged optimizer states live in managed memory, outside the allocator.
 */
export function allocatedParts(e: Estimate): Record<SnapshotPart, number> {
  const paged = e.breakdown.pagedOptimizerBytes ?? 0;
  const aboveAllocator = e.peak.deviceBytes - e.peak.allocatedBytes;
  return {
    weights: e.components.weights,
    gradients: e.components.gradients,
    optimizer: e.components.optimizer - paged,
    activations: e.components.activations,
    runtime: Math.max(0, e.components.runtime - aboveAllocator + paged),
  };
}

const relative = (estimate: number, measured: number): number | null =>
  measured > 0 ? (estimate - measured) / measured : null;

/** The snapshot's view an estimate is compared with: the trace's peak, else the snapshot's moment. */
export function measuredView(report: SnapshotReport): { basis: SnapshotComparison['basis']; view: LiveView } {
  const peak = mainPeak(report);
  return peak ? { basis: 'trace-peak', view: peak.live } : { basis: 'end-state', view: report.end };
}

/**
 * Compares a snapshot with the estimate of the same run's scenario.
 * @example compareWithEstimate(analyseSnapshot(bytes), estimate({ scenario, shape })).worst
 */
export function compareWithEstimate(report: SnapshotReport, estimate: Estimate): SnapshotComparison {
  const { basis, view } = measuredView(report);
  return compareViewWithEstimate(basis, view, estimate);
}

/** Compares what was live at one moment of a snapshot (`view`) with the estimate, part by part. */
export function compareViewWithEstimate(
  basis: SnapshotComparison['basis'],
  view: LiveView,
  estimate: Estimate,
): SnapshotComparison {
  const est = allocatedParts(estimate);
  const parts = SNAPSHOT_PARTS.map(
    (part): PartComparison => ({
      part,
      estimateBytes: est[part],
      measuredBytes: view.parts[part],
      error: relative(est[part], view.parts[part]),
    }),
  );
  let worst: PartComparison | null = null;
  for (const p of parts) {
    const gap = Math.abs(p.estimateBytes - p.measuredBytes);
    if (gap > 0 && (worst === null || gap > Math.abs(worst.estimateBytes - worst.measuredBytes))) worst = p;
  }
  const findings: SnapshotFinding[] = [];
  for (const p of parts) {
    const gap = p.estimateBytes - p.measuredBytes;
    if (Math.abs(gap) < PART_ERROR_MIN_BYTES) continue;
    if (p.error !== null && Math.abs(p.error) < PART_ERROR_SHARE) continue;
    const params: EstimatePartParams = {
      part: p.part,
      estimateBytes: p.estimateBytes,
      measuredBytes: p.measuredBytes,
      error: p.error ?? Number.POSITIVE_INFINITY,
      unattributedBytes: view.unattributedBytes,
    };
    findings.push(gap < 0 ? { code: 'estimate-part-low', params } : { code: 'estimate-part-high', params });
  }
  return {
    basis,
    parts,
    estimateAllocatedBytes: estimate.peak.allocatedBytes,
    measuredBytes: view.liveBytes,
    unattributedBytes: view.unattributedBytes,
    totalError: relative(estimate.peak.allocatedBytes, view.liveBytes),
    worst: worst?.part ?? null,
    findings,
  };
}

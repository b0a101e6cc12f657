/**
 * What grew from one snapshot to another: the allocator's totals, the parts and the sites, at each
 * one's trace peak when both have a trace, else at the moment each was taken.
 */
import { type LiveView, mainPeak, type SnapshotReport } from './analyse.js';
import { type SiteKind, SNAPSHOT_PARTS, type SnapshotPart } from './attribute.js';
import type { SnapshotFrame } from './snapshot.js';

/** The allocator's totals a diff compares, by their report names. */
export const DIFF_FACTS = [
  'reservedBytes',
  'allocatedBytes',
  'inactiveBytes',
  'largestInactiveBlockBytes',
  'segments',
  'activeBlocks',
] as const;
export type DiffFact = (typeof DIFF_FACTS)[number] | 'peakActiveBytes';

export interface Change<K> {
  readonly key: K;
  readonly a: number;
  readonly b: number;
  readonly delta: number;
}

export interface SiteChange {
  readonly kind: SiteKind;
  readonly frame: SnapshotFrame | null;
  readonly a: number;
  readonly b: number;
  readonly delta: number;
}

export interface SnapshotDiff {
  readonly basis: 'trace-peak' | 'end-state';
  readonly facts: readonly Change<DiffFact>[];
  readonly parts: readonly Change<SnapshotPart | 'unattributed'>[];
  /** Sites by how much they changed (largest growth or shrink first). */
  readonly sites: readonly SiteChange[];
}

const siteKey = (kind: SiteKind, frame: SnapshotFrame | null) =>
  `${kind}\u0000${frame?.filename}\u0000${frame?.line}\u0000${frame?.name}`;

/**
 * The changes from snapshot `a` to snapshot `b` (positive: grew). Sites are those each report lists:
 * analyse with a large `top` to diff more of them.
 * @example diffSnapshots(before, after).parts.find((p) => p.key === 'activations')?.delta
 */
export function diffSnapshots(a: SnapshotReport, b: SnapshotReport, top = 10): SnapshotDiff {
  const pa = mainPeak(a);
  const pb = mainPeak(b);
  const basis = pa && pb ? 'trace-peak' : 'end-state';
  const va: LiveView = basis === 'trace-peak' ? pa!.live : a.end;
  const vb: LiveView = basis === 'trace-peak' ? pb!.live : b.end;
  const change = <K>(key: K, x: number, y: number): Change<K> => ({ key, a: x, b: y, delta: y - x });
  const facts: Change<DiffFact>[] = DIFF_FACTS.map((k) => change<DiffFact>(k, a[k], b[k]));
  if (pa && pb) facts.push(change<DiffFact>('peakActiveBytes', pa.activeBytes, pb.activeBytes));
  const parts = [
    ...SNAPSHOT_PARTS.map((p) => change<SnapshotPart | 'unattributed'>(p, va.parts[p], vb.parts[p])),
    change<SnapshotPart | 'unattributed'>('unattributed', va.unattributedBytes, vb.unattributedBytes),
  ];
  const sites = new Map<string, { kind: SiteKind; frame: SnapshotFrame | null; a: number; b: number }>();
  for (const [side, view] of [
    ['a', va],
    ['b', vb],
  ] as const) {
    for (const s of view.sites) {
      const key = siteKey(s.kind, s.frame);
      const entry = sites.get(key) ?? { kind: s.kind, frame: s.frame, a: 0, b: 0 };
      entry[side] += s.bytes;
      sites.set(key, entry);
    }
  }
  const siteChanges = [...sites.values()]
    .map((s): SiteChange => ({ ...s, delta: s.b - s.a }))
    .filter((s) => s.delta !== 0)
    .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta))
    .slice(0, top);
  return { basis, facts, parts, sites: siteChanges };
}

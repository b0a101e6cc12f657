import { fileError } from '../file-errors.js';
import type { RunSnapshot } from '../run-record.js';

/** Trace entries the probe keeps when HEADROOM_SNAPSHOT=1 (probe/headroom_probe.py DEFAULT_SNAPSHOT_ENTRIES). */
export const DEFAULT_SNAPSHOT_ENTRIES = 100_000;
/** The most the probe accepts (probe/headroom_probe.py MAX_SNAPSHOT_ENTRIES): a bound on its host memory. */
export const MAX_SNAPSHOT_ENTRIES = 10_000_000;

/** What the training is given to record memory history: HEADROOM_SNAPSHOT's value and the entries it means. */
export interface SnapshotRecording {
  readonly env: string;
  readonly entries: number;
}

/**
 * HEADROOM_SNAPSHOT for the command: `--snapshot` records with the probe's default bound,
 * `--snapshot-entries N` (which implies it) with N; null when neither was given.
 * @example snapshotRecording({ snapshot: true, entries: null }) // { env: '1', entries: 100000 }
 */
export function snapshotRecording(flags: {
  readonly snapshot: boolean;
  readonly entries: number | null;
}): SnapshotRecording | null {
  if (flags.entries !== null) {
    if (!Number.isInteger(flags.entries) || flags.entries < 1 || flags.entries > MAX_SNAPSHOT_ENTRIES) {
      throw fileError(
        'flag-value',
        {
          flag: '--snapshot-entries',
          value: String(flags.entries),
          expected: 'whole-number',
          min: 1,
          max: MAX_SNAPSHOT_ENTRIES,
          example: String(DEFAULT_SNAPSHOT_ENTRIES),
        },
        '--snapshot-entries',
        'out-of-range',
      );
    }
    return { env: String(flags.entries), entries: flags.entries };
  }
  return flags.snapshot ? { env: '1', entries: DEFAULT_SNAPSHOT_ENTRIES } : null;
}

const PRIORITY: Readonly<Record<RunSnapshot['reason'], number>> = { oom: 0, manual: 1, exit: 2 };

/**
 * The snapshot that explains a run: of `rank` when given, else of any rank; the OOM's first (the
 * moment of failure), then one the script asked for, then one written at exit; the latest of a kind.
 * Null when the run has none (of that rank).
 */
export function chooseSnapshot(snapshots: readonly RunSnapshot[], rank?: number): RunSnapshot | null {
  let best: RunSnapshot | null = null;
  for (const s of snapshots) {
    if (rank !== undefined && s.rank !== rank) continue;
    if (best === null || PRIORITY[s.reason] <= PRIORITY[best.reason]) best = s;
  }
  return best;
}

/** The file name the probe gives a snapshot: memory-snapshot.pickle, or memory-snapshot.rankN.pickle. */
export const SNAPSHOT_FILE_NAME = /^memory-snapshot(\.rank\d+)?\.pickle$/;

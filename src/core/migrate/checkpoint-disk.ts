/**
 * Checkpoints and data against the target's disk: the checkpoints kept at once (checkpoint-bytes.ts)
 * and the training data against the free space, and how long one save takes at the measured write speed.
 */
import type { NoParams } from '../message.js';
import { type Check, only, outcome } from './check.js';

/** Warn when checkpoints and data would take more than this share of the free disk. */
export const DISK_WARN_SHARE = 0.8;

/** What must fit on the disk. */
export interface DiskNeed {
  /** Checkpoints kept at once. */
  readonly keep: number;
  readonly checkpointBytes: number;
  /** Full fine-tuning saves weights and optimizer states; adapters save only themselves and their states. */
  readonly full: boolean;
  /** Training data on disk; 0 when not given. */
  readonly dataBytes: number;
  readonly needBytes: number;
}

/** The disk as captured, against the need. */
export type DiskFigures = DiskNeed & {
  readonly freeBytes: number;
  readonly path: string;
  readonly writeBytesPerSecond: number | null;
  /** Seconds one save takes at that speed; null when not measured. */
  readonly saveSeconds: number | null;
};

export interface CheckpointDiskParams {
  /** No disk figures for the target. */
  readonly 'disk-unknown': DiskNeed & { readonly label: string };
  readonly 'disk-fits': DiskFigures;
  /** Past DISK_WARN_SHARE of the free space. */
  readonly 'disk-tight': DiskFigures;
  readonly 'disk-over': DiskFigures;
}

export interface CheckpointDiskActionParams {
  readonly 'capture-target-disk': NoParams;
  readonly 'fewer-checkpoints': NoParams;
}

export const CHECKPOINT_DISK: Check<
  'checkpoint-disk',
  CheckpointDiskParams,
  CheckpointDiskActionParams,
  { readonly label: string }
> = {
  id: 'checkpoint-disk',
  statuses: { 'disk-unknown': 'unknown', 'disk-fits': 'pass', 'disk-tight': 'warn', 'disk-over': 'fail' },
  run(ctx) {
    const { bytes, keep, dataBytes, saveSeconds } = ctx.checkpoint;
    const method = ctx.scenario.method;
    const need: DiskNeed = {
      keep,
      checkpointBytes: bytes,
      full: method === 'full' || method === 'freeze',
      dataBytes,
      needBytes: bytes * keep + dataBytes,
    };
    const disk = ctx.disk;
    if (!disk)
      return only(
        outcome(
          CHECKPOINT_DISK,
          'disk-unknown',
          { ...need, label: ctx.to.label },
          { code: 'capture-target-disk', params: {} },
        ),
        { code: 'checkpoint-disk', params: { label: ctx.to.label } },
      );
    const figures: DiskFigures = {
      ...need,
      freeBytes: disk.freeBytes,
      path: disk.path,
      writeBytesPerSecond: disk.writeBytesPerSecond,
      saveSeconds,
    };
    if (need.needBytes > disk.freeBytes)
      return only(outcome(CHECKPOINT_DISK, 'disk-over', figures, { code: 'fewer-checkpoints', params: {} }));
    if (need.needBytes > disk.freeBytes * DISK_WARN_SHARE)
      return only(outcome(CHECKPOINT_DISK, 'disk-tight', figures, { code: 'fewer-checkpoints', params: {} }));
    return only(outcome(CHECKPOINT_DISK, 'disk-fits', figures));
  },
};

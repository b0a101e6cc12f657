/**
 * Synthetic PyTorch memory snapshots for tests, in the layout torch writes (torch/csrc/cuda/Module.cpp
 * `memorySnapshot`): segments with blocks, device traces of events, frames shared between stacks.
 * Write them with pickle-writer.ts.
 */
import { type PyValue, tuple, writePickle } from './pickle-writer.js';

export interface Frame {
  readonly name: string;
  readonly filename: string;
  readonly line: number;
}

/** A Python frame. */
export const py = (name: string, filename: string, line = 1): Frame => ({ name, filename, line });
/** A C++ frame (torch records them with filename ?? or a .cpp file, line 0). */
export const cpp = (name: string, filename = '??'): Frame => ({ name, filename, line: 0 });

export interface BlockSpec {
  readonly size: number;
  readonly requested?: number;
  readonly state?: 'active_allocated' | 'active_pending_free' | 'inactive';
  readonly frames?: readonly Frame[];
}

export interface SegmentSpec {
  readonly address: number;
  readonly blocks: readonly BlockSpec[];
  readonly device?: number;
}

export interface EventSpec {
  readonly action: string;
  readonly addr?: number;
  readonly size: number;
  readonly frames?: readonly Frame[];
  readonly time?: number;
  readonly deviceFree?: number;
}

/** The snapshot dict, as torch builds it (frame dicts and frame lists shared by identity when reused). */
export function snapshotValue(spec: {
  readonly segments: readonly SegmentSpec[];
  readonly traces?: readonly (readonly EventSpec[])[];
  readonly settings?: { readonly conf: string; readonly expandable: boolean };
}): PyValue {
  const frameDicts = new Map<Frame, PyValue>();
  const lists = new Map<readonly Frame[], PyValue>();
  const framesOf = (frames: readonly Frame[] | undefined): PyValue => {
    if (frames === undefined) return [];
    let list = lists.get(frames);
    if (!list) {
      list = frames.map((f) => {
        let d = frameDicts.get(f);
        if (!d) {
          d = { name: f.name, filename: f.filename, line: f.line };
          frameDicts.set(f, d);
        }
        return d;
      });
      lists.set(frames, list);
    }
    return list;
  };
  const segments = spec.segments.map((seg) => {
    let address = seg.address;
    const total = seg.blocks.reduce((sum, b) => sum + b.size, 0);
    const blocks = seg.blocks.map((b) => {
      const block = {
        address,
        size: b.size,
        requested_size: b.requested ?? b.size,
        state: b.state ?? 'active_allocated',
        frames: framesOf(b.frames),
      };
      address += b.size;
      return block;
    });
    const allocated = seg.blocks.reduce(
      (s, b) => s + ((b.state ?? 'active_allocated') === 'inactive' ? 0 : b.size),
      0,
    );
    return {
      device: seg.device ?? 0,
      address: seg.address,
      total_size: total,
      allocated_size: allocated,
      active_size: allocated,
      requested_size: allocated,
      stream: 0,
      segment_type: 'large',
      segment_pool_id: tuple(0, 0),
      is_expandable: false,
      frames: [],
      blocks,
    };
  });
  const traces = (spec.traces ?? [[]]).map((events) =>
    events.map((e) => ({
      action: e.action,
      ...(e.action === 'oom' ? { device_free: e.deviceFree ?? 0 } : { addr: e.addr ?? 0 }),
      size: e.size,
      stream: 0,
      ...(e.time === undefined ? {} : { time_us: e.time }),
      frames: framesOf(e.frames),
    })),
  );
  return {
    segments,
    device_traces: traces,
    ...(spec.settings
      ? {
          allocator_settings: {
            PYTORCH_CUDA_ALLOC_CONF: spec.settings.conf,
            expandable_segments: spec.settings.expandable,
          },
        }
      : {}),
  };
}

/** The pickle bytes of a synthetic snapshot. */
export function snapshotBytes(
  spec: Parameters<typeof snapshotValue>[0],
  options: Parameters<typeof writePickle>[1] = {},
): Uint8Array {
  return writePickle(snapshotValue(spec), options);
}

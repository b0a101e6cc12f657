import { fileError, type SnapshotErrorParams } from '../file-errors.js';
import {
  PickleDict,
  type PickleStreamContext,
  PickleToken,
  type PickleValue,
  pickleTypeName,
  readPickle,
} from './pickle.js';

/** The trace actions torch records (memory_snapshot.cpp `action_to_str`), in column code order. */
export const TRACE_ACTIONS = [
  'alloc',
  'free_requested',
  'free_completed',
  'segment_alloc',
  'segment_free',
  'segment_map',
  'segment_unmap',
  'snapshot',
  'oom',
] as const;
export type TraceAction = (typeof TRACE_ACTIONS)[number];
/** The column code of each action; anything else is OTHER_ACTION (and counted by its name). */
export const ACTION: Readonly<Record<TraceAction, number>> = Object.fromEntries(
  TRACE_ACTIONS.map((a, i) => [a, i]),
) as Record<TraceAction, number>;
export const OTHER_ACTION = 255;

export interface SnapshotFrame {
  readonly name: string;
  readonly filename: string;
  readonly line: number;
}

/** Block states (memory_snapshot.cpp): allocated, freed but waiting on a stream, or cached. */
export type BlockState = 'active_allocated' | 'active_pending_free' | 'inactive';

export interface SnapshotBlock {
  readonly address: number;
  readonly size: number;
  readonly requestedSize: number;
  readonly state: BlockState | string;
  /** Its stack in the snapshot's StackTable, or -1 when none was recorded. */
  readonly stack: number;
}

export interface SnapshotSegment {
  readonly device: number;
  readonly address: number;
  readonly totalSize: number;
  readonly stream: number;
  readonly segmentType: string;
  readonly isExpandable: boolean;
  readonly blocks: readonly SnapshotBlock[];
}

/** One device's trace, one row per event. */
export interface TraceColumns {
  readonly device: number;
  readonly length: number;
  /** ACTION codes (OTHER_ACTION for an action this reader does not know). */
  readonly action: Uint8Array;
  /** The block's or segment's address; for an `oom`, the free bytes CUDA reported (device_free). */
  readonly addr: Float64Array;
  readonly size: Float64Array;
  readonly stream: Float64Array;
  /** Microseconds since the epoch; NaN where the snapshot has no time_us (torch before 2.1). */
  readonly time: Float64Array;
  /** Stack id, or -1 when the event has no frames. */
  readonly stack: Int32Array;
}

export interface AllocatorSettings {
  readonly conf: string | null;
  readonly expandableSegments: boolean | null;
}

export interface Snapshot {
  readonly segments: readonly SnapshotSegment[];
  /** Index = device. */
  readonly traces: readonly TraceColumns[];
  readonly stacks: StackTable;
  /** Events per action name, every device together (unknown actions by their own name). */
  readonly actionCounts: Readonly<Record<string, number>>;
  readonly allocatorSettings: AllocatorSettings | null;
}

/** Frames and stacks, each stored once: a stack is a run of frame ids, found again by its hash. */
export class StackTable {
  readonly frames: SnapshotFrame[] = [];
  private readonly frameIds = new Map<string, number>();
  private pool = new Int32Array(1 << 14);
  private poolLength = 0;
  private starts: Int32Array = new Int32Array(1 << 10);
  private hashes: Int32Array = new Int32Array(1 << 10);
  private buckets: Int32Array = new Int32Array(1 << 11).fill(-1);
  private stackCount = 0;

  get count(): number {
    return this.stackCount;
  }

  /** The frame ids of a stack, innermost first. */
  framesOf(stack: number): Int32Array {
    return this.pool.subarray(this.starts[stack]!, this.starts[stack + 1]!);
  }

  /** The id of a frame, adding it the first time its (filename, line, name) is seen. */
  frameId(name: string, filename: string, line: number): number {
    const key = `${filename}\u0000${line}\u0000${name}`;
    let id = this.frameIds.get(key);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push({ name, filename, line });
      this.frameIds.set(key, id);
    }
    return id;
  }

  /** The id of the stack `ids[0..n)`, adding it when new. */
  intern(ids: Int32Array, n: number): number {
    let h = 0x811c9dc5 ^ n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ ids[i]!, 0x01000193);
    const mask = this.buckets.length - 1;
    for (let b = h & mask; ; b = (b + 1) & mask) {
      const s = this.buckets[b]!;
      if (s < 0) break;
      if (this.hashes[s] === h && this.same(s, ids, n)) return s;
    }
    const id = this.stackCount++;
    if (id + 2 > this.starts.length) {
      this.starts = grow(this.starts, this.starts.length * 2);
      this.hashes = grow(this.hashes, this.starts.length);
    }
    if (this.poolLength + n > this.pool.length) {
      this.pool = grow(this.pool, Math.max(this.pool.length * 2, this.poolLength + n));
    }
    this.pool.set(ids.subarray(0, n), this.poolLength);
    this.poolLength += n;
    this.starts[id + 1] = this.poolLength;
    this.hashes[id] = h;
    if (this.stackCount * 2 > this.buckets.length) this.rehash();
    else this.place(id);
    return id;
  }

  private same(s: number, ids: Int32Array, n: number): boolean {
    const start = this.starts[s]!;
    if (this.starts[s + 1]! - start !== n) return false;
    for (let i = 0; i < n; i++) if (this.pool[start + i] !== ids[i]) return false;
    return true;
  }

  private place(id: number): void {
    const mask = this.buckets.length - 1;
    let b = this.hashes[id]! & mask;
    while (this.buckets[b]! >= 0) b = (b + 1) & mask;
    this.buckets[b] = id;
  }

  private rehash(): void {
    this.buckets = new Int32Array(this.buckets.length * 2).fill(-1);
    for (let id = 0; id < this.stackCount; id++) this.place(id);
  }
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/** A trace being filled: typed columns that double when full. */
class TraceBuilder {
  length = 0;
  action = new Uint8Array(1024);
  addr = new Float64Array(1024);
  size = new Float64Array(1024);
  stream = new Float64Array(1024);
  time = new Float64Array(1024);
  stack = new Int32Array(1024);

  constructor(readonly device: number) {}

  push(action: number, addr: number, size: number, stream: number, time: number, stack: number): void {
    if (this.length === this.action.length) {
      const n = this.length * 2;
      this.action = grow(this.action, n);
      this.addr = grow(this.addr, n);
      this.size = grow(this.size, n);
      this.stream = grow(this.stream, n);
      this.time = grow(this.time, n);
      this.stack = grow(this.stack, n);
    }
    const i = this.length++;
    this.action[i] = action;
    this.addr[i] = addr;
    this.size[i] = size;
    this.stream[i] = stream;
    this.time[i] = time;
    this.stack[i] = stack;
  }

  done(): TraceColumns {
    const n = this.length;
    // A copy only when a quarter or more of the capacity is unused: copying is a second set of columns.
    const trim = <T extends Uint8Array | Float64Array | Int32Array>(a: T): T =>
      (n * 4 >= a.length * 3 ? a.subarray(0, n) : a.slice(0, n)) as T;
    return {
      device: this.device,
      length: n,
      action: trim(this.action),
      addr: trim(this.addr),
      size: trim(this.size),
      stream: trim(this.stream),
      time: trim(this.time),
      stack: trim(this.stack),
    };
  }
}

/** What a memo reference to a consumed trace event reads as: a second use of it is refused. */
const CONSUMED = new PickleToken('consumed-event', -1);
const STACK = 'stack';

/** Reads and checks the fields of a snapshot's values, naming the path of a bad one. */
class Fields {
  constructor(readonly source: string) {}

  /** Missing, or of another Python type than `wanted` (`dict`, `list`, `int`, `str`). */
  private wrong(value: PickleValue | undefined, path: string, wanted: string): never {
    return value === undefined
      ? this.fail(path, 'missing')
      : this.fail(path, 'wrong-type', { found: pickleTypeName(value), wanted });
  }

  /** The field at `path` ('' for the top) is not a snapshot's (src/words/snapshot-errors.ts words it). */
  fail(
    path: string,
    problem: SnapshotErrorParams['snapshot-field']['problem'],
    more: { found?: string; wanted?: string; value?: string } = {},
  ): never {
    const { found = '', wanted = '', value = '' } = more;
    throw fileError(
      'snapshot-field',
      { file: this.source, field: path, problem, found, wanted, value },
      this.source,
    );
  }

  dict(value: PickleValue | undefined, path: string): PickleDict {
    if (value instanceof PickleDict) return value;
    return this.wrong(value, path, 'dict');
  }

  list(value: PickleValue | undefined, path: string): PickleValue[] {
    if (Array.isArray(value)) return value;
    return this.wrong(value, path, 'list');
  }

  int(value: PickleValue | undefined, path: string): number {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'bigint') return this.fail(path, 'too-large', { value: String(value) });
    return this.wrong(value, path, 'int');
  }

  intOr(value: PickleValue | undefined, path: string, fallback: number): number {
    return value === undefined || value === null ? fallback : this.int(value, path);
  }

  str(value: PickleValue | undefined, path: string): string {
    if (typeof value === 'string') return value;
    return this.wrong(value, path, 'str');
  }
}

/**
 * Reads a snapshot from the bytes of its pickle (`_dump_snapshot`'s file).
 * Throws a HeadroomUserError naming `source` when the bytes are not one.
 * @example readSnapshot(bytes, 'snapshot.pickle').traces[0].length
 */
export function readSnapshot(bytes: Uint8Array, source = 'the snapshot'): Snapshot {
  const f = new Fields(source);
  const stacks = new StackTable();
  const builders: TraceBuilder[] = [];
  const counts: Record<string, number> = {};
  let scratch = new Int32Array(256);
  // One token per stack: what the memo holds in place of a released frames list.
  const tokens: PickleToken[] = [];

  /** The stack id of a frames list (or -1 for none / empty). */
  const stackOf = (frames: PickleValue | undefined, path: string): number => {
    if (frames === undefined || frames === null) return -1;
    if (frames instanceof PickleToken && frames.kind === STACK) return frames.id;
    const list = f.list(frames, path);
    if (list.length === 0) return -1;
    if (list.length > scratch.length) scratch = new Int32Array(list.length * 2);
    for (let i = 0; i < list.length; i++) {
      const frame = list[i];
      if (!(frame instanceof PickleDict))
        f.fail(`${path}[${i}]`, 'wrong-type', { found: pickleTypeName(frame), wanted: 'frame dict' });
      const d = frame as PickleDict;
      if (d.id < 0) {
        d.id = stacks.frameId(
          f.str(d.get('name'), `${path}[${i}].name`),
          f.str(d.get('filename'), `${path}[${i}].filename`),
          f.intOr(d.get('line'), `${path}[${i}].line`, 0),
        );
      }
      scratch[i] = d.id;
    }
    return stacks.intern(scratch, list.length);
  };

  const consume = (item: PickleValue, device: number, ctx: PickleStreamContext): void => {
    let builder = builders[device];
    if (builder === undefined) {
      for (let d = builders.length; d <= device; d++) builders[d] = new TraceBuilder(d);
      builder = builders[device]!;
    }
    const path = `device_traces[${device}][${builder.length}]`;
    if (item === CONSUMED) f.fail(path, 'repeated');
    const e = f.dict(item, path);
    const action = f.str(e.get('action'), `${path}.action`);
    counts[action] = (counts[action] ?? 0) + 1;
    const code = (ACTION as Readonly<Record<string, number>>)[action] ?? OTHER_ACTION;
    const addr =
      code === ACTION.oom
        ? f.intOr(e.get('device_free'), `${path}.device_free`, 0)
        : f.intOr(e.get('addr'), `${path}.addr`, 0);
    const size = f.intOr(e.get('size'), `${path}.size`, 0);
    const stream = f.intOr(e.get('stream'), `${path}.stream`, 0);
    const t = e.get('time_us');
    const time = t === undefined || t === null ? Number.NaN : f.int(t, `${path}.time_us`);
    const frames = e.get('frames');
    const stack = stackOf(frames, `${path}.frames`);
    if (Array.isArray(frames) && stack >= 0) {
      tokens[stack] ??= new PickleToken(STACK, stack);
      ctx.forget(frames, tokens[stack]);
    }
    ctx.forget(e, CONSUMED);
    builder.push(code, addr, size, stream, time, stack);
  };

  const root = f.dict(readPickle(bytes, { source, stream: { rootKey: 'device_traces', consume } }), '');
  if (!root.has('segments')) f.fail('', 'no-segments');

  const segments = f.list(root.get('segments'), 'segments').map((s, i) => {
    const path = `segments[${i}]`;
    const seg = f.dict(s, path);
    let address = f.int(seg.get('address'), `${path}.address`);
    const blocks = f.list(seg.get('blocks'), `${path}.blocks`).map((b, j): SnapshotBlock => {
      const bp = `${path}.blocks[${j}]`;
      const block = f.dict(b, bp);
      const size = f.int(block.get('size'), `${bp}.size`);
      // Legacy (torch ≤ 2.0): frames and the requested size in history[0] (MemoryViz annotate_snapshot).
      const history = block.get('history');
      const first = Array.isArray(history) && history[0] instanceof PickleDict ? history[0] : null;
      const requested = block.has('requested_size')
        ? f.int(block.get('requested_size'), `${bp}.requested_size`)
        : first
          ? f.intOr(first.get('real_size'), `${bp}.history[0].real_size`, size)
          : size;
      const out: SnapshotBlock = {
        address: block.has('address') ? f.int(block.get('address'), `${bp}.address`) : address,
        size,
        requestedSize: requested,
        state: f.str(block.get('state'), `${bp}.state`),
        stack: stackOf(block.has('frames') ? block.get('frames') : first?.get('frames'), `${bp}.frames`),
      };
      address += size;
      return out;
    });
    const expandable = seg.get('is_expandable');
    return {
      device: f.intOr(seg.get('device'), `${path}.device`, 0),
      address: f.int(seg.get('address'), `${path}.address`),
      totalSize: f.int(seg.get('total_size'), `${path}.total_size`),
      stream: f.intOr(seg.get('stream'), `${path}.stream`, 0),
      segmentType:
        typeof seg.get('segment_type') === 'string' ? (seg.get('segment_type') as string) : 'large',
      isExpandable: expandable === true,
      blocks,
    };
  });

  // device_traces: the streamed lists are empty now; an item the stream could not take is read here.
  const traces = root.get('device_traces');
  if (traces !== undefined) {
    const lists = f.list(traces, 'device_traces');
    lists.forEach((list, d) => {
      const items = f.list(list, `device_traces[${d}]`);
      if (builders[d] === undefined)
        for (let k = builders.length; k <= d; k++) builders[k] = new TraceBuilder(k);
      const noop: PickleStreamContext = { offset: 0, forget: () => {} };
      for (const item of items) consume(item, d, noop);
    });
  }

  const settings = root.get('allocator_settings');
  let allocatorSettings: AllocatorSettings | null = null;
  if (settings instanceof PickleDict) {
    const conf = settings.get('PYTORCH_CUDA_ALLOC_CONF');
    const expandable = settings.get('expandable_segments');
    allocatorSettings = {
      conf: typeof conf === 'string' ? conf : null,
      expandableSegments: typeof expandable === 'boolean' ? expandable : null,
    };
  }

  return {
    segments,
    traces: builders.map((b) => b.done()),
    stacks,
    actionCounts: counts,
    allocatorSettings,
  };
}

import { fileError } from '../file-errors.js';

/**
 * The runtime's WHATWG TextDecoder (Node and browsers). Declared here because the core compiles
 * without the DOM or Node type libraries.
 */
declare const TextDecoder: new (
  label: string,
  options: { fatal: boolean },
) => { decode(input: Uint8Array): string };

/** A Python tuple: its items, and how deeply tuples nest inside it (bounded by MAX_TUPLE_DEPTH). */
export class PickleTuple {
  constructor(
    readonly items: readonly PickleValue[],
    readonly depth: number,
  ) {}
}

/** A Python set or frozenset, its items in the order the pickle gave them. */
export class PickleSet {
  constructor(
    readonly items: PickleValue[],
    readonly frozen: boolean,
  ) {}
}

/** A value a stream consumer put in the memo in place of one it consumed (see PickleStreamContext). */
export class PickleToken {
  constructor(
    readonly kind: string,
    readonly id: number,
  ) {}
}

/** Keys up to this many are deduplicated by a linear scan; larger dicts build an index. */
const LINEAR_KEYS = 16;

/**
 * A Python dict: keys of any hashable kind (not only strings), in insertion order; a key set twice keeps
 * its first position and its last value, as in Python. Tuple keys compare by identity.
 */
export class PickleDict {
  readonly keys: PickleValue[] = [];
  readonly values: PickleValue[] = [];
  /** Index of primitive keys once the dict outgrows a linear scan. */
  private index: Map<unknown, number> | null = null;
  /** The memo slot the reader stored this dict in first (-1: none); used to release it. */
  slot = -1;
  /** A number a consumer may attach (the snapshot reader numbers frames with it); -1 until then. */
  id = -1;

  get size(): number {
    return this.keys.length;
  }

  private find(key: PickleValue): number {
    const keys = this.keys;
    if (this.index !== null) return this.index.get(key) ?? -1;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i;
    return -1;
  }

  get(key: PickleValue): PickleValue | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.values[i];
  }

  has(key: PickleValue): boolean {
    return this.find(key) >= 0;
  }

  set(key: PickleValue, value: PickleValue): void {
    const i = this.find(key);
    if (i >= 0) {
      this.values[i] = value;
      return;
    }
    this.keys.push(key);
    this.values.push(value);
    if (this.index !== null) this.index.set(key, this.keys.length - 1);
    else if (this.keys.length > LINEAR_KEYS) {
      this.index = new Map();
      for (let k = 0; k < this.keys.length; k++) this.index.set(this.keys[k], k);
    }
  }
}

export type PickleValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PickleValue[]
  | PickleTuple
  | PickleDict
  | PickleSet
  | PickleToken;

/** What a stream consumer can do while it handles an item. */
export interface PickleStreamContext {
  /** Byte offset of the opcode being read (for error messages). */
  readonly offset: number;
  /**
   * Replaces the memo's reference to `value` (a dict or list of the item just consumed) with `by`,
   * so the reader no longer keeps it alive; a later reference to it reads `by`.
   */
  forget(value: PickleValue, by: PickleValue): void;
}

export interface PickleStream {
  /** The root dict's key whose value is a list of lists to stream (a snapshot's `device_traces`). */
  readonly rootKey: string;
  /** One complete item of the inner list number `list`. */
  consume(item: PickleValue, list: number, ctx: PickleStreamContext): void;
}

export interface PickleOptions {
  /** The file the bytes came from, named in every error. */
  readonly source?: string;
  readonly stream?: PickleStream;
}

/** Most values on the stack at once: far above a snapshot's (its trace events stream one at a time). */
export const MAX_PICKLE_STACK = 1 << 22;
/** Most MARKs open at once; a snapshot nests about six deep. */
export const MAX_PICKLE_MARKS = 1000;
/** Deepest nesting of tuples in tuples (a snapshot's tuples hold two numbers). */
export const MAX_TUPLE_DEPTH = 1000;
/** Largest integer (LONG1/LONG4) in bytes; a snapshot's largest is 8. */
export const MAX_LONG_BYTES = 1024;
/** How far past the memo's end a BINPUT may store (pickle writes the memo densely). */
export const MAX_MEMO_GAP = 1 << 20;

/** Opcode names and numbers (CPython Lib/pickletools.py), for messages. */
const OPCODE_TABLE = [
  'MARK:28 STOP:2e POP:30 POP_MARK:31 DUP:32 FLOAT:46 INT:49 BININT:4a BININT1:4b LONG:4c',
  'BININT2:4d NONE:4e PERSID:50 BINPERSID:51 REDUCE:52 STRING:53 BINSTRING:54 SHORT_BINSTRING:55',
  'UNICODE:56 BINUNICODE:58 APPEND:61 BUILD:62 GLOBAL:63 DICT:64 EMPTY_DICT:7d APPENDS:65 GET:67',
  'BINGET:68 INST:69 LONG_BINGET:6a LIST:6c EMPTY_LIST:5d OBJ:6f PUT:70 BINPUT:71 LONG_BINPUT:72',
  'SETITEM:73 TUPLE:74 EMPTY_TUPLE:29 SETITEMS:75 BINFLOAT:47 PROTO:80 NEWOBJ:81 EXT1:82 EXT2:83',
  'EXT4:84 TUPLE1:85 TUPLE2:86 TUPLE3:87 NEWTRUE:88 NEWFALSE:89 LONG1:8a LONG4:8b BINBYTES:42',
  'SHORT_BINBYTES:43 SHORT_BINUNICODE:8c BINUNICODE8:8d BINBYTES8:8e EMPTY_SET:8f ADDITEMS:90',
  'FROZENSET:91 NEWOBJ_EX:92 STACK_GLOBAL:93 MEMOIZE:94 FRAME:95 BYTEARRAY8:96 NEXT_BUFFER:97',
  'READONLY_BUFFER:98',
].join(' ');

export const OPCODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  OPCODE_TABLE.split(' ').map((entry) => {
    const [opName, code] = entry.split(':');
    return [Number.parseInt(code!, 16), opName!];
  }),
);

/** Opcodes that import or call Python objects, or need objects from outside the pickle. */
const CODE_OPCODES: ReadonlySet<number> = new Set([
  0x63, 0x93, 0x52, 0x62, 0x69, 0x6f, 0x81, 0x92, 0x82, 0x83, 0x84, 0x50, 0x51,
]);
/** Protocol 0/1 text opcodes: data, but never written by protocol 2 and later. */
const TEXT_OPCODES: ReadonlySet<number> = new Set([0x46, 0x49, 0x4c, 0x53, 0x56, 0x67, 0x70, 0x54, 0x55]);

function hex(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

/** A short description of a value's type, for messages (never walks into it). */
export function pickleTypeName(value: PickleValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'list';
  if (value instanceof PickleDict) return 'dict';
  if (value instanceof PickleTuple) return 'tuple';
  if (value instanceof PickleSet) return value.frozen ? 'frozenset' : 'set';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof PickleToken) return 'consumed item';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'int';
  return Number.isInteger(value) ? 'int' : 'float';
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** UTF-8 bytes → string; ASCII without a decoder call (a snapshot's strings are ASCII). */
function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 48) {
    let s = '';
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return utf8.decode(bytes.subarray(start, end));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return utf8.decode(bytes.subarray(start, end));
}

/** Little-endian two's-complement integer of `n` bytes at `pos`: a number when exact, else a bigint. */
function decodeLong(bytes: Uint8Array, pos: number, n: number): number | bigint {
  if (n === 0) return 0;
  if (n <= 6) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < n; i++) {
      value += bytes[pos + i]! * scale;
      scale *= 256;
    }
    return bytes[pos + n - 1]! >= 0x80 ? value - scale : value;
  }
  if (n <= 8) {
    const lo =
      (bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16) | (bytes[pos + 3]! << 24)) >>> 0;
    let hi = 0;
    let scale = 1;
    for (let i = 4; i < n; i++) {
      hi += bytes[pos + i]! * scale;
      scale *= 256;
    }
    if (bytes[pos + n - 1]! >= 0x80) hi -= scale;
    if (Math.abs(hi) < 2 ** 20) return hi * 4294967296 + lo;
  }
  let value = 0n;
  for (let i = n - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[pos + i]!);
  if (bytes[pos + n - 1]! >= 0x80) value -= 1n << BigInt(8 * n);
  return Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value ? Number(value) : value;
}

/** Python's hashability, one level deep: lists, dicts, sets and bytearrays cannot be keys. */
function unhashable(value: PickleValue): boolean {
  return (
    Array.isArray(value) ||
    value instanceof PickleDict ||
    (value instanceof PickleSet && !value.frozen) ||
    value instanceof PickleToken
  );
}

/**
 * Reads one pickle from `bytes` (everything after its STOP is ignored, as Python does).
 * Throws a HeadroomUserError naming the file, the opcode and its byte offset for anything else.
 * @example readPickle(bytes, { source: 'snapshot.pickle' })
 */
export function readPickle(bytes: Uint8Array, options: PickleOptions = {}): PickleValue {
  const source = options.source ?? 'the pickle';
  const stream = options.stream ?? null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  // The stack grows but never shrinks (truncating an array's length is slow in V8): `sp` is its top.
  const stack: PickleValue[] = [];
  let sp = 0;
  const marks = new Int32Array(MAX_PICKLE_MARKS);
  let mp = 0;
  const memo: PickleValue[] = [];
  let pos = 0;
  let at = 0; // offset of the opcode being run
  let op = 0;
  // The FRAME being read (PEP 3154): opcodes may not cross its end; `limit` is where reading must stop.
  let frameEnd = -1;
  let frameStart = -1;
  let limit = length;

  /** A damaged byte stream at the opcode being run: `detail` is the reader's own words (src/words/snapshot-errors.ts). */
  const fail = (detail: string): never => {
    throw fileError('pickle-corrupt', { file: source, byte: at, detail }, source);
  };
  const name = (code: number) => OPCODE_NAMES[code] ?? `opcode ${hex(code)}`;
  /** Fails unless `n` more bytes are there to read (in the frame, when inside one). */
  const need = (n: number): void => {
    if (pos + n <= limit) return;
    if (frameEnd >= 0 && pos + n <= length) {
      fail(
        `${name(op)} needs ${n} bytes but the FRAME that began at byte ${frameStart} ends at byte ${frameEnd}: the frame's length is wrong`,
      );
    }
    fail(
      `the file ends inside ${name(op)} (it needs ${n} more bytes, ${length - pos} are left): it is truncated`,
    );
  };
  /** A length read from the file, checked against what is left before anything is allocated. */
  const checkLength = (n: number): number => {
    if (n < 0) fail(`${name(op)} gives a negative length (${n})`);
    if (n > length - pos) {
      fail(
        `${name(op)} says ${n} bytes follow, but only ${length - pos} are left: the file is truncated or corrupt`,
      );
    }
    need(n);
    return n;
  };
  const u32 = (): number => {
    need(4);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = (): number => {
    need(8);
    const lo = view.getUint32(pos, true);
    const hi = view.getUint32(pos + 4, true);
    pos += 8;
    if (hi >= 2 ** 21) fail(`${name(op)} gives a length of ${hi * 2 ** 32 + lo} bytes, more than any file`);
    return hi * 2 ** 32 + lo;
  };
  const popMark = (): number => {
    if (mp === 0) fail(`${name(op)} without a MARK before it`);
    return marks[--mp]!;
  };
  /** Fails unless `k` values lie above the innermost MARK. */
  const needItems = (k: number): void => {
    const floor = mp > 0 ? marks[mp - 1]! : 0;
    if (sp - floor < k) fail(`${name(op)} needs ${k} values on the stack; it holds ${sp - floor}`);
  };
  const memoPut = (index: number): void => {
    needItems(1);
    if (index > memo.length + MAX_MEMO_GAP)
      fail(`${name(op)} stores memo slot ${index}, far past the ${memo.length} in use`);
    const value = stack[sp - 1]!;
    if (index === memo.length) memo.push(value);
    else memo[index] = value;
    if (value instanceof PickleDict) {
      if (value.slot < 0) value.slot = index;
    } else if (region !== null && Array.isArray(value)) regionArrays.set(value, index);
  };
  const memoGet = (index: number): void => {
    const value = index < memo.length ? memo[index] : undefined;
    if (value === undefined) fail(`${name(op)} refers to memo slot ${index}, which was never stored`);
    stack[sp++] = value as PickleValue;
  };
  /** The values from `from` to the top, popped. */
  const popFrom = (from: number): PickleValue[] => {
    const items = stack.slice(from, sp);
    sp = from;
    return items;
  };
  const tupleOf = (items: PickleValue[]): PickleTuple => {
    let depth = 1;
    for (const item of items)
      if (item instanceof PickleTuple && item.depth + 1 > depth) depth = item.depth + 1;
    if (depth > MAX_TUPLE_DEPTH) fail(`tuples nested more than ${MAX_TUPLE_DEPTH} deep`);
    return new PickleTuple(items, depth);
  };
  /** Sets the keys and values from `from` to the top into `dict`, and pops them. */
  const setItems = (dict: PickleValue | undefined, from: number): void => {
    if (!(dict instanceof PickleDict)) fail(`${name(op)} onto a ${pickleTypeName(dict)}, not a dict`);
    const d = dict as PickleDict;
    if ((sp - from) % 2 !== 0) fail(`${name(op)} with an odd number of keys and values`);
    for (let i = from; i < sp; i += 2) {
      const key = stack[i]!;
      if (typeof key === 'object' && key !== null && unhashable(key)) {
        fail(`a dict key is a ${pickleTypeName(key)}, which Python cannot hash`);
      }
      d.set(key, stack[i + 1]!);
    }
    sp = from;
  };

  // ── streaming (see PickleStream) ────────────────────────────────────────────────────────────
  // The open batch of a streamed list: MARK at `base` put the list's items above it.
  let region: { list: PickleValue[]; base: number; index: number } | null = null;
  // Lists memoized inside the open batch, by memo slot, so the consumer can release them.
  const regionArrays = new Map<PickleValue[], number>();
  const ctx: PickleStreamContext = {
    get offset() {
      return at;
    },
    forget(value, by) {
      if (value instanceof PickleDict) {
        if (value.slot >= 0) memo[value.slot] = by;
      } else if (Array.isArray(value)) {
        const slot = regionArrays.get(value);
        if (slot !== undefined) {
          memo[slot] = by;
          regionArrays.delete(value);
        }
      }
    },
  };
  /**
   * Whether stack[ti] is a list being built as the value of root[rootKey]: the root dict is at the
   * bottom, its items follow its MARK at 1 (or, with one key, no MARK), so values sit at even indices
   * right after their key.
   */
  const isRootValueList = (ti: number): boolean =>
    ti >= 2 &&
    ti % 2 === 0 &&
    Array.isArray(stack[ti]) &&
    stack[ti - 1] === stream?.rootKey &&
    (mp === 0 || marks[0] === 1 || marks[0]! > ti);
  /**
   * Which inner list of root[rootKey] the list at stack index `xi` is, or -1: it follows that list T
   * directly (T's single item) or among T's batch after the innermost MARK `outer`.
   */
  const innerListIndex = (xi: number, outer: number): number => {
    if (stream === null || !(stack[0] instanceof PickleDict)) return -1;
    if (outer < xi && isRootValueList(xi - 1)) return (stack[xi - 1] as PickleValue[]).length;
    if (outer >= 3 && outer <= xi && isRootValueList(outer - 1)) {
      for (let i = outer; i < xi; i++) if (!Array.isArray(stack[i])) return -1;
      return (stack[outer - 1] as PickleValue[]).length + (xi - outer);
    }
    return -1;
  };
  const consumeFrom = (from: number): void => {
    const r = region!;
    for (let i = from; i < sp; i++) stream!.consume(stack[i]!, r.index, ctx);
    sp = from;
  };

  // ── the opcodes ─────────────────────────────────────────────────────────────────────────────
  if (length === 0) throw fileError('pickle-empty', { file: source }, source);
  if (bytes[0] !== 0x80) {
    const start = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
    throw gz
      ? fileError('pickle-gzip', { file: source, gunzipped: source.replace(/\.gz$/, '') }, source)
      : fileError('pickle-not-pickle', { file: source, start }, source);
  }

  for (;;) {
    if (pos >= limit) {
      if (frameEnd >= 0 && pos === frameEnd) {
        frameEnd = -1;
        limit = length;
      }
      if (pos >= length) {
        at = pos;
        fail('the file ends before the pickle’s STOP: it is truncated');
      }
    }
    if (sp > MAX_PICKLE_STACK) fail(`more than ${MAX_PICKLE_STACK} values on the stack`);
    at = pos;
    op = bytes[pos++]!;
    switch (op) {
      // The commonest opcodes are written out inline: the interpreter runs a cold file faster without calls.
      case 0x68: {
        // BINGET
        if (pos + 1 > limit) need(1);
        const value = memo[bytes[pos++]!];
        if (value === undefined) memoGet(bytes[pos - 1]!);
        else stack[sp++] = value;
        break;
      }
      case 0x6a: {
        // LONG_BINGET
        if (pos + 4 > limit) need(4);
        const index =
          (bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16) | (bytes[pos + 3]! << 24)) >>> 0;
        pos += 4;
        const value = index < memo.length ? memo[index] : undefined;
        if (value === undefined) memoGet(index);
        else stack[sp++] = value;
        break;
      }
      case 0x4b: // BININT1
        if (pos + 1 > limit) need(1);
        stack[sp++] = bytes[pos++]!;
        break;
      case 0x4d: // BININT2
        need(2);
        stack[sp++] = bytes[pos]! | (bytes[pos + 1]! << 8);
        pos += 2;
        break;
      case 0x4a: // BININT
        need(4);
        stack[sp++] = view.getInt32(pos, true);
        pos += 4;
        break;
      case 0x8a: {
        // LONG1
        need(1);
        const n = bytes[pos++]!;
        need(n);
        stack[sp++] = decodeLong(bytes, pos, n);
        pos += n;
        break;
      }
      case 0x28: // MARK
        if (mp >= MAX_PICKLE_MARKS) fail(`more than ${MAX_PICKLE_MARKS} MARKs open: nesting too deep`);
        if (stream !== null && region === null && sp > 0 && Array.isArray(stack[sp - 1])) {
          const index = innerListIndex(sp - 1, mp > 0 ? marks[mp - 1]! : -1);
          if (index >= 0) {
            region = { list: stack[sp - 1] as PickleValue[], base: sp, index };
            regionArrays.clear();
          }
        }
        marks[mp++] = sp;
        break;
      case 0x7d: // EMPTY_DICT
        // Inside a streamed batch, a new item starting means the one below it is complete.
        if (region !== null && sp === region.base + 1 && marks[mp - 1] === region.base)
          consumeFrom(region.base);
        stack[sp++] = new PickleDict();
        break;
      case 0x5d: // EMPTY_LIST
        stack[sp++] = [];
        break;
      case 0x94: {
        // MEMOIZE
        const value = stack[sp - 1];
        if (
          sp === 0 ||
          (mp > 0 && sp <= marks[mp - 1]!) ||
          value instanceof PickleDict ||
          Array.isArray(value)
        ) {
          memoPut(memo.length);
        } else memo.push(value as PickleValue);
        break;
      }
      case 0x71: // BINPUT
        need(1);
        memoPut(bytes[pos++]!);
        break;
      case 0x72: // LONG_BINPUT
        memoPut(u32());
        break;
      case 0x75: {
        // SETITEMS
        const from = popMark();
        if (from < 1) fail('SETITEMS with no dict below its MARK');
        setItems(stack[from - 1], from);
        break;
      }
      case 0x73: // SETITEM
        needItems(3);
        setItems(stack[sp - 3], sp - 2);
        break;
      case 0x65: {
        // APPENDS
        const from = popMark();
        const list = from >= 1 ? stack[from - 1] : undefined;
        if (!Array.isArray(list)) fail(`APPENDS onto a ${pickleTypeName(list)}, not a list`);
        if (region !== null && region.base === from) {
          consumeFrom(from);
          region = null;
          regionArrays.clear();
          break;
        }
        const l = list as PickleValue[];
        for (let i = from; i < sp; i++) l.push(stack[i]!);
        sp = from;
        break;
      }
      case 0x61: {
        // APPEND
        needItems(2);
        const item = stack[--sp]!;
        const list = stack[sp - 1];
        if (!Array.isArray(list)) fail(`APPEND onto a ${pickleTypeName(list)}, not a list`);
        if (stream !== null) {
          const index =
            region !== null && region.list === list
              ? region.index
              : innerListIndex(sp - 1, mp > 0 ? marks[mp - 1]! : -1);
          if (index >= 0) {
            stream.consume(item, index, ctx);
            break;
          }
        }
        (list as PickleValue[]).push(item);
        break;
      }
      case 0x8c: {
        // SHORT_BINUNICODE
        need(1);
        const n = bytes[pos++]!;
        need(n);
        stack[sp++] = decodeUtf8(bytes, pos, pos + n);
        pos += n;
        break;
      }
      case 0x58: {
        // BINUNICODE
        const n = checkLength(u32());
        stack[sp++] = decodeUtf8(bytes, pos, pos + n);
        pos += n;
        break;
      }
      case 0x8d: {
        // BINUNICODE8
        const n = checkLength(u64());
        stack[sp++] = decodeUtf8(bytes, pos, pos + n);
        pos += n;
        break;
      }
      case 0x80: {
        // PROTO
        need(1);
        const proto = bytes[pos++]!;
        if (proto < 2 || proto > 5)
          throw fileError('pickle-protocol', { file: source, byte: at, protocol: proto }, source);
        break;
      }
      case 0x95: {
        // FRAME
        if (frameEnd >= 0 && pos < frameEnd) {
          fail(
            `a FRAME begins inside the FRAME that began at byte ${frameStart}, before its end at ${frameEnd}`,
          );
        }
        frameEnd = -1;
        limit = length;
        const n = u64();
        if (n > length - pos) {
          fail(
            `FRAME says ${n} bytes follow, but only ${length - pos} are left: the frame's length is wrong`,
          );
        }
        frameStart = at;
        frameEnd = pos + n;
        limit = frameEnd;
        break;
      }
      case 0x2e: // STOP
        needItems(1);
        return stack[sp - 1]!;
      case 0x29: // EMPTY_TUPLE
        stack[sp++] = new PickleTuple([], 1);
        break;
      case 0x8f: // EMPTY_SET
        stack[sp++] = new PickleSet([], false);
        break;
      case 0x4e: // NONE
        stack[sp++] = null;
        break;
      case 0x88: // NEWTRUE
        stack[sp++] = true;
        break;
      case 0x89: // NEWFALSE
        stack[sp++] = false;
        break;
      case 0x8b: {
        // LONG4
        need(4);
        const n = view.getInt32(pos, true);
        pos += 4;
        checkLength(n);
        if (n > MAX_LONG_BYTES) fail(`LONG4 of ${n} bytes: an integer larger than any in a memory snapshot`);
        stack[sp++] = decodeLong(bytes, pos, n);
        pos += n;
        break;
      }
      case 0x47: // BINFLOAT
        need(8);
        stack[sp++] = view.getFloat64(pos, false);
        pos += 8;
        break;
      case 0x43: {
        // SHORT_BINBYTES
        need(1);
        const n = bytes[pos++]!;
        need(n);
        stack[sp++] = bytes.slice(pos, pos + n);
        pos += n;
        break;
      }
      case 0x42: {
        // BINBYTES
        const n = checkLength(u32());
        stack[sp++] = bytes.slice(pos, pos + n);
        pos += n;
        break;
      }
      case 0x8e:
      case 0x96: {
        // BINBYTES8, BYTEARRAY8
        const n = checkLength(u64());
        stack[sp++] = bytes.slice(pos, pos + n);
        pos += n;
        break;
      }
      case 0x90: {
        // ADDITEMS
        const from = popMark();
        const set = from >= 1 ? stack[from - 1] : undefined;
        if (!(set instanceof PickleSet) || set.frozen)
          fail(`ADDITEMS onto a ${pickleTypeName(set)}, not a set`);
        const s = set as PickleSet;
        for (let i = from; i < sp; i++) s.items.push(stack[i]!);
        sp = from;
        break;
      }
      case 0x91: // FROZENSET
        {
          const value = new PickleSet(popFrom(popMark()), true);
          stack[sp++] = value;
        }
        break;
      case 0x64: {
        // DICT
        const from = popMark();
        const dict = new PickleDict();
        setItems(dict, from);
        stack[sp++] = dict;
        break;
      }
      case 0x6c: // LIST
        {
          const value = popFrom(popMark());
          stack[sp++] = value;
        }
        break;
      case 0x74: // TUPLE
        {
          const value = tupleOf(popFrom(popMark()));
          stack[sp++] = value;
        }
        break;
      case 0x85: // TUPLE1
        needItems(1);
        stack[sp - 1] = tupleOf([stack[sp - 1]!]);
        break;
      case 0x86: // TUPLE2
        needItems(2);
        stack[sp - 2] = tupleOf([stack[sp - 2]!, stack[sp - 1]!]);
        sp--;
        break;
      case 0x87: // TUPLE3
        needItems(3);
        stack[sp - 3] = tupleOf([stack[sp - 3]!, stack[sp - 2]!, stack[sp - 1]!]);
        sp -= 2;
        break;
      case 0x30: // POP
        if (sp > (mp > 0 ? marks[mp - 1]! : 0)) sp--;
        else popMark();
        break;
      case 0x31: // POP_MARK
        sp = popMark();
        break;
      case 0x32: // DUP
        needItems(1);
        stack[sp] = stack[sp - 1]!;
        sp++;
        break;
      default:
        {
          const kind = CODE_OPCODES.has(op)
            ? 'code'
            : op === 0x97 || op === 0x98
              ? 'buffers'
              : TEXT_OPCODES.has(op)
                ? 'text'
                : null;
          if (kind !== null) {
            const opcode = { file: source, byte: at, opcode: name(op), hex: hex(op), kind } as const;
            throw fileError('pickle-opcode', opcode, source);
          }
        }
        fail(`unknown opcode ${hex(op)}: the file is not a pickle or is corrupt`);
    }
  }
}

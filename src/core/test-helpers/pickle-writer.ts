/**
 * A small pickle writer for tests: the layouts CPython's pickler (Lib/pickle.py `_Pickler`, protocols
 * 2–5: memo on every container and string, batches of 1000, 64 KiB frames from protocol 4) and torch's
 * C++ pickler (torch/csrc/jit/serialization/pickler.cpp: protocol 2, BINPUT, one MARK for a whole list
 * or dict) write, so the reader is tested on every layout a snapshot can come in. Also raw opcodes, to
 * build hostile files.
 */

/** A Python float (JS numbers that are whole would be written as ints). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python tuple. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyTuple
  | readonly PyValue[]
  | ReadonlyMap<PyValue, PyValue>
  | { readonly [key: string]: PyValue };

export const tuple = (...items: PyValue[]) => new PyTuple(items);

export interface WriteOptions {
  /** 2 to 5. */
  readonly protocol?: number;
  /** `python`: CPython's pickler; `jit`: torch's C++ pickler (protocol 2, no batching). */
  readonly style?: 'python' | 'jit';
}

const BATCH = 1000;
const FRAME_TARGET = 64 * 1024;

/** Opcode bytes by name (CPython Lib/pickletools.py). */
export const OP = {
  MARK: 0x28,
  STOP: 0x2e,
  POP: 0x30,
  POP_MARK: 0x31,
  DUP: 0x32,
  BININT: 0x4a,
  BININT1: 0x4b,
  BININT2: 0x4d,
  NONE: 0x4e,
  BINPERSID: 0x51,
  REDUCE: 0x52,
  BINUNICODE: 0x58,
  EMPTY_LIST: 0x5d,
  APPEND: 0x61,
  BUILD: 0x62,
  GLOBAL: 0x63,
  DICT: 0x64,
  APPENDS: 0x65,
  BINGET: 0x68,
  INST: 0x69,
  LONG_BINGET: 0x6a,
  LIST: 0x6c,
  OBJ: 0x6f,
  BINPUT: 0x71,
  LONG_BINPUT: 0x72,
  SETITEM: 0x73,
  TUPLE: 0x74,
  SETITEMS: 0x75,
  EMPTY_DICT: 0x7d,
  EMPTY_TUPLE: 0x29,
  BINFLOAT: 0x47,
  PROTO: 0x80,
  NEWOBJ: 0x81,
  EXT1: 0x82,
  TUPLE1: 0x85,
  TUPLE2: 0x86,
  TUPLE3: 0x87,
  NEWTRUE: 0x88,
  NEWFALSE: 0x89,
  LONG1: 0x8a,
  LONG4: 0x8b,
  SHORT_BINUNICODE: 0x8c,
  BINUNICODE8: 0x8d,
  BINBYTES8: 0x8e,
  NEWOBJ_EX: 0x92,
  STACK_GLOBAL: 0x93,
  MEMOIZE: 0x94,
  FRAME: 0x95,
  NEXT_BUFFER: 0x97,
} as const;

/** The runtime's WHATWG TextEncoder (the core compiles without the DOM or Node type libraries). */
declare const TextEncoder: new () => { encode(input: string): Uint8Array };

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Little-endian bytes of an unsigned integer. */
export function le(value: number, bytes: number): number[] {
  const out: number[] = [];
  let v = value;
  for (let i = 0; i < bytes; i++) {
    out.push(v % 256);
    v = Math.floor(v / 256);
  }
  return out;
}

/** Python's LONG1 payload: the shortest little-endian two's complement. */
function longBytes(value: bigint): number[] {
  if (value === 0n) return [];
  const out: number[] = [];
  let v = value;
  for (;;) {
    const byte = Number(v & 0xffn);
    out.push(byte);
    v >>= 8n;
    if ((v === 0n && byte < 0x80) || (v === -1n && byte >= 0x80)) break;
  }
  return out;
}

/** Writes `value` as CPython (or torch's C++ pickler) would. */
export function writePickle(value: PyValue, options: WriteOptions = {}): Uint8Array {
  const style = options.style ?? 'python';
  const protocol = style === 'jit' ? 2 : (options.protocol ?? 4);
  const body: number[] = [];
  const starts: number[] = [];
  /** One opcode and its argument bytes. */
  const emit = (...bytes: number[]) => {
    starts.push(body.length);
    for (const b of bytes) body.push(b);
  };
  const memo = new Map<unknown, number>();
  const batch = style === 'jit' ? Number.POSITIVE_INFINITY : BATCH;

  const put = (key: unknown) => {
    const index = memo.size;
    memo.set(key, index);
    if (protocol >= 4) emit(OP.MEMOIZE);
    else if (index < 256) emit(OP.BINPUT, index);
    else emit(OP.LONG_BINPUT, ...le(index, 4));
  };
  const get = (index: number) => {
    if (index < 256) emit(OP.BINGET, index);
    else emit(OP.LONG_BINGET, ...le(index, 4));
  };
  const items = (list: readonly PyValue[], end: number) => {
    if (list.length === 1 && style === 'python') {
      write(list[0]!);
      emit(end === OP.APPENDS ? OP.APPEND : OP.SETITEM);
      return;
    }
    for (let i = 0; i < list.length; i += batch) {
      emit(OP.MARK);
      for (const item of list.slice(i, i + batch)) write(item);
      emit(end);
    }
  };
  const write = (v: PyValue): void => {
    if (v === null) emit(OP.NONE);
    else if (v === true) emit(OP.NEWTRUE);
    else if (v === false) emit(OP.NEWFALSE);
    else if (typeof v === 'number' || typeof v === 'bigint') {
      const n = typeof v === 'bigint' ? v : BigInt(v);
      if (n >= 0n && n < 256n) emit(OP.BININT1, Number(n));
      else if (n >= 0n && n < 65536n) emit(OP.BININT2, ...le(Number(n), 2));
      else if (n >= -(2n ** 31n) && n < 2n ** 31n) emit(OP.BININT, ...le(Number(BigInt.asUintN(32, n)), 4));
      else {
        const bytes = longBytes(n);
        emit(OP.LONG1, bytes.length, ...bytes);
      }
    } else if (v instanceof PyFloat) {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, v.value, false);
      emit(OP.BINFLOAT, ...b);
    } else if (typeof v === 'string') {
      const key = `s:${v}`;
      const seen = memo.get(key);
      if (seen !== undefined) {
        get(seen);
        return;
      }
      const b = utf8(v);
      if (b.length < 256 && protocol >= 4) emit(OP.SHORT_BINUNICODE, b.length, ...b);
      else emit(OP.BINUNICODE, ...le(b.length, 4), ...b);
      put(key);
    } else {
      const seen = memo.get(v);
      if (seen !== undefined) {
        get(seen);
        return;
      }
      if (v instanceof PyTuple) {
        if (v.items.length === 0) {
          emit(OP.EMPTY_TUPLE);
          return;
        }
        if (v.items.length <= 3 && style === 'python') {
          for (const item of v.items) write(item);
          emit([OP.TUPLE1, OP.TUPLE2, OP.TUPLE3][v.items.length - 1]!);
        } else {
          emit(OP.MARK);
          for (const item of v.items) write(item);
          emit(OP.TUPLE);
        }
        put(v);
      } else if (Array.isArray(v)) {
        emit(OP.EMPTY_LIST);
        put(v);
        items(v as readonly PyValue[], OP.APPENDS);
      } else {
        emit(OP.EMPTY_DICT);
        put(v);
        const entries: [PyValue, PyValue][] =
          v instanceof Map ? [...v.entries()] : Object.entries(v as Record<string, PyValue>);
        if (entries.length === 1 && style === 'python') {
          write(entries[0]![0]);
          write(entries[0]![1]);
          emit(OP.SETITEM);
        } else if (entries.length > 0) {
          for (let i = 0; i < entries.length; i += batch) {
            emit(OP.MARK);
            for (const [k, item] of entries.slice(i, i + batch)) {
              write(k);
              write(item);
            }
            emit(OP.SETITEMS);
          }
        }
      }
    }
  };

  write(value);
  emit(OP.STOP);
  const head = [OP.PROTO, protocol];
  if (protocol < 4) return Uint8Array.from([...head, ...body]);
  // Frames of about 64 KiB, cut at opcode boundaries (CPython's _Framer).
  const out: number[] = [...head];
  starts.push(body.length);
  let frameStart = 0;
  for (let i = 1; i < starts.length; i++) {
    if (starts[i]! - frameStart >= FRAME_TARGET || i === starts.length - 1) {
      out.push(OP.FRAME, ...le(starts[i]! - frameStart, 8));
      for (let k = frameStart; k < starts[i]!; k++) out.push(body[k]!);
      frameStart = starts[i]!;
    }
  }
  return Uint8Array.from(out);
}

/** Bytes of a pickle from raw opcodes and arguments, after PROTO `protocol`. */
export function rawPickle(protocol: number, ...parts: (number | readonly number[] | string)[]): Uint8Array {
  const out: number[] = [OP.PROTO, protocol];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string') out.push(...utf8(p));
    else out.push(...p);
  }
  return Uint8Array.from(out);
}

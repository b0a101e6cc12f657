/**
 * The pickle reader: every layout a snapshot comes in reads to the same values, and hostile files get a
 * clear error (the file, the opcode, the byte offset) — nothing is ever run, and time and memory stay
 * bounded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { HeadroomUserError } from '../errors.js';
import {
  le,
  OP,
  PyFloat,
  type PyValue,
  rawPickle,
  tuple,
  writePickle,
} from '../test-helpers/pickle-writer.js';
import { userErrorOf } from '../test-helpers/user-error.js';
import {
  MAX_LONG_BYTES,
  MAX_PICKLE_MARKS,
  MAX_PICKLE_STACK,
  MAX_TUPLE_DEPTH,
  PickleDict,
  PickleSet,
  PickleTuple,
  type PickleValue,
  readPickle,
} from './pickle.js';

const FILE = 'hostile.pickle';
const read = (bytes: Uint8Array) => readPickle(bytes, { source: FILE });
const errorOf = (bytes: Uint8Array) => userErrorOf(() => read(bytes));
const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'data', 'fixtures', 'snapshots', name));

/** Plain JS of a read value, to compare layouts: dicts as [key, value] pairs, tuples marked. */
function plain(v: PickleValue, depth = 0): unknown {
  if (depth > 50) return '…';
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
  if (v instanceof PickleDict)
    return v.keys.map((k, i) => [plain(k, depth + 1), plain(v.values[i]!, depth + 1)]);
  if (v instanceof PickleTuple) return { tuple: v.items.map((x) => plain(x, depth + 1)) };
  if (v instanceof PickleSet) return { set: v.items.map((x) => plain(x, depth + 1)) };
  return v;
}

const frame = { name: 'forward', filename: '/x/modeling_llama.py', line: 216 };
const SAMPLE: PyValue = {
  segments: [{ device: 0, address: 139927954128896, total_size: 20971520, segment_pool_id: tuple(0, 0) }],
  ints: [0, 255, 256, 65535, 65536, -1, -(2 ** 31), 2 ** 31, 2 ** 53, -(2 ** 40), 2n ** 70n, -(2n ** 63n)],
  float: new PyFloat(0.5),
  flags: [true, false, null],
  text: ['', 'héllo ✓', 'x'.repeat(300)],
  tuples: [tuple(), tuple(1), tuple(1, 2, 3), tuple(1, 2, 3, 4, 5)],
  keys: new Map<PyValue, PyValue>([
    [tuple(0, 0), 'tuple key'],
    [7, 'int key'],
  ]),
  shared: [frame, frame, frame],
  many: Array.from({ length: 2500 }, (_, i) => i),
};

describe('readPickle: the layouts', () => {
  const expected = plain(read(writePickle(SAMPLE, { protocol: 4 })));

  it.each([
    ['protocol 2 (BINPUT, no frames)', { protocol: 2 }],
    ['protocol 3', { protocol: 3 }],
    ['protocol 5 (Python 3.14)', { protocol: 5 }],
    ["torch's C++ pickler (one MARK per list)", { style: 'jit' as const }],
  ])('%s reads to the same values as protocol 4', (_name, options) => {
    expect(plain(read(writePickle(SAMPLE, options)))).toEqual(expected);
  });

  it('reads ints (a bigint from 2^53 on, where a number stops being exact), floats, strings, tuples and non-string keys as Python does', () => {
    const v = read(writePickle(SAMPLE, { protocol: 4 })) as PickleDict;
    expect(v.get('ints')).toEqual([
      0,
      255,
      256,
      65535,
      65536,
      -1,
      -(2 ** 31),
      2 ** 31,
      2n ** 53n,
      -(2 ** 40),
      2n ** 70n,
      -(2n ** 63n),
    ]);
    expect(v.get('float')).toBe(0.5);
    expect(v.get('text')).toEqual(['', 'héllo ✓', 'x'.repeat(300)]);
    const keys = v.get('keys') as PickleDict;
    expect(keys.keys[0]).toBeInstanceOf(PickleTuple);
    expect((keys.keys[0] as PickleTuple).items).toEqual([0, 0]);
    expect(keys.get(7)).toBe('int key');
    expect((v.get('many') as number[]).length).toBe(2500);
  });

  it('keeps shared objects shared (the memo)', () => {
    const shared = (read(writePickle(SAMPLE)) as PickleDict).get('shared') as PickleValue[];
    expect(shared[0]).toBe(shared[2]);
  });

  it('reads a real snapshot written by Python (protocol 4, 40 frames) without error', () => {
    const v = read(fixture('ftcourse_memory_snapshot.pickle')) as PickleDict;
    expect(v.keys).toEqual(['segments', 'device_traces']);
    expect((v.get('segments') as PickleValue[]).length).toBe(215);
  });

  it('reads a memo loop (a list that holds itself) without looping', () => {
    // l = []; l.append(l)
    const v = read(
      rawPickle(2, OP.EMPTY_LIST, OP.BINPUT, 0, OP.BINGET, 0, OP.APPEND, OP.STOP),
    ) as PickleValue[];
    expect(v[0]).toBe(v);
  });

  it('ignores what follows STOP, as Python does', () => {
    expect(read(rawPickle(2, OP.BININT1, 7, OP.STOP, 0xff, 0xff))).toBe(7);
  });
});

describe('readPickle: hostile files', () => {
  it.each([
    ['GLOBAL', [OP.GLOBAL, 'os\nsystem\n', OP.STOP]],
    [
      'STACK_GLOBAL',
      [OP.SHORT_BINUNICODE, 2, 'os', OP.SHORT_BINUNICODE, 6, 'system', OP.STACK_GLOBAL, OP.STOP],
    ],
    ['REDUCE', [OP.EMPTY_LIST, OP.EMPTY_TUPLE, OP.REDUCE, OP.STOP]],
    ['BUILD', [OP.EMPTY_LIST, OP.EMPTY_DICT, OP.BUILD, OP.STOP]],
    ['INST', [OP.MARK, OP.INST, 'os\nsystem\n', OP.STOP]],
    ['OBJ', [OP.MARK, OP.EMPTY_LIST, OP.OBJ, OP.STOP]],
    ['NEWOBJ', [OP.EMPTY_LIST, OP.EMPTY_TUPLE, OP.NEWOBJ, OP.STOP]],
    ['NEWOBJ_EX', [OP.EMPTY_LIST, OP.EMPTY_TUPLE, OP.EMPTY_DICT, OP.NEWOBJ_EX, OP.STOP]],
    ['EXT1', [OP.EXT1, 1, OP.STOP]],
    ['BINPERSID', [OP.NONE, OP.BINPERSID, OP.STOP]],
  ])('refuses %s: it would import or call, and nothing is run', (name, parts) => {
    const error = errorOf(rawPickle(4, ...(parts as (number | string)[])));
    expect(error).toBeInstanceOf(HeadroomUserError);
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(FILE);
    expect(error.message).toContain(`opcode ${name} `);
    expect(error.message).toMatch(/^hostile\.pickle: byte \d+: /);
    expect(error.message).toContain('not a plain memory snapshot');
    expect(error.message).toContain('never runs code');
    expect(error.hint).toContain('_dump_snapshot');
  });

  it('names the byte offset of the refused opcode', () => {
    // PROTO 4 (bytes 0–1), EMPTY_DICT (2), GLOBAL at 3.
    expect(errorOf(rawPickle(4, OP.EMPTY_DICT, OP.GLOBAL, 'os\nsystem\n')).message).toMatch(
      /: byte 3: opcode GLOBAL/,
    );
  });

  it('refuses out-of-band buffers (PEP 574)', () => {
    expect(errorOf(rawPickle(5, OP.NEXT_BUFFER, OP.STOP)).message).toContain('buffers from outside the file');
  });

  it('gives a clear error at every point a real snapshot can be cut', () => {
    const bytes = fixture('eor_nn_snapshot.pickle');
    for (let k = 1; k <= 30; k++) {
      const cut = Math.floor((bytes.length * k) / 31);
      const error = userErrorOf(() => readPickle(bytes.subarray(0, cut), { source: FILE }));
      expect(error.where).toBe(FILE);
      expect(error.message).toMatch(/byte \d+: .*(truncated|frame's length is wrong)/);
    }
  });

  it('refuses lengths past the end of the file before allocating anything', () => {
    expect(errorOf(rawPickle(4, OP.BINUNICODE, le(0xffffffff, 4), 'ab')).message).toContain(
      'BINUNICODE says 4294967295 bytes follow, but only 2 are left',
    );
    expect(errorOf(rawPickle(4, OP.BINUNICODE8, le(2 ** 40, 8), 'ab')).message).toContain(
      `BINUNICODE8 says ${2 ** 40} bytes follow`,
    );
    expect(errorOf(rawPickle(4, OP.BINBYTES8, 0, 0, 0, 0, 0, 0, 0, 0x40)).message).toContain(
      'more than any file',
    );
    expect(errorOf(rawPickle(4, OP.SHORT_BINUNICODE, 255, 'abc')).message).toContain(
      'the file ends inside SHORT_BINUNICODE',
    );
  });

  it('refuses a LONG4 with a huge length, a negative one, and one too large to be a snapshot’s', () => {
    expect(errorOf(rawPickle(4, OP.LONG4, le(0x7fffffff, 4), 1)).message).toContain(
      'LONG4 says 2147483647 bytes follow, but only 1 are left',
    );
    expect(errorOf(rawPickle(4, OP.LONG4, le(0xffffffff, 4), 1)).message).toContain('negative length (-1)');
    const n = MAX_LONG_BYTES + 1;
    expect(errorOf(rawPickle(4, OP.LONG4, le(n, 4), new Array(n).fill(1), OP.STOP)).message).toContain(
      `LONG4 of ${n} bytes`,
    );
  });

  it('refuses a BINGET to a memo slot that was never stored', () => {
    const error = errorOf(rawPickle(4, OP.NONE, OP.MEMOIZE, OP.BINGET, 7, OP.STOP));
    expect(error.message).toContain('byte 4: BINGET refers to memo slot 7, which was never stored');
    expect(errorOf(rawPickle(2, OP.LONG_BINGET, le(123456, 4), OP.STOP)).message).toContain(
      'memo slot 123456',
    );
  });

  it('refuses a BINPUT far past the memo (which would make a huge sparse memo)', () => {
    expect(errorOf(rawPickle(2, OP.NONE, OP.LONG_BINPUT, le(0xfffffff0, 4), OP.STOP)).message).toContain(
      'far past the 0 in use',
    );
  });

  it('refuses FRAME lengths that lie', () => {
    // The frame says 3 bytes, but the string in it needs 4 after its opcode and length.
    const straddle = rawPickle(4, OP.FRAME, le(3, 8), OP.SHORT_BINUNICODE, 4, 'abcd', OP.STOP);
    expect(errorOf(straddle).message).toContain(
      'SHORT_BINUNICODE needs 4 bytes but the FRAME that began at byte 2 ends at byte 14',
    );
    expect(errorOf(rawPickle(4, OP.FRAME, le(1000, 8), OP.NONE, OP.STOP)).message).toContain(
      'FRAME says 1000 bytes follow, but only 2 are left',
    );
    const nested = rawPickle(4, OP.FRAME, le(11, 8), OP.FRAME, le(1, 8), OP.NONE, OP.STOP);
    expect(errorOf(nested).message).toContain('a FRAME begins inside the FRAME that began at byte 2');
    // A frame that ends exactly where an opcode ends is fine, and so is data after the last frame.
    expect(read(rawPickle(4, OP.FRAME, le(1, 8), OP.NONE, OP.BININT1, 3, OP.STOP))).toBe(3);
  });

  it('bounds nesting: MARKs, tuples in tuples, and the stack', () => {
    expect(errorOf(rawPickle(4, new Array(MAX_PICKLE_MARKS + 1).fill(OP.MARK))).message).toContain(
      `more than ${MAX_PICKLE_MARKS} MARKs open`,
    );
    expect(
      errorOf(rawPickle(4, OP.EMPTY_TUPLE, new Array(MAX_TUPLE_DEPTH + 1).fill(OP.TUPLE1), OP.STOP)).message,
    ).toContain(`tuples nested more than ${MAX_TUPLE_DEPTH} deep`);
    const started = performance.now();
    const dups = new Uint8Array(MAX_PICKLE_STACK + 8).fill(OP.DUP);
    dups.set([OP.PROTO, 4, OP.NONE]);
    expect(errorOf(dups).message).toContain(`more than ${MAX_PICKLE_STACK} values on the stack`);
    // Four million opcodes, refused in well under the test's limit (no figure asserted: see bench:snapshot).
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('reads deep list nesting without recursion', () => {
    const depth = 100_000;
    const bytes = rawPickle(
      4,
      new Array(depth).fill(OP.EMPTY_LIST),
      new Array(depth - 1).fill(OP.APPEND),
      OP.STOP,
    );
    let v = read(bytes) as PickleValue[];
    let seen = 1;
    while (v.length > 0) {
      v = v[0] as PickleValue[];
      seen += 1;
    }
    expect(seen).toBe(depth);
  });

  it('refuses what Python refuses: odd SETITEMS, unhashable keys, wrong targets, underflow', () => {
    expect(errorOf(rawPickle(4, OP.EMPTY_DICT, OP.MARK, OP.NONE, OP.SETITEMS, OP.STOP)).message).toContain(
      'odd number of keys and values',
    );
    expect(
      errorOf(rawPickle(4, OP.EMPTY_DICT, OP.EMPTY_LIST, OP.NONE, OP.SETITEM, OP.STOP)).message,
    ).toContain('a dict key is a list, which Python cannot hash');
    expect(errorOf(rawPickle(4, OP.EMPTY_DICT, OP.NONE, OP.APPEND, OP.STOP)).message).toContain(
      'APPEND onto a dict, not a list',
    );
    expect(errorOf(rawPickle(4, OP.NONE, OP.TUPLE2, OP.STOP)).message).toContain(
      'TUPLE2 needs 2 values on the stack; it holds 1',
    );
    expect(errorOf(rawPickle(4, OP.POP_MARK)).message).toContain('POP_MARK without a MARK before it');
    expect(errorOf(rawPickle(4, OP.STOP)).message).toContain('STOP needs 1 values');
  });

  it('says what a file that is not a pickle is', () => {
    expect(errorOf(new TextEncoder().encode('{"segments": []}')).message).toContain(
      'not a pickle of protocol 2 or later (it begins with bytes 7b 22 73 65',
    );
    const gz = errorOf(Uint8Array.from([0x1f, 0x8b, 8, 0]));
    expect(gz.message).toContain('a gzip file');
    expect(gz.hint).toContain('gunzip');
    expect(errorOf(new Uint8Array()).message).toContain('the file is empty');
    expect(errorOf(rawPickle(1, OP.NONE, OP.STOP)).message).toContain('pickle protocol 1');
    expect(errorOf(rawPickle(2, 0x49, '1\n', OP.STOP)).message).toContain(
      'opcode INT (0x49) is protocol 0/1 text',
    );
    expect(errorOf(rawPickle(4, 0xfe)).message).toContain('unknown opcode 0xfe');
    expect(errorOf(rawPickle(4, OP.NONE)).message).toContain('ends before the pickle’s STOP');
  });
});

/** Reading a snapshot file: the bytes, or a clear error for what is not a readable file. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asyncUserErrorOf } from '../core/test-helpers/user-error.js';
import { readSnapshotFile } from './read-snapshot.js';

describe('readSnapshotFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-read-snapshot-'));
  it('reads the bytes', async () => {
    const file = join(dir, 'a.pickle');
    writeFileSync(file, Buffer.from([0x80, 4, 0x4e, 0x2e]));
    expect([...(await readSnapshotFile(file))]).toEqual([0x80, 4, 0x4e, 0x2e]);
  });
  it('names a missing file, a folder, an empty file and one over the limit', async () => {
    const missing = join(dir, 'nope.pickle');
    expect((await asyncUserErrorOf(() => readSnapshotFile(missing))).message).toBe(`no file ${missing}`);
    expect((await asyncUserErrorOf(() => readSnapshotFile(dir))).message).toBe(
      `${dir} is a folder, not a snapshot file`,
    );
    const empty = join(dir, 'empty.pickle');
    writeFileSync(empty, '');
    expect((await asyncUserErrorOf(() => readSnapshotFile(empty))).message).toBe(`${empty} is empty`);
    const big = join(dir, 'big.pickle');
    writeFileSync(big, Buffer.alloc(2048));
    const error = await asyncUserErrorOf(() => readSnapshotFile(big, 1024));
    expect(error.message).toBe(`${big} is 2 KiB, over the 1 KiB a snapshot is read up to`);
    expect(error.where).toBe(big);
  });
});

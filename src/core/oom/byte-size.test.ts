import { describe, expect, it } from 'vitest';
import { parseSize, sizeBytes } from './byte-size.js';

describe('sizeBytes', () => {
  it.each([
    ['10.92', 'GiB', 11725260718], // the corpus README's own example
    ['23.65', 'GiB', 25393994138],
    ['194.87', 'MiB', 204336005],
    ['1024.00', 'MiB', 1073741824],
    ['8.57', 'MiB', 8986296],
    ['166.0', 'KiB', 169984],
    ['0', 'bytes', 0],
    ['184549376', 'B', 184549376],
    ['1', 'TiB', 2 ** 40],
  ])('%s %s = %d bytes', (n, unit, bytes) => {
    expect(sizeBytes(n, unit)).toBe(bytes);
  });

  it('reads KB/MB/GB as binary only where the allocator computes them so (MPS)', () => {
    expect(sizeBytes('18.12', 'GB')).toBeNull();
    expect(sizeBytes('18.12', 'GB', true)).toBe(Math.round(18.12 * 2 ** 30));
  });
});

describe('parseSize', () => {
  it('needs the whole unit: a size cut short is no size', () => {
    expect(parseSize('Tried to allocate 12.50 MiB.')).toBe(13107200);
    expect(parseSize('Tried to allocate 12.50 Mi')).toBeNull();
    expect(parseSize('Tried to allocate 12.5')).toBeNull();
    expect(parseSize('43.75MiB.')).toBe(45875200);
    expect(parseSize('Bin (256): Total Chunks')).toBeNull();
  });
});

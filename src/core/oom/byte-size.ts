/**
 * Sizes as OOM messages print them: PyTorch's `format_size` ("0 bytes", "12.50 MiB", "1024.00 MiB",
 * c10/cuda/CUDACachingAllocator.cpp), TensorFlow's and XLA's "43.75MiB", "184549376B", plain "N bytes".
 * Units are binary (KiB = 2^10 ...), as the allocators compute them.
 */

/** Binary multipliers by unit as printed. MPS's allocator prints KB/MB/GB but divides by 1024 (MPSAllocator.mm). */
const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  byte: 1,
  bytes: 1,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
  pib: 2 ** 50,
  eib: 2 ** 60,
};

const BINARY_DECIMAL_NAMES: Readonly<Record<string, number>> = { kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 };

/**
 * Regex source of one printed size: a number and a whole unit. A unit cut short ("12.50 Mi") does not
 * match, so a truncated message yields null rather than a wrong number. Capture groups: number, unit.
 */
export const SIZE = String.raw`(\d+(?:\.\d+)?)\s*(bytes?|[KMGTPE]iB|B)(?![A-Za-z0-9])`;

/** Like SIZE, but also KB/MB/GB (binary in the MPS allocator's messages). */
export const MPS_SIZE = String.raw`(\d+(?:\.\d+)?)\s*(bytes?|[KMGTPE]iB|[KMG]B|B)(?![A-Za-z0-9])`;

/** Bytes of a printed number and unit, rounded to an integer; null for a unit we do not know. */
export function sizeBytes(number: string, unit: string, binaryDecimalNames = false): number | null {
  const key = unit.toLowerCase();
  const factor = UNIT_BYTES[key] ?? (binaryDecimalNames ? BINARY_DECIMAL_NAMES[key] : undefined);
  const value = Number(number);
  if (factor === undefined || !Number.isFinite(value)) return null;
  return Math.round(value * factor);
}

/** Parses one printed size ("22.00 MiB") anywhere in `text`; null when there is none. */
export function parseSize(text: string): number | null {
  const m = new RegExp(SIZE).exec(text);
  return m ? sizeBytes(m[1]!, m[2]!) : null;
}

/**
 * Builds real safetensors bytes in memory for tests: an 8-byte little-endian header length, the
 * JSON header padded with spaces so the data starts 8-byte aligned, then zeroed tensor data.
 */

export interface FixtureTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
}

/** Bits per element of the dtypes the fixtures use (safetensors `Dtype::bitsize`). */
const FIXTURE_DTYPE_BITS: Record<string, number> = {
  BOOL: 8,
  U8: 8,
  I8: 8,
  F8_E4M3: 8,
  F16: 16,
  BF16: 16,
  I32: 32,
  U32: 32,
  F32: 32,
  I64: 64,
  F64: 64,
  F4: 4,
};

/** Alignment of the data section that safetensors writers pad to, in bytes. */
const DATA_ALIGNMENT_BYTES = 8;

export interface FixtureHeader {
  /** The padded JSON header (the N bytes after the length prefix). */
  readonly headerBytes: Uint8Array;
  /** Size of the data section the header describes, in bytes. */
  readonly dataBytes: number;
}

/** Byte size of one tensor's data. */
export function fixtureTensorBytes(tensor: FixtureTensor): number {
  const bits = FIXTURE_DTYPE_BITS[tensor.dtype];
  if (bits === undefined) throw new Error(`fixture: no bit size for dtype ${tensor.dtype}`);
  const elements = tensor.shape.reduce((product, dim) => product * dim, 1);
  return Math.ceil((elements * bits) / 8);
}

/** Builds the padded JSON header for `tensors`, laid out back to back in order. */
export function buildSafetensorsHeader(
  tensors: readonly FixtureTensor[],
  metadata?: Record<string, string>,
): FixtureHeader {
  const json: Record<string, unknown> = {};
  if (metadata !== undefined) json.__metadata__ = metadata;
  let offset = 0;
  for (const tensor of tensors) {
    const end = offset + fixtureTensorBytes(tensor);
    json[tensor.name] = { dtype: tensor.dtype, shape: tensor.shape, data_offsets: [offset, end] };
    offset = end;
  }
  return { headerBytes: padHeader(JSON.stringify(json)), dataBytes: offset };
}

/** Builds a complete safetensors file for `tensors` (data zero-filled). */
export function buildSafetensors(
  tensors: readonly FixtureTensor[],
  metadata?: Record<string, string>,
): Uint8Array {
  const { headerBytes, dataBytes } = buildSafetensorsHeader(tensors, metadata);
  return assembleSafetensors(headerBytes, dataBytes);
}

/** Builds a file from raw header text (for hostile headers); `declaredLength` overrides the u64 prefix. */
export function buildRawSafetensors(
  headerText: string,
  dataBytes: number,
  declaredLength?: bigint,
): Uint8Array {
  return assembleSafetensors(new TextEncoder().encode(headerText), dataBytes, declaredLength);
}

/** The 8-byte little-endian length prefix for `length`. */
export function lengthPrefix(length: bigint): Uint8Array {
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, length, true);
  return prefix;
}

function padHeader(text: string): Uint8Array {
  const raw = new TextEncoder().encode(text);
  const padded = Math.ceil((8 + raw.length) / DATA_ALIGNMENT_BYTES) * DATA_ALIGNMENT_BYTES - 8;
  const bytes = new Uint8Array(padded).fill(0x20);
  bytes.set(raw);
  return bytes;
}

function assembleSafetensors(
  headerBytes: Uint8Array,
  dataBytes: number,
  declaredLength?: bigint,
): Uint8Array {
  const file = new Uint8Array(8 + headerBytes.length + dataBytes);
  file.set(lengthPrefix(declaredLength ?? BigInt(headerBytes.length)), 0);
  file.set(headerBytes, 8);
  return file;
}

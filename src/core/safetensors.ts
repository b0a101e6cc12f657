/**
 * The safetensors header: the 8-byte length prefix and the JSON table of tensors that follows it.
 * Bytes in, data out; the weights themselves are never needed. Format: data/catalog/formats.md §1.
 */
import { HeadroomUserError } from './errors.js';
import { fileError } from './file-errors.js';
import { depthOf } from './input-shape.js';

/**
 * The runtime's WHATWG TextDecoder (Node and browsers). Declared here because the core compiles
 * without the DOM or Node type libraries.
 */
declare const TextDecoder: new (
  label: string,
  options: { fatal: boolean },
) => { decode(input: Uint8Array): string };

/** Largest header accepted, in bytes. Source: huggingface/safetensors `MAX_HEADER_SIZE` (tensor.rs). */
export const MAX_SAFETENSORS_HEADER_BYTES = 100_000_000;

/** Bytes of the little-endian u64 header length at the start of every safetensors file. */
export const SAFETENSORS_LENGTH_PREFIX_BYTES = 8;

/**
 * Bits per element of each dtype. Source: huggingface/safetensors `Dtype::bitsize` (tensor.rs, 24b0b285).
 * Dtypes not listed here are accepted without a byte-size check (older and newer writers differ).
 */
const DTYPE_BITS = {
  BOOL: 8,
  U8: 8,
  I8: 8,
  F8_E5M2: 8,
  F8_E4M3: 8,
  F8_E8M0: 8,
  F8_E4M3FNUZ: 8,
  F8_E5M2FNUZ: 8,
  I16: 16,
  U16: 16,
  F16: 16,
  BF16: 16,
  I32: 32,
  U32: 32,
  F32: 32,
  I64: 64,
  U64: 64,
  F64: 64,
  C64: 64,
  F4: 4,
  F6_E2M3: 6,
  F6_E3M2: 6,
} as const satisfies Record<string, number>;

/**
 * Buffers some checkpoints store beside the weights. They are not trained parameters, so they are
 * left out of the parameter count (their bytes still count in `tensorBytes`).
 */
const NON_PARAMETER_BUFFER_SUFFIXES = [
  // Rotary-embedding inverse frequencies, recomputed at load. Llama-2-7b-hf stores 32 fp32
  // `model.layers.N.self_attn.rotary_emb.inv_freq` tensors of 64 elements (formats.md §1).
  'inv_freq',
  // GPT-2-style attention's constant masking value (a scalar, -1e4) saved by older transformers.
  '.masked_bias',
  // GPT-2's causal-mask buffer `h.N.attn.bias`, shape [1, 1, n_positions, n_positions]. The real
  // attention bias is `h.N.attn.c_attn.bias`, which this suffix does not match.
  '.attn.bias',
] as const;

/** Tensor-name endings that quantized checkpoints (bitsandbytes, GPTQ/AWQ, FP8, compressed-tensors) add. */
const QUANTIZED_NAME_SUFFIXES = [
  '.absmax',
  '.qweight',
  '.qzeros',
  '.scales',
  '.g_idx',
  'weight_scale',
  'weight_scale_inv',
  '.weight_packed',
  // bitsandbytes LLM.int8 row scales.
  '.SCB',
] as const;

/** Appears inside bitsandbytes state names, e.g. `...weight.quant_state.bitsandbytes__nf4`. */
const QUANT_STATE_MARKER = '.quant_state';

/** Integer dtypes that quantizers pack several low-bit weights into (GPTQ/AWQ I32, MLX U32, bnb/MXFP4 U8). */
const PACKED_WEIGHT_DTYPES: ReadonlySet<string> = new Set(['I32', 'U32', 'U8']);

/** The header key holding free-form string metadata rather than a tensor. */
const METADATA_KEY = '__metadata__';

/** "version " in ASCII: how a Git LFS pointer file (left where a weight file should be) begins. */
const GIT_LFS_POINTER_START = [0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x20] as const;

/** Longest JSON value quoted back in an error message, in characters. */
const MAX_QUOTED_CHARS = 120;

/** How deep a header may nest: a real one is three levels (tensor, entry, shape). */
const MAX_HEADER_DEPTH = 8;

/** 0x7B, `{`: the first header byte the reference parser requires. */
const OPEN_BRACE = 0x7b;

export interface SafetensorsTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: number[];
  /** Offset of the first byte, counted from the start of the data section (after the header). */
  readonly beginByte: number;
  /** One past the last byte, counted from the start of the data section. */
  readonly endByte: number;
}

export interface SafetensorsHeader {
  readonly tensors: SafetensorsTensor[];
  readonly metadata: Record<string, string>;
}

export interface SafetensorsParameterCount {
  /** Elements of every tensor except non-parameter buffers (packed quantized tensors count as stored). */
  readonly parameters: number;
  /** Elements of the excluded buffers (`inv_freq`, `.masked_bias`, `.attn.bias`). */
  readonly bufferElements: number;
  /** Bytes of all tensor data, buffers included; equals an index's `metadata.total_size`. */
  readonly tensorBytes: number;
  /** Parameters per dtype, e.g. `{ BF16: 8030261248 }`. */
  readonly byDtype: Record<string, number>;
  /** True when tensor names or packed integer dtypes suggest a quantized checkpoint. */
  readonly quantizedHint: boolean;
}

const NOT_SAFETENSORS_HINT =
  'check that the file is a complete safetensors file (re-download it if it was cut short or is a Git LFS pointer)';

function badFile(fileName: string, problem: string, hint = NOT_SAFETENSORS_HINT): HeadroomUserError {
  return new HeadroomUserError({
    code: 'bad-file',
    where: fileName,
    message: `${fileName}: ${problem}`,
    hint,
  });
}

/** Formats a byte count with decimal units, e.g. 9_200_000_000 → "9.2 GB" (the words of its errors use it). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

/** Reads the header length N, in bytes, from the first 8 bytes of a safetensors file of `fileSizeBytes`. */
export function readSafetensorsHeaderLength(
  first8: Uint8Array,
  fileName: string,
  fileSizeBytes?: number,
): number {
  if (first8.length < SAFETENSORS_LENGTH_PREFIX_BYTES) {
    throw fileError('safetensors-too-short', { file: fileName, bytes: first8.length }, fileName);
  }
  if (GIT_LFS_POINTER_START.every((byte, i) => first8[i] === byte)) {
    throw fileError('safetensors-lfs-pointer', { file: fileName }, fileName);
  }
  const view = new DataView(first8.buffer, first8.byteOffset, SAFETENSORS_LENGTH_PREFIX_BYTES);
  const length = view.getBigUint64(0, true);
  if (length === 0n) {
    throw fileError('safetensors-empty-header', { file: fileName }, fileName);
  }
  if (length > BigInt(MAX_SAFETENSORS_HEADER_BYTES)) {
    throw fileError(
      'safetensors-header-too-large',
      { file: fileName, headerBytes: Number(length), maxBytes: MAX_SAFETENSORS_HEADER_BYTES },
      fileName,
    );
  }
  const headerBytes = Number(length);
  if (fileSizeBytes !== undefined && headerBytes > fileSizeBytes - SAFETENSORS_LENGTH_PREFIX_BYTES) {
    throw fileError(
      'safetensors-header-past-end',
      { file: fileName, headerBytes, fileBytes: fileSizeBytes },
      fileName,
    );
  }
  return headerBytes;
}

/** Parses the N header bytes (after the 8-byte length) of a safetensors file of `fileSizeBytes`. */
export function parseSafetensorsHeader(
  headerBytes: Uint8Array,
  fileName: string,
  fileSizeBytes?: number,
): SafetensorsHeader {
  if (headerBytes[0] !== OPEN_BRACE) {
    throw fileError('safetensors-no-brace', { file: fileName }, fileName);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
  } catch {
    throw fileError('safetensors-not-utf8', { file: fileName }, fileName);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : '';
    throw fileError('safetensors-not-json', { file: fileName, detail }, fileName);
  }
  const dataSectionBytes =
    fileSizeBytes === undefined
      ? undefined
      : fileSizeBytes - SAFETENSORS_LENGTH_PREFIX_BYTES - headerBytes.length;
  return safetensorsHeaderFromJson(json, fileName, dataSectionBytes);
}

/**
 * Validates an already-parsed header object (as the Hub client returns it); `dataSectionBytes` is
 * the size of the data after the header, in bytes, when known.
 */
export function safetensorsHeaderFromJson(
  json: unknown,
  fileName: string,
  dataSectionBytes?: number,
): SafetensorsHeader {
  if (!isPlainObject(json)) {
    throw badFile(fileName, `header is JSON ${describeJson(json)}, not an object of tensors`);
  }
  // A real header nests three deep (tensor, entry, shape); nothing here recurses on the input's depth.
  if (depthOf(json, MAX_HEADER_DEPTH) > MAX_HEADER_DEPTH) {
    throw badFile(fileName, `header nests deeper than ${MAX_HEADER_DEPTH} levels — the file is corrupt`);
  }
  let metadata: Record<string, string> = {};
  const tensors: SafetensorsTensor[] = [];
  for (const [name, entry] of Object.entries(json)) {
    if (name === METADATA_KEY) {
      metadata = parseMetadata(entry, fileName);
    } else {
      tensors.push(parseTensorEntry(name, entry, fileName));
    }
  }
  checkOffsets(tensors, fileName, dataSectionBytes);
  return { tensors, metadata };
}

function parseMetadata(value: unknown, fileName: string): Record<string, string> {
  // The reference parser reads `__metadata__` as Option<HashMap<String, String>>, so null means none.
  if (value === null) {
    return {};
  }
  if (!isPlainObject(value)) {
    throw badFile(fileName, `__metadata__ is ${describeJson(value)}; it must map strings to strings`);
  }
  const metadata: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') {
      throw badFile(
        fileName,
        `__metadata__[${quoteJson(key)}] is ${describeJson(item)}; metadata values must be strings`,
      );
    }
    metadata[key] = item;
  }
  return metadata;
}

function parseTensorEntry(name: string, entry: unknown, fileName: string): SafetensorsTensor {
  if (!isPlainObject(entry)) {
    throw badFile(fileName, `tensor ${quoteJson(name)} is ${describeJson(entry)}, not an object`);
  }
  const { dtype, shape, data_offsets: offsets } = entry;
  if (typeof dtype !== 'string') {
    throw badFile(fileName, `tensor ${quoteJson(name)} has no string dtype`);
  }
  if (!Array.isArray(shape) || !shape.every(isNonNegativeSafeInteger)) {
    throw badFile(
      fileName,
      `tensor ${quoteJson(name)} has shape ${quoteJson(shape)}; expected non-negative integers`,
    );
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isNonNegativeSafeInteger)) {
    throw badFile(
      fileName,
      `tensor ${quoteJson(name)} has data_offsets ${quoteJson(offsets)}; expected [begin, end] byte offsets`,
    );
  }
  const [beginByte, endByte] = offsets as [number, number];
  if (beginByte > endByte) {
    throw badFile(
      fileName,
      `tensor ${quoteJson(name)} has data_offsets [${beginByte}, ${endByte}] with begin after end`,
    );
  }
  const elements = elementCount(shape as number[]);
  if (!Number.isSafeInteger(elements)) {
    throw badFile(fileName, `tensor ${quoteJson(name)} has shape ${quoteJson(shape)} with too many elements`);
  }
  const bits: number | undefined = Object.hasOwn(DTYPE_BITS, dtype)
    ? (DTYPE_BITS as Record<string, number>)[dtype]
    : undefined;
  if (bits !== undefined) {
    const totalBits = BigInt(elements) * BigInt(bits);
    const actualBytes = BigInt(endByte - beginByte);
    if (totalBits % 8n !== 0n || totalBits / 8n !== actualBytes) {
      throw badFile(
        fileName,
        `tensor ${quoteJson(name)} (${dtype} ${quoteJson(shape)}) spans ${actualBytes} bytes but needs ${Number(totalBits) / 8}`,
      );
    }
  }
  return { name, dtype, shape: shape as number[], beginByte, endByte };
}

function checkOffsets(
  tensors: readonly SafetensorsTensor[],
  fileName: string,
  dataSectionBytes?: number,
): void {
  const byBegin = [...tensors].sort((a, b) => a.beginByte - b.beginByte || a.endByte - b.endByte);
  let previous: SafetensorsTensor | undefined;
  for (const tensor of byBegin) {
    if (previous !== undefined && tensor.beginByte < previous.endByte) {
      throw badFile(
        fileName,
        `tensors ${quoteJson(previous.name)} [${previous.beginByte}, ${previous.endByte}] and ${quoteJson(tensor.name)} [${tensor.beginByte}, ${tensor.endByte}] overlap`,
      );
    }
    if (dataSectionBytes !== undefined && tensor.endByte > dataSectionBytes) {
      throw badFile(
        fileName,
        `tensor ${quoteJson(tensor.name)} ends at byte ${tensor.endByte} of the data section, past its end (${dataSectionBytes} bytes) — the file is truncated or corrupt`,
      );
    }
    previous = tensor;
  }
}

/** Counts parameters (elements, excluding non-parameter buffers) and tensor bytes over one or more headers. */
export function countSafetensorsParameters(headers: readonly SafetensorsHeader[]): SafetensorsParameterCount {
  let parameters = 0;
  let bufferElements = 0;
  let tensorBytes = 0;
  let quantizedHint = false;
  const byDtype: Record<string, number> = {};
  for (const header of headers) {
    for (const tensor of header.tensors) {
      const elements = elementCount(tensor.shape);
      tensorBytes += tensor.endByte - tensor.beginByte;
      if (isNonParameterBuffer(tensor.name)) {
        bufferElements += elements;
        continue;
      }
      parameters += elements;
      byDtype[tensor.dtype] = (byDtype[tensor.dtype] ?? 0) + elements;
      quantizedHint ||= looksQuantized(tensor);
    }
  }
  return { parameters, bufferElements, tensorBytes, byDtype, quantizedHint };
}

function isNonParameterBuffer(name: string): boolean {
  return NON_PARAMETER_BUFFER_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

function looksQuantized(tensor: SafetensorsTensor): boolean {
  return (
    QUANTIZED_NAME_SUFFIXES.some((suffix) => tensor.name.endsWith(suffix)) ||
    tensor.name.includes(QUANT_STATE_MARKER) ||
    PACKED_WEIGHT_DTYPES.has(tensor.dtype)
  );
}

function elementCount(shape: readonly number[]): number {
  return shape.reduce((product, dim) => product * dim, 1);
}

function isNonNegativeSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${quoteJson(value)})`;
}

/** JSON text of `value`, cut to MAX_QUOTED_CHARS for error messages. */
function quoteJson(value: unknown): string {
  // JSON.stringify recurses: a list nested a million deep would overflow the stack.
  if (value !== null && typeof value === 'object' && depthOf(value, 4) > 4)
    return Array.isArray(value) ? '[[[…]]]' : '{{{…}}}';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
}

/**
 * `model.safetensors.index.json`: which shard file holds each tensor of a sharded checkpoint.
 * Text in, data out. Format: data/catalog/formats.md §2.
 */
import type { HeadroomUserError } from './errors.js';
import { type FileErrorParams, fileError, type IndexErrorParams, type UnsafeShard } from './file-errors.js';

/** Most distinct shard files accepted. Source: huggingface.js `MAX_SHARD_COUNT` (parse-safetensors-metadata.ts). */
export const MAX_SAFETENSORS_SHARD_FILES = 10_000;

/** Longest shard file name echoed back in an error message, in characters. */
const MAX_QUOTED_CHARS = 80;

export interface SafetensorsIndex {
  /** `metadata.total_size`: bytes of tensor data over all shards (not a parameter count); null when absent. */
  readonly totalSizeBytes: number | null;
  /** Distinct shard file names, in first-seen order. */
  readonly shardFiles: string[];
  /** Tensor name → shard file name. */
  readonly weightMap: Record<string, string>;
}

type IndexReason = keyof IndexErrorParams;

/** An index error; its words are in src/words/model-errors.ts. */
function badIndex<R extends IndexReason>(
  fileName: string,
  reason: R,
  extra: Omit<IndexErrorParams[R], 'file'>,
): HeadroomUserError {
  return fileError(reason, { file: fileName, ...extra } as unknown as FileErrorParams[R], fileName);
}

/** Parses the text of a `model.safetensors.index.json` (sizes in bytes). */
export function parseSafetensorsIndex(text: string, fileName: string): SafetensorsIndex {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badIndex(fileName, 'index-not-json', { detail: error instanceof Error ? error.message : '' });
  }
  if (!isPlainObject(json)) {
    throw badIndex(fileName, 'index-not-object', {});
  }
  const totalSizeBytes = parseTotalSize(json.metadata, fileName);
  const weightMapJson = json.weight_map;
  if (!isPlainObject(weightMapJson)) {
    throw badIndex(fileName, 'index-no-weight-map', {});
  }
  const weightMap: Record<string, string> = {};
  const shardFiles = new Set<string>();
  for (const [tensorName, shard] of Object.entries(weightMapJson)) {
    if (typeof shard !== 'string') {
      throw badIndex(fileName, 'index-shard-not-string', { tensor: quote(tensorName) });
    }
    if (!shardFiles.has(shard)) {
      checkShardFileName(shard, fileName);
      shardFiles.add(shard);
      if (shardFiles.size > MAX_SAFETENSORS_SHARD_FILES) {
        throw badIndex(fileName, 'index-too-many-shards', { max: MAX_SAFETENSORS_SHARD_FILES });
      }
    }
    weightMap[tensorName] = shard;
  }
  if (shardFiles.size === 0) {
    throw badIndex(fileName, 'index-empty', {});
  }
  return { totalSizeBytes, shardFiles: [...shardFiles], weightMap };
}

function parseTotalSize(metadata: unknown, fileName: string): number | null {
  if (metadata === undefined || metadata === null) {
    return null;
  }
  if (!isPlainObject(metadata)) {
    throw badIndex(fileName, 'index-metadata-not-object', {});
  }
  const total = metadata.total_size;
  if (total === undefined || total === null) {
    return null;
  }
  // Writers store an integer; a digit string is accepted too, as the Hub client accepts one.
  const bytes = typeof total === 'string' && /^\d+$/.test(total) ? Number(total) : total;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
    throw badIndex(fileName, 'index-total-size', { value: quote(JSON.stringify(total)) });
  }
  return bytes;
}

/**
 * A shard must be a plain file name beside the index: no directories, no `..`, nothing a path or
 * URL join could turn into another location.
 */
function checkShardFileName(shard: string, fileName: string): void {
  const unsafe = (why: UnsafeShard): HeadroomUserError =>
    badIndex(fileName, 'index-unsafe-shard', { shard: quote(shard), why });
  if (shard === '') throw unsafe('empty');
  if (shard.includes('/') || shard.includes('\\')) throw unsafe('separator');
  if (shard.includes('..')) throw unsafe('dot-dot');
  if (shard.includes(':')) throw unsafe('colon');
  for (const char of shard) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x1f || code === 0x7f) throw unsafe('control');
  }
  if (!shard.endsWith('.safetensors')) throw unsafe('suffix');
}

function quote(text: string): string {
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `model.safetensors.index.json`: which shard file holds each tensor of a sharded checkpoint.
 * Text in, data out. Format: data/catalog/formats.md §2.
 */
import { HeadroomUserError } from './errors.js';

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

const INDEX_HINT =
  'check that the index file is complete and belongs to a safetensors checkpoint (re-download it if needed)';

function badIndex(fileName: string, problem: string): HeadroomUserError {
  return new HeadroomUserError({
    code: 'bad-file',
    where: fileName,
    message: `${fileName}: ${problem}`,
    hint: INDEX_HINT,
  });
}

/** Parses the text of a `model.safetensors.index.json` (sizes in bytes). */
export function parseSafetensorsIndex(text: string, fileName: string): SafetensorsIndex {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? ` (${error.message})` : '';
    throw badIndex(fileName, `not valid JSON${detail}`);
  }
  if (!isPlainObject(json)) {
    throw badIndex(fileName, 'must be a JSON object with a "weight_map"');
  }
  const totalSizeBytes = parseTotalSize(json.metadata, fileName);
  const weightMapJson = json.weight_map;
  if (!isPlainObject(weightMapJson)) {
    throw badIndex(fileName, '"weight_map" is missing or not an object of tensor name → shard file');
  }
  const weightMap: Record<string, string> = {};
  const shardFiles = new Set<string>();
  for (const [tensorName, shard] of Object.entries(weightMapJson)) {
    if (typeof shard !== 'string') {
      throw badIndex(fileName, `weight_map[${JSON.stringify(quote(tensorName))}] is not a file name string`);
    }
    if (!shardFiles.has(shard)) {
      checkShardFileName(shard, fileName);
      shardFiles.add(shard);
      if (shardFiles.size > MAX_SAFETENSORS_SHARD_FILES) {
        throw badIndex(fileName, `names more than ${MAX_SAFETENSORS_SHARD_FILES} shard files`);
      }
    }
    weightMap[tensorName] = shard;
  }
  if (shardFiles.size === 0) {
    throw badIndex(fileName, '"weight_map" is empty');
  }
  return { totalSizeBytes, shardFiles: [...shardFiles], weightMap };
}

function parseTotalSize(metadata: unknown, fileName: string): number | null {
  if (metadata === undefined || metadata === null) {
    return null;
  }
  if (!isPlainObject(metadata)) {
    throw badIndex(fileName, '"metadata" is not an object');
  }
  const total = metadata.total_size;
  if (total === undefined || total === null) {
    return null;
  }
  // Writers store an integer; a digit string is accepted too, as the Hub client accepts one.
  const bytes = typeof total === 'string' && /^\d+$/.test(total) ? Number(total) : total;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
    throw badIndex(fileName, `metadata.total_size is ${quote(JSON.stringify(total))}, not a byte count`);
  }
  return bytes;
}

/**
 * A shard must be a plain file name beside the index: no directories, no `..`, nothing a path or
 * URL join could turn into another location.
 */
function checkShardFileName(shard: string, fileName: string): void {
  const unsafe = (why: string): HeadroomUserError =>
    badIndex(
      fileName,
      `shard file name ${JSON.stringify(quote(shard))} ${why}; shard names must be plain file names`,
    );
  if (shard === '') throw unsafe('is empty');
  if (shard.includes('/') || shard.includes('\\')) throw unsafe('contains a path separator');
  if (shard.includes('..')) throw unsafe("contains '..'");
  if (shard.includes(':')) throw unsafe("contains ':'");
  for (const char of shard) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x1f || code === 0x7f) throw unsafe('contains a control character');
  }
  if (!shard.endsWith('.safetensors')) throw unsafe('does not end in .safetensors');
}

function quote(text: string): string {
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

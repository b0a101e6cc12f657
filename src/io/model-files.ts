/**
 * Reads a model's config.json and parameter count from local files: a config.json path, or a
 * model folder whose safetensors headers are read (only the first 8+N bytes of each file).
 */
import type { Stats } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import {
  countSafetensorsParameters,
  parseSafetensorsHeader,
  readSafetensorsHeaderLength,
  SAFETENSORS_LENGTH_PREFIX_BYTES,
  type SafetensorsHeader,
} from '../core/safetensors.js';
import { parseSafetensorsIndex } from '../core/safetensors-index.js';

/** What Headroom knows about a model from its files, without reading any weights. */
export interface ModelFiles {
  readonly source: 'folder' | 'hub' | 'config-file';
  /** The folder, config.json path or Hub repo id (with `@revision` when one was asked for). */
  readonly ref: string;
  /** The parsed config.json. */
  readonly config: Record<string, unknown>;
  /** Parameters counted from safetensors headers; null when no headers were read. */
  readonly parameterCount: number | null;
  /** Bytes of tensor data in the safetensors files; null when no headers were read. */
  readonly tensorBytes: number | null;
  /** True when config.json has a quantization config or the tensors look packed/quantized. */
  readonly quantizedHint: boolean;
  /** Plain-language notes on where the numbers came from. */
  readonly notes: string[];
}

/** Largest config.json read, in bytes. Source: huggingface.js `MAX_CONFIG_LENGTH` (parse-safetensors-metadata.ts). */
export const MAX_CONFIG_BYTES = 10_000_000;

/** Largest index file read, in bytes. Source: huggingface.js `MAX_INDEX_BYTES` (parse-safetensors-index.ts). */
const MAX_INDEX_BYTES = 250_000_000;

const CONFIG_FILE = 'config.json';
const INDEX_FILE = 'model.safetensors.index.json';
const SAFETENSORS_SUFFIX = '.safetensors';

/** Reads a config.json file; the parameter count is left to the estimator (null here). */
export async function readConfigFile(path: string): Promise<ModelFiles> {
  const info = await statOrThrow(path, 'file');
  if (info.isDirectory()) {
    throw fileError('model-config-is-folder', { path }, path);
  }
  if (!info.isFile()) throw notAFile(path, info, 'config');
  const config = parseConfigJson(await readTextFile(path, info, MAX_CONFIG_BYTES), path);
  return buildModelFiles({ source: 'config-file', ref: path, config, headers: null, notes: [] });
}

/** Reads config.json and every safetensors header (first 8+N bytes per file) in a model folder. */
export async function readModelFolder(dir: string): Promise<ModelFiles> {
  const info = await statOrThrow(dir, 'folder');
  if (!info.isDirectory()) {
    throw fileError('model-not-a-folder', { path: dir }, dir);
  }
  const configPath = join(dir, CONFIG_FILE);
  const configInfo = await statIfExists(configPath);
  if (configInfo !== null && !configInfo.isFile() && !configInfo.isDirectory())
    throw notAFile(configPath, configInfo, 'config');
  if (configInfo === null || !configInfo.isFile()) {
    throw fileError('model-no-config', { folder: dir }, configPath);
  }
  const config = parseConfigJson(await readTextFile(configPath, configInfo, MAX_CONFIG_BYTES), configPath);

  const notes: string[] = [];
  const indexPath = join(dir, INDEX_FILE);
  const indexInfo = await statIfExists(indexPath);
  let shardFiles: string[];
  if (indexInfo?.isFile()) {
    const index = parseSafetensorsIndex(await readTextFile(indexPath, indexInfo, MAX_INDEX_BYTES), indexPath);
    shardFiles = index.shardFiles;
    notes.push(
      `parameters counted from the headers of ${shardFiles.length} shard(s) listed in ${INDEX_FILE}`,
    );
  } else {
    const entries = await readdir(dir, { withFileTypes: true });
    // Every entry named *.safetensors is a shard: a Hugging Face cache snapshot holds symbolic links
    // into ../../blobs/, which are followed; what a name points at is checked when the shard is read
    // (a file, not a folder, a named pipe or a link that loops).
    shardFiles = entries
      .filter((entry) => entry.name.endsWith(SAFETENSORS_SUFFIX))
      .map((entry) => entry.name)
      .sort();
    if (shardFiles.length > 0) {
      notes.push(`parameters counted from the headers of ${shardFiles.join(', ')}`);
    }
  }
  if (shardFiles.length === 0) {
    notes.push('no safetensors files in the folder: the parameter count comes from config.json');
    return buildModelFiles({ source: 'folder', ref: dir, config, headers: null, notes });
  }
  const headers: SafetensorsHeader[] = [];
  for (const shard of shardFiles) {
    headers.push(await readSafetensorsHeaderFile(join(dir, shard), indexInfo ? INDEX_FILE : undefined));
  }
  return buildModelFiles({ source: 'folder', ref: dir, config, headers, notes });
}

/**
 * @internal Shared by the folder and Hub readers: counts parameters over `headers` (null when none
 * were read) and adds notes on excluded buffers and quantization.
 */
export function buildModelFiles(init: {
  source: ModelFiles['source'];
  ref: string;
  config: Record<string, unknown>;
  headers: readonly SafetensorsHeader[] | null;
  notes: readonly string[];
}): ModelFiles {
  const configQuantized = isPlainObject(init.config.quantization_config);
  const notes = [...init.notes];
  if (init.headers === null) {
    return {
      source: init.source,
      ref: init.ref,
      config: init.config,
      parameterCount: null,
      tensorBytes: null,
      quantizedHint: configQuantized,
      notes,
    };
  }
  const count = countSafetensorsParameters(init.headers);
  if (count.bufferElements > 0) {
    notes.push(
      `left out ${count.bufferElements} elements of non-parameter buffers (rotary inv_freq, attention masks)`,
    );
  }
  if (count.quantizedHint || configQuantized) {
    notes.push(
      'the checkpoint looks quantized: packed tensors hold several weights per stored element, so the count is of stored elements, not logical parameters',
    );
  }
  return {
    source: init.source,
    ref: init.ref,
    config: init.config,
    parameterCount: count.parameters,
    tensorBytes: count.tensorBytes,
    quantizedHint: count.quantizedHint || configQuantized,
    notes,
  };
}

/** @internal Parses config.json text; `where` names the file or URL in errors. */
export function parseConfigJson(text: string, where: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : '';
    throw fileError('model-config-not-json', { file: where, detail }, where);
  }
  if (!isPlainObject(json)) {
    throw fileError('model-config-not-object', { file: where }, where);
  }
  return json;
}

/** Reads only the length prefix and the header of one safetensors file, never its weights. */
async function readSafetensorsHeaderFile(
  path: string,
  listedIn: string | undefined,
): Promise<SafetensorsHeader> {
  // Checked before it is opened: opening a named pipe blocks until a writer comes.
  const info = await statIfExists(path);
  if (info !== null && !info.isFile()) throw notAFile(path, info, 'safetensors');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw fileError('model-shard-missing', { path, listedIn: listedIn ?? '' }, path);
    }
    throw cannotRead(path, error);
  }
  try {
    const fileSizeBytes = (await handle.stat()).size;
    const prefix = new Uint8Array(SAFETENSORS_LENGTH_PREFIX_BYTES);
    const { bytesRead } = await handle.read(prefix, 0, prefix.length, 0);
    const headerLength = readSafetensorsHeaderLength(prefix.subarray(0, bytesRead), path, fileSizeBytes);
    const header = new Uint8Array(headerLength);
    const headerRead = await handle.read(header, 0, headerLength, SAFETENSORS_LENGTH_PREFIX_BYTES);
    return parseSafetensorsHeader(header.subarray(0, headerRead.bytesRead), path, fileSizeBytes);
  } finally {
    await handle.close();
  }
}

async function statOrThrow(path: string, kind: 'file' | 'folder'): Promise<Stats> {
  const info = await statIfExists(path);
  if (info === null) {
    throw fileError('model-path-missing', { path, expected: kind }, path);
  }
  return info;
}

async function statIfExists(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    if (errorCode(error) === 'ELOOP') {
      throw fileError('model-link-loop', { path, problem: 'link-loop' }, path);
    }
    throw cannotRead(path, error);
  }
}

/** A path that is there but is not a regular file: a folder, a named pipe, a socket or a device. */
function notAFile(path: string, info: Stats, expected: 'config' | 'safetensors'): HeadroomUserError {
  const found = info.isDirectory()
    ? 'folder'
    : info.isFIFO()
      ? 'fifo'
      : info.isSocket()
        ? 'socket'
        : 'device';
  const problem = info.isDirectory() ? 'is-folder' : 'special-file';
  return fileError('model-not-a-file', { path, problem, found, expected }, path);
}

async function readTextFile(path: string, info: Stats, maxBytes: number): Promise<string> {
  if (info.size > maxBytes) {
    throw fileError('model-file-too-large', { path, bytes: info.size, maxBytes }, path);
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw cannotRead(path, error);
  }
}

/** A read failure (permissions, I/O) as a user error naming the path; anything else stays a bug. */
function cannotRead(path: string, error: unknown): unknown {
  const code = errorCode(error);
  if (code === undefined) return error;
  return fileError('model-unreadable', { path, errno: code }, path);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

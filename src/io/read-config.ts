/**
 * Reads a trainer config file (YAML or JSON), finds the DeepSpeed file it references, and imports it as
 * scenario fields. A referenced path is looked for beside the config, then in each folder above it
 * (LLaMA-Factory and Axolotl write paths from their repository root, e.g. examples/deepspeed/ds_z3_config.json),
 * then in the working directory.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { fileError } from '../core/file-errors.js';
import { deepspeedReference, detectConfigFormat, importConfig } from '../core/import/import-config.js';
import type { ImportReport } from '../core/import/import-report.js';
import { depthOf, MAX_INPUT_DEPTH, tooDeep, yamlNestsTooDeep } from '../core/input-shape.js';
import { readUserFile, type UserFileKind } from './user-file.js';

/** Trainer configs are kilobytes; anything larger is not one (and is not parsed). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/**
 * YAML is read with the `yaml` package, linear but about 10 µs a byte on nested mappings: a YAML config
 * is refused above 256 KiB (the real ones in data/fixtures/configs are under 6 KB), so reading one takes
 * at most a few seconds. JSON keeps MAX_CONFIG_BYTES.
 */
export const MAX_YAML_CONFIG_BYTES = 256 * 1024;

const isJsonName = (fileName: string): boolean => fileName.toLowerCase().endsWith('.json');

/** Parses config text as JSON (.json) or YAML (anything else; YAML 1.2 reads JSON too). */
export function parseConfigText(text: string, fileName: string): unknown {
  const value = parseText(text, fileName);
  if (depthOf(value) > MAX_INPUT_DEPTH) throw tooDeep(fileName, 'trainer-config');
  return value;
}

function parseText(text: string, fileName: string): unknown {
  if (isJsonName(fileName)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw fileError('config-not-json', { file: fileName, detail: (error as Error).message }, fileName);
    }
  }
  if (text.length > MAX_YAML_CONFIG_BYTES) {
    throw fileError(
      'config-yaml-too-large',
      { path: fileName, problem: 'too-large', bytes: text.length, maxBytes: MAX_YAML_CONFIG_BYTES },
      fileName,
    );
  }
  if (yamlNestsTooDeep(text)) throw tooDeep(fileName, 'trainer-config');
  try {
    // maxAliasCount guards against alias bombs (billion laughs; the yaml default is 100). uniqueKeys
    // off: the package checks each key against every earlier one, quadratic on a large mapping, and
    // PyYAML, which the trainers read their configs with, keeps the last of duplicate keys too.
    return parseYaml(text, { maxAliasCount: 100, uniqueKeys: false, logLevel: 'error' }) as unknown;
  } catch (error) {
    const line = error instanceof YAMLParseError && error.linePos ? error.linePos[0].line : 0;
    const detail = (error as Error).message.split('\n')[0] ?? '';
    throw fileError(
      'config-not-yaml',
      { file: fileName, line, detail },
      line > 0 ? `${fileName}:${line}` : fileName,
    );
  }
}

/** A trainer config, for the messages about the file itself. */
const TRAINER_CONFIG: UserFileKind = {
  role: 'trainer-config',
  advice: 'trainer-config',
  example: 'config.yaml',
  extensions: ['.yaml', '.yml', '.json'],
};

async function readText(path: string, role: 'trainer-config' | 'deepspeed-config'): Promise<string> {
  const maxBytes = isJsonName(path) ? MAX_CONFIG_BYTES : MAX_YAML_CONFIG_BYTES;
  return readUserFile(path, { ...TRAINER_CONFIG, role }, { maxBytes });
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Where a referenced path may be: beside the config, in each folder above it, in the working directory. */
export function deepspeedCandidates(reference: string, configPath: string, cwd: string): string[] {
  if (isAbsolute(reference)) return [reference];
  const out: string[] = [];
  let folder = resolve(dirname(configPath));
  for (;;) {
    out.push(join(folder, reference));
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  out.push(resolve(cwd, reference));
  return [...new Set(out)];
}

export interface ReadConfigResult {
  readonly report: ImportReport;
  /** The DeepSpeed file read for it, when the config referenced one and it was found. */
  readonly deepspeedPath: string | null;
}

/** Reads, detects and imports a trainer config; user errors name the file and what to do. */
export async function readTrainerConfig(
  path: string,
  cwd: string = process.cwd(),
): Promise<ReadConfigResult> {
  const text = await readText(path, 'trainer-config');
  const fileName = basename(path);
  const config = parseConfigText(text, fileName);
  const format =
    config !== null && typeof config === 'object' && !Array.isArray(config)
      ? detectConfigFormat(config as Record<string, unknown>)
      : null;
  const reference = format ? deepspeedReference(config as Record<string, unknown>, format) : null;
  let deepspeed: Parameters<typeof importConfig>[0]['deepspeed'] = null;
  let deepspeedPath: string | null = null;
  if (reference) {
    const candidates = deepspeedCandidates(reference, path, cwd);
    for (const candidate of candidates) {
      if (!(await isFile(candidate))) continue;
      const dsText = await readText(candidate, 'deepspeed-config');
      const parsed = parseConfigText(dsText, basename(candidate));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) continue;
      deepspeed = { path: reference, config: parsed as Record<string, unknown> };
      deepspeedPath = candidate;
      break;
    }
    if (!deepspeed) deepspeed = { path: reference, searched: candidates };
  }
  const report = importConfig({ config, text, fileName, ...(format ? { format } : {}), deepspeed });
  return { report, deepspeedPath };
}

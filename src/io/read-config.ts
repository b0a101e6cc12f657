/**
 * Reads a trainer config file (YAML or JSON), finds the DeepSpeed file it references, and imports it as
 * scenario fields. A referenced path is looked for beside the config, then in each folder above it
 * (LLaMA-Factory and Axolotl write paths from their repository root, e.g. examples/deepspeed/ds_z3_config.json),
 * then in the working directory.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { HeadroomUserError } from '../core/errors.js';
import { deepspeedReference, detectConfigFormat, importConfig } from '../core/import/import-config.js';
import type { ImportReport } from '../core/import/import-report.js';
import { readUserFile, type UserFileKind } from './user-file.js';

/** Trainer configs are kilobytes; anything larger is not one (and is not parsed). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Parses config text as JSON (.json) or YAML (anything else; YAML 1.2 reads JSON too). */
export function parseConfigText(text: string, fileName: string): unknown {
  if (fileName.toLowerCase().endsWith('.json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new HeadroomUserError({
        code: 'bad-file',
        where: fileName,
        message: `${fileName}: not valid JSON (${(error as Error).message})`,
        hint: 'fix the JSON, or check that this is the config you meant',
      });
    }
  }
  try {
    // maxAliasCount guards against alias bombs (the yaml default is 100).
    return parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? `:${error.linePos[0].line}` : '';
    throw new HeadroomUserError({
      code: 'bad-file',
      where: `${fileName}${where}`,
      message: `${fileName}${where}: not valid YAML (${(error as Error).message.split('\n')[0]})`,
      hint: 'fix the YAML, or check that this is the config you meant',
    });
  }
}

/** A trainer config, for the messages about the file itself. */
const TRAINER_CONFIG: UserFileKind = {
  what: 'trainer config',
  example: 'config.yaml',
  extensions: ['.yaml', '.yml', '.json'],
  hint: 'check the path: a trainer config in YAML or JSON (LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed)',
};

async function readText(path: string, what: string): Promise<string> {
  return readUserFile(path, { ...TRAINER_CONFIG, what }, { maxBytes: MAX_CONFIG_BYTES });
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
  const text = await readText(path, 'trainer config');
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
      const dsText = await readText(candidate, 'DeepSpeed config');
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

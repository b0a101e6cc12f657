/**
 * Reads a scenario file: one JSON object, or JSON Lines of many. Each line is kept with its number
 * so a bad line becomes an error result for that line, never a lost record.
 */
import { HeadroomUserError } from '../core/errors.js';
import { readUserFile } from './user-file.js';

export interface ScenarioEntry {
  /** 1-based line number (1 for a single JSON object). */
  readonly line: number;
  /** The scenario object (absent when the entry is an error). */
  readonly value?: Record<string, unknown>;
  readonly error?: HeadroomUserError;
}

/** Splits scenario text into entries: a whole-file JSON object, or one entry per non-empty line. */
export function parseScenarioText(source: string, fileName: string): ScenarioEntry[] {
  // A byte-order mark (Windows editors write one) is not part of the JSON.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new HeadroomUserError({
      code: 'bad-file',
      where: fileName,
      message: `${fileName} is empty`,
      hint: 'write one scenario object, e.g. {"model": "llama-3.1-8b", "method": "lora"}',
    });
  }
  let wholeError: Error;
  try {
    const whole = JSON.parse(trimmed) as unknown;
    if (Array.isArray(whole)) return whole.map((value, index) => entryOf(value, index + 1, fileName));
    return [entryOf(whole, 1, fileName)];
  } catch (error) {
    wholeError = error as Error;
  }
  // Not one JSON document. JSON Lines has complete objects on lines of their own (a bad first line
  // among them is one bad line, not a lost file); a file with none is one document with a mistake in it
  // (a pretty-printed object with a trailing comma), and gets one error that says where, not one per line.
  const lines = text.split('\n');
  if (!lines.some(isObjectLine)) {
    const at = /position (\d+)/.exec(wholeError.message);
    const offset = at ? text.indexOf(trimmed) + Number(at[1]) : null;
    const place = offset === null ? '' : ` at ${lineAndColumn(text, offset)}`;
    throw new HeadroomUserError({
      code: 'bad-file',
      where: fileName,
      message: `${fileName} is not valid JSON${place} (${wholeError.message})`,
      hint: 'a scenario file is one JSON object (or an array of them), or JSON Lines: one complete object per line',
    });
  }
  const entries: ScenarioEntry[] = [];
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      entries.push(entryOf(JSON.parse(raw) as unknown, index + 1, fileName));
    } catch (error) {
      entries.push({
        line: index + 1,
        error: new HeadroomUserError({
          code: 'bad-file',
          where: `${fileName}:${index + 1}`,
          message: `${fileName}:${index + 1}: not valid JSON (${(error as Error).message})`,
          hint: 'each line of a JSON Lines file must be one complete JSON object',
        }),
      });
    }
  });
  return entries;
}

/** Whether a line holds one complete JSON object by itself (what JSON Lines of scenarios are made of). */
function isObjectLine(line: string): boolean {
  const t = line.trim();
  if (!t.startsWith('{')) return false;
  try {
    const value = JSON.parse(t) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A parsed entry, or an error entry when it is not an object (a `null` line, a number, an array). */
function entryOf(value: unknown, line: number, fileName: string): ScenarioEntry {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return { line, value: value as Record<string, unknown> };
  const shown = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return {
    line,
    error: new HeadroomUserError({
      code: 'bad-file',
      where: `${fileName}:${line}`,
      message: `${fileName}:${line}: ${shown}, not a scenario object`,
      hint: 'each scenario is a JSON object, e.g. {"model": "llama-3.1-8b", "method": "lora"}',
    }),
  };
}

/** "line L, column C" (both 1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/** Reads and splits a scenario file; a missing file, a folder or an unreadable one is a user error naming the path. */
export async function readScenarioFile(path: string): Promise<ScenarioEntry[]> {
  const text = await readUserFile(path, {
    what: 'scenario file',
    example: 'scenario.json',
    extensions: ['.json', '.jsonl'],
    hint: 'check the path passed to --scenario: a JSON object, or JSON Lines of them',
  });
  return parseScenarioText(text, path);
}

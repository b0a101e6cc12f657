/**
 * Reads a scenario file: one JSON object, or JSON Lines of many. Each line is kept with its number
 * so a bad line becomes an error result for that line, never a lost record.
 */
import type { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
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
    throw fileError('scenario-empty', { file: fileName }, fileName);
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
    const place = offset === null ? '' : lineAndColumn(text, offset);
    throw fileError('scenario-not-json', { file: fileName, place, detail: wholeError.message }, fileName);
  }
  const entries: ScenarioEntry[] = [];
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      entries.push(entryOf(JSON.parse(raw) as unknown, index + 1, fileName));
    } catch (error) {
      entries.push({
        line: index + 1,
        error: fileError(
          'scenario-line-not-json',
          { file: fileName, line: index + 1, detail: (error as Error).message },
          `${fileName}:${index + 1}`,
        ),
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
    error: fileError('scenario-not-object', { file: fileName, line, found: shown }, `${fileName}:${line}`),
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
    role: 'scenario-file',
    advice: 'scenario-file',
    example: 'scenario.json',
    extensions: ['.json', '.jsonl'],
  });
  return parseScenarioText(text, path);
}

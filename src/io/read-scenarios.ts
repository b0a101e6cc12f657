/**
 * Reads a scenario file: one JSON object, or JSON Lines of many. Each line is kept with its number
 * so a bad line becomes an error result for that line, never a lost record.
 */
import { HeadroomUserError } from '../core/errors.js';
import { readUserFile } from './user-file.js';

export interface ScenarioEntry {
  /** 1-based line number (1 for a single JSON object). */
  readonly line: number;
  readonly value?: unknown;
  readonly error?: HeadroomUserError;
}

/** Splits scenario text into entries: a whole-file JSON object, or one entry per non-empty line. */
export function parseScenarioText(text: string, fileName: string): ScenarioEntry[] {
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
    if (Array.isArray(whole)) return whole.map((value, index) => ({ line: index + 1, value }));
    return [{ line: 1, value: whole }];
  } catch (error) {
    wholeError = error as Error;
  }
  // Not one JSON document. JSON Lines opens with a complete object on its first line; a file that does
  // not is one document with a mistake in it (a pretty-printed object with a trailing comma), and gets
  // one error that says where, not one per line.
  const firstLine = text.split('\n').find((line) => line.trim() !== '')!;
  if (!parsesAlone(firstLine)) {
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
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      entries.push({ line: index + 1, value: JSON.parse(raw) as unknown });
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

function parsesAlone(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
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

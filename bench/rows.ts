/**
 * The measured rows the accuracy benchmark and the upper-bound table are built from: the public
 * validation set (data/validation/measurements.jsonl, or HEADROOM_MEASUREMENTS), Headroom's own H200
 * rows (bench/data/h200-*measurements.jsonl, written by bench/gpu) and the row errata
 * (bench/data/corrections.json). File reading only; the arithmetic is in accuracy-lib.ts and upper-lib.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AccuracyRow, type Correction, HARNESS_ROWS_FILE } from './accuracy-lib.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The files of measured rows, in a fixed order: the validation set, then the harness files by name. */
export function measurementSources(root: string = ROOT): string[] {
  return [
    process.env.HEADROOM_MEASUREMENTS ?? join(root, 'data', 'validation', 'measurements.jsonl'),
    ...readdirSync(join(root, 'bench', 'data'))
      .filter((name) => HARNESS_ROWS_FILE.test(name))
      .sort()
      .map((name) => join(root, 'bench', 'data', name)),
  ].filter((path) => existsSync(path));
}

/** A JSON Lines file of rows; a line that is not JSON is named and skipped. */
export function readRows(path: string): AccuracyRow[] {
  const out: AccuracyRow[] = [];
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  lines.forEach((line, index) => {
    try {
      out.push(JSON.parse(line) as AccuracyRow);
    } catch {
      console.error(`${path}:${index + 1}: not JSON, skipped`);
    }
  });
  return out;
}

/** The row errata (bench/data/corrections.json). */
export function readCorrections(root: string = ROOT): Correction[] {
  return (
    JSON.parse(readFileSync(join(root, 'bench', 'data', 'corrections.json'), 'utf8')) as {
      corrections: Correction[];
    }
  ).corrections;
}

/** A path as the reports name it: relative to the repository. */
export const shortPath = (path: string, root: string = ROOT): string =>
  path.replace(`${root}/`, '').replace(`${join(root, '..')}/`, '../');

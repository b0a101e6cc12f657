/** Paths to the repository and to its own copy of the validation data (data/, see data/README.md). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DATA = join(REPO_ROOT, 'data');

/** A file under data/; fails the test loudly when it is missing rather than skipping. */
export function dataFile(...parts: string[]): string {
  const path = join(DATA, ...parts);
  if (!existsSync(path)) {
    throw new Error(`missing data file ${path}: data/README.md lists what belongs there (npm run data:sync)`);
  }
  return path;
}

/** Paths to the shared validation data that sits beside the repository (../shared). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED = process.env.HEADROOM_SHARED ?? join(REPO_ROOT, '..', 'shared');

/** A file under ../shared; fails the test loudly when the folder is missing rather than skipping. */
export function sharedFile(...parts: string[]): string {
  const path = join(SHARED, ...parts);
  if (!existsSync(path)) throw new Error(`missing shared validation file ${path} (set HEADROOM_SHARED)`);
  return path;
}

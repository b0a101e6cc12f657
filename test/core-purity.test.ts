/**
 * The core must run in the browser: no node:* imports and no imports from the edges, read from each
 * file's `from '…'` — type-only imports included, which a bundle erases. test/core-bundle.test.ts proves
 * the rest by bundling the core for the browser (dynamic imports included).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('src/core', () => {
  const core = files(join(REPO_ROOT, 'src', 'core'));
  it('has files to check', () => expect(core.length).toBeGreaterThan(10));
  it.each(core.map((f) => [relative(REPO_ROOT, f), f]))(
    '%s imports nothing from node or the edges',
    (_name, file) => {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((i) => i.startsWith('node:') || /\/(io|cli|server)\//.test(i) || !i.startsWith('.')),
      ).toEqual([]);
    },
  );
});

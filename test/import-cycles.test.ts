/**
 * No import circles in the product's code (src/ and web/src/): a file that needs another file that needs
 * it cannot be read, moved or tested alone. Type-only imports count, as the circle in
 * src/core/diagnose/ was one (card-rules → environment-rules → rule-kit → card-rules).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';
import { importCycles, importGraph, importSpecifiers, sourceFiles } from './source-files.js';

/**
 * Circles that exist today and are being taken apart elsewhere, each with its issue. The lead removes an
 * entry when the branch that breaks the circle merges; an entry that is no longer a circle fails, so the
 * list cannot go stale.
 */
const KNOWN_CYCLES: readonly { readonly files: readonly string[]; readonly why: string }[] = [];

const key = (files: readonly string[]) => [...files].sort().join(' ↔ ');

function productGraph() {
  const files = [
    ...sourceFiles(join(REPO_ROOT, 'src'), ['.ts', '.tsx']),
    ...sourceFiles(join(REPO_ROOT, 'web', 'src'), ['.ts', '.tsx']),
  ].filter((f) => !/\.test\.tsx?$/.test(f));
  return importGraph(REPO_ROOT, files);
}

describe('import circles', () => {
  it('src/ and web/src/ have none beyond the known ones', () => {
    const graph = productGraph();
    expect(graph.size).toBeGreaterThan(100);
    const found = importCycles(graph).map(key);
    const known = KNOWN_CYCLES.map((c) => key(c.files));
    expect(found.filter((c) => !known.includes(c))).toEqual([]);
    // A known circle that is gone is an entry to remove.
    expect(known.filter((c) => !found.includes(c))).toEqual([]);
  });

  it('the diagnoser is a tree: no circle through src/core/diagnose/', () => {
    const cycles = importCycles(productGraph()).filter((c) =>
      c.some((f) => f.startsWith('src/core/diagnose/')),
    );
    expect(cycles).toEqual([]);
  });
});

describe('the walker', () => {
  /** Writes files under a fresh directory and returns it. */
  function tree(files: Readonly<Record<string, string>>): string {
    const root = mkdtempSync(join(tmpdir(), 'headroom-cycles-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('reads static, type-only, re-exported, side-effect and dynamic imports, not comments or strings', () => {
    expect(
      importSpecifiers(
        [
          "import { a } from './a.js';",
          "import type {\n  B,\n  C,\n} from '../b.js';",
          "export { d } from './d.js';",
          "import './side.js';",
          "const e = await import('./e.js');",
          "// import { f } from './f.js';",
          "/* import { g } from './g.js'; */",
          "const h = 'see ./h.js';",
        ].join('\n'),
      ),
    ).toEqual(['./a.js', '../b.js', './d.js', './side.js', './e.js']);
  });

  it('finds a circle of three files through a type import, and one through a dynamic import', () => {
    const root = tree({
      'x/a.ts': "import { b } from './b.js';\nexport const a = b;",
      'x/b.ts': "import { c } from './c.js';\nexport const b = c;",
      'x/c.ts': "import type { A } from './a.js';\nexport const c = 1 as unknown as A;",
      'y/d.ts': "export const load = () => import('./e.js');",
      'y/e.ts': "import { load } from './d.js';\nexport { load };",
      'z/f.ts': "import { g } from './g.js';\nexport const f = g;",
      'z/g.ts': 'export const g = 1;',
    });
    const files = sourceFiles(root, ['.ts']);
    expect(importCycles(importGraph(root, files))).toEqual([
      ['x/a.ts', 'x/b.ts', 'x/c.ts'],
      ['y/d.ts', 'y/e.ts'],
    ]);
  });
});

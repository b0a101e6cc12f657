/**
 * The core runs in the browser (the dashboard imports it), proven by bundling it for the browser with
 * esbuild: every non-test file under src/core, bundled with nothing external. The bundle fails on a
 * node: import, and the bundle's own map of what it read names every file outside src/core that a core
 * file pulled in — a dynamic `import('../io/ledger.js')` included, which a regex over `from '…'` misses.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build, type Message } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';
import { sourceFiles } from './source-files.js';

/**
 * Imports from src/core to outside it that are allowed for now, each with its issue. The lead removes an
 * entry when its callers have moved; an entry the bundle no longer sees fails, so the list cannot go stale.
 */
const ALLOWED_EXITS: readonly { readonly from: string; readonly to: string; readonly why: string }[] = [];

/** What leaves the core: an import the bundle could not resolve (node:*), or a file outside the core. */
interface Exit {
  readonly from: string;
  readonly to: string;
  readonly kind: string;
}

/**
 * Bundles every non-test .ts under `root`/src/core for the browser and lists each import from a core
 * file that leaves src/core (paths relative to `root`).
 */
async function coreExits(root: string): Promise<{ exits: Exit[]; errors: string[]; inputs: number }> {
  const core = join(root, 'src', 'core');
  const entries = sourceFiles(core, ['.ts']).filter((f) => !f.endsWith('.test.ts') && !f.endsWith('.d.ts'));
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries,
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    outdir: join(root, 'out'),
    metafile: true,
    logLevel: 'silent',
  }).catch((error: { errors?: Message[] }) => ({ failed: error.errors ?? [] }));
  if ('failed' in result) {
    const errors = result.failed.map((e) => `${e.location?.file ?? '?'}: ${e.text}`);
    return { exits: [], errors, inputs: 0 };
  }
  const exits: Exit[] = [];
  const inCore = (path: string) => path.startsWith('src/core/');
  for (const [from, input] of Object.entries(result.metafile.inputs)) {
    if (!inCore(from)) continue;
    for (const i of input.imports)
      if (i.external || !inCore(i.path)) exits.push({ from, to: i.path, kind: i.kind });
  }
  return { exits, errors: [], inputs: Object.keys(result.metafile.inputs).length };
}

describe('src/core bundled for the browser', () => {
  it('bundles, and reads nothing outside src/core beyond the allowed exits', async () => {
    const { exits, errors, inputs } = await coreExits(REPO_ROOT);
    expect(errors).toEqual([]);
    expect(inputs).toBeGreaterThan(50);
    const allowed = (e: Exit) => ALLOWED_EXITS.some((a) => a.from === e.from && a.to === e.to);
    expect(exits.filter((e) => !allowed(e))).toEqual([]);
    // An allowed exit that is gone is an entry to remove.
    expect(ALLOWED_EXITS.filter((a) => !exits.some((e) => e.from === a.from && e.to === a.to))).toEqual([]);
  });
});

describe('the guard', () => {
  /** A tree with a src/core of `files`, beside a src/io with a ledger that needs node. */
  function repo(files: Readonly<Record<string, string>>): string {
    const root = mkdtempSync(join(tmpdir(), 'headroom-core-bundle-'));
    const all = {
      'src/io/ledger.ts':
        "import { readFileSync } from 'node:fs';\nexport const read = (p: string) => readFileSync(p, 'utf8');",
      'src/io/pure.ts': 'export const twice = (n: number) => 2 * n;',
      'src/core/units.ts': 'export const GIB = 2 ** 30;',
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('passes a core that imports only itself', async () => {
    const root = repo({ 'src/core/a.ts': "import { GIB } from './units.js';\nexport const a = GIB;" });
    expect(await coreExits(root)).toEqual({ exits: [], errors: [], inputs: 2 });
  });

  it('catches a dynamic import of the ledger from a core file (the regex guard did not)', async () => {
    const root = repo({
      'src/core/lazy.ts': "export async function ledger() {\n  return import('../io/ledger.js');\n}",
    });
    const { exits, errors } = await coreExits(root);
    // The ledger needs node:fs, which the browser bundle cannot resolve.
    expect(errors).toEqual([expect.stringMatching(/^src\/io\/ledger\.ts: Could not resolve "node:fs"/)]);
    expect(exits).toEqual([]);
  });

  it('catches a dynamic import that leaves the core even when what it reaches is pure', async () => {
    const root = repo({ 'src/core/lazy.ts': "export const load = () => import('../io/pure.js');" });
    expect((await coreExits(root)).exits).toEqual([
      { from: 'src/core/lazy.ts', to: 'src/io/pure.ts', kind: 'dynamic-import' },
    ]);
  });

  it('catches a node: import and a static import from the edges', async () => {
    const root = repo({
      'src/core/fs.ts': "import { existsSync } from 'node:fs';\nexport const has = existsSync;",
      'src/core/edge.ts': "import { twice } from '../io/pure.js';\nexport const four = twice(2);",
    });
    const { errors } = await coreExits(root);
    expect(errors).toEqual([expect.stringMatching(/^src\/core\/fs\.ts: Could not resolve "node:fs"/)]);
    const edge = repo({
      'src/core/edge.ts': "import { twice } from '../io/pure.js';\nexport const four = twice(2);",
    });
    expect((await coreExits(edge)).exits).toEqual([
      { from: 'src/core/edge.ts', to: 'src/io/pure.ts', kind: 'import-statement' },
    ]);
  });
});

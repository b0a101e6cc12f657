/**
 * The repository's hand-written source files and the relative imports between them, read as text: what
 * test/import-cycles.test.ts and test/file-sizes.test.ts hold to their rules.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every file under `dir` whose name ends in one of `extensions`, node_modules and dist left out. */
export function sourceFiles(dir: string, extensions: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory())
      return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(path, extensions);
    return extensions.some((x) => e.name.endsWith(x)) ? [path] : [];
  });
}

/**
 * The module specifiers a TypeScript file imports: static imports and re-exports (`import type`
 * included: a circle of types is still a circle a reader has to untangle), side-effect imports, and
 * dynamic `import('…')` with a string literal.
 */
export function importSpecifiers(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** The file a relative specifier names (`./a.js` → a.ts or a.tsx, `./dir` → dir/index.ts); null when none. */
export function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(?:js|jsx|ts|tsx|mjs)$/, '');
  for (const candidate of [
    `${stem}.ts`,
    `${stem}.tsx`,
    base,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** Each file's relative imports that name a file of the set, keyed by the path relative to `root`. */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const known = new Set(files.map((f) => resolve(f)));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importSpecifiers(readFileSync(file, 'utf8'))
      .map((s) => resolveRelative(file, s))
      .filter((t): t is string => t !== null && known.has(t))
      .map((t) => relative(root, t));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components of more than one file (or a file
 * that imports itself), each sorted, found with Tarjan's algorithm.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * Copies the upstream validation data drop into data/ and records what was copied.
 *
 *   npm run data:sync -- [SOURCE_DIR]
 *
 * SOURCE_DIR defaults to $HEADROOM_DATA_SOURCE, else to a folder named `shared` beside the
 * repository, where new data arrives on the team's machines. This script and test/data.test.ts are
 * the only places that know that default: everything else reads data/, which is committed, so a
 * clone stands alone.
 *
 * It copies every file of the source but its `hooks/` folder and dotfiles, byte for byte, removes
 * the copies whose source is gone, rewrites data/MANIFEST.json (sha256 and size of each copy),
 * regenerates docs/scenario.md from data/validation/SCENARIO.md, and prints what changed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Top-level folders of the source that are its own tooling, not data. */
export const SKIPPED_FOLDERS: readonly string[] = ['hooks'];
/** Files at the top of data/ that this repository writes itself; the source may not have them. */
export const OWN_FILES: readonly string[] = ['README.md', 'MANIFEST.json'];
/** The scenario format, as the user-facing docs carry it. */
export const SCENARIO_SOURCE = 'validation/SCENARIO.md';
export const SCENARIO_DOC = join('docs', 'scenario.md');

export interface FileDigest {
  bytes: number;
  sha256: string;
}
export interface Manifest {
  about: string;
  files: Record<string, FileDigest>;
}
export interface Difference {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
}

const ABOUT =
  'sha256 and size of every file that npm run data:sync copied into data/ (paths relative to data/). ' +
  'test/data.test.ts checks the copies against it, and the upstream folder too where one is present.';

/**
 * Where the upstream data comes from when no folder is named: $HEADROOM_DATA_SOURCE, else the
 * `shared` folder beside the repository if it exists; undefined when neither is there.
 */
export function defaultSource(env: NodeJS.ProcessEnv = process.env, repo: string = REPO): string | undefined {
  const named = env.HEADROOM_DATA_SOURCE;
  if (named !== undefined && named !== '') return resolve(named);
  const sibling = join(repo, '..', 'shared');
  return existsSync(sibling) ? resolve(sibling) : undefined;
}

/** Every data file under `root`, as sorted `/`-separated paths relative to it. */
export function listDataFiles(root: string, skip: readonly string[] = SKIPPED_FOLDERS): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!skip.includes(rel)) walk(path);
      } else if (entry.isFile()) {
        out.push(rel);
      }
    }
  };
  walk(root);
  return out.sort();
}

export function digest(path: string): FileDigest {
  const bytes = readFileSync(path);
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The digests of the source's data files (its top-level README.md and MANIFEST.json aside). */
export function digestSource(source: string): Record<string, FileDigest> {
  const files: Record<string, FileDigest> = {};
  for (const rel of listDataFiles(source)) {
    if (!OWN_FILES.includes(rel)) files[rel] = digest(join(source, rel));
  }
  return files;
}

/** The digests of what data/ holds now, its own README.md and MANIFEST.json aside. */
export function digestCopy(data: string): Record<string, FileDigest> {
  return digestSource(data);
}

export function readManifest(data: string): Manifest {
  return JSON.parse(readFileSync(join(data, 'MANIFEST.json'), 'utf8')) as Manifest;
}

/** What `actual` has that `expected` lacks (added), holds differently (changed) or lacks (removed). */
export function compare(
  expected: Record<string, FileDigest>,
  actual: Record<string, FileDigest>,
): Difference {
  const difference: Difference = { added: [], changed: [], removed: [], unchanged: [] };
  for (const [rel, seen] of Object.entries(actual)) {
    const known = expected[rel];
    if (known === undefined) difference.added.push(rel);
    else if (known.sha256 !== seen.sha256 || known.bytes !== seen.bytes) difference.changed.push(rel);
    else difference.unchanged.push(rel);
  }
  for (const rel of Object.keys(expected)) if (actual[rel] === undefined) difference.removed.push(rel);
  for (const list of Object.values(difference)) list.sort();
  return difference;
}

export function isSame(difference: Difference): boolean {
  return difference.added.length + difference.changed.length + difference.removed.length === 0;
}

/** One line per kind of change, e.g. "changed: validation/SCENARIO.md, validation/measurements.jsonl". */
export function describe(difference: Difference): string[] {
  const lines: string[] = [];
  for (const kind of ['added', 'changed', 'removed'] as const) {
    if (difference[kind].length > 0) lines.push(`${kind}: ${difference[kind].join(', ')}`);
  }
  return lines;
}

/** docs/scenario.md: the format as upstream writes it, under a line that says where it comes from. */
export function scenarioDoc(scenario: string): string {
  return [
    '<!-- Copied from data/validation/SCENARIO.md by `npm run data:sync`; edit it there (upstream), not here. -->',
    '<!-- "measurements.jsonl here" below is data/validation/measurements.jsonl. -->',
    '',
    scenario,
  ].join('\n');
}

export interface SyncResult {
  source: string;
  difference: Difference;
  scenarioDocChanged: boolean;
}

/**
 * Makes `repo`/data a copy of `source`: writes added and changed files, deletes removed ones,
 * rewrites MANIFEST.json and docs/scenario.md. Files absent from the source are never invented.
 */
export function sync(source: string, repo: string = REPO): SyncResult {
  if (!existsSync(source) || !statSync(source).isDirectory()) {
    throw new Error(`data:sync: no folder at ${source}`);
  }
  const data = join(repo, 'data');
  const incoming = digestSource(source);
  if (Object.keys(incoming).length === 0) throw new Error(`data:sync: ${source} holds no data files`);
  // Compared with what data/ holds now, not with the old manifest, so a hand-edited copy is put back too.
  const difference = compare(existsSync(data) ? digestCopy(data) : {}, incoming);
  for (const rel of [...difference.added, ...difference.changed]) {
    const target = join(data, rel);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(join(source, rel)));
  }
  for (const rel of difference.removed) rmSync(join(data, rel), { force: true });
  removeEmptyFolders(data);
  const manifest: Manifest = { about: ABOUT, files: incoming };
  writeFileSync(join(data, 'MANIFEST.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const docPath = join(repo, SCENARIO_DOC);
  const doc = scenarioDoc(readFileSync(join(data, SCENARIO_SOURCE), 'utf8'));
  const scenarioDocChanged = !existsSync(docPath) || readFileSync(docPath, 'utf8') !== doc;
  if (scenarioDocChanged) {
    mkdirSync(dirname(docPath), { recursive: true });
    writeFileSync(docPath, doc);
  }
  return { source, difference, scenarioDocChanged };
}

function removeEmptyFolders(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    removeEmptyFolders(path);
    if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}

/** What to tell the person who ran the sync, line by line. */
export function report(result: SyncResult, readme: string): string[] {
  const { difference } = result;
  const lines = [
    `data:sync from ${result.source}: ${difference.added.length} added, ${difference.changed.length} changed, ` +
      `${difference.removed.length} removed, ${difference.unchanged.length} unchanged`,
    ...describe(difference).map((line) => `  ${line}`),
  ];
  if (result.scenarioDocChanged) lines.push(`  rewrote ${SCENARIO_DOC} from data/${SCENARIO_SOURCE}`);
  const touched = [...difference.added, ...difference.changed, ...difference.removed];
  if (touched.some((rel) => rel.startsWith('catalog/') && rel.endsWith('.json'))) {
    lines.push('  the catalog changed: run npm run catalog:import to regenerate src/core/catalog/*.data.ts');
  }
  const unnamed = difference.added.filter((rel) => !readme.includes(rel));
  if (unnamed.length > 0)
    lines.push(`  name these in data/README.md, with their source: ${unnamed.join(', ')}`);
  return lines;
}

function main(argv: readonly string[]): number {
  const source = argv[0] !== undefined ? resolve(argv[0]) : defaultSource();
  if (source === undefined) {
    console.error(
      'data:sync: no source folder. Name one (npm run data:sync -- PATH) or set HEADROOM_DATA_SOURCE.',
    );
    return 1;
  }
  try {
    const result = sync(source);
    const readmePath = join(REPO, 'data', 'README.md');
    const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
    for (const line of report(result, readme)) console.log(line);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}

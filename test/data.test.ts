/**
 * data/ is the repository's own copy of the upstream validation data: every copy matches
 * data/MANIFEST.json, the manifest matches the upstream folder where one is here, and what is
 * derived from the copy (docs/scenario.md, the embedded catalogs) is in step with it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compare,
  defaultSource,
  describe as describeDifference,
  digestCopy,
  digestSource,
  isSame,
  readManifest,
  report,
  SCENARIO_DOC,
  SCENARIO_SOURCE,
  scenarioDoc,
  sync,
} from '../scripts/sync-data.js';
import { GPUS_DATA } from '../src/core/catalog/gpus.data.js';
import { MODELS_DATA } from '../src/core/catalog/models.data.js';
import { DATA, dataFile, REPO_ROOT } from './data.js';

const manifest = readManifest(DATA);
const upstream = defaultSource();

describe('data/, the copy the tests read', () => {
  it('matches data/MANIFEST.json file for file (a hand-edited, added or deleted copy fails)', () => {
    const difference = compare(manifest.files, digestCopy(DATA));
    expect(
      isSame(difference),
      `data/ no longer matches data/MANIFEST.json (${describeDifference(difference).join('; ')}). ` +
        'Put the copies back (git checkout -- data/) or, for new upstream data, run npm run data:sync',
    ).toBe(true);
    expect(Object.keys(manifest.files).length).toBeGreaterThan(60);
  });

  it.skipIf(upstream === undefined)(
    upstream === undefined
      ? 'is current with the upstream data folder (skipped: no HEADROOM_DATA_SOURCE and no upstream folder beside the repository)'
      : `is current with the upstream data folder ${upstream}`,
    () => {
      const difference = compare(manifest.files, digestSource(upstream!));
      expect(
        isSame(difference),
        `data/ is stale against ${upstream} (${describeDifference(difference).join('; ')}): run npm run data:sync`,
      ).toBe(true);
    },
  );

  it('names every file, with its source, in data/README.md', () => {
    const readme = readFileSync(dataFile('README.md'), 'utf8');
    const unnamed = Object.keys(manifest.files).filter((rel) => !readme.includes(`\`${rel}\``));
    expect(unnamed, 'add these to data/README.md with where they came from').toEqual([]);
  });

  it('carries the scenario format into docs/scenario.md, word for word', () => {
    const doc = readFileSync(join(REPO_ROOT, SCENARIO_DOC), 'utf8');
    expect(
      doc,
      'docs/scenario.md is out of step with data/validation/SCENARIO.md: run npm run data:sync',
    ).toBe(scenarioDoc(readFileSync(dataFile(...SCENARIO_SOURCE.split('/')), 'utf8')));
    expect(doc).toContain('## Precision');
  });

  it('is what the embedded catalogs were generated from (else: npm run catalog:import)', () => {
    expect(GPUS_DATA).toEqual(JSON.parse(readFileSync(dataFile('catalog', 'gpus.json'), 'utf8')));
    expect(MODELS_DATA).toEqual(JSON.parse(readFileSync(dataFile('catalog', 'models.json'), 'utf8')));
  });
});

describe('nothing reads or names the folder beside the repository', () => {
  // Only the sync script and this test know where upstream data arrives; data/ holds the upstream
  // files byte for byte (their own words are theirs) and data/README.md says where each came from.
  const ALLOWED = new Set(['scripts/sync-data.ts', 'test/data.test.ts', 'data/README.md']);
  const SKIPPED = new Set(['.git', 'node_modules', 'dist', 'test-results', 'data']);
  const PATTERN = /\.\.\/shared\b|HEADROOM_SHARED|\bshared\/(?:validation|fixtures|docs|catalog)\b/;

  function files(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return SKIPPED.has(entry.name) && dir === REPO_ROOT ? [] : files(path);
      return entry.isFile() ? [relative(REPO_ROOT, path).split(sep).join('/')] : [];
    });
  }

  it('in code, tests, docs, help texts and bench results', () => {
    const offenders = files(REPO_ROOT)
      .filter((rel) => !ALLOWED.has(rel) && !/\.(png|pickle|sqlite)$/.test(rel))
      .filter((rel) => PATTERN.test(readFileSync(join(REPO_ROOT, rel), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

describe('npm run data:sync', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  function tree(root: string, files: Record<string, string>): void {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
  }

  function scratch() {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-sync-'));
    const source = join(dir, 'upstream');
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    tree(source, {
      'validation/SCENARIO.md': '# The scenario format\n',
      'validation/measurements.jsonl': '{"id":"r001"}\n',
      'catalog/gpus.json': '[]\n',
      'hooks/before-stop': '#!/bin/sh\n',
      '.DS_Store': 'x',
    });
    return { source, repo, data: join(repo, 'data') };
  }

  it('copies every file but hooks/ and dotfiles, and records each size and sha256', () => {
    const { source, repo, data } = scratch();
    const result = sync(source, repo);
    expect(result.difference.added).toEqual([
      'catalog/gpus.json',
      'validation/SCENARIO.md',
      'validation/measurements.jsonl',
    ]);
    expect(existsSync(join(data, 'hooks'))).toBe(false);
    expect(existsSync(join(data, '.DS_Store'))).toBe(false);
    expect(readManifest(data).files).toEqual({
      'catalog/gpus.json': { bytes: 3, sha256: sha('[]\n') },
      'validation/SCENARIO.md': { bytes: 22, sha256: sha('# The scenario format\n') },
      'validation/measurements.jsonl': { bytes: 14, sha256: sha('{"id":"r001"}\n') },
    });
    expect(readFileSync(join(repo, 'docs', 'scenario.md'), 'utf8')).toBe(
      scenarioDoc('# The scenario format\n'),
    );
    expect(result.scenarioDocChanged).toBe(true);
  });

  it('brings changes, additions and removals, puts back a hand-edited copy, and says what changed', () => {
    const { source, repo, data } = scratch();
    sync(source, repo);
    tree(source, {
      'validation/measurements.jsonl': '{"id":"r001"}\n{"id":"r002"}\n',
      'catalog/models.json': '[]\n',
    });
    rmSync(join(source, 'catalog', 'gpus.json'));
    writeFileSync(join(data, 'validation', 'SCENARIO.md'), '# edited by hand\n');
    const result = sync(source, repo);
    expect(result.difference).toEqual({
      added: ['catalog/models.json'],
      changed: ['validation/SCENARIO.md', 'validation/measurements.jsonl'],
      removed: ['catalog/gpus.json'],
      unchanged: [],
    });
    expect(readFileSync(join(data, 'validation', 'SCENARIO.md'), 'utf8')).toBe('# The scenario format\n');
    expect(existsSync(join(data, 'catalog', 'gpus.json'))).toBe(false);
    expect(Object.keys(readManifest(data).files)).toEqual([
      'catalog/models.json',
      'validation/SCENARIO.md',
      'validation/measurements.jsonl',
    ]);
    expect(report(result, 'README naming `validation/measurements.jsonl` only')).toEqual([
      `data:sync from ${source}: 1 added, 2 changed, 1 removed, 0 unchanged`,
      '  added: catalog/models.json',
      '  changed: validation/SCENARIO.md, validation/measurements.jsonl',
      '  removed: catalog/gpus.json',
      '  the catalog changed: run npm run catalog:import to regenerate src/core/catalog/*.data.ts',
      '  name these in data/README.md, with their source: catalog/models.json',
    ]);
    const again = sync(source, repo);
    expect(again.difference.unchanged).toHaveLength(3);
    expect(isSame(again.difference)).toBe(true);
    expect(again.scenarioDocChanged).toBe(false);
  });

  it('finds its source in HEADROOM_DATA_SOURCE, else in a folder named shared beside the repository', () => {
    const { source, repo } = scratch();
    expect(defaultSource({ HEADROOM_DATA_SOURCE: source }, repo)).toBe(source);
    expect(defaultSource({}, repo)).toBeUndefined();
    mkdirSync(join(repo, '..', 'shared'));
    expect(defaultSource({}, repo)).toBe(join(repo, '..', 'shared'));
    expect(defaultSource({ HEADROOM_DATA_SOURCE: '' }, repo)).toBe(join(repo, '..', 'shared'));
  });

  it('refuses a source folder that is not there, naming it', () => {
    const missing = join(tmpdir(), 'headroom-no-such-upstream');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sync-data.ts', missing], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`data:sync: no folder at ${missing}`);
  });
});

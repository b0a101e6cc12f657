/**
 * Builds dist/ only when it is missing or was built from other sources, so that a fresh
 * `npm ci && npm start` builds once (npm ci's `prepare` builds; start then finds dist current).
 *
 *   node scripts/build-if-stale.mjs          build when stale (npm start, npm test), else do nothing
 *   node scripts/build-if-stale.mjs --stamp  record the sources dist/ was just built from (npm run build)
 *
 * "The sources" are the contents of every file the build reads (src/ but its tests, web/, the
 * tsconfig and Vite config, package.json and package-lock.json), hashed together: an edit, a branch
 * switch or a dependency change makes dist/ stale; a touch without a change does not.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = [
  'src',
  'web',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'vite.config.ts',
];
/** What a complete build leaves: the CLI and the dashboard. */
const OUTPUTS = ['dist/cli/bin.js', 'dist/web/index.html'];
const STAMP = join(ROOT, 'dist', '.sources-sha256');

/** Every file under `path` (a file itself, or a folder walked), but tests, dotfiles and node_modules. */
function files(path) {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.') && entry.name !== 'node_modules')
    .flatMap((entry) =>
      entry.isDirectory()
        ? files(`${path}/${entry.name}`)
        : entry.isFile() && !/\.test\.tsx?$/.test(entry.name)
          ? [`${path}/${entry.name}`]
          : [],
    );
}

/** The sha256 of every input file's path and contents, in a fixed order. */
function sourcesDigest() {
  const hash = createHash('sha256');
  for (const rel of INPUTS.flatMap(files).sort()) {
    hash
      .update(`${rel}\0`)
      .update(readFileSync(join(ROOT, rel)))
      .update('\0');
  }
  return hash.digest('hex');
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${sourcesDigest()}\n`);
} else {
  const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '';
  const complete = OUTPUTS.every((output) => existsSync(join(ROOT, output)));
  if (!complete || built !== sourcesDigest()) {
    console.error(complete ? 'dist/ was built from other sources: building' : 'no build in dist/: building');
    // npm sets npm_execpath to its own CLI when it runs this script; elsewhere `npm` on PATH.
    const npm = process.env.npm_execpath;
    const result = npm
      ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
      : spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    process.exitCode = result.status ?? 1;
  }
}

/**
 * Re-runs the `$ headroom …` examples of README.md and docs/*.md against the built CLI and says which
 * no longer show what the command prints. `npm run docs:examples` checks; `-- --write` rewrites the
 * examples in place.
 *
 * An example is a fenced block's `$ headroom …` line (with `\`-continued lines) and the lines after it,
 * up to the next `$` line or the fence. A block with no `…` line is the whole output: it is replaced.
 * A block with `…` lines is abridged: each shown line must still be printed; with --write a shown line
 * that changed is replaced by the printed line that starts the same way (its first two words), and one
 * with no such line is reported for a person to fix. In a `--json` example a shown line may be one
 * top-level field written compactly (`"peak": { … },`): it holds when its value equals that field of
 * the printed JSON. Examples whose command needs a file, a recorded run or a network are listed as
 * skipped, not judged.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'dist', 'cli', 'bin.js');
const write = process.argv.includes('--write');
const ELLIPSIS = /^\s*(…|\.\.\.)\s*$/;
/** Commands that read the world: recorded runs, files of the walk-through, a Prometheus, a training. */
const NEEDS_SETUP = /^(run|watch|runs|report|calibrate|diagnose|serve|fleet|snapshot|env|migrate)\b/;

/** Whether an example needs what a fresh clone lacks: a recorded run, a walk-through file, a shell. */
function needsSetup(command: string): boolean {
  if (NEEDS_SETUP.test(command.slice('headroom '.length)) || /[<>|]|\$\(/.test(command)) return true;
  if (command.includes('--calibrated')) return true;
  return words(command).some(
    (w) => (/\.(json|jsonl|ya?ml|txt|log|pickle)$/.test(w) || w.endsWith('/')) && !existsSync(join(root, w)),
  );
}

interface Example {
  readonly command: string;
  readonly start: number;
  readonly end: number;
}

/** The examples of a markdown file: the command and the line range of its shown output. */
function examplesOf(lines: readonly string[]): Example[] {
  const out: Example[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (!inFence || !line.startsWith('$ headroom ')) continue;
    let command = line.slice(2);
    let j = i;
    while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++j]!.trim()}`;
    let end = j + 1;
    while (end < lines.length && !lines[end]!.startsWith('```') && !lines[end]!.startsWith('$ ')) end++;
    // Blank lines before the next command or the fence belong to the page, not to the output.
    while (end > j + 1 && lines[end - 1]!.trim() === '') end--;
    out.push({ command, start: j + 1, end });
  }
  return out;
}

/** The words of a shell command line, quotes and all (the examples use no expansion). */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

function printed(command: string): { code: number | null; lines: string[] } {
  const args = words(command).slice(1);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' },
  });
  return { code: r.status, lines: `${r.stdout}${r.stderr}`.replace(/\n+$/, '').split('\n') };
}

/** The printed output read as one JSON object, when it is one (a `--json` command). */
function printedObject(lines: readonly string[]): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(lines.join('\n'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A shown `"field": value,` line whose value, parsed, equals that top-level field of the printed JSON. */
function holdsAsField(line: string, object: Record<string, unknown> | null): boolean {
  if (!object) return false;
  const m = /^\s*"([^"]+)":\s*(.*?),?\s*$/.exec(line);
  if (!m || !Object.hasOwn(object, m[1]!)) return false;
  try {
    return isDeepStrictEqual(JSON.parse(m[2]!), object[m[1]!]);
  } catch {
    return false;
  }
}

const lead = (line: string) => line.trim().split(/\s+/).slice(0, 2).join(' ');
const files = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f)),
];
let stale = 0;
let skipped = 0;
let checked = 0;
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let changed = false;
  // From the last example up, so replacing one block leaves the earlier line numbers as they were.
  for (const ex of examplesOf(lines).reverse()) {
    const name = `${relative(root, file)}:${ex.start} $ ${ex.command}`;
    if (needsSetup(ex.command)) {
      skipped++;
      continue;
    }
    checked++;
    const shown = lines.slice(ex.start, ex.end);
    const actual = printed(ex.command).lines;
    const abridged = shown.some((l) => l.includes('…') || l.includes('...'));
    if (!abridged) {
      if (shown.join('\n') === actual.join('\n')) continue;
      stale++;
      console.log(`stale: ${name} (whole output differs)`);
      if (write) {
        lines.splice(ex.start, ex.end - ex.start, ...actual);
        changed = true;
      }
      continue;
    }
    const object = printedObject(actual);
    const missing = shown.filter(
      (l) =>
        !ELLIPSIS.test(l) &&
        !l.includes('…') &&
        !l.includes('...') &&
        l.trim() !== '' &&
        !actual.includes(l) &&
        !holdsAsField(l, object),
    );
    if (missing.length === 0) continue;
    stale++;
    console.log(`stale: ${name}`);
    for (const m of missing) {
      // A line that starts the same way and is about as long: a reformatted line (compact JSON
      // shown over several lines, say) is a person's to abridge again.
      const replacement = actual.find(
        (a) => lead(a) === lead(m) && a.trim() !== '' && a.length >= 0.6 * m.length,
      );
      console.log(`  - ${m}\n  + ${replacement ?? '(no printed line starts the same way: fix by hand)'}`);
      if (write && replacement !== undefined) {
        const at = lines.indexOf(m, ex.start);
        if (at !== -1 && at < ex.end) {
          lines[at] = replacement;
          changed = true;
        }
      }
    }
  }
  if (changed) writeFileSync(file, lines.join('\n'));
}
console.log(
  `docs:examples: ${checked} examples run, ${stale} ${write ? 'rewritten or reported' : 'stale'}, ${skipped} skipped (they need a recorded run, a file or a service)`,
);
process.exitCode = stale > 0 && !write ? 1 : 0;

/**
 * Accuracy benchmark: every row of data/validation/measurements.jsonl through the estimator, compared
 * with the level the row measured (allocated, reserved or device). Prints per-source and overall
 * figures and writes bench/results/accuracy.md. Run: npm run bench:accuracy
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AccuracyRow,
  type Correction,
  evaluateAllocatorRuns,
  HARNESS_ROWS_FILE,
  type Preregistered,
  renderAccuracyReport,
  runAccuracy,
} from './accuracy-lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
// The public validation set (data/validation), then Headroom's own H200 rows (bench/gpu writes h200-*measurements.jsonl).
const sources = [
  process.env.HEADROOM_MEASUREMENTS ?? join(root, 'data', 'validation', 'measurements.jsonl'),
  ...readdirSync(join(root, 'bench', 'data'))
    .filter((name) => HARNESS_ROWS_FILE.test(name))
    .sort()
    .map((name) => join(root, 'bench', 'data', name)),
].filter((path) => existsSync(path));
if (sources.length === 0) {
  console.error(
    'bench:accuracy: no measurements found (expected data/validation/measurements.jsonl). Set HEADROOM_MEASUREMENTS to a JSONL file.',
  );
  process.exit(1);
}
/** A JSON Lines file of rows; a line that is not JSON is named and skipped. */
function readRows(path: string): AccuracyRow[] {
  const out: AccuracyRow[] = [];
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  lines.forEach((line, index) => {
    try {
      out.push(JSON.parse(line) as AccuracyRow);
    } catch {
      console.error(`${path}:${index + 1}: not JSON, skipped`);
    }
  });
  return out;
}
const rows: AccuracyRow[] = sources.flatMap(readRows);
const corrections = (
  JSON.parse(readFileSync(join(root, 'bench', 'data', 'corrections.json'), 'utf8')) as {
    corrections: Correction[];
  }
).corrections;
// What the estimator said about the held-out scenarios before they were measured (committed first).
const results = join(root, 'bench', 'gpu', 'results');
const preregistered: Preregistered[] = (existsSync(results) ? readdirSync(results) : [])
  .filter((name) => /^holdout.*-predictions\.jsonl$/.test(name))
  .sort()
  .flatMap((name) =>
    readFileSync(join(results, name), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Preregistered),
  );
// The allocator run: twelve scenarios with the default allocator and with expandable segments.
const allocatorFile = (setting: string) => join(results, `expandable-${setting}.jsonl`);
const allocatorRuns =
  existsSync(allocatorFile('default')) && existsSync(allocatorFile('expandable'))
    ? evaluateAllocatorRuns(readRows(allocatorFile('default')), readRows(allocatorFile('expandable')))
    : null;
const report = renderAccuracyReport(
  runAccuracy(rows, corrections),
  sources.map((p) => p.replace(`${root}/`, '').replace(`${join(root, '..')}/`, '../')),
  preregistered,
  allocatorRuns,
);
console.log(report.terminal);
const out = join(root, 'bench', 'results', 'accuracy.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report.markdown);
console.log(`\nwrote ${out.replace(`${root}/`, '')}`);

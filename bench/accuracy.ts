/**
 * Accuracy benchmark: every row of data/validation/measurements.jsonl through the estimator, compared
 * with the level the row measured (allocated, reserved or device). Prints per-source and overall
 * figures and writes bench/results/accuracy.md. Run: npm run bench:accuracy
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type AccuracyRow,
  evaluateAllocatorRuns,
  HARNESS_DATASET,
  type Preregistered,
  renderAccuracyReport,
  runAccuracy,
} from './accuracy-lib.js';
import { measurementSources, ROOT, readCorrections, readRows, shortPath } from './rows.js';
import { renderUpperSection } from './upper-lib.js';

const root = ROOT;
const sources = measurementSources();
if (sources.length === 0) {
  console.error(
    'bench:accuracy: no measurements found (expected data/validation/measurements.jsonl). Set HEADROOM_MEASUREMENTS to a JSONL file.',
  );
  process.exit(1);
}
const rows: AccuracyRow[] = sources.flatMap(readRows);
const corrections = readCorrections();
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
const run = runAccuracy(rows, corrections);
const report = renderAccuracyReport(
  run,
  sources.map((p) => shortPath(p)),
  preregistered,
  allocatorRuns,
  renderUpperSection(
    run.corrected.filter((r) => r.dataset !== HARNESS_DATASET),
    run.corrected.filter((r) => r.dataset === HARNESS_DATASET),
  ),
);
console.log(report.terminal);
const out = join(root, 'bench', 'results', 'accuracy.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report.markdown);
console.log(`\nwrote ${out.replace(`${root}/`, '')}`);

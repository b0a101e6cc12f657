/**
 * Calibration benchmark: how far a calibration carries. Headroom's own H200 rows are calibrated one
 * run at a time and carried to the other sizes of the same setup (bench/calibration-lib.ts). Prints the
 * summary and writes bench/results/calibration.md. Run: npm run bench:calibration
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AccuracyRow, HARNESS_ROWS_FILE } from './accuracy-lib.js';
import { calibrationOfRun, measuredRuns, renderCalibrationReport, transfers } from './calibration-lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = join(root, 'bench', 'data');
const rows: AccuracyRow[] = readdirSync(data)
  .filter((name) => HARNESS_ROWS_FILE.test(name))
  .sort()
  .flatMap((name) =>
    readFileSync(join(data, name), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as AccuracyRow),
  );
const runs = measuredRuns(rows);
const list = transfers(runs);
const report = renderCalibrationReport(runs, list);
writeFileSync(join(root, 'bench', 'results', 'calibration.md'), report);
const summary = report.slice(
  report.indexOf('## Largest error by token ratio'),
  report.indexOf('## Each run'),
);
const own = runs.map(calibrationOfRun);
const bounded = own.filter((c) => c.calibration.bounds.length > 0).length;
const refused = own.filter((c) => c.refusals.length > 0).length;
console.log(
  `${runs.length} runs (${bounded} held at a bound, ${refused} refused), ${list.length} transfers\n\n${summary.trim()}\n\nwritten: bench/results/calibration.md`,
);

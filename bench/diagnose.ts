/**
 * OOM diagnosis benchmark: every case of data/validation/oom_corpus.jsonl through the grammar and the
 * phase reader. Prints the figures and every miss, and writes bench/results/diagnose.md.
 * Run: npm run bench:diagnose   (HEADROOM_OOM_CORPUS=path to use another corpus of the same format)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDiagnose, type CorpusCase, renderBenchReport } from './diagnose-lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const source = process.env.HEADROOM_OOM_CORPUS ?? join(root, 'data', 'validation', 'oom_corpus.jsonl');
if (!existsSync(source)) {
  console.error(`bench:diagnose: no corpus at ${source}. Set HEADROOM_OOM_CORPUS to a corpus file.`);
  process.exit(1);
}
const cases: CorpusCase[] = [];
readFileSync(source, 'utf8')
  .split('\n')
  .forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      cases.push(JSON.parse(line) as CorpusCase);
    } catch {
      console.error(`${source}:${index + 1}: not JSON, skipped`);
    }
  });
const figures = benchDiagnose(cases);
const report = renderBenchReport(figures, relative(root, source));
console.log(report);
const out = join(root, 'bench', 'results', 'diagnose.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report);
console.log(`wrote ${out.replace(`${root}/`, '')}`);

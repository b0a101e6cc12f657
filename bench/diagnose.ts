/**
 * OOM diagnosis benchmark: every case of data/validation/oom_corpus.jsonl through the grammar and the
 * phase reader, then Headroom's own held-out cases (bench/data/oom-unseen.jsonl: real reports collected
 * after the rules were written, labelled for the phase only). Prints the figures and every miss, and
 * writes bench/results/diagnose.md.
 * Run: npm run bench:diagnose   (HEADROOM_OOM_CORPUS=path to score one other corpus of the same format)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDiagnose, type CorpusCase, renderBenchReport } from './diagnose-lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const sources = process.env.HEADROOM_OOM_CORPUS
  ? [process.env.HEADROOM_OOM_CORPUS]
  : [join(root, 'data', 'validation', 'oom_corpus.jsonl'), join(root, 'bench', 'data', 'oom-unseen.jsonl')];

function readCorpus(source: string): CorpusCase[] {
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
  return cases;
}

const reports: string[] = [];
for (const source of sources) {
  if (!existsSync(source)) {
    console.error(
      `bench:diagnose: no corpus at ${source}. Set HEADROOM_OOM_CORPUS to a JSONL file of the same format.`,
    );
    process.exit(1);
  }
  const report = renderBenchReport(benchDiagnose(readCorpus(source)), source.replace(`${root}/`, ''));
  console.log(report);
  reports.push(report);
}
const out = join(root, 'bench', 'results', 'diagnose.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, reports.join('\n'));
console.log(`wrote ${out.replace(`${root}/`, '')}`);

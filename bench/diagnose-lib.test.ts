import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../test/data.js';
import { benchDiagnose, type CorpusCase, renderBenchReport, scoreCase } from './diagnose-lib.js';

const CORPUS: CorpusCase[] = readFileSync(dataFile('validation', 'oom_corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

describe('bench:diagnose', () => {
  it('scores the corpus: fields exact on every case with error text, family on all, phase on 30 of 36', () => {
    const f = benchDiagnose(CORPUS);
    expect([f.fieldsExact, f.withText, f.familyRightAll, f.cases, f.phaseRight, f.phaseKnown]).toEqual([
      42, 42, 49, 49, 30, 36,
    ]);
    expect(renderBenchReport(f, 'corpus')).toContain(
      '| phase right, cases whose expectedPhase is known | 30/36 (83.3 %) | ≥ 90 % |',
    );
  });

  it('counts a field the message does not carry as a miss', () => {
    const c = CORPUS.find((x) => x.id === 'pt-2.x-16417-batch')!;
    const { thisProcessInUseBytes: _dropped, ...expected } = c.expected as Record<string, unknown>;
    const s = scoreCase({ ...c, expected: expected as NonNullable<CorpusCase['expected']> });
    expect(s.fieldMisses).toEqual(['thisProcessInUseBytes: 25340307046 ≠ null']);
  });
});

describe('bench:diagnose on phase-only cases (bench/data/oom-unseen.jsonl)', () => {
  const UNSEEN: CorpusCase[] = readFileSync(new URL('./data/oom-unseen.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

  it('scores the phase alone where a case says nothing of the fields: 28 of the 31 known phases', () => {
    const f = benchDiagnose(UNSEEN);
    expect([f.cases, f.labelled, f.withText, f.phaseRight, f.phaseKnown]).toEqual([35, 0, 0, 28, 31]);
    const report = renderBenchReport(f, 'unseen');
    expect(report).toContain('| family right, all cases | 0/0 | — |');
    // No field is reported missing for a case that names none.
    expect(report).not.toContain('fields:');
  });
});

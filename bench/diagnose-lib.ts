/**
 * Scores the OOM grammar and the phase reader against data/validation/oom_corpus.jsonl: every field of
 * `expected` extracted exactly, the family (with `acceptableFamilies`), the phase (with `acceptablePhases`).
 */
import {
  detectPhase,
  findOomMessages,
  findPrimaryOom,
  type OomPhase,
  type PhaseBasis,
} from '../src/core/oom/index.js';

export interface CorpusCase {
  readonly id: string;
  readonly text: string;
  readonly has_error_text: boolean;
  /** What the grammar must extract; absent in a phase-only case (bench/data/oom-unseen.jsonl). */
  readonly expected?: Readonly<Record<string, unknown>> & {
    readonly family: string;
    readonly acceptableFamilies?: readonly string[];
  };
  readonly expectedPhase: OomPhase;
  readonly acceptablePhases?: readonly OomPhase[];
}

export interface CaseScore {
  readonly id: string;
  readonly hasErrorText: boolean;
  /** Whether the case says what the grammar must extract (a phase-only case does not). */
  readonly labelled: boolean;
  /** Fields whose value differs from `expected` (extra fields the message does not carry included). */
  readonly fieldMisses: readonly string[];
  readonly familyRight: boolean;
  readonly family: string;
  readonly expectedFamily: string;
  readonly phase: OomPhase;
  readonly phaseBasis: PhaseBasis;
  readonly expectedPhase: OomPhase;
  readonly phaseRight: boolean;
}

/** The fields whose extracted value differs from `expected` (extra fields the message carries included). */
function fieldMissesOf(
  expected: NonNullable<CorpusCase['expected']>,
  oom: Readonly<Record<string, unknown>>,
): string[] {
  const { acceptableFamilies: _families, family: _family, ...fields } = expected;
  const misses: string[] = [];
  const keys = new Set([...Object.keys(fields), ...Object.keys(oom).filter((k) => k !== 'family')]);
  for (const key of keys) {
    const want = fields[key] ?? null;
    const got = oom[key] ?? null;
    if (JSON.stringify(want) !== JSON.stringify(got))
      misses.push(`${key}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
  }
  return misses;
}

/** Scores one case; a phase-only case (no `expected`) has no field or family to miss. */
export function scoreCase(c: CorpusCase): CaseScore {
  const match = findPrimaryOom(c.text);
  const oom = (match?.oom ?? { family: 'none' }) as Readonly<Record<string, unknown>>;
  const gotFamily = String(oom.family);
  const expected = c.expected;
  const reading = detectPhase(c.text, match, findOomMessages(c.text));
  return {
    id: c.id,
    hasErrorText: c.has_error_text,
    labelled: expected !== undefined,
    fieldMisses: expected ? fieldMissesOf(expected, oom) : [],
    familyRight:
      !expected || gotFamily === expected.family || (expected.acceptableFamilies ?? []).includes(gotFamily),
    family: gotFamily,
    expectedFamily: expected?.family ?? gotFamily,
    phase: reading.phase,
    phaseBasis: reading.basis,
    expectedPhase: c.expectedPhase,
    phaseRight: [c.expectedPhase, ...(c.acceptablePhases ?? [])].includes(reading.phase),
  };
}

export interface BenchFigures {
  readonly cases: number;
  readonly withText: number;
  readonly fieldsExact: number;
  readonly familyRightWithText: number;
  /** Cases that say what the grammar must extract. */
  readonly labelled: number;
  readonly familyRightAll: number;
  readonly phaseKnown: number;
  readonly phaseRight: number;
  /** Phase right without the allocator-figure rules (basis `numbers` counted as wrong). */
  readonly phaseRightWithoutNumbers: number;
  readonly phaseUnknownCases: number;
  readonly phaseUnknownAcceptable: number;
  readonly scores: readonly CaseScore[];
}

/** The benchmark's figures over every case. */
export function benchDiagnose(cases: readonly CorpusCase[]): BenchFigures {
  const scores = cases.map(scoreCase);
  const labelled = scores.filter((s) => s.labelled);
  const withText = labelled.filter((s) => s.hasErrorText);
  const known = scores.filter((s) => s.expectedPhase !== 'unknown');
  const unknown = scores.filter((s) => s.expectedPhase === 'unknown');
  return {
    cases: scores.length,
    withText: withText.length,
    fieldsExact: withText.filter((s) => s.fieldMisses.length === 0 && s.familyRight).length,
    familyRightWithText: withText.filter((s) => s.familyRight).length,
    labelled: labelled.length,
    familyRightAll: labelled.filter((s) => s.familyRight).length,
    phaseKnown: known.length,
    phaseRight: known.filter((s) => s.phaseRight).length,
    phaseRightWithoutNumbers: known.filter((s) => s.phaseRight && s.phaseBasis !== 'numbers').length,
    phaseUnknownCases: unknown.length,
    phaseUnknownAcceptable: unknown.filter((s) => s.phaseRight).length,
    scores,
  };
}

const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`);

/** The report, as Markdown (the terminal prints the same text). */
export function renderBenchReport(f: BenchFigures, source: string): string {
  const lines = [
    `# OOM diagnosis benchmark`,
    '',
    `Corpus: ${source} (${f.cases} cases). Run: npm run bench:diagnose`,
    '',
    '| figure | result | target |',
    '| --- | --- | --- |',
    `| every \`expected\` field exact, cases with error text | ${f.fieldsExact}/${f.withText} (${pct(f.fieldsExact, f.withText)}) | ≥ 98 % |`,
    `| family right, cases with error text | ${f.familyRightWithText}/${f.withText} | all |`,
    `| family right, all cases | ${f.familyRightAll}/${f.labelled} | — |`,
    `| phase right, cases whose expectedPhase is known | ${f.phaseRight}/${f.phaseKnown} (${pct(f.phaseRight, f.phaseKnown)}) | ≥ 90 % |`,
    `| … of which without the allocator-figure rules | ${f.phaseRightWithoutNumbers}/${f.phaseKnown} (${pct(f.phaseRightWithoutNumbers, f.phaseKnown)}) | — |`,
    `| phase acceptable, cases whose expectedPhase is unknown | ${f.phaseUnknownAcceptable}/${f.phaseUnknownCases} | — |`,
    '',
    '## Misses',
    '',
  ];
  const misses = f.scores.filter(
    (s) => (s.hasErrorText && s.fieldMisses.length > 0) || !s.familyRight || !s.phaseRight,
  );
  if (misses.length === 0) lines.push('None.');
  for (const s of misses) {
    const what: string[] = [];
    if (!s.familyRight) what.push(`family ${s.family}, expected ${s.expectedFamily}`);
    if (s.hasErrorText && s.fieldMisses.length > 0) what.push(`fields: ${s.fieldMisses.join('; ')}`);
    if (!s.phaseRight) what.push(`phase ${s.phase} (${s.phaseBasis}), expected ${s.expectedPhase}`);
    lines.push(`- ${s.id}: ${what.join(' · ')}`);
  }
  return `${lines.join('\n')}\n`;
}

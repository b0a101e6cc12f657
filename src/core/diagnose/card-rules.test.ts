/**
 * The environment rules over a recorded run's nvidia-smi samples, on samples built in code (the
 * end-to-end tests in test/diagnose-run.test.ts record them with the stand-in nvidia-smi).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findingWords } from '../../words/diagnosis.js';
import type { Lang } from '../../words/lang.js';
import type { OomMatch } from '../oom/index.js';
import type { GpuSampleRecord, ProcessSampleRecord } from '../run-record.js';
import {
  cardFindingsOfRecords,
  type RecordRuleInput,
  smiUsedEvidenceOfRecords,
} from '../test-helpers/card-rules-records.js';
import { GIB } from '../units.js';
import { cardFindings, type RunSamples, smiUsedEvidence } from './card-rules.js';
import { type DiagnoseInput, diagnose as diagnoseData } from './diagnose.js';
import type { RuleInput } from './rule-kit.js';
import { sampleColumns } from './samples.js';

const CARD = 80 * GIB;
const UUID = 'GPU-aaaa';

function gpu(tMs: number, usedBytes: number, ownBytes: number | null, over: Partial<GpuSampleRecord> = {}) {
  return {
    tMs,
    gpu: 0,
    uuid: UUID,
    name: 'NVIDIA H100 80GB HBM3',
    totalBytes: CARD,
    reservedBytes: 0,
    usedBytes,
    freeBytes: CARD - usedBytes,
    utilizationPercent: 90,
    ownBytes,
    ...over,
  } satisfies GpuSampleRecord;
}

function proc(tMs: number, pid: number, name: string, bytes: number, ours: boolean): ProcessSampleRecord {
  return { tMs, gpu: 0, gpuUuid: UUID, pid, name, usedBytes: bytes, ours };
}

/** Ten samples: the run's process at `own`, others as given, the card at `used`. */
function run(own: number, others: readonly [number, string, number][], unlisted = 0): RunSamples {
  const gpus: GpuSampleRecord[] = [];
  const processes: ProcessSampleRecord[] = [];
  for (let t = 0; t < 10; t++) {
    const tMs = 1000 + 100 * t;
    processes.push(proc(tMs, 555, 'python3', own, true));
    for (const [pid, name, bytes] of others) processes.push(proc(tMs, pid, name, bytes, false));
    const used = own + others.reduce((s, o) => s + o[2], 0) + unlisted;
    gpus.push(gpu(tMs + 50, used, own));
  }
  return { gpus, processes };
}

/** The diagnosis with its findings in words (the catalog renders what these tests read). */
const diagnose = (input: DiagnoseInput, lang: Lang = 'en') => {
  const d = diagnoseData(input);
  return { ...d, findings: d.findings.map((f) => findingWords(f, lang)) };
};

const codes = (samples: RunSamples) => diagnose({ samples }).findings.map((f) => f.code);

describe('card rules', () => {
  it('a card the run has to itself: nothing', () => {
    expect(codes(run(20 * GIB, []))).toEqual([]);
  });

  it('other programs on the run’s card, largest first, a warning for a run that did not fail', () => {
    const f = diagnose({
      samples: run(20 * GIB, [
        [901, '/usr/bin/memhog', 2 * GIB],
        [902, './gpu_burn', 30 * GIB],
      ]),
    }).findings;
    expect(f.map((x) => [x.code, x.severity, x.title])).toEqual([
      ['other-processes', 'warn', '2 other processes hold 32.00 GiB on GPU 0'],
    ]);
    expect(f[0]!.evidence.map((e) => `${e.label}: ${e.value}`)).toEqual([
      'process: pid 902 ./gpu_burn: 30.00 GiB',
      'process: pid 901 /usr/bin/memhog: 2.00 GiB',
      'other processes in total: 32.00 GiB',
      'card total: 80.00 GiB',
    ]);
  });

  it('a process of the same program that is not the run’s: a leftover of an earlier run', () => {
    const f = diagnose({ samples: run(20 * GIB, [[444, 'python3', 12 * GIB]]) }).findings;
    expect(f.map((x) => x.code)).toEqual(['leftover-process']);
    expect(f[0]!.evidence.map((e) => `${e.label}: ${e.value}`)).toEqual([
      'process: pid 444 python3: 12.00 GiB',
      'this run’s processes (nvidia-smi): pid 555 python3: 20.00 GiB',
    ]);
  });

  it('memory in use that no listed process accounts for, as the median over the samples', () => {
    const f = diagnose({ samples: run(20 * GIB, [[901, 'memhog', GIB]], 10 * GIB) }).findings;
    expect(f.map((x) => x.code)).toEqual(['other-processes', 'memory-outside-process']);
    expect(f[1]!.title).toBe('10.00 GiB in use on the card that no listed process accounts for');
    expect(f[1]!.evidence.map((e) => `${e.label}: ${e.value}`)).toEqual([
      'nvidia-smi memory.used: 31.00 GiB of 80.00 GiB (39 %)',
      'this run’s processes (nvidia-smi): 20.00 GiB',
      'other processes in total: 1.00 GiB',
      'used by nothing listed: 10.00 GiB (13 % of the card; the median of 10 nvidia-smi samples)',
    ]);
  });

  it('below a tenth of the card, unlisted memory is the driver’s and the display’s: nothing', () => {
    expect(codes(run(20 * GIB, [], 7 * GIB))).toEqual([]);
  });

  it('other processes are an error when the run failed with an out-of-memory message', () => {
    const text =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this process has 46.00 GiB memory in use. Of the allocated memory 44.00 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.';
    const f = diagnose({ text, samples: run(46 * GIB, [[902, './gpu_burn', 32 * GIB]]) }).findings;
    expect(f.find((x) => x.code === 'other-processes')?.severity).toBe('error');
  });

  it('samples without any process of the run (another card, or nvidia-smi cannot see it): nothing', () => {
    const samples = run(20 * GIB, [[902, './gpu_burn', 30 * GIB]]);
    expect(
      codes({
        gpus: samples.gpus.map((g) => ({ ...g, ownBytes: 0 })),
        processes: samples.processes.filter((p) => !p.ours),
      }),
    ).toEqual([]);
    expect(codes({ gpus: [], processes: [] })).toEqual([]);
  });

  it('speaks Chinese with the Chinese catalog', () => {
    const f = diagnose({ samples: run(20 * GIB, [[444, 'python3', 12 * GIB]], 10 * GIB) }, 'zh').findings;
    expect(f.map((x) => x.title)).toEqual([
      '另一个进程占用了这张 GPU 的显存：之前运行残留的进程，或另一个作业',
      '卡上有 10.00 GiB 已被占用，但列出的进程都无法解释',
    ]);
    expect(f[0]!.evidence[0]).toEqual({ label: '进程', value: 'pid 444 python3：12.00 GiB' });
  });

  it('matches processes to cards by index when nvidia-smi gave no UUID', () => {
    const samples = run(20 * GIB, [[902, './gpu_burn', 3 * GIB]]);
    expect(
      codes({
        gpus: samples.gpus.map((g) => ({ ...g, uuid: null })),
        processes: samples.processes.map((p) => ({ ...p, gpuUuid: null })),
      }),
    ).toEqual(['other-processes']);
  });
});

/** What the card rules read besides the samples: whether the run failed with an OOM message. */
function ruleInput(failed: boolean): Omit<RuleInput, 'samples'> {
  return {
    lines: [],
    // The card rules read only whether there is a match (an error, not a warning, then).
    match: failed ? ({} as OomMatch) : null,
    matches: [],
    lookAlike: null,
    phase: { phase: 'unknown', basis: 'none', quote: null, line: null, reason: null },
    timeline: null,
    ranks: [],
    hasText: failed,
    scenario: null,
    baseline: null,
    bitsandbytes: null,
    capacityBytes: null,
    gpu: null,
  } as unknown as Omit<RuleInput, 'samples'>;
}

/** The findings and the nvidia-smi evidence of the rules on columns, and of the rules as written on records. */
function both(samples: RunSamples, failed = false) {
  const base = ruleInput(failed);
  const columns: RuleInput = { ...base, samples: sampleColumns(samples) };
  const records: RecordRuleInput = { ...base, samples };
  return {
    columns: { findings: cardFindings(columns), smi: smiUsedEvidence(columns) },
    records: { findings: cardFindingsOfRecords(records), smi: smiUsedEvidenceOfRecords(records) },
  };
}

const GPU_RECORD = fc.record({
  gpu: fc.constantFrom(0, 1),
  uuid: fc.constantFrom(null, 'GPU-a', 'GPU-b', ''),
  name: fc.constantFrom(null, 'NVIDIA H100 80GB HBM3'),
  totalBytes: fc.constantFrom(null, 40 * GIB, 80 * GIB),
  usedBytes: fc.option(fc.constantFrom(0, 10, 20, 40, 60, 80).map((g) => g * GIB)),
  ownBytes: fc.option(fc.constantFrom(0, 10, 20).map((g) => g * GIB)),
  reservedBytes: fc.constant(null),
  freeBytes: fc.constant(null),
  utilizationPercent: fc.constant(null),
});

const PROCESS_RECORD = fc.record({
  gpu: fc.constantFrom(null, 0, 1),
  gpuUuid: fc.constantFrom(null, 'GPU-a', 'GPU-b'),
  pid: fc.option(fc.integer({ min: 1, max: 3 })),
  name: fc.constantFrom(null, 'python3', './gpu_burn'),
  usedBytes: fc.option(fc.constantFrom(0, 5, 10, 20).map((g) => g * GIB)),
  ours: fc.boolean(),
});

/**
 * Records with times that go up by 0 to 2 (a batch of rows of one time) × 100 ms. The figures are few
 * and coarse, so that ties (the same peak twice, the same median reading) come often: which of the tied
 * rows a rule shows is part of what must not change.
 */
function timed<T>(rows: fc.Arbitrary<T>, steps: fc.Arbitrary<number[]>) {
  return fc.tuple(fc.array(rows, { maxLength: 40 }), steps).map(([list, ups]) => {
    let t = 1000;
    return list.map((r, i) => {
      t += 100 * (ups[i % ups.length] ?? 1);
      return { ...r, tMs: t };
    });
  });
}

const SAMPLES: fc.Arbitrary<RunSamples> = fc.record({
  gpus: timed(GPU_RECORD, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1 })),
  processes: timed(PROCESS_RECORD, fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1 })),
});

describe('card rules on columns, as on records', () => {
  it('each case above: the same findings and evidence as the rules written on records', () => {
    const cases: RunSamples[] = [
      run(20 * GIB, []),
      run(20 * GIB, [
        [901, '/usr/bin/memhog', 2 * GIB],
        [902, './gpu_burn', 30 * GIB],
      ]),
      run(20 * GIB, [[444, 'python3', 12 * GIB]], 10 * GIB),
      run(20 * GIB, [[901, 'memhog', GIB]], 10 * GIB),
      run(20 * GIB, [], 7 * GIB),
    ];
    const codes = new Set<string>();
    for (const samples of cases)
      for (const failed of [false, true]) {
        const r = both(samples, failed);
        expect(r.columns).toEqual(r.records);
        for (const f of r.columns.findings) codes.add(f.code);
        expect(r.columns.smi).not.toBeNull();
      }
    expect([...codes].sort()).toEqual(['leftover-process', 'memory-outside-process', 'other-processes']);
  });

  it('any samples (missing UUIDs, names, figures; several cards, batches of one time): the same', () => {
    let found = 0;
    fc.assert(
      fc.property(SAMPLES, fc.boolean(), (samples, failed) => {
        const r = both(samples, failed);
        expect(r.columns).toEqual(r.records);
        found += r.columns.findings.length;
      }),
      { numRuns: 1000, seed: 22 },
    );
    // Not only empty findings: the generated samples make every rule speak now and then.
    expect(found).toBeGreaterThan(100);
  });
});

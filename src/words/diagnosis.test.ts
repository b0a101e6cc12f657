import { describe, expect, it } from 'vitest';
import { EVIDENCE_LABELS } from '../core/diagnose/evidence.js';
import { FINDING_ORDER, type Finding } from '../core/diagnose/finding.js';
import { say } from './catalog.js';
import { DIAGNOSIS, findingWords, GROUP_WORDS, remedyFigure, SEVERITY_WORDS } from './diagnosis.js';
import { EVIDENCE, EVIDENCE_LABEL_WORDS, PART_WORDS } from './evidence.js';
import { FINDING_ACTIONS } from './finding-actions.js';
import { FINDING_EXAMPLES, FINDINGS } from './findings.js';
import { OOM_TERMS } from './oom.js';
import { REMEDIES } from './remedies.js';

const HAN = /[\u4e00-\u9fff]/;
const GIB = 2 ** 30;

const example = (code: (typeof FINDING_ORDER)[number]) =>
  ({ code, params: FINDING_EXAMPLES[code] }) as Finding;

describe('finding words', () => {
  it('has a title and an action for every finding code, in both languages', () => {
    for (const words of [FINDINGS.words, FINDING_ACTIONS.words])
      for (const lang of ['en', 'zh'] as const)
        expect(Object.keys(words[lang]).sort()).toEqual([...FINDING_ORDER].sort());
  });

  it.each(FINDING_ORDER.map((c) => [c]))(
    '%s: a Chinese title and action, an English one in English',
    (code) => {
      for (const domain of [FINDINGS, FINDING_ACTIONS]) {
        expect(say(domain, 'zh', example(code))).toMatch(HAN);
        expect(say(domain, 'en', example(code))).not.toMatch(HAN);
      }
    },
  );

  it('formats the raw figures of a finding in the words', () => {
    const f = {
      code: 'other-processes',
      severity: 'error',
      group: 'environment',
      params: { count: 2, bytes: 3 * GIB, gpus: [0, 1] },
      evidence: [
        {
          label: 'process',
          value: { code: 'process', params: { pid: 4242, name: 'python3', bytes: 2.5 * GIB } },
        },
        {
          label: 'unaccounted',
          value: { code: 'share-of-card', params: { bytes: 10 * GIB, cardBytes: 80 * GIB } },
        },
      ],
    } as const satisfies Finding;
    expect(findingWords(f, 'en')).toMatchObject({
      title: '2 other processes hold 3.00 GiB on GPU 0, 1',
      evidence: [
        { label: 'process', value: 'pid 4242 python3: 2.50 GiB' },
        { label: 'used by nothing listed', value: '10.00 GiB (13 % of the card)' },
      ],
    });
    expect(findingWords(f, 'zh')).toMatchObject({
      title: 'GPU 0, 1 上有 2 个其他进程占用了 3.00 GiB',
      evidence: [
        { label: '进程', value: 'pid 4242 python3：2.50 GiB' },
        { label: '列出的进程之外的占用', value: '10.00 GiB（占显卡的 13 %）' },
      ],
    });
    expect(say(FINDINGS, 'en', { code: 'other-processes', params: { count: 1, bytes: GIB, gpus: [] } })).toBe(
      '1 other process holds 1.00 GiB on GPU ?',
    );
  });

  it('words that carry figures keep them', () => {
    const step = { fromBytes: 6 * GIB, fromStep: 4, toBytes: 9 * GIB, toStep: 30 };
    expect(say(EVIDENCE, 'zh', { code: 'step-range', params: step })).toBe(
      '第 4 步 6.00 GiB → 第 30 步 9.00 GiB',
    );
    expect(say(EVIDENCE, 'en', { code: 'step-range', params: step })).toBe(
      '6.00 GiB at step 4 → 9.00 GiB at step 30',
    );
    const short = { savedBytes: 6.66 * GIB, headroomAfterBytes: -1.65 * GIB };
    expect(remedyFigure(short, 'zh')).toBe('−6.66 GiB，仍差 1.65 GiB');
    expect(remedyFigure(short, 'en')).toBe('−6.66 GiB, still 1.65 GiB short');
    expect(remedyFigure({ savedBytes: GIB, headroomAfterBytes: null }, 'en')).toBe('−1.00 GiB');
    expect(say(REMEDIES, 'zh', { code: 'micro-batch', params: { from: 4, to: 1 } })).toBe(
      'micro-batch 4 → 1，并增加梯度累积',
    );
    expect(say(FINDINGS, 'zh', { code: 'activations', params: { phase: 'forward' } })).toBe(
      '在前向传播中失败：激活值放不下',
    );
    expect(
      say(DIAGNOSIS, 'en', { code: 'run-head', params: { id: 3, name: 'leak', status: 'ok', steps: 1 } }),
    ).toBe('run 3 "leak" · ok · 1 step');
  });
});

describe('word tables', () => {
  it('has every label in both languages', () => {
    for (const lang of ['en', 'zh'] as const)
      expect(Object.keys(EVIDENCE_LABEL_WORDS[lang]).sort()).toEqual([...EVIDENCE_LABELS].sort());
  });

  it('every Chinese label, group, severity, part, phase, basis, reason and family is Chinese or a name kept as written', () => {
    const kept = new Set([
      'rank',
      'num_alloc_retries',
      'nvidia-smi memory.used',
      'NCCL',
      'JAX/XLA',
      'TensorFlow',
      'bitsandbytes',
    ]);
    const zh = OOM_TERMS.zh;
    for (const table of [
      EVIDENCE_LABEL_WORDS.zh,
      GROUP_WORDS.zh,
      SEVERITY_WORDS.zh,
      PART_WORDS.zh,
      zh.phases,
      zh.bases,
      zh.reasons,
      zh.families,
    ])
      for (const value of Object.values(table)) if (!kept.has(value)) expect(value).toMatch(HAN);
    for (const table of [EVIDENCE_LABEL_WORDS.en, GROUP_WORDS.en, OOM_TERMS.en.reasons, OOM_TERMS.en.phases])
      for (const value of Object.values(table)) expect(value).not.toMatch(HAN);
  });
});

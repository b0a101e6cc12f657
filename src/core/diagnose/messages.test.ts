/** The message catalogs: Chinese has every key English has, and speaks Chinese wherever it speaks. */
import { describe, expect, it } from 'vitest';
import { FINDING_ORDER, type FindingCode } from './finding.js';
import { CATALOGS, catalogFor, EN, type FindingParams, type MessageCatalog, ZH } from './messages.js';

/** Every key path of a catalog object ("findings.leak.title", "words.figures.free"). */
function keys(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [prefix];
  return Object.entries(value as Record<string, unknown>)
    .flatMap(([k, v]) => keys(v, prefix === '' ? k : `${prefix}.${k}`))
    .sort();
}

const HAN = /[\u4e00-\u9fff]/;

/** Parameters that satisfy every finding's text function. */
const PARAMS: { readonly [C in FindingCode]: FindingParams[C] } = {
  'no-oom-message': {},
  'not-an-oom': { error: 'CUDA error: an illegal memory access was encountered', kind: 'cuda' },
  'other-processes': { count: 2, bytes: '3.00 GiB', gpu: '0' },
  'own-process-in-container': { pid: '562167', bytes: '15.25 GiB' },
  'leftover-process': {},
  'memory-outside-process': { bytes: '10.00 GiB' },
  'free-exceeds-request': { free: '2.00 GiB', requested: '20.0 MiB' },
  'numberless-oom': { family: 'nccl' },
  'framework-preallocation': { framework: 'xla' },
  'request-exceeds-card': { requested: '90.00 GiB', total: '80.00 GiB', unbounded: false },
  'allocated-exceeds-card': { allocated: '25.00 GiB', total: '24.00 GiB' },
  'host-memory': { kind: 'dataloader' },
  'second-model-copy': {},
  'old-bitsandbytes': { version: '0.42.0' },
  'weights-at-load': {},
  activations: { phase: 'backward' },
  'optimizer-states': {},
  'rank-imbalance': {},
  'evaluation-memory': {},
  'checkpoint-save': {},
  'mid-run': {},
  'phase-unknown': {},
  leak: { where: 'rank 0, GPU 0' },
  'eval-growth': {},
  fragmentation: { cached: null, legacy: false },
  'stable-full': {},
  'alloc-retries': { count: 10 },
};

function text(catalog: MessageCatalog, code: FindingCode, part: 'title' | 'action'): string {
  const f = catalog.findings[code] as { readonly [P in typeof part]: (p: unknown) => string };
  return f[part](PARAMS[code]);
}

describe('message catalogs', () => {
  it('Chinese has exactly the keys English has', () => {
    expect(keys(ZH)).toEqual(keys(EN));
    expect(Object.keys(ZH.findings).sort()).toEqual([...FINDING_ORDER].sort());
  });

  it.each(FINDING_ORDER.map((c) => [c]))(
    '%s: a Chinese title and action, an English one in English',
    (code) => {
      expect(text(ZH, code, 'title')).toMatch(HAN);
      expect(text(ZH, code, 'action')).toMatch(HAN);
      expect(text(EN, code, 'title')).not.toMatch(HAN);
      expect(text(EN, code, 'action')).not.toMatch(HAN);
    },
  );

  it('every Chinese label, group, phase and family is Chinese or a name kept as written', () => {
    const kept = new Set([
      'rank',
      'num_alloc_retries',
      'nvidia-smi memory.used',
      'NCCL',
      'JAX/XLA',
      'TensorFlow',
      'bitsandbytes',
    ]);
    for (const table of [
      ZH.labels,
      ZH.groups,
      ZH.severities,
      ZH.phases,
      ZH.bases,
      ZH.phaseReasons,
      ZH.families,
    ])
      for (const value of Object.values(table)) if (!kept.has(value)) expect(value).toMatch(HAN);
  });

  it('words that carry figures keep them', () => {
    expect(ZH.words.atStep('6.00 GiB', '4')).toBe('第 4 步 6.00 GiB');
    expect(ZH.words.remedyShort('6.66 GiB', '1.65 GiB')).toBe('−6.66 GiB，仍差 1.65 GiB');
    expect(ZH.remedies['micro-batch']({ from: '4', to: '1' })).toBe('micro-batch 4 → 1，并增加梯度累积');
    expect(ZH.findings.activations.title({ phase: 'forward' })).toBe('在前向传播中失败：激活值放不下');
  });

  it('picks the catalog from a language or locale code', () => {
    expect(catalogFor('zh')).toBe(ZH);
    expect(catalogFor('zh_CN.UTF-8')).toBe(ZH);
    expect(catalogFor('zh-TW')).toBe(ZH);
    expect(catalogFor('en_US.UTF-8')).toBe(EN);
    expect(catalogFor('C.UTF-8')).toBe(EN);
    expect(catalogFor('')).toBe(EN);
    expect(catalogFor(undefined)).toBe(EN);
    expect(CATALOGS).toEqual({ en: EN, zh: ZH });
  });
});

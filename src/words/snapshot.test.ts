/** The words: every finding in both languages, with its figures. */
import { describe, expect, it } from 'vitest';
import type { SnapshotFinding } from '../core/snapshot/analyse.js';
import { formatBytes } from '../core/units.js';
import { EN, findingText, formatError, snapshotWords, ZH } from './snapshot.js';

const GIB = 2 ** 30;
const SAMPLES: SnapshotFinding[] = [
  {
    code: 'fragmentation-high',
    params: {
      inactiveBytes: 4 * GIB,
      reservedBytes: 6 * GIB,
      share: 2 / 3,
      largestInactiveBlockBytes: 124 * 2 ** 20,
    },
  },
  {
    code: 'oom-in-trace',
    params: {
      device: 0,
      eventIndex: 41,
      requestedBytes: GIB,
      deviceFreeBytes: 10 * 2 ** 20,
      activeBytes: 5 * GIB,
      reservedBytes: 7 * GIB,
    },
  },
  { code: 'no-trace', params: {} },
  { code: 'unattributed-large', params: { bytes: GIB, share: 0.185, beforeRecordingBytes: GIB } },
  { code: 'pending-free', params: { bytes: 3 * GIB } },
  {
    code: 'estimate-part-low',
    params: {
      part: 'activations',
      estimateBytes: GIB,
      measuredBytes: 2 * GIB,
      error: -0.5,
      unattributedBytes: 0,
    },
  },
  {
    code: 'estimate-part-high',
    params: {
      part: 'weights',
      estimateBytes: 3 * GIB,
      measuredBytes: 2 * GIB,
      error: 0.5,
      unattributedBytes: GIB,
    },
  },
];

describe('snapshot words', () => {
  it('covers every finding code in the samples', () => {
    expect(new Set(SAMPLES.map((s) => s.code)).size).toBe(Object.keys(EN.findings).length);
  });
  it.each(SAMPLES.map((s) => [s.code, s] as const))(
    '%s reads in English and Chinese, with its figures',
    (_code, f) => {
      const en = findingText(EN, f);
      const zh = findingText(ZH, f);
      expect(en.title).not.toBe(zh.title);
      expect(zh.title + zh.hint).toMatch(/[\u4e00-\u9fff]/);
      for (const value of Object.values(f.params)) {
        if (typeof value === 'number' && value >= 2 ** 20) {
          expect(en.title).toContain(formatBytes(value));
          expect(zh.title).toContain(formatBytes(value));
        }
      }
    },
  );
  it('formats errors with their sign', () => {
    expect(formatError(-0.5)).toBe('-50 %');
    expect(formatError(0.123)).toBe('+12 %');
    expect(formatError(null)).toBe('—');
  });
  it('picks the language from a locale', () => {
    expect(snapshotWords('zh_CN.UTF-8')).toBe(ZH);
    expect(snapshotWords('en_US')).toBe(EN);
    expect(snapshotWords(undefined)).toBe(EN);
  });
  it('names a part in the estimate findings by the catalog’s part word', () => {
    expect(findingText(ZH, SAMPLES[5]!).title).toContain('激活');
    expect(findingText(EN, SAMPLES[5]!).title).toContain('activations are too low');
  });
});

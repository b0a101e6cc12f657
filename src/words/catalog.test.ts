/**
 * Every code of every domain has words in every language: each domain's example params are rendered
 * in English and Chinese, and the words must be non-empty, must not leak an unformatted placeholder,
 * and the Chinese must be Chinese (a CJK character in every entry that is not a figure alone).
 */
import { describe, expect, it } from 'vitest';
import { FORMATS } from './format.js';
import { DOMAINS } from './index.js';
import { LANGS, langOf } from './lang.js';

const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

describe('the catalog', () => {
  it('lists domains, each with a distinct name', () => {
    expect(DOMAINS.length).toBeGreaterThan(0);
    expect(new Set(DOMAINS.map((d) => d.name)).size).toBe(DOMAINS.length);
  });

  for (const domain of DOMAINS) {
    describe(domain.name, () => {
      const codes = Object.keys(domain.examples);
      it('has an example for every code it words, and words for every example, in every language', () => {
        for (const lang of LANGS) expect(Object.keys(domain.words[lang]).sort()).toEqual([...codes].sort());
      });
      it.each(codes)('%s reads in English and Chinese', (code) => {
        for (const lang of LANGS) {
          const words = domain.words[lang][code]!;
          const text = words(domain.examples[code] as never, FORMATS[lang]);
          expect(text.trim().length).toBeGreaterThan(0);
          expect(text).not.toMatch(/undefined|NaN|\[object Object\]|\$\{/);
          if (lang === 'zh' && /[A-Za-z]{4,}/.test(text.replace(/[\w./-]*[_=.:/-][\w./=-]*|--[\w-]+/g, '')))
            expect(text).toMatch(CJK);
        }
      });
    });
  }
});

describe('langOf', () => {
  it.each([
    ['zh', 'zh'],
    ['zh_CN.UTF-8', 'zh'],
    ['zh-Hans', 'zh'],
    ['en_US.UTF-8', 'en'],
    ['C', 'en'],
    ['', 'en'],
    [undefined, 'en'],
  ] as const)('%s speaks %s', (locale, lang) => expect(langOf(locale)).toBe(lang));
});

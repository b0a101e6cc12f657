/** The Migrate page in a real browser: the core's checklist, worded by the catalog in English and in Chinese. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGpu } from '../../src/core/catalog/index.js';
import { checkMigration } from '../../src/core/migrate.js';
import { resolveModelRef } from '../../src/core/model-ref.js';
import { parseScenario } from '../../src/core/scenario.js';
import { createApp } from '../../src/server/app.js';
import { say } from '../../src/words/catalog.js';
import { checkWords } from '../../src/words/migrate-checks.js';
import { MIGRATE_NOT_CHECKED } from '../../src/words/migrate-report.js';
import { REPO_ROOT } from '../data.js';
import { browserSession, screenshot } from './browser.js';

const session = browserSession(() => createApp({ webRoot: join(REPO_ROOT, 'dist', 'web') }));

/** CJK ideographs and full-width punctuation: what makes a line Chinese. */
const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

describe('the Migrate page', () => {
  // The page's defaults: the Estimate page's default scenario, from an A10G to an L4.
  const report = () => {
    const scenario = parseScenario({
      model: 'llama-3.1-8b',
      method: 'lora',
      precision: 'bf16-true',
      lora: { rank: 16, targets: ['q_proj', 'v_proj'] },
      gpu: 'rtx-4090',
    });
    return checkMigration({
      scenario,
      shape: resolveModelRef('llama-3.1-8b')!.shape,
      from: { label: 'a10g', env: null, gpu: findGpu('a10g')! },
      to: { label: 'l4', env: null, gpu: findGpu('l4')! },
    });
  };

  it('lists the core’s checks with their reasons, then in Chinese the titles, reasons and actions', async () => {
    const { page } = session;
    await page.goto(`${session.url}/#/migrate`);
    const expected = report();
    const memory = expected.items.find((i) => i.id === 'memory-fit')!;
    const en = checkWords('en', memory);
    await expect.poll(() => page.getByTestId('checklist').textContent()).toContain(en.title);
    expect(await page.getByTestId('checklist').textContent()).toContain(en.reason);
    await page.getByTestId('lang-zh').click();
    await expect.poll(() => page.getByTestId('checklist').textContent()).toContain('峰值显存放得下目标 GPU');
    const zh = (await page.getByTestId('checklist').textContent())!;
    expect(zh).toContain(memory.status === 'pass' ? '通过' : memory.status === 'warn' ? '警告' : '失败');
    expect(zh).toContain('冒烟运行');
    // Every check: its Chinese title, reason and action from the catalog, and no English reason left.
    for (const item of expected.items) {
      const words = checkWords('zh', item);
      const english = checkWords('en', item);
      const line = (await page.getByTestId(`check-${item.id}`).textContent())!;
      expect(line).toContain(words.title);
      expect(line).toContain(words.reason);
      expect(line).not.toContain(english.reason);
      expect(words.title).toMatch(CJK);
      expect(words.reason).toMatch(CJK);
      if (words.action !== null) {
        expect(line).toContain(words.action);
        expect(words.action).toMatch(CJK);
      }
    }
    // An item with an action (the save interval, unknown here) shows it in Chinese.
    expect(expected.items.some((i) => i.action !== null)).toBe(true);
    for (const n of expected.notChecked) expect(zh).toContain(say(MIGRATE_NOT_CHECKED, 'zh', n));
    await screenshot(page, 'migrate-page-zh');
    await page.getByTestId('lang-en').click();
    await expect.poll(() => page.getByTestId('checklist').textContent()).toContain(en.reason);
  });
});

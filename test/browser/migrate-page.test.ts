/** The Migrate page in a real browser: the core's checklist, in English and in Chinese. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGpu } from '../../src/core/catalog/index.js';
import { checkMigration } from '../../src/core/migrate.js';
import { resolveModelRef } from '../../src/core/model-ref.js';
import { parseScenario } from '../../src/core/scenario.js';
import { createApp } from '../../src/server/app.js';
import { REPO_ROOT } from '../data.js';
import { browserSession, screenshot } from './browser.js';

const session = browserSession(() => createApp({ webRoot: join(REPO_ROOT, 'dist', 'web') }));

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

  it('lists the core’s checks with their reasons, then in Chinese the titles and statuses', async () => {
    const { page } = session;
    await page.goto(`${session.url}/#/migrate`);
    const expected = report();
    const memory = expected.items.find((i) => i.id === 'memory-fit')!;
    await expect.poll(() => page.getByTestId('checklist').textContent()).toContain(memory.title);
    expect(await page.getByTestId('checklist').textContent()).toContain(memory.reason);
    await page.getByTestId('lang-zh').click();
    await expect.poll(() => page.getByTestId('checklist').textContent()).toContain('峰值显存放得下目标 GPU');
    const zh = (await page.getByTestId('checklist').textContent())!;
    expect(zh).toContain(memory.status === 'pass' ? '通过' : memory.status === 'warn' ? '警告' : '失败');
    expect(zh).toContain('冒烟运行');
    await screenshot(page, 'migrate-page-zh');
    await page.getByTestId('lang-en').click();
  });
});

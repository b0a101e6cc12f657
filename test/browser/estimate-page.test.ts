/** The Estimate page in a real browser: the bar redraws with the new figure as the batch changes. */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../../src/core/architecture.js';
import { findGpu, findModel } from '../../src/core/catalog/index.js';
import { estimate } from '../../src/core/estimate.js';
import { parseScenario } from '../../src/core/scenario.js';
import { formatBytes } from '../../src/core/units.js';
import { createApp } from '../../src/server/app.js';
import { REPO_ROOT } from '../shared.js';
import { launch, listen, screenshot } from './browser.js';

let browser: BrowserContext;
let server: { url: string; stop: () => Promise<void> };
let page: Page;

beforeAll(async () => {
  browser = await launch();
  server = await listen(createApp({ webRoot: join(REPO_ROOT, 'dist', 'web') }));
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const expected = (fields: Record<string, unknown>) => {
  const scenario = parseScenario({
    model: 'llama-3.1-8b',
    method: 'lora',
    precision: 'bf16-true',
    ...(fields.method === 'full' ? {} : { lora: { rank: 16, targets: ['q_proj', 'v_proj'] } }),
    gpu: 'rtx-4090',
    ...fields,
  });
  return estimate({
    scenario,
    shape: shapeFromConfig(findModel('llama-3.1-8b')!),
    gpu: findGpu('rtx-4090')!,
    terms: true,
  });
};

describe('Estimate page', () => {
  it('shows the estimate the core computes, and redraws when the micro-batch changes', async () => {
    await page.goto(`${server.url}/#/estimate`);
    const one = expected({ microBatchSize: 1 });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(one.peak.deviceBytes));
    expect(await page.getByTestId('part-activations').textContent()).toBe(
      formatBytes(one.components.activations),
    );
    await screenshot(page, 'estimate-page');

    await page.getByTestId('micro-batch').fill('4');
    const four = expected({ microBatchSize: 4 });
    await expect
      .poll(() => page.getByTestId('part-activations').textContent())
      .toBe(formatBytes(four.components.activations));
    expect(await page.getByTestId('peak-deviceBytes').textContent()).toBe(formatBytes(four.peak.deviceBytes));
    expect(four.components.activations).toBeGreaterThan(one.components.activations * 3);
    // The scenario lives in the URL, so the link reproduces it.
    expect(page.url()).toContain('microBatchSize=4');
    await screenshot(page, 'estimate-page-batch-4');
  });

  it("lists the estimate's notes: a sequence past the model's context window says so", async () => {
    await page.goto(`${server.url}/#/estimate`);
    await expect.poll(() => page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(expected({}).notes).toEqual([]);
    expect(await page.getByTestId('estimate-notes').count()).toBe(0);

    await page.goto(`${server.url}/#/estimate?model=llama-2-7b&seqLen=16384`);
    await expect
      .poll(() => page.getByTestId('estimate-notes').textContent())
      .toContain("sequence 16384 is past the model's 4096-token context window");
    await screenshot(page, 'estimate-page-notes');
    // The same note, in Chinese, from the same code and figures.
    await page.getByTestId('lang-zh').click();
    await expect
      .poll(() => page.getByTestId('estimate-notes').textContent())
      .toContain('序列长度 16384 超过模型 4096 token 的上下文窗口');
    await page.getByTestId('lang-en').click();
  });

  it('offloads activations when ticked: the core figure, the host memory it needs, and the URL', async () => {
    const base = { method: 'lora', gradientCheckpointing: 'full', seqLen: 8192 };
    await page.goto(`${server.url}/#/estimate?gradientCheckpointing=full&seqLen=8192`);
    const kept = expected(base);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(kept.peak.deviceBytes));
    expect(await page.getByTestId('host-cpu').count()).toBe(0);
    await page.getByTestId('offload-activations').check();
    const off = expected({ ...base, offload: { activations: 'cpu' } });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(off.peak.deviceBytes));
    expect(off.peak.deviceBytes).toBeLessThan(kept.peak.deviceBytes);
    expect(await page.getByTestId('host-cpu').textContent()).toBe(formatBytes(off.host!.cpuBytes));
    expect(page.url()).toContain('offloadActivations=true');
    await screenshot(page, 'estimate-page-offload');
  });

  it('torch.compile drops the fp32 logits of a chunked loss when ticked, and keeps it in the URL', async () => {
    const base = { gradientCheckpointing: 'full', loss: 'chunked', seqLen: 4096 };
    await page.goto(`${server.url}/#/estimate?gradientCheckpointing=full&loss=chunked&seqLen=4096`);
    const eager = expected(base);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(eager.peak.deviceBytes));
    await page.getByTestId('torch-compile').check();
    const compiled = expected({ ...base, torchCompile: true });
    expect(compiled.peak.deviceBytes).toBeLessThan(eager.peak.deviceBytes);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(compiled.peak.deviceBytes));
    expect(page.url()).toContain('torchCompile=true');
  });

  it('offers the fused optimizer kernel for torch optimizers only, and drops the step temporary', async () => {
    const base = { method: 'full', gradientCheckpointing: 'full', optimizer: 'adamw' };
    await page.goto(`${server.url}/#/estimate?method=full&gradientCheckpointing=full`);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expected(base).peak.deviceBytes));
    await page.getByTestId('fused-optimizer').check();
    const fused = expected({ ...base, fusedOptimizer: true });
    expect(fused.peak.deviceBytes).toBeLessThan(expected(base).peak.deviceBytes);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(fused.peak.deviceBytes));
    expect(page.url()).toContain('fusedOptimizer=true');
    // bitsandbytes' 8-bit AdamW is a kernel of its own: no toggle, and the URL's flag is not applied.
    await page.getByTestId('optimizer').selectOption('adamw-8bit');
    await expect.poll(() => page.getByTestId('fused-optimizer').count()).toBe(0);
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expected({ ...base, optimizer: 'adamw-8bit' }).peak.deviceBytes));
  });

  it('offers optimizer and parameter offload only where the strategy allows them', async () => {
    await page.goto(`${server.url}/#/estimate?method=full&gradientCheckpointing=full`);
    await expect.poll(() => page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await page.getByTestId('offload-optimizer').count()).toBe(0);
    await page.getByTestId('strategy').selectOption('zero2');
    await expect.poll(() => page.getByTestId('offload-optimizer').count()).toBe(1);
    expect(await page.getByTestId('offload-params').count()).toBe(0);
    await page.getByTestId('strategy').selectOption('zero3');
    await page.getByTestId('gpus').fill('8');
    await page.getByTestId('offload-optimizer').selectOption('cpu');
    await page.getByTestId('offload-params').selectOption('cpu');
    const off = expected({
      method: 'full',
      gradientCheckpointing: 'full',
      parallelism: { strategy: 'zero3', gpus: 8 },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(off.peak.deviceBytes));
    expect(await page.getByTestId('host-cpu').textContent()).toBe(formatBytes(off.host!.cpuBytes));
    expect(page.url()).toContain('offloadParams=cpu');
  });

  it('shows how the peak adds up, the core’s own terms', async () => {
    await page.goto(`${server.url}/#/estimate?gradientCheckpointing=full&seqLen=8192`);
    const e = expected({ method: 'lora', gradientCheckpointing: 'full', seqLen: 8192 });
    await expect.poll(() => page.getByTestId('peak-terms').count()).toBe(1);
    await page.getByTestId('peak-terms').locator('summary').click();
    expect(await page.getByTestId('peak-terms').locator('tr[data-testid^="term-"]').count()).toBe(
      e.peakTerms!.length,
    );
    for (const term of e.peakTerms!) {
      expect(await page.getByTestId(`term-${term.term}`).locator('td').textContent()).toBe(
        formatBytes(term.bytes),
      );
    }
    expect(await page.getByTestId('term-logits-and-loss').locator('th').textContent()).toBe(
      'logits and loss',
    );
    await screenshot(page, 'estimate-page-terms');
  });

  it('reproduces a scenario from a link, and searches the catalog as you type', async () => {
    await page.goto(
      `${server.url}/#/estimate?model=qwen2.5-7b&method=full&precision=bf16-mixed&gpu=a100-sxm-80gb`,
    );
    await expect
      .poll(() => page.getByTestId('verdict').textContent())
      .toMatch(/^✗ does not fit a100-sxm-80gb/);
    await page.getByTestId('model-search').fill('qwen3 30b');
    await expect.poll(() => page.getByTestId('model-matches').textContent()).toContain('qwen3-30b-a3b');
  });

  it('offers the FSDP options only under FSDP, and redraws with the core figure when one is ticked', async () => {
    const base = { method: 'full', gradAccumSteps: 4, gradientCheckpointing: 'full' };
    await page.goto(
      `${server.url}/#/estimate?method=full&gradAccumSteps=4&gradientCheckpointing=full&strategy=zero2&gpus=4`,
    );
    await expect.poll(() => page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await page.getByTestId('sync-each-micro-batch').count()).toBe(0);
    await page.getByTestId('strategy').selectOption('fsdp');
    const noSync = expected({ ...base, parallelism: { strategy: 'fsdp', gpus: 4 } });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(noSync.peak.deviceBytes));
    await page.getByTestId('sync-each-micro-batch').check();
    const synced = expected({
      ...base,
      parallelism: { strategy: 'fsdp', gpus: 4, syncEachMicroBatch: true },
    });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(synced.peak.deviceBytes));
    expect(synced.peak.deviceBytes).toBeLessThan(noSync.peak.deviceBytes);
    expect(page.url()).toContain('syncEachMicroBatch=true');
  });

  it('asks how long 4-bit layers keep their inputs only for a bitsandbytes base, and keeps the answer in the URL', async () => {
    await page.goto(`${server.url}/#/estimate?method=full`);
    await expect.poll(() => page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await page.getByTestId('quantized-inputs-kept').count()).toBe(0);
    await page.goto(`${server.url}/#/estimate?method=qlora&quantization=nf4`);
    const today = expected({ method: 'qlora', quantization: 'nf4' });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(today.peak.deviceBytes));
    await page.getByTestId('quantized-inputs-kept').selectOption('next-forward');
    const old = expected({ method: 'qlora', quantization: 'nf4', quantizedInputsKept: 'next-forward' });
    await expect
      .poll(() => page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(old.peak.deviceBytes));
    expect(old.peak.deviceBytes).toBeGreaterThan(today.peak.deviceBytes);
    expect(page.url()).toContain('quantizedInputsKept=next-forward');
  });

  it('switches the labels to Simplified Chinese', async () => {
    await page.goto(`${server.url}/#/estimate`);
    await page.getByTestId('lang-zh').click();
    await expect.poll(() => page.getByTestId('nav-runs').textContent()).toBe('运行记录');
    expect(await page.locator('figcaption').textContent()).toContain('激活值');
    // The ladder too: a full fine-tune of an 8B model on the 4090 climbs it in Chinese.
    await page.goto(`${server.url}/#/estimate?method=full`);
    await expect.poll(() => page.getByTestId('ladder').textContent()).toContain('融合 AdamW 内核');
    expect(await page.getByTestId('ladder').textContent()).toContain('预算');
    await screenshot(page, 'estimate-page-zh');
    await page.getByTestId('lang-en').click();
  });
});

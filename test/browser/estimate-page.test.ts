/** The Estimate page in a real browser: the bar redraws with the new figure as the batch changes. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../../src/core/architecture.js';
import { findGpu, findModel } from '../../src/core/catalog/index.js';
import { estimate } from '../../src/core/estimate.js';
import { droppedNote, makePlan } from '../../src/core/plan.js';
import { parseScenario } from '../../src/core/scenario.js';
import { formatBytes } from '../../src/core/units.js';
import { createApp } from '../../src/server/app.js';
import { say } from '../../src/words/catalog.js';
import { FORMATS } from '../../src/words/format.js';
import { PLAN_DROPPED } from '../../src/words/plan-dropped.js';
import { PLAN_RISKS } from '../../src/words/plan-risks.js';
import { PLAN_RUNGS } from '../../src/words/plan-rungs.js';
import { UI_PLAN } from '../../src/words/ui-plan.js';
import { REPO_ROOT } from '../data.js';
import { browserSession, screenshot } from './browser.js';

const session = browserSession(() => createApp({ webRoot: join(REPO_ROOT, 'dist', 'web') }));

const expected = (fields: Record<string, unknown>) => {
  const scenario = parseScenario({
    model: 'llama-3.1-8b',
    method: 'lora',
    // No precision: the page, like the CLI, takes the method's default (docs/scenario.md).
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
    await session.page.goto(`${session.url}/#/estimate`);
    const one = expected({ microBatchSize: 1 });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(one.peak.deviceBytes));
    expect(await session.page.getByTestId('part-activations').textContent()).toBe(
      formatBytes(one.components.activations),
    );
    await screenshot(session.page, 'estimate-page');

    await session.page.getByTestId('micro-batch').fill('4');
    const four = expected({ microBatchSize: 4 });
    await expect
      .poll(() => session.page.getByTestId('part-activations').textContent())
      .toBe(formatBytes(four.components.activations));
    expect(await session.page.getByTestId('peak-deviceBytes').textContent()).toBe(
      formatBytes(four.peak.deviceBytes),
    );
    expect(four.components.activations).toBeGreaterThan(one.components.activations * 3);
    // The scenario lives in the URL, so the link reproduces it.
    expect(session.page.url()).toContain('microBatchSize=4');
    await screenshot(session.page, 'estimate-page-batch-4');
  });

  it("a LoRA rank past the model's hidden size is refused with the same message as the CLI's", async () => {
    await session.page.goto(`${session.url}/#/estimate`);
    await expect.poll(() => session.page.getByTestId('peak-deviceBytes').count()).toBe(1);
    await session.page.getByTestId('lora-rank').fill('5000');
    await expect
      .poll(() => session.page.getByTestId('estimate-error').textContent())
      .toBe(
        'lora.rank: 5000 is more than the hidden size of llama-3.1-8b, 4096: a LoRA rank above it adds parameters, not capacity — a rank from 1 to 4096; 8 to 256 are the usual ones',
      );
    expect(await session.page.getByTestId('peak-deviceBytes').count()).toBe(0);
  });

  it("lists the estimate's notes: a sequence past the model's context window says so", async () => {
    await session.page.goto(`${session.url}/#/estimate`);
    await expect.poll(() => session.page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(expected({}).notes).toEqual([]);
    expect(await session.page.getByTestId('estimate-notes').count()).toBe(0);

    await session.page.goto(`${session.url}/#/estimate?model=llama-2-7b&seqLen=16384`);
    await expect
      .poll(() => session.page.getByTestId('estimate-notes').textContent())
      .toContain("sequence 16384 is past the model's 4096-token context window");
    await screenshot(session.page, 'estimate-page-notes');
    // The same note, in Chinese, from the same code and figures.
    await session.page.getByTestId('lang-zh').click();
    await expect
      .poll(() => session.page.getByTestId('estimate-notes').textContent())
      .toContain('序列长度 16384 超过模型 4096 token 的上下文窗口');
    await session.page.getByTestId('lang-en').click();
  });

  it('offloads activations when ticked: the core figure, the host memory it needs, and the URL', async () => {
    const base = { method: 'lora', gradientCheckpointing: 'full', seqLen: 8192 };
    await session.page.goto(`${session.url}/#/estimate?gradientCheckpointing=full&seqLen=8192`);
    const kept = expected(base);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(kept.peak.deviceBytes));
    expect(await session.page.getByTestId('host-cpu').count()).toBe(0);
    await session.page.getByTestId('offload-activations').check();
    const off = expected({ ...base, offload: { activations: 'cpu' } });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(off.peak.deviceBytes));
    expect(off.peak.deviceBytes).toBeLessThan(kept.peak.deviceBytes);
    expect(await session.page.getByTestId('host-cpu').textContent()).toBe(formatBytes(off.host!.cpuBytes));
    expect(session.page.url()).toContain('offloadActivations=true');
    await screenshot(session.page, 'estimate-page-offload');
  });

  it('torch.compile drops the fp32 logits of a chunked loss when ticked, and keeps it in the URL', async () => {
    const base = { gradientCheckpointing: 'full', loss: 'chunked', seqLen: 4096 };
    await session.page.goto(`${session.url}/#/estimate?gradientCheckpointing=full&loss=chunked&seqLen=4096`);
    const eager = expected(base);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(eager.peak.deviceBytes));
    await session.page.getByTestId('torch-compile').check();
    const compiled = expected({ ...base, torchCompile: true });
    expect(compiled.peak.deviceBytes).toBeLessThan(eager.peak.deviceBytes);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(compiled.peak.deviceBytes));
    expect(session.page.url()).toContain('torchCompile=true');
  });

  it('expandable segments lower the reserve, not allocated, when ticked, and stay in the URL', async () => {
    const base = { gradientCheckpointing: 'full', seqLen: 4096 };
    await session.page.goto(`${session.url}/#/estimate?gradientCheckpointing=full&seqLen=4096`);
    const plain = expected(base);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(plain.peak.deviceBytes));
    await session.page.getByTestId('expandable-segments').check();
    const expandable = expected({ ...base, expandableSegments: true });
    expect(expandable.peak.deviceBytes).toBeLessThan(plain.peak.deviceBytes);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expandable.peak.deviceBytes));
    expect(await session.page.getByTestId('peak-allocatedBytes').textContent()).toBe(
      formatBytes(plain.peak.allocatedBytes),
    );
    expect(session.page.url()).toContain('expandableSegments=true');
  });

  it('takes the method’s precision default, as the CLI does, and says which it is', async () => {
    await session.page.goto(`${session.url}/#/estimate`);
    const lora = expected({});
    expect(lora.peak.deviceBytes).toBe(expected({ precision: 'bf16-true' }).peak.deviceBytes);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(lora.peak.deviceBytes));
    // The range, not a false point: the upper bound beside each level, the one the verdict judges.
    expect(await session.page.getByTestId('upper-deviceBytes').textContent()).toBe(
      `– ${formatBytes(lora.upper.deviceBytes)}`,
    );
    expect(lora.upper.deviceBytes).toBeGreaterThan(lora.peak.deviceBytes);
    const shown = () => session.page.getByTestId('precision').locator('option:checked').textContent();
    expect(await shown()).toBe('default for the method: bf16-true');
    await session.page.getByTestId('method').selectOption('full');
    await expect.poll(shown).toBe('default for the method: bf16-mixed');
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expected({ method: 'full', precision: 'bf16-mixed' }).peak.deviceBytes));
  });

  it('with padded batches, says what the card must hold beside the climb the tops carry', async () => {
    const fields = { method: 'qlora', quantization: 'nf4', seqLen: 1024 };
    const padded = expected({ ...fields, padding: 'longest' });
    expect(padded.upper.neededDeviceBytes).toBeLessThan(padded.upper.deviceBytes);
    await session.page.goto(
      `${session.url}/#/estimate?method=qlora&quantization=nf4&seqLen=1024&padding=longest`,
    );
    await expect
      .poll(() => session.page.getByTestId('upper-needed').textContent())
      .toBe(formatBytes(padded.upper.neededDeviceBytes));
    expect(await session.page.getByTestId('upper-deviceBytes').textContent()).toBe(
      `– ${formatBytes(padded.upper.deviceBytes)}`,
    );
    expect(await session.page.getByTestId('padding').inputValue()).toBe('longest');
    // Batches of one length: no climb, no row.
    await session.page.getByTestId('padding').selectOption('max-length');
    await expect
      .poll(() => session.page.getByTestId('upper-deviceBytes').textContent())
      .toBe(`– ${formatBytes(expected(fields).upper.deviceBytes)}`);
    expect(await session.page.getByTestId('upper-needed').count()).toBe(0);
  });

  it('judges the fit with the margin every command keeps, and the margin field moves it', async () => {
    // Llama-3.1-8B QLoRA at 1408 tokens: its upper bound (22.2 GiB) is inside the 4090 (24.0 GiB) and
    // inside a 5 % margin (22.8), outside the 10 % one (21.6).
    await session.page.goto(`${session.url}/#/estimate?method=qlora&quantization=nf4&seqLen=1408`);
    await expect
      .poll(() => session.page.getByTestId('verdict').textContent())
      .toMatch(/^✗ does not fit rtx-4090/);
    expect(await session.page.getByTestId('verdict-margin').textContent()).toContain(
      'judged with a 10 % margin kept free',
    );
    await session.page.getByTestId('headroom').fill('5');
    await expect.poll(() => session.page.getByTestId('verdict').textContent()).toMatch(/^✓ fits rtx-4090/);
    expect(await session.page.getByTestId('verdict-margin').textContent()).toContain('5 % margin');
    expect(session.page.url()).toContain('headroom=5');
  });

  it('offers the fused optimizer kernel for torch optimizers only, and drops the step temporary', async () => {
    const base = { method: 'full', gradientCheckpointing: 'full', optimizer: 'adamw' };
    await session.page.goto(`${session.url}/#/estimate?method=full&gradientCheckpointing=full`);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expected(base).peak.deviceBytes));
    await session.page.getByTestId('fused-optimizer').check();
    const fused = expected({ ...base, fusedOptimizer: true });
    expect(fused.peak.deviceBytes).toBeLessThan(expected(base).peak.deviceBytes);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(fused.peak.deviceBytes));
    expect(session.page.url()).toContain('fusedOptimizer=true');
    // bitsandbytes' 8-bit AdamW is a kernel of its own: no toggle, and the URL's flag is not applied.
    await session.page.getByTestId('optimizer').selectOption('adamw-8bit');
    await expect.poll(() => session.page.getByTestId('fused-optimizer').count()).toBe(0);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(expected({ ...base, optimizer: 'adamw-8bit' }).peak.deviceBytes));
  });

  it('offers optimizer and parameter offload only where the strategy allows them', async () => {
    await session.page.goto(`${session.url}/#/estimate?method=full&gradientCheckpointing=full`);
    await expect.poll(() => session.page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await session.page.getByTestId('offload-optimizer').count()).toBe(0);
    await session.page.getByTestId('strategy').selectOption('zero2');
    await expect.poll(() => session.page.getByTestId('offload-optimizer').count()).toBe(1);
    expect(await session.page.getByTestId('offload-params').count()).toBe(0);
    await session.page.getByTestId('strategy').selectOption('zero3');
    await session.page.getByTestId('gpus').fill('8');
    await session.page.getByTestId('offload-optimizer').selectOption('cpu');
    await session.page.getByTestId('offload-params').selectOption('cpu');
    const off = expected({
      method: 'full',
      gradientCheckpointing: 'full',
      parallelism: { strategy: 'zero3', gpus: 8 },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(off.peak.deviceBytes));
    expect(await session.page.getByTestId('host-cpu').textContent()).toBe(formatBytes(off.host!.cpuBytes));
    expect(session.page.url()).toContain('offloadParams=cpu');
  });

  it('shows how the peak adds up, the core’s own terms', async () => {
    await session.page.goto(`${session.url}/#/estimate?gradientCheckpointing=full&seqLen=8192`);
    const e = expected({ method: 'lora', gradientCheckpointing: 'full', seqLen: 8192 });
    await expect.poll(() => session.page.getByTestId('peak-terms').count()).toBe(1);
    await session.page.getByTestId('peak-terms').locator('summary').click();
    expect(await session.page.getByTestId('peak-terms').locator('tr[data-testid^="term-"]').count()).toBe(
      e.peakTerms!.length,
    );
    for (const term of e.peakTerms!) {
      expect(await session.page.getByTestId(`term-${term.term}`).locator('td').textContent()).toBe(
        formatBytes(term.bytes),
      );
    }
    expect(await session.page.getByTestId('term-logits-and-loss').locator('th').textContent()).toBe(
      'logits and loss',
    );
    // The reserve's row names what set it: at 8,192 checkpointed tokens, the loss's cached block.
    expect(e.reserveBasis).toBe('loss-block');
    const reserve = session.page.getByTestId('peak-reserve');
    expect(await reserve.getAttribute('data-basis')).toBe('loss-block');
    expect(await reserve.locator('th').textContent()).toBe(
      "+ allocator reserve (the loss's cached logits block)",
    );
    expect(await reserve.locator('td').textContent()).toBe(
      formatBytes(e.peak.reservedBytes - e.peak.allocatedBytes),
    );
    await screenshot(session.page, 'estimate-page-terms');
  });

  it("puts FSDP's stream caches on a row of their own, and none on one GPU", async () => {
    await session.page.goto(
      `${session.url}/#/estimate?method=full&gradientCheckpointing=full&strategy=fsdp&gpus=8&fsdpVersion=2`,
    );
    const e = expected({
      method: 'full',
      gradientCheckpointing: 'full',
      parallelism: { strategy: 'fsdp', gpus: 8, fsdpVersion: 2 },
    });
    expect(e.breakdown.reserveStreamCacheBytes).toBeGreaterThan(0);
    await expect.poll(() => session.page.getByTestId('peak-terms').count()).toBe(1);
    await session.page.getByTestId('peak-terms').locator('summary').click();
    const row = session.page.getByTestId('peak-stream-cache');
    await expect
      .poll(() => row.locator('td').textContent())
      .toBe(formatBytes(e.breakdown.reserveStreamCacheBytes));
    expect(await row.locator('th').textContent()).toBe(
      "+ FSDP streams' cached blocks (gradient shards, all-gather buffer)",
    );
    expect(await session.page.getByTestId('peak-reserve').locator('td').textContent()).toBe(
      formatBytes(e.peak.reservedBytes - e.peak.allocatedBytes - e.breakdown.reserveStreamCacheBytes),
    );
    // The row above nvidia-smi, in the CLI's words (one catalog entry for both).
    const outside = session.page.getByTestId('peak-outside');
    expect(await outside.locator('th').textContent()).toBe(
      '+ outside torch (CUDA context, NCCL, paged states)',
    );
    expect(await outside.locator('td').textContent()).toBe(
      formatBytes(e.peak.deviceBytes - e.peak.reservedBytes),
    );
    await session.page.getByTestId('gpus').fill('1');
    await expect.poll(() => session.page.getByTestId('peak-stream-cache').count()).toBe(0);
  });

  it('reproduces a scenario from a link, and searches the catalog as you type', async () => {
    await session.page.goto(
      `${session.url}/#/estimate?model=qwen2.5-7b&method=full&precision=bf16-mixed&gpu=a100-sxm-80gb`,
    );
    await expect
      .poll(() => session.page.getByTestId('verdict').textContent())
      .toMatch(/^✗ does not fit a100-sxm-80gb/);
    await session.page.getByTestId('model-search').fill('qwen3 30b');
    await expect
      .poll(() => session.page.getByTestId('model-matches').textContent())
      .toContain('qwen3-30b-a3b');
  });

  it('offers the FSDP options only under FSDP, and redraws with the core figure when one is ticked', async () => {
    const base = { method: 'full', gradAccumSteps: 4, gradientCheckpointing: 'full' };
    await session.page.goto(
      `${session.url}/#/estimate?method=full&gradAccumSteps=4&gradientCheckpointing=full&strategy=zero2&gpus=4`,
    );
    await expect.poll(() => session.page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await session.page.getByTestId('sync-each-micro-batch').count()).toBe(0);
    await session.page.getByTestId('strategy').selectOption('fsdp');
    const noSync = expected({ ...base, parallelism: { strategy: 'fsdp', gpus: 4 } });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(noSync.peak.deviceBytes));
    await session.page.getByTestId('sync-each-micro-batch').check();
    const synced = expected({
      ...base,
      parallelism: { strategy: 'fsdp', gpus: 4, syncEachMicroBatch: true },
    });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(synced.peak.deviceBytes));
    expect(synced.peak.deviceBytes).toBeLessThan(noSync.peak.deviceBytes);
    expect(session.page.url()).toContain('syncEachMicroBatch=true');
  });

  it('asks how long 4-bit layers keep their inputs only for a bitsandbytes base, and keeps the answer in the URL', async () => {
    await session.page.goto(`${session.url}/#/estimate?method=full`);
    await expect.poll(() => session.page.getByTestId('peak-deviceBytes').count()).toBe(1);
    expect(await session.page.getByTestId('quantized-inputs-kept').count()).toBe(0);
    await session.page.goto(`${session.url}/#/estimate?method=qlora&quantization=nf4`);
    const today = expected({ method: 'qlora', quantization: 'nf4' });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(today.peak.deviceBytes));
    await session.page.getByTestId('quantized-inputs-kept').selectOption('next-forward');
    const old = expected({ method: 'qlora', quantization: 'nf4', quantizedInputsKept: 'next-forward' });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(old.peak.deviceBytes));
    expect(old.peak.deviceBytes).toBeGreaterThan(today.peak.deviceBytes);
    expect(session.page.url()).toContain('quantizedInputsKept=next-forward');
  });

  it('asks who quantized an NF4 base; torchao shards its scales under FSDP and keeps no inputs', async () => {
    const base = { method: 'qlora', quantization: 'nf4-dq', parallelism: { strategy: 'fsdp', gpus: 4 } };
    await session.page.goto(
      `${session.url}/#/estimate?method=qlora&quantization=nf4-dq&strategy=fsdp&gpus=4`,
    );
    const bnb = expected(base);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(bnb.peak.deviceBytes));
    expect(await session.page.getByTestId('quantized-inputs-kept').count()).toBe(1);
    await session.page.getByTestId('quantizer').selectOption('torchao');
    const torchao = expected({ ...base, quantizer: 'torchao' });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(torchao.peak.deviceBytes));
    expect(torchao.peak.deviceBytes).toBeLessThan(bnb.peak.deviceBytes);
    expect(await session.page.getByTestId('quantized-inputs-kept').count()).toBe(0);
    expect(session.page.url()).toContain('quantizer=torchao');
    // GPTQ is neither library's choice.
    await session.page.getByTestId('quantization').selectOption('int4-gptq');
    expect(await session.page.getByTestId('quantizer').count()).toBe(0);
  });

  it("keeps LoRA adapters in the model's dtype when asked, as torchtune and litgpt do", async () => {
    await session.page.goto(`${session.url}/#/estimate?loraRank=64&loraTargets=all-linear`);
    const lora = { rank: 64, targets: 'all-linear' };
    const peft = expected({ lora });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(peft.peak.deviceBytes));
    await session.page.getByTestId('lora-adapter-dtype').selectOption('model');
    const torchtune = expected({ lora: { ...lora, adapterDtype: 'model' } });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(torchtune.peak.deviceBytes));
    expect(torchtune.peak.deviceBytes).toBeLessThan(peft.peak.deviceBytes);
    expect(session.page.url()).toContain('loraAdapterDtype=model');
  });

  it("sizes DeepSpeed's reduce bucket under ZeRO only, from the field and overlap_comm", async () => {
    const base = { method: 'lora', parallelism: { strategy: 'zero2', gpus: 2 } };
    await session.page.goto(`${session.url}/#/estimate?strategy=zero2&gpus=2`);
    const dflt = expected(base);
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(dflt.peak.deviceBytes));
    await session.page.getByTestId('reduce-bucket-size').fill('2e8');
    await session.page.getByTestId('overlap-comm').check();
    const qwen = expected({
      ...base,
      parallelism: { strategy: 'zero2', gpus: 2, reduceBucketSize: 2e8, overlapComm: true },
    });
    await expect
      .poll(() => session.page.getByTestId('peak-deviceBytes').textContent())
      .toBe(formatBytes(qwen.peak.deviceBytes));
    expect(qwen.breakdown.commBufferBytes).toBe(2 * 2e8 * 2);
    expect(session.page.url()).toContain('overlapComm=true');
    await session.page.getByTestId('strategy').selectOption('fsdp');
    expect(await session.page.getByTestId('reduce-bucket-size').count()).toBe(0);
  });

  it('shows the ladder headroom plan shows: the rungs needed, and those a later rung made pointless', async () => {
    await session.page.goto(`${session.url}/#/estimate?method=full&precision=bf16-true&gpu=rtx-5090`);
    const full = makePlan({
      scenario: parseScenario({
        model: 'llama-3.1-8b',
        method: 'full',
        precision: 'bf16-true',
        gpu: 'rtx-5090',
      }),
      shape: shapeFromConfig(findModel('llama-3.1-8b')!),
      gpu: findGpu('rtx-5090')!,
    });
    expect(full.rungs.map((r) => r.change.id)).toEqual(['full-checkpointing', 'lora']);
    await expect.poll(() => session.page.getByTestId('ladder-dropped').count()).toBe(1);
    const rows = await session.page.getByTestId('ladder').locator('tr').allTextContents();
    // The scenario as given, then each rung shown.
    expect(rows).toHaveLength(full.rungs.length + 1);
    for (const [i, r] of full.rungs.entries()) expect(rows[i + 1]).toContain(say(PLAN_RUNGS, 'en', r.change));
    // Each rung's memory as the range the verdict judges: its estimate, then its upper bound.
    const peaks = await session.page.getByTestId('ladder-peak').allTextContents();
    expect(peaks).toEqual(
      full.rungs.map((r) => FORMATS.en.bytesRange(r.estimate.peak.deviceBytes, r.estimate.upper.deviceBytes)),
    );
    expect(peaks.every((p) => p.includes('–'))).toBe(true);
    const notes = await session.page.getByTestId('ladder-dropped').locator('li').allTextContents();
    expect(notes).toEqual(full.dropped.map((d) => say(PLAN_DROPPED, 'en', droppedNote(full, d))));
    expect(notes.join('\n')).toContain('optimizer adamw → adamw-8bit: saved 14.93 GiB where tried, 297 MiB');
  });

  it('switches the labels to Simplified Chinese', async () => {
    await session.page.goto(`${session.url}/#/estimate`);
    await session.page.getByTestId('lang-zh').click();
    await expect.poll(() => session.page.getByTestId('nav-runs').textContent()).toBe('运行记录');
    expect(await session.page.locator('figcaption').textContent()).toContain('激活值');
    // The ladder too: a full fine-tune of an 8B model on the 5090 climbs it in Chinese, and says in
    // Chinese which rungs the later ones made pointless (the fused AdamW kernel among them).
    await session.page.goto(`${session.url}/#/estimate?method=full&gpu=rtx-5090`);
    await expect
      .poll(() => session.page.getByTestId('ladder').textContent())
      .toContain('在所有线性层上使用 LoRA r16');
    expect(await session.page.getByTestId('ladder').textContent()).toContain('预算');
    const dropped = await session.page.getByTestId('ladder-dropped').textContent();
    expect(dropped).toContain(say(UI_PLAN, 'zh', { code: 'dropped-heading', params: {} }));
    expect(dropped).toContain('融合 AdamW 内核');
    // Each rung, its risk and each dropped rung in the catalog's Chinese: the same plan the page climbs.
    const full = makePlan({
      scenario: parseScenario({ model: 'llama-3.1-8b', method: 'full', gpu: 'rtx-5090' }),
      shape: shapeFromConfig(findModel('llama-3.1-8b')!),
      gpu: findGpu('rtx-5090')!,
    });
    const rows = await session.page.getByTestId('ladder').locator('tr').allTextContents();
    expect(rows).toHaveLength(full.rungs.length + 1);
    for (const [i, r] of full.rungs.entries()) {
      expect(rows[i + 1]).toContain(say(PLAN_RUNGS, 'zh', r.change));
      if (r.risk.level !== 'none') expect(rows[i + 1]).toContain(say(PLAN_RISKS, 'zh', r.risk));
    }
    const risky = full.rungs.find((r) => r.risk.level !== 'none')!;
    expect(say(PLAN_RISKS, 'zh', risky.risk)).toMatch(/^质量：/);
    const notes = await session.page.getByTestId('ladder-dropped').locator('li').allTextContents();
    expect(notes).toEqual(full.dropped.map((d) => say(PLAN_DROPPED, 'zh', droppedNote(full, d))));
    expect(notes).toContain(
      '优化器 adamw → adamw-8bit：尝试时节省 14.93 GiB，叠加在上面的调整之上节省 297 MiB——有了“精度 bf16-mixed → bf16-true”就不再需要',
    );
    await screenshot(session.page, 'estimate-page-zh');
    await session.page.getByTestId('lang-en').click();
  });
});

import { describe, expect, it } from 'vitest';
import { findGpu } from '../core/catalog/index.js';
import { estimate } from '../core/estimate.js';
import { resolveModelRef } from '../core/model-ref.js';
import { parseScenario } from '../core/scenario.js';
import { formatBytes } from '../core/units.js';
import { styleFor } from './_output.js';
import { renderPeakTerms } from './render-estimate.js';

const plain = styleFor({ isTTY: false }, {});
function explain(padding: string, lang: 'en' | 'zh' = 'en') {
  const scenario = parseScenario({
    model: 'llama-3.2-3b',
    method: 'lora',
    precision: 'bf16-true',
    microBatchSize: 4,
    seqLen: 768,
    padding,
  });
  const e = estimate({
    scenario,
    shape: resolveModelRef('llama-3.2-3b')!.shape,
    gpu: findGpu('a100-sxm-80gb')!,
    terms: true,
  });
  return { e, text: renderPeakTerms(e, plain, lang) };
}

describe('renderPeakTerms', () => {
  it('names the reserve’s possible climb over a padded run on a row of its own, outside the sum', () => {
    const { e, text } = explain('longest');
    const growth = e.breakdown.variableLengthReserveBytes;
    expect(growth).toBeGreaterThan(2 ** 30);
    const reserve = e.peak.reservedBytes - e.peak.allocatedBytes;
    expect(text).toMatch(
      new RegExp(
        `\\+ allocator reserve and fragmentation +${formatBytes(reserve)}  = reserved ${formatBytes(e.peak.reservedBytes)}$`,
        'm',
      ),
    );
    expect(text).toContain(
      `(+ reserve climb if padded batches keep reaching the cap, on a card with room)  ${formatBytes(growth).padStart(10)}`,
    );
    // Of it, what a full card must hold: the allocator gives its unsplit cache back first.
    const need = e.breakdown.variableLengthNeedBytes;
    expect(need).toBeGreaterThan(0);
    expect(need).toBeLessThan(growth / 4);
    expect(text).toMatch(
      new RegExp(
        `\\(of it, what a full card must hold, the rest given back: in the upper bound\\) +${formatBytes(need)}$`,
        'm',
      ),
    );
    expect(explain('longest', 'zh').text).toContain('若填充后的批次反复达到上限');
  });
  it('keeps one reserve row for fixed-length batches', () => {
    const { e, text } = explain('max-length');
    expect(text).not.toContain('reserve growth');
    const reserve = formatBytes(e.peak.reservedBytes - e.peak.allocatedBytes);
    expect(text).toMatch(
      new RegExp(
        `\\+ allocator reserve and fragmentation +${reserve}  = reserved ${formatBytes(e.peak.reservedBytes)}$`,
        'm',
      ),
    );
  });
  it('names what set the reserve: the loss\u2019s cached block, or the optimizer step\u2019s temporaries', () => {
    const at = (raw: Record<string, unknown>, lang: 'en' | 'zh' = 'en') => {
      const e = estimate({
        scenario: parseScenario(raw),
        shape: resolveModelRef(String(raw.model))!.shape,
        gpu: findGpu('h200-sxm')!,
        terms: true,
      });
      return { e, text: renderPeakTerms(e, plain, lang) };
    };
    const ckpt = at({ model: 'llama-3.1-8b', method: 'lora', seqLen: 8192, gradientCheckpointing: 'full' });
    expect(ckpt.e.reserveBasis).toBe('loss-block');
    const reserve = formatBytes(ckpt.e.peak.reservedBytes - ckpt.e.peak.allocatedBytes);
    expect(ckpt.text).toMatch(
      new RegExp(
        `^ +\\+ allocator reserve \\(the loss's cached logits block\\) +${reserve}  = reserved`,
        'm',
      ),
    );
    const full = at({ model: 'qwen2.5-7b', method: 'full', precision: 'bf16-true', seqLen: 2048 });
    expect(full.e.reserveBasis).toBe('step-temporaries');
    expect(full.text).toContain('+ allocator reserve (step temporaries beside the cache)');
    const zh = at({ model: 'qwen2.5-7b', method: 'full', precision: 'bf16-true', seqLen: 2048 }, 'zh');
    expect(zh.text).toContain('+ 分配器预留（优化器临时张量在缓存之外）');
    // A large-vocabulary full fine-tune peaking in backward: the blocks AdamW's states took at step 1.
    const states = at({ model: 'qwen2.5-1.5b', method: 'full', precision: 'bf16-true', seqLen: 2048 });
    expect(states.e.peakPhase).toBe('backward');
    expect(states.e.reserveBasis).toBe('optimizer-states');
    expect(states.text).toMatch(
      new RegExp(
        `^ +\\+ allocator reserve \\(cache blocks the first step's states took\\) +${formatBytes(states.e.peak.reservedBytes - states.e.peak.allocatedBytes)}  = reserved`,
        'm',
      ),
    );
    const statesZh = at(
      { model: 'qwen2.5-1.5b', method: 'full', precision: 'bf16-true', seqLen: 2048 },
      'zh',
    );
    expect(statesZh.text).toContain('+ 分配器预留（首步优化器状态占走的缓存块）');
    // The row's label fits the column: the figures still line up with the terms above.
    const lines = full.text.split('\n');
    const column = (needle: string) => {
      const line = lines.find((l) => l.includes(needle))!;
      return line.indexOf('GiB');
    };
    expect(column('allocator reserve')).toBe(column('= allocated'));
  });
  it("puts FSDP's stream caches on a row of their own between the reserve and reserved, in both languages", () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'full',
      precision: 'bf16-mixed',
      gradientCheckpointing: 'full',
      microBatchSize: 2,
      seqLen: 2048,
      parallelism: { strategy: 'fsdp', gpus: 8, fsdpVersion: 2 },
    };
    const e = estimate({
      scenario: parseScenario(raw),
      shape: resolveModelRef('llama-3.1-8b')!.shape,
      gpu: findGpu('h200-sxm')!,
      terms: true,
    });
    const streams = e.breakdown.reserveStreamCacheBytes;
    expect(streams).toBeGreaterThan(2 ** 30);
    const reserve = e.peak.reservedBytes - e.peak.allocatedBytes - streams;
    const text = renderPeakTerms(e, plain, 'en');
    const lines = text.split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(lines[at('allocator reserve')]).toMatch(new RegExp(` ${formatBytes(reserve)}$`));
    expect(lines[at("FSDP streams' cached blocks")]).toMatch(
      new RegExp(` ${formatBytes(streams)}  = reserved ${formatBytes(e.peak.reservedBytes)}$`),
    );
    expect(at("FSDP streams' cached blocks")).toBe(at('allocator reserve') + 1);
    expect(renderPeakTerms(e, plain, 'zh')).toContain('+ FSDP 通信流的缓存块（梯度分片、all-gather 缓冲）');
    // One GPU: no side-stream pools, one reserve row that sums to reserved.
    const one = estimate({
      scenario: parseScenario({ ...raw, parallelism: { strategy: 'fsdp', gpus: 1 } }),
      shape: resolveModelRef('llama-3.1-8b')!.shape,
      gpu: findGpu('h200-sxm')!,
      terms: true,
    });
    expect(renderPeakTerms(one, plain, 'en')).not.toContain('FSDP streams');
  });
});

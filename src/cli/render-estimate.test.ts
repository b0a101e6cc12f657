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
  it('puts the reserve’s growth over a padded run on its own row, the reserve above it without it', () => {
    const { e, text } = explain('longest');
    const growth = e.breakdown.variableLengthReserveBytes;
    expect(growth).toBeGreaterThan(2 ** 30);
    const reserve = e.peak.reservedBytes - e.peak.allocatedBytes - growth;
    expect(text).toMatch(
      new RegExp(`\\+ allocator reserve and fragmentation +${formatBytes(reserve)}\\s*$`, 'm'),
    );
    expect(text).toContain(
      `+ reserve growth over the run (batches padded to their longest)  ${formatBytes(growth).padStart(10)}  = reserved ${formatBytes(e.peak.reservedBytes)}`,
    );
    expect(explain('longest', 'zh').text).toContain('+ 整个训练过程中预留的增长（按批内最长样本填充）');
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
});

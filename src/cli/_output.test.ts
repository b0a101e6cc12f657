import { describe, expect, it } from 'vitest';
import { renderTable, visibleWidth } from './_output.js';

describe('visibleWidth', () => {
  it('counts Chinese characters and full-width punctuation two columns, colour codes none', () => {
    expect(visibleWidth('peak')).toBe(4);
    expect(visibleWidth('峰值')).toBe(4);
    expect(visibleWidth('风险：')).toBe(6);
    expect(visibleWidth('\u001b[32m✓\u001b[39m')).toBe(1);
    expect(visibleWidth('micro-batch 4 → 1，梯度累积 1 → 4')).toBe(33);
  });

  it('aligns a table of Chinese headings as the terminal draws them', () => {
    const table = renderTable(['调整', 'peak'], [['LoRA', '20.03 GiB']], [1]).split('\n');
    expect(table).toEqual(['调整       peak', '────  ─────────', 'LoRA  20.03 GiB']);
  });
});

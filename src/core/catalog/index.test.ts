import { describe, expect, it } from 'vitest';
import { GPUS, MODELS, suggestIds } from './index.js';

const gpuIds = GPUS.map((g) => g.id);
const modelIds = MODELS.map((m) => m.id);

describe('suggestIds', () => {
  it('puts the id that shares the typed model number first', () => {
    expect(suggestIds('4090ti', gpuIds)[0]).toBe('rtx-4090');
    expect(suggestIds('RTX 5090', gpuIds)[0]).toBe('rtx-5090');
    expect(suggestIds('a6000', gpuIds)[0]).toBe('rtx-a6000');
  });

  it('lists the variants of an ambiguous short name', () => {
    const a100 = suggestIds('a100', gpuIds, 4);
    expect(a100).toHaveLength(4);
    for (const id of a100) expect(id).toMatch(/^a100-/);
  });

  it('ranks a one-character slip of a model id first', () => {
    expect(suggestIds('llama3-8b', modelIds)[0]).toBe('llama-3-8b');
    expect(suggestIds('qwen2.5-7B', modelIds)[0]).toBe('qwen2.5-7b');
    expect(suggestIds('mistral-7b', modelIds)[0]).toMatch(/^mistral-7b-v0\./);
  });

  it('returns at most count ids', () => {
    expect(suggestIds('x', gpuIds, 2)).toHaveLength(2);
  });
});

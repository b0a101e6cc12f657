import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario.js';
import { olderInstallAlternatives } from './alternatives.js';

describe('olderInstallAlternatives', () => {
  it('gives the older bitsandbytes behaviour when its version was assumed at today’s release', () => {
    const scenario = parseScenario({
      model: 'llama-2-7b',
      method: 'qlora',
      quantization: 'nf4',
      framework: 'litgpt',
    });
    expect(scenario.quantizedInputsKept).toBe('none');
    const alternatives = olderInstallAlternatives(scenario);
    expect(alternatives.map((s) => s.quantizedInputsKept)).toContain('next-forward');
  });
  it('gives none when the versions are stated, or no framework is named', () => {
    const stated = parseScenario({
      model: 'llama-2-7b',
      method: 'qlora',
      quantization: 'nf4',
      framework: 'litgpt',
      versions: { litgpt: '0.5.11', torch: '2.6.0', bitsandbytes: '0.45.0', lightning: '2.5.0' },
    });
    expect(olderInstallAlternatives(stated).map((s) => s.quantizedInputsKept)).not.toContain('next-forward');
    expect(olderInstallAlternatives(parseScenario({ model: 'llama-2-7b', method: 'lora' }))).toEqual([]);
  });
});

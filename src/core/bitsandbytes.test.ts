import { describe, expect, it } from 'vitest';
import { bitsandbytesKeepsInputs, inputsKept, withBitsandbytes } from './bitsandbytes.js';
import { parseScenario } from './scenario.js';

describe('bitsandbytes versions', () => {
  it('before 0.43.2 a 4-bit layer keeps its input; from 0.43.2 on it does not', () => {
    expect(bitsandbytesKeepsInputs('0.42.0')).toBe(true);
    expect(bitsandbytesKeepsInputs('0.43.1')).toBe(true);
    expect(bitsandbytesKeepsInputs('0.43.2')).toBe(false);
    expect(bitsandbytesKeepsInputs('0.45.0.dev0')).toBe(false);
    expect(bitsandbytesKeepsInputs('1.0')).toBe(false);
    expect(bitsandbytesKeepsInputs('unknown')).toBeNull();
  });

  it('sets what a 4-bit scenario keeps by the installed version, and says when that changed it', () => {
    const nf4 = parseScenario({ model: 'x', method: 'qlora', quantization: 'nf4' });
    expect(withBitsandbytes(nf4, '0.42.0')).toEqual({
      scenario: { ...nf4, quantizedInputsKept: 'step' },
      change: 'kept',
    });
    // A scenario that already says how long (a litgpt loop) keeps its answer on an old version.
    const nextForward = { ...nf4, quantizedInputsKept: 'next-forward' as const };
    expect(withBitsandbytes(nextForward, '0.42.0')).toEqual({ scenario: nextForward, change: null });
    expect(withBitsandbytes(nextForward, '0.44.1')).toEqual({
      scenario: { ...nf4, quantizedInputsKept: 'none' },
      change: 'dropped',
    });
    expect(withBitsandbytes(nf4, null)).toEqual({ scenario: nf4, change: null });
    // int8 keeps its input in every version, and GPTQ is not bitsandbytes.
    const int8 = parseScenario({ model: 'x', method: 'qlora', quantization: 'int8' });
    expect(withBitsandbytes(int8, '0.42.0').change).toBeNull();
    // A torchao base (torchtune) is not bitsandbytes either, whatever version is installed beside it.
    const torchao = parseScenario({
      model: 'x',
      method: 'qlora',
      quantization: 'nf4-dq',
      quantizer: 'torchao',
    });
    expect(withBitsandbytes(torchao, '0.42.0')).toEqual({ scenario: torchao, change: null });
    expect(inputsKept(torchao)).toBe('none');
  });
});

/** Why a part of an environment is missing, read back from a file: its code when well formed, else its reason. */
import { describe, expect, it } from 'vitest';
import { type EnvMissing, envMissingWhy } from '../core/env.js';
import { envMissingText } from './env.js';

describe('envMissingText', () => {
  const captured: EnvMissing = {
    status: 'missing',
    reason: 'nvidia-smi topo -m failed: topo is not supported on this system',
    code: 'failed',
    params: { command: 'nvidia-smi', args: ['topo', '-m'], output: 'topo is not supported on this system' },
  };

  it('words a captured reason in either language from its code', () => {
    expect(envMissingText('en', captured)).toBe(captured.reason);
    expect(envMissingText('zh', captured)).toBe(
      'nvidia-smi topo -m 运行失败：topo is not supported on this system',
    );
  });

  it('a file written before codes has only the English reason, which both languages show', () => {
    const old: EnvMissing = { status: 'missing', reason: 'python3 is not installed (not on PATH)' };
    expect(envMissingWhy(old)).toBeNull();
    expect(envMissingText('zh', old)).toBe('python3 is not installed (not on PATH)');
  });

  it('an unknown code, or params of the wrong shape, fall back to the reason instead of printing undefined', () => {
    for (const part of [
      { ...captured, code: 'no-such-code' },
      { ...captured, params: { command: 'nvidia-smi' } },
      { ...captured, params: { command: 'nvidia-smi', args: 'topo -m', output: 'x' } },
      { ...captured, code: 'toString' },
      { ...captured, params: null },
    ]) {
      expect(envMissingWhy(part)).toBeNull();
      expect(envMissingText('zh', part)).toBe(captured.reason);
    }
  });
});

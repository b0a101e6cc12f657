import { describe, expect, it } from 'vitest';
import { type EnvSnapshot, parseEnvSnapshot, parseFrameworkProbe } from './env.js';
import { versionsFromEnv, versionsFromPackages, withEnvVersions } from './env-versions.js';
import { parseScenario } from './scenario.js';

const missing = { status: 'missing', reason: 'x' };

function envWith(packages: Record<string, string | null>): EnvSnapshot {
  const frameworks = parseFrameworkProbe(JSON.stringify({ python: '3.11.9', packages, torch_cuda: '12.1' }));
  return parseEnvSnapshot(
    JSON.stringify({
      kind: 'headroom-env',
      version: 1,
      host: { hostname: 'gpu1', platform: 'linux', arch: 'x64', cpus: 16, memoryBytes: 128 * 2 ** 30 },
      capturedAt: '2026-12-01T00:00:00Z',
      gpus: missing,
      driver: missing,
      frameworks: { status: 'ok', value: frameworks },
      interconnect: missing,
      disk: missing,
    }),
    'env.json',
  );
}

describe('versions from an environment file', () => {
  it('names each installed package as the scenario does, and leaves out what is not installed', () => {
    const env = envWith({ torch: '2.5.1+cu121', 'flash-attn': '2.6.3', llamafactory: '0.9.1', peft: null });
    expect(versionsFromEnv(env)).toEqual({ torch: '2.5.1+cu121', flashAttn: '2.6.3', llamaFactory: '0.9.1' });
    expect(versionsFromPackages({ numpy: '2.1.0', 'ms-swift': '3.0.0', torch: 'weird build' })).toEqual({
      msSwift: '3.0.0',
    });
  });

  it('gives no versions when the frameworks part is missing', () => {
    const env = { ...envWith({}), frameworks: { status: 'missing', reason: 'no python3' } } as EnvSnapshot;
    expect(versionsFromEnv(env)).toEqual({});
  });

  it('fills only the versions the scenario does not state, and the profile judges them', () => {
    const env = { bitsandbytes: '0.42.0', torch: '2.5.1' } as const;
    const raw = { model: 'llama-3.1-8b', method: 'qlora', quantization: 'nf4', framework: 'hf-trainer' };
    expect(withEnvVersions({ ...raw, versions: { torch: '2.4.0' } }, env).versions).toEqual({
      bitsandbytes: '0.42.0',
      torch: '2.4.0',
    });
    // bitsandbytes 0.42 keeps each 4-bit layer's input for the step under the Trainer.
    expect(parseScenario(withEnvVersions(raw, env)).quantizedInputsKept).toBe('step');
    expect(parseScenario(raw).quantizedInputsKept).toBe('none');
    // A malformed `versions` is left for the parser, which names it.
    expect(withEnvVersions({ ...raw, versions: 'torch=2.5' }, env).versions).toBe('torch=2.5');
  });
});

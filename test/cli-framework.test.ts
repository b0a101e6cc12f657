/**
 * `headroom estimate --framework/--versions/--env`: the framework profile through the CLI — its fields
 * in the scenario, its decision in --json, one line in English and Chinese, each fact under --explain.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(args: readonly string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      LC_ALL: '',
      LC_MESSAGES: '',
      LANG: 'C',
      NO_COLOR: '1',
      HF_ENDPOINT: 'http://127.0.0.1:9',
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const LITGPT = [
  'estimate',
  'llama-2-7b',
  '--method',
  'qlora',
  '--quantization',
  'nf4',
  '--framework',
  'litgpt',
];

interface Json {
  readonly scenario: Record<string, unknown> & {
    readonly profile?: { framework: string; applied: { field: string; value: unknown; factId: string }[] };
  };
  readonly peak: { allocatedBytes: number };
  readonly params: { total: number };
}
const json = (args: readonly string[]): Json => {
  const r = headroom([...args, '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Json;
};

describe('estimate with a framework', () => {
  it('--json carries the fields the profile set and what it decided', () => {
    const out = json([...LITGPT, '--versions', 'bitsandbytes=0.41.1']);
    expect(out.scenario.quantizeHead).toBe(true);
    expect(out.scenario.quantizedInputsKept).toBe('next-forward');
    expect(out.scenario.profile?.framework).toBe('litgpt');
    expect(out.scenario.profile?.applied).toContainEqual({
      field: 'modelConfig.tie_word_embeddings',
      value: false,
      factId: 'litgpt.untied-head',
    });
    // The same run without the framework: the profile's fields change the figures.
    const plain = json(['estimate', 'llama-2-7b', '--method', 'qlora', '--quantization', 'nf4']);
    expect(plain.scenario.profile).toBeUndefined();
    expect(out.peak.allocatedBytes).not.toBe(plain.peak.allocatedBytes);
  });

  it('lets a flag win over the profile', () => {
    const out = json([...LITGPT, '--loss', 'standard']);
    expect(out.scenario.loss).toBe('standard');
    expect(out.scenario.profile?.applied.map((a) => a.field)).not.toContain('loss');
  });

  it('says what the profile set in one line, in English and Chinese, and each fact under --explain', () => {
    const en = headroom(LITGPT);
    expect(en.code).toBe(0);
    expect(en.stdout).toMatch(/litgpt profile: .*adapters in bf16.*head untied/);
    expect(en.stdout).toContain('assumed for unknown versions (give --versions)');
    const zh = headroom([...LITGPT, '--lang', 'zh']);
    expect(zh.stdout).toContain('litgpt 配置：');
    expect(zh.stdout).toContain('输出头不与嵌入共享');
    const explain = headroom([...LITGPT, '--explain']);
    expect(explain.stdout).toContain('modelConfig.tie_word_embeddings = false   (litgpt.untied-head)');
    expect(explain.stdout).toContain('loss = chunked   (litgpt.chunked-loss)');
  });

  it('refuses an unknown framework naming the flag', () => {
    const r = headroom(['estimate', 'llama-2-7b', '--framework', 'nemo']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--framework');
    expect(r.stderr).toContain('hf-trainer');
    expect(r.stderr).not.toContain('    at ');
  });

  it('--env FILE fills the versions the scenario does not state; --versions wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-env-'));
    const file = join(dir, 'env.json');
    const missing = { status: 'missing', reason: 'x' };
    writeFileSync(
      file,
      JSON.stringify({
        kind: 'headroom-env',
        version: 1,
        host: { hostname: 'gpu1', platform: 'linux', arch: 'x64', cpus: 16, memoryBytes: 128 * 2 ** 30 },
        capturedAt: '2026-12-01T00:00:00Z',
        gpus: missing,
        driver: missing,
        frameworks: {
          status: 'ok',
          value: {
            python: '3.11.9',
            packages: { bitsandbytes: '0.42.0', torch: '2.3.1', peft: null },
            torchCuda: '12.1',
          },
        },
        interconnect: missing,
        disk: missing,
      }),
    );
    const hf = [
      'estimate',
      'llama-3.1-8b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--framework',
      'hf-trainer',
    ];
    const fromEnv = json([...hf, '--env', file]);
    expect(fromEnv.scenario.versions).toEqual({ bitsandbytes: '0.42.0', torch: '2.3.1' });
    // bitsandbytes 0.42 keeps each 4-bit layer's input for the step (bnb.inputs-kept-step).
    expect(fromEnv.scenario.quantizedInputsKept).toBe('step');
    const flagWins = json([...hf, '--env', file, '--versions', 'bitsandbytes=0.45.0']);
    expect(flagWins.scenario.versions).toEqual({ bitsandbytes: '0.45.0', torch: '2.3.1' });
    expect(flagWins.scenario.quantizedInputsKept).toBe('none');
    const bad = headroom([...hf, '--env', join(dir, 'nope.json')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('nope.json');
  });
});

/**
 * The parser findings of issue 22's fuzzing pass, one by one: each input that crashed (an internal
 * error, a stack overflow, an exhausted process) is now a typed result or a user error naming the
 * file and the field.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { shapeFromConfig } from '../../src/core/architecture.js';
import { MODELS } from '../../src/core/catalog/index.js';
import { parseEnvSnapshot } from '../../src/core/env.js';
import { importConfig } from '../../src/core/import/import-config.js';
import { parseProbeLine } from '../../src/core/probe-log.js';
import { parseSafetensorsHeader } from '../../src/core/safetensors.js';
import { userErrorOf } from '../../src/core/test-helpers/user-error.js';
import { MAX_YAML_CONFIG_BYTES, parseConfigText } from '../../src/io/read-config.js';

const CONFIGS = new URL('../../data/fixtures/configs/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, CONFIGS), 'utf8');
const llama = { ...(MODELS.find((m) => m.id === 'llama-3.2-1b') as unknown as Record<string, unknown>) };

describe('config.json dimensions', () => {
  it('refuses a negative or non-numeric dimension, naming the key', () => {
    const negative = userErrorOf(() => shapeFromConfig({ ...llama, intermediate_size: -22017 }));
    expect(negative.message).toBe(
      'config.json: "intermediate_size" must be a whole number from 1 to 1048576, not -22017',
    );
    expect(negative.where).toBe('config.json: intermediate_size');
    const text = userErrorOf(() => shapeFromConfig({ ...llama, head_dim: 'x' }));
    expect(text.message).toBe('config.json: "head_dim" must be a whole number from 1 to 1048576, not "x"');
    expect(userErrorOf(() => shapeFromConfig({ ...llama, num_hidden_layers: 1e9 })).where).toBe(
      'config.json: num_hidden_layers',
    );
    expect(userErrorOf(() => shapeFromConfig({ ...llama, num_key_value_heads: [8, 8] })).message).toMatch(
      /"num_key_value_heads" must be a whole number from 1 to 65536, not a list$/,
    );
  });

  it('still reads null as unset', () => {
    const shape = shapeFromConfig({ ...llama, head_dim: null, num_key_value_heads: null });
    expect(shape.numKvHeads).toBe(shape.numHeads);
    expect(shape.headDim).toBe(shape.hiddenSize / shape.numHeads);
  });
});

const ENV = {
  kind: 'headroom-env',
  version: 1,
  capturedAt: '2026-07-01T00:00:00Z',
  host: { hostname: 'h', platform: 'linux', arch: 'x64', cpus: 8, memoryBytes: 1e9 },
  gpus: {
    status: 'ok',
    value: [{ index: 0, name: 'NVIDIA H200', memoryTotalBytes: 1e11, migDevicesMemoryBytes: [] }],
  },
  driver: { status: 'missing', reason: 'no nvidia-smi' },
  frameworks: { status: 'ok', value: { python: '3.11.7', packages: { torch: '2.5.1' }, torchCuda: null } },
  interconnect: { status: 'missing', reason: 'one GPU' },
  disk: { status: 'missing', reason: 'x' },
};

describe('env snapshots', () => {
  const read = (env: unknown) => () => parseEnvSnapshot(JSON.stringify(env), 'env.json');

  it('checks every type at read, naming the field', () => {
    const python = { ...ENV, frameworks: { status: 'ok', value: { python: 3, packages: {} } } };
    expect(userErrorOf(read(python)).message).toBe(
      'env.json: frameworks.value.python must be a string, not 3',
    );
    const mig = structuredClone(ENV);
    (mig.gpus.value[0] as Record<string, unknown>).migDevicesMemoryBytes = { a: 1 };
    expect(userErrorOf(read(mig)).message).toBe(
      'env.json: gpus.value[0].migDevicesMemoryBytes must be a list, not an object',
    );
    expect(userErrorOf(read({ ...ENV, version: { toString: 1 } })).message).toBe(
      'env.json: environment file version an object is not supported (1 is)',
    );
  });

  it('fills what older files lack, typed', () => {
    const env = parseEnvSnapshot(JSON.stringify(ENV), 'env.json');
    expect(env.gpus.status === 'ok' && env.gpus.value[0]).toEqual({
      index: 0,
      name: 'NVIDIA H200',
      memoryTotalBytes: 1e11,
      computeCapability: null,
      migMode: null,
      migDevicesMemoryBytes: [],
      pcie: null,
      catalogId: null,
    });
  });
});

describe('trainer config importers', () => {
  const torchtune = 'torchtune__recipes__configs__llama3_1__8B_lora_single_device.yaml';
  const run = (name: string, edit: (c: Record<string, unknown>) => void) => {
    const text = fixture(name);
    const config = parseYaml(text) as Record<string, unknown>;
    edit(config);
    return importConfig({ config, text, fileName: name, deepspeed: null });
  };

  it('torchtune: an optimizer named after an Object.prototype key, or not a string', () => {
    for (const component of ['constructor', 'toString', { a: 1 }, 5]) {
      const report = run(torchtune, (c) => {
        (c.optimizer as Record<string, unknown>)._component_ = component;
      });
      expect(report.mapped.some((m) => m.field === 'optimizer')).toBe(false);
    }
  });

  it('Axolotl and LLaMA-Factory: {"toString": 1} objects where strings belong', () => {
    const axolotl = run('axolotl__examples__qwen2__qlora-fsdp.yaml', (c) => {
      (c.fsdp_config as Record<string, unknown>).fsdp_sharding_strategy = { toString: 1 };
      c.optimizer = { toString: 1 };
    });
    expect(axolotl.unmapped.find((u) => u.key === 'optimizer')?.kind).toBe('unresolved');
    const factory = run('llama-factory__examples__train_lora__qwen3_lora_sft.yaml', (c) => {
      c.flash_attn = { toString: 1 };
      c.quantization_method = { toString: 1 };
      c.quantization_bit = 4;
    });
    expect(factory.unmapped.find((u) => u.key === 'flash_attn')?.kind).toBe('unresolved');
  });
});

describe('probe lines', () => {
  it('skips a record with an object in argv, with a note', () => {
    const line =
      '{"v":1,"t":1.5,"pid":1,"event":"start","argv":["train.py",{"toString":1}],"probeVersion":"1"}';
    expect(parseProbeLine(line)).toMatchObject({
      ok: false,
      problem: { code: 'invalid', message: 'not a probe event: argv[1] is not a string' },
    });
  });
});

describe('safetensors headers', () => {
  it('refuses a shape nested a million deep without recursing', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const header = `{"w":{"dtype":"F32","shape":${deep},"data_offsets":[0,4]}}`;
    const error = userErrorOf(() =>
      parseSafetensorsHeader(new TextEncoder().encode(header), 'model.safetensors'),
    );
    expect(error.message).toMatch(/header nests deeper than 8 levels/);
  });
});

describe('JSON and YAML configs', () => {
  const tooDeep = 'nested more than 64 levels deep (no real file is)';

  it('refuses the billion laughs (aliases limited)', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const [name, prev] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    expect(userErrorOf(() => parseConfigText(lines.join('\n'), 'c.yaml')).message).toMatch(
      /^c\.yaml: not valid YAML \(Excessive alias count/,
    );
  });

  it('refuses deep nesting before the parser sees it', () => {
    expect(userErrorOf(() => parseConfigText('['.repeat(200_000), 'c.yaml')).message).toBe(
      `c.yaml: ${tooDeep}`,
    );
    const block = Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    expect(userErrorOf(() => parseConfigText(block, 'c.yaml')).message).toBe(`c.yaml: ${tooDeep}`);
    const json = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expect(userErrorOf(() => parseConfigText(json, 'c.json')).message).toBe(`c.json: ${tooDeep}`);
    expect(parseConfigText('a:\n  b:\n    c: [1, {d: 2}]  # [[[[', 'c.yaml')).toEqual({
      a: { b: { c: [1, { d: 2 }] } },
    });
  });

  it('reads a flat mapping at the size limit in linear time, and refuses a larger one', () => {
    const lines: string[] = [];
    for (let i = 0, n = 0; n < MAX_YAML_CONFIG_BYTES - 100; i++) {
      lines.push(`key_${i}: ${i}`);
      n += lines[i]!.length + 1;
    }
    const parsed = parseConfigText(lines.join('\n'), 'c.yaml') as Record<string, number>;
    expect(parsed[`key_${lines.length - 1}`]).toBe(lines.length - 1);
    const large = `${lines.join('\n')}\n${'#'.repeat(200)}`;
    expect(userErrorOf(() => parseConfigText(large, 'c.yaml')).message).toBe(
      `c.yaml is ${large.length} characters of YAML: larger than any trainer config (limit ${MAX_YAML_CONFIG_BYTES})`,
    );
  }, 60_000);
});

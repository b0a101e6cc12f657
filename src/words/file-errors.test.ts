/**
 * File errors are data spoken from one catalog: raised at the real throw sites (a config.json's
 * dimensions, an environment file, a trainer config, a scenario file), each carries a file reason and
 * raw params, its English `message` and `hint` are the catalog's English words (unchanged from before
 * the catalog), and in Chinese the same error reads in Chinese, with none of the English sentence left.
 */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../core/architecture.js';
import { parseEnvSnapshot } from '../core/env.js';
import { HeadroomUserError } from '../core/errors.js';
import { FILE_ERROR_REASONS, isFileReason } from '../core/file-errors.js';
import { importConfig } from '../core/import/import-config.js';
import { parseSafetensorsHeader, readSafetensorsHeaderLength } from '../core/safetensors.js';
import { parseConfigText } from '../io/read-config.js';
import { parseScenarioText } from '../io/read-scenarios.js';
import { ERROR_WORDS, userErrorWords } from './errors.js';
import { FILE_ERROR_EXAMPLES } from './file-errors.js';

const CJK = /[\u4e00-\u9fff]/;

function raised(fn: () => unknown): HeadroomUserError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HeadroomUserError) return error;
    throw error;
  }
  throw new Error('no error raised');
}

const CONFIG = { num_hidden_layers: 2, vocab_size: 10, num_attention_heads: 1, intermediate_size: 5 };

/** Each family: the error as raised, its English message and hint as they always read, and the English sentence. */
const CASES: readonly {
  name: string;
  error: () => HeadroomUserError;
  message: string;
  hint: string;
  /** A phrase of the English message that must not be in the Chinese one. */
  english: RegExp;
}[] = [
  {
    name: 'config.json dimension',
    error: () => raised(() => shapeFromConfig({ ...CONFIG, hidden_size: -5 }, 'my-model')),
    message: 'my-model: "hidden_size" must be a whole number from 1 to 1048576, not -5',
    hint: 'fix the config.json (a per-layer list is not modelled), or pass a catalog id (headroom models)',
    english: /must be|whole number/,
  },
  {
    name: 'config.json dimension of the wrong type',
    error: () => raised(() => shapeFromConfig({ ...CONFIG, hidden_size: [1, 2] }, 'my-model')),
    message: 'my-model: "hidden_size" must be a whole number from 1 to 1048576, not a list',
    hint: 'fix the config.json (a per-layer list is not modelled), or pass a catalog id (headroom models)',
    english: /must be|a list/,
  },
  {
    name: 'config.json missing figure',
    error: () => raised(() => shapeFromConfig({ hidden_size: 64, vocab_size: 10 }, 'my/config.json')),
    message: 'my/config.json has no usable layer count (looked for num_hidden_layers, n_layer, num_layers)',
    hint: 'pass a complete Hugging Face config.json, or a catalog id (headroom models)',
    english: /has no usable|layer count|looked for/,
  },
  {
    name: 'env file: not Headroom',
    error: () => raised(() => parseEnvSnapshot('{"kind": "other"}', 'a.json')),
    message: 'a.json: not a Headroom environment file (no "kind": "headroom-env")',
    hint: 'capture one with: headroom env capture -o env.json',
    english: /not a Headroom|capture one/,
  },
  {
    name: 'env file: not an object',
    error: () => raised(() => parseEnvSnapshot('[1]', 'a.json')),
    message: 'a.json: not a JSON object',
    hint: 'capture one with: headroom env capture -o env.json',
    english: /not a JSON object/,
  },
  {
    name: 'env file: version',
    error: () => raised(() => parseEnvSnapshot('{"kind": "headroom-env", "version": 7}', 'a.json')),
    message: 'a.json: environment file version 7 is not supported (1 is)',
    hint: 'capture one with: headroom env capture -o env.json',
    english: /is not supported|environment file/,
  },
  {
    name: 'env file: a field of the wrong shape',
    error: () =>
      raised(() =>
        parseEnvSnapshot(
          JSON.stringify({
            kind: 'headroom-env',
            version: 1,
            capturedAt: 3,
          }),
          'env.json',
        ),
      ),
    message: 'env.json: capturedAt must be a string, not 3',
    hint: 'capture one with: headroom env capture -o env.json',
    english: /must be|a string/,
  },
  {
    name: 'trainer config: nested too deep',
    error: () => raised(() => parseConfigText(`${'['.repeat(100)}${']'.repeat(100)}`, 'c.json')),
    message: 'c.json: nested more than 64 levels deep (no real file is)',
    hint: 'a trainer config nests a few levels; check that this is the config you meant',
    english: /nested more than|check that/,
  },
  {
    name: 'trainer config: YAML too large',
    error: () => raised(() => parseConfigText(`a: "${'x'.repeat(300_000)}"\n`, 'c.yaml')),
    message: 'c.yaml is 300006 characters of YAML: larger than any trainer config (limit 262144)',
    hint: 'check that this is the config you meant, or give it as JSON',
    english: /characters of YAML|larger than/,
  },
  {
    name: 'trainer config: not a mapping',
    error: () => raised(() => importConfig({ config: [1, 2], fileName: 'x.yaml' })),
    message: 'x.yaml: a trainer config must be a mapping of keys to values, not a list',
    hint: 'pass a LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed config',
    english: /must be a mapping|a list|pass a/,
  },
  {
    name: 'trainer config: unknown format',
    error: () => raised(() => importConfig({ config: { foo: 1 }, fileName: 'x.yaml' })),
    message:
      'x.yaml: not a trainer config Headroom recognises (llama-factory, axolotl, torchtune, hf-trainer, accelerate, deepspeed)',
    hint: 'write the scenario as JSON instead (docs/scenario.md) and pass it with --scenario',
    english: /recognises|write the scenario/,
  },
  {
    name: 'scenario file: empty',
    error: () => raised(() => parseScenarioText('  \n', 'run.json')),
    message: 'run.json is empty',
    hint: 'write one scenario object, e.g. {"model": "llama-3.1-8b", "method": "lora"}',
    english: /is empty|write one/,
  },
  {
    name: 'scenario file: a line not an object',
    error: () => parseScenarioText('{"model": "x"}\nnull\n', 'runs.jsonl')[1]!.error!,
    message: 'runs.jsonl:2: null, not a scenario object',
    hint: 'each scenario is a JSON object, e.g. {"model": "llama-3.1-8b", "method": "lora"}',
    english: /not a scenario object|each scenario/,
  },
  {
    name: 'safetensors: a Git LFS pointer',
    error: () =>
      raised(() =>
        readSafetensorsHeaderLength(new TextEncoder().encode('version https://git-lfs'), 'model.safetensors'),
      ),
    message: 'model.safetensors: is a Git LFS pointer file, not the weights',
    hint: 'run `git lfs pull` in the model folder, or download the real file',
    english: /pointer file|download the real/,
  },
  {
    name: 'safetensors: a header past the end of the file',
    error: () =>
      raised(() =>
        readSafetensorsHeaderLength(new Uint8Array([0, 16, 0, 0, 0, 0, 0, 0]), 'm.safetensors', 100),
      ),
    message:
      'm.safetensors: header length 4096 bytes runs past the end of the 100-byte file — the file is truncated or corrupt',
    hint: 'check that the file is a complete safetensors file (re-download it if it was cut short or is a Git LFS pointer)',
    english: /runs past|truncated|check that/,
  },
  {
    name: 'safetensors: a header that is not JSON',
    error: () => raised(() => parseSafetensorsHeader(new TextEncoder().encode('{"a": '), 'm.safetensors')),
    message: expect.stringMatching(/^m\.safetensors: header is not valid JSON \(.+\)$/) as unknown as string,
    hint: 'check that the file is a complete safetensors file (re-download it if it was cut short or is a Git LFS pointer)',
    english: /not valid JSON|check that/,
  },
];

describe('file errors', () => {
  it.each(CASES)('$name: a file reason, the English as before, Chinese in zh', (c) => {
    const error = c.error();
    expect(isFileReason(error.reason)).toBe(true);
    expect(error.params?.file ?? error.params?.path).toBeDefined();
    expect([error.message, error.hint]).toEqual([c.message, c.hint]);
    expect(userErrorWords(error, 'en')).toEqual({ message: c.message, hint: c.hint });
    const zh = userErrorWords(error, 'zh');
    expect(zh.message).toMatch(CJK);
    expect(zh.hint).toMatch(CJK);
    expect(zh.message).not.toMatch(c.english);
    expect(zh.hint).not.toMatch(c.english);
  });

  it('scenario JSON Lines: a bad line keeps its number and its parser detail', () => {
    const error = parseScenarioText('{"model": "x"}\n{bad\n', 'runs.jsonl')[1]!.error!;
    expect(error.message).toMatch(/^runs\.jsonl:2: not valid JSON \(.+\)$/);
    expect(error.hint).toBe('each line of a JSON Lines file must be one complete JSON object');
    const zh = userErrorWords(error, 'zh');
    expect(zh.message).toMatch(/^runs\.jsonl:2：不是有效的 JSON（.+）$/);
    expect(zh.hint).not.toMatch(/each line/);
  });

  it('names every reason the catalog words, and none a field error has', () => {
    expect(Object.keys(FILE_ERROR_EXAMPLES).sort()).toEqual([...FILE_ERROR_REASONS].sort());
    for (const reason of FILE_ERROR_REASONS) expect(reason in ERROR_WORDS.examples).toBe(false);
  });
});

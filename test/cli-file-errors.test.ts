/**
 * A file's content errors as the user meets them (the built binary): a config.json with a bad
 * dimension, a file that is not a Headroom environment file, a trainer config Headroom does not
 * recognise, a JSON Lines scenario file with a bad line. With --lang zh each reads in Chinese from the
 * catalog (src/words/file-errors.ts); in English each reads as it always has.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'headroom-file-errors-'));

function headroom(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: home,
    env: { ...process.env, NO_COLOR: '1', HF_ENDPOINT: 'http://127.0.0.1:9', HEADROOM_HOME: home },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const model = join(home, 'model');
mkdirSync(model);
writeFileSync(
  join(model, 'config.json'),
  JSON.stringify({
    hidden_size: -5,
    num_hidden_layers: 2,
    vocab_size: 10,
    num_attention_heads: 1,
    intermediate_size: 5,
  }),
);
writeFileSync(join(home, 'not-env.json'), '{"kind": "something-else"}');
writeFileSync(join(home, 'odd.yaml'), 'foo: 1\n');

describe('a file error, in both languages', () => {
  it.each([
    {
      args: ['estimate', 'model'],
      en: [
        'error: model: "hidden_size" must be a whole number from 1 to 1048576, not -5',
        'Try: fix the config.json (a per-layer list is not modelled), or pass a catalog id (headroom models)',
      ],
      zh: [
        '错误：model：“hidden_size”必须是 1 到 1048576 之间的整数，而不是 -5',
        '建议：修改 config.json（不支持按层给出的列表），或给出目录 id（headroom models）',
      ],
    },
    {
      args: ['env', 'show', 'not-env.json'],
      en: [
        'error: not-env.json: not a Headroom environment file (no "kind": "headroom-env")',
        'Try: capture one with: headroom env capture -o env.json',
      ],
      zh: [
        '错误：not-env.json：不是 Headroom 环境文件（没有 "kind": "headroom-env"）',
        '建议：用以下命令采集一份：headroom env capture -o env.json',
      ],
    },
    {
      args: ['import', 'odd.yaml'],
      en: [
        'error: odd.yaml: not a trainer config Headroom recognises (llama-factory, axolotl, torchtune, hf-trainer, accelerate, deepspeed)',
        'Try: write the scenario as JSON instead (docs/scenario.md) and pass it with --scenario',
      ],
      zh: [
        '错误：odd.yaml：不是 Headroom 认识的训练配置（llama-factory、axolotl、torchtune、hf-trainer、accelerate、deepspeed）',
        '建议：改为用 JSON 写出场景（见 docs/scenario.md），并用 --scenario 传入',
      ],
    },
  ])('$args.0 $args.1', ({ args, en, zh }) => {
    const english = headroom(...args);
    expect([english.code, english.stdout, english.stderr]).toEqual([1, '', `${en.join('\n')}\n`]);
    const chinese = headroom(...args, '--lang', 'zh');
    expect([chinese.code, chinese.stdout, chinese.stderr]).toEqual([1, '', `${zh.join('\n')}\n`]);
  });

  it('a JSON Lines scenario file: each bad line in the language of the command', () => {
    const file = join(home, 'runs.jsonl');
    writeFileSync(file, '{"model": "llama-3.1-8b", "method": "lora"}\nnull\n');
    const english = headroom('estimate', '--scenario', 'runs.jsonl');
    expect(english.code).toBe(1);
    expect(english.stderr).toContain(
      'runs.jsonl:2: null, not a scenario object\n  Try: each scenario is a JSON object, e.g. {"model": "llama-3.1-8b", "method": "lora"}\n',
    );
    const chinese = headroom('estimate', '--scenario', 'runs.jsonl', '--lang', 'zh');
    expect(chinese.code).toBe(1);
    expect(chinese.stderr).toContain(
      'runs.jsonl:2：该条目是 null，而不是场景对象\n  建议：每个场景都是一个 JSON 对象，例如 {"model": "llama-3.1-8b", "method": "lora"}\n',
    );
    expect(chinese.stderr).not.toMatch(/not a scenario object|each scenario/);
  });
});

/**
 * The errors a user meets before any content is read — a path that is not there or is a folder, a run
 * the ledger does not have, a model path that does not exist, a model name nothing knows, a flag the
 * command does not take — through the
 * CLI in both languages: with --lang zh each reads in Chinese from the catalog (src/words/path-errors.ts,
 * src/words/model-errors.ts, src/words/cli-errors.ts), and in English as it always has.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/cli/_command.js';
import { main } from '../src/cli/main.js';

const home = mkdtempSync(join(tmpdir(), 'headroom-io-errors-'));
const configs = join(home, 'configs');
mkdirSync(configs);
writeFileSync(join(configs, 'sft.yaml'), 'lora_r: 8\n');

async function headroom(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = (write: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        write(String(chunk));
        done();
      },
    });
  const ctx: CommandContext = {
    stdout: sink(() => {}),
    stderr: sink((text) => {
      stderr += text;
    }),
    env: { NO_COLOR: '1', HEADROOM_HOME: home, HF_ENDPOINT: 'http://127.0.0.1:9' },
  };
  return { code: await main(args, ctx), stderr };
}

const LEDGER = join(home, 'ledger.db');

describe('a path or ledger error, in both languages', () => {
  it.each([
    {
      name: 'a log that is not there',
      args: ['diagnose', join(home, 'train.log')],
      en: [
        `error: log file ${join(home, 'train.log')} does not exist`,
        'Try: give the path of a log file, or - to read a pasted traceback from standard input',
      ],
      zh: [
        `错误：日志文件 ${join(home, 'train.log')} 不存在`,
        '建议：给出日志文件的路径，或用 - 从标准输入读取粘贴的报错信息',
      ],
    },
    {
      name: 'a folder given for a trainer config',
      args: ['import', configs],
      en: [
        `error: ${configs} is a folder; give the trainer config inside it: ${join(configs, 'sft.yaml')}`,
        'Try: check the path: a trainer config in YAML or JSON (LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed)',
      ],
      zh: [
        `错误：${configs} 是文件夹；请给出其中的训练配置：${join(configs, 'sft.yaml')}`,
        '建议：检查路径：应为 YAML 或 JSON 格式的训练配置（LLaMA-Factory、Axolotl、torchtune、TrainingArguments/TRL、accelerate 或 DeepSpeed）',
      ],
    },
    {
      name: 'a run the ledger does not have',
      args: ['runs', 'show', '7'],
      en: [`error: no run "7" in ${LEDGER}`, 'Try: record one with headroom run -- python train.py'],
      zh: [`错误：${LEDGER} 中没有运行 "7"`, '建议：用 headroom run -- python train.py 记录一次运行'],
    },
    {
      name: 'a model path that does not exist',
      args: ['estimate', './no-such-model/'],
      en: [
        'error: model path ./no-such-model/ does not exist',
        'Try: check the path: a model folder with config.json in it, or a config.json file (a catalog id or a Hugging Face repo id works too)',
      ],
      zh: [
        '错误：模型路径 ./no-such-model/ 不存在',
        '建议：检查路径：应为含有 config.json 的模型文件夹，或 config.json 文件（目录 id 或 Hugging Face 仓库 id 也可以）',
      ],
    },
    {
      name: 'a flag the command does not take',
      args: ['estimate', 'llama-3.1-8b', '--micro-batches', '4'],
      en: ["error: estimate: Unknown option '--micro-batches'", 'Try: headroom estimate --help'],
      zh: ["错误：estimate：未知选项 '--micro-batches'", '建议：headroom estimate --help 列出全部选项'],
    },
    {
      name: 'one argument too many',
      args: ['estimate', 'llama-3.1-8b', 'llama-3.1-70b'],
      en: ['error: estimate: unexpected argument "llama-3.1-70b"', 'Try: headroom estimate --help'],
      zh: ['错误：estimate：多余的参数 "llama-3.1-70b"', '建议：headroom estimate --help 列出它接受的参数'],
    },
  ])('$name', async ({ args, en, zh }) => {
    const english = await headroom(...args);
    expect([english.code, english.stderr]).toEqual([1, `${en.join('\n')}\n`]);
    const chinese = await headroom(...args, '--lang', 'zh');
    expect([chinese.code, chinese.stderr]).toEqual([1, `${zh.join('\n')}\n`]);
  });

  it('a model name nothing knows: the nearest catalog ids, in Chinese', async () => {
    const chinese = await headroom('estimate', 'llama-3.1-8bb', '--lang', 'zh');
    expect(chinese.code).toBe(1);
    expect(chinese.stderr).toMatch(
      /^错误：模型 "llama-3\.1-8bb" 既不是目录中的模型，也不是文件、文件夹或 Hugging Face 仓库 id\n建议：目录 id（你是不是想用 llama-3\.1-8b[^？]*？）/,
    );
    expect(chinese.stderr).not.toMatch(/is not a catalog model|did you mean/);
  });
});

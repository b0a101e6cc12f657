/**
 * The field table at the command line (the built binary): --help's scenario section in Chinese, an
 * imported config's bad field named by its key, and a JSON Lines error line carrying the error as data.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'headroom-fields-'));

function headroom(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: home,
    env: {
      ...process.env,
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
      LC_ALL: '',
      HF_ENDPOINT: 'http://127.0.0.1:9',
      HEADROOM_HOME: home,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the scenario fields at the command line', () => {
  it('estimate --help --lang zh: the scenario section in Chinese, the same flags as the English one', () => {
    const en = headroom('estimate', '--help').stdout;
    const zh = headroom('estimate', '--help', '--lang', 'zh').stdout;
    expect(zh).toContain('  --micro-batch N           每块 GPU 每步的序列数');
    expect(en).toContain('  --micro-batch N           sequences per GPU per step');
    const flags = (help: string) => [...help.matchAll(/^ {2}(?:MODEL \| )?(--[\w-]+)/gm)].map((m) => m[1]);
    expect(flags(zh)).toEqual(flags(en));
  });

  it('a bad field an imported config set is named by the config key, in either language', () => {
    // TrainingArguments as Hugging Face writes them; the importer maps the batch size to microBatchSize.
    const config = join(home, 'hf.yaml');
    writeFileSync(
      config,
      'model_name_or_path: meta-llama/Llama-3.2-1B\nbf16: true\nper_device_train_batch_size: 100000\n',
    );
    const en = headroom('estimate', '--from', config);
    expect(en.code).toBe(1);
    expect(en.stderr).toBe(
      `error: ${config} (per_device_train_batch_size): 100000 is more than 65536 sequences, the most Headroom takes (far past any per-GPU batch a fine-tuning recipe uses)\nTry: fix per_device_train_batch_size in ${config}, or override it with a flag (flags win over the config)\n`,
    );
    const zh = headroom('estimate', '--from', config, '--lang', 'zh');
    expect(zh.stderr.split('\n')[0]).toBe(
      `错误：${config} (per_device_train_batch_size)：100000 超过 65536 条序列，这是 Headroom 接受的上限（远超任何微调配方的单卡批大小）`,
    );
    // The flag that overrides the key fixes it.
    expect(headroom('estimate', '--from', config, '--micro-batch', '2', '--json').code).toBe(0);
  });

  it('a JSON Lines error line carries code, reason, path, where, message and params', () => {
    const file = join(home, 'three.jsonl');
    writeFileSync(
      file,
      '{"model":"llama-3.2-1b"}\n{"model":"llama-3.2-1b","seqLen":1e12}\n{"model":"llama-3.2-1b","method":"dora"}\n',
    );
    const r = headroom('estimate', '--scenario', file, '--json');
    expect(r.code).toBe(1);
    const [, second, third] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(second.error).toEqual({
      code: 'out-of-range',
      reason: 'above-limit',
      path: ['seqLen'],
      where: 'seqLen',
      message:
        "seqLen: 1000000000000 is more than 10485760 tokens, the most Headroom takes (Llama 4 Scout's 10M-token context, the longest of any model)",
      params: { value: 1e12, min: 1, max: 10_485_760 },
    });
    expect(third.error).toMatchObject({
      code: 'invalid-field',
      reason: 'not-one-of',
      path: ['method'],
      params: { value: '"dora"', accepted: ['full', 'lora', 'qlora', 'freeze'] },
    });
    // Set by a flag, the line's error names it.
    const flagged = headroom('estimate', '--scenario', file, '--attention', 'xformers', '--json');
    const first = JSON.parse(flagged.stdout.trim().split('\n')[0]!);
    expect(first.error).toMatchObject({
      code: 'bad-flag',
      path: ['attention'],
      where: '--attention',
      message: '--attention xformers is not one of eager | sdpa | flash',
      hint: 'headroom estimate --help says what each value of --attention means',
    });
  });
});

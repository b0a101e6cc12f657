/**
 * plan, fit, gpus, models and import in Chinese (--lang zh, or a zh locale), run as a user runs them
 * (build first): the words come from the catalog, the figures are the same as in English, and --json
 * carries codes and params, whatever the language.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../src/core/architecture.js';
import { findGpu, findModel } from '../src/core/catalog/index.js';
import { droppedNote, makePlan } from '../src/core/plan.js';
import { parseScenario } from '../src/core/scenario.js';
import { say } from '../src/words/catalog.js';
import { FIT_LIMITS } from '../src/words/fit.js';
import { FORMATS } from '../src/words/format.js';
import { IMPORT_REASONS } from '../src/words/import-reasons.js';
import { PLAN_RISKS } from '../src/words/plan-risks.js';
import { PLAN_RUNGS } from '../src/words/plan-rungs.js';
import { dataFile, REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      LC_ALL: '',
      LC_MESSAGES: '',
      LANG: 'C',
      NO_COLOR: '1',
      HF_ENDPOINT: 'http://127.0.0.1:9',
      ...env,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const FULL_8B = ['llama-3.1-8b', '--method', 'full', '--gpu', 'rtx-5090'];
const full8b = makePlan({
  scenario: parseScenario({ model: 'llama-3.1-8b', method: 'full', gpu: 'rtx-5090' }),
  shape: shapeFromConfig(findModel('llama-3.1-8b')!),
  gpu: findGpu('rtx-5090')!,
});

describe('headroom plan --lang zh', () => {
  it('words each rung, risk and dropped rung from the catalog, with the English figures', () => {
    const r = headroom(['plan', ...FULL_8B, '--lang', 'zh']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^目标：NVIDIA GeForce RTX 5090——可用 31\.84 GiB，预留 10 % 余量后 28\.66 GiB（真实批次长度不一/m,
    );
    expect(r.stdout).toMatch(/^1 {2}完整梯度检查点 .* 153\.78–172\.72 GiB +−9\.48 GiB +1\.31× +无 +✗$/m);
    expect(r.stdout).toMatch(/^2 {2}精度 bf16-mixed → bf16-true /m);
    expect(r.stdout).toMatch(
      /^3 {2}在所有线性层上使用 LoRA r16 .* 20\.09–22\.23 GiB +−57\.11 GiB +1\.01× +中 +✓$/m,
    );
    expect(r.stdout).toContain('✓ 3 项调整后放得下：每块 GPU 20.09–22.23 GiB，按上界剩余');
    for (const rung of full8b.rungs.filter((x) => x.risk.level !== 'none'))
      expect(r.stdout).toContain(say(PLAN_RISKS, 'zh', rung.risk));
    // The 8-bit optimizer pure bf16 made pointless: its figures, and the rung after which it is not needed.
    const eightBit = full8b.dropped.find((d) => d.rung.change.id === '8bit-optimizer')!;
    expect(droppedNote(full8b, eightBit)).toMatchObject({
      code: 'not-needed-after',
      params: { position: 2 },
    });
    expect(r.stdout).toMatch(
      /^ {2}优化器 adamw → adamw-8bit +−14\.93 GiB +−297 MiB +有了第 2 项（精度 bf16-mixed → bf16-true）就不再需要$/m,
    );
    expect(r.stdout).toContain('途中尝试过、但并不需要的调整');
    expect(r.stdout).not.toMatch(/not needed|quality:|time\/token/);
  });

  it('takes Chinese from the locale, and --lang en over it', () => {
    const zh = headroom(['plan', ...FULL_8B], { LANG: 'zh_CN.UTF-8' });
    expect(zh.stdout).toContain('在所有线性层上使用 LoRA r16');
    const en = headroom(['plan', ...FULL_8B, '--lang', 'en'], { LANG: 'zh_CN.UTF-8' });
    expect(en.stdout).toMatch(/^3 {2}LoRA r16 on all linear layers /m);
  });

  it('--json is the same data in either language: each change and risk a code with its figures', () => {
    const en = headroom(['plan', ...FULL_8B, '--micro-batch', '4', '--json']);
    const zh = headroom(['plan', ...FULL_8B, '--micro-batch', '4', '--json', '--lang', 'zh']);
    expect(zh.stdout).toBe(en.stdout);
    const out = JSON.parse(en.stdout) as { rungs: { change: unknown; risk: unknown }[] };
    // The ladder opens with the cheapest rung: the same tokens per step in smaller micro-batches.
    expect(out.rungs[0]!.change).toEqual({
      id: 'smaller-micro-batch',
      code: 'smaller-micro-batch',
      params: { fromMicroBatch: 4, toMicroBatch: 1, fromAccumulation: 1, toAccumulation: 4 },
    });
    expect(out.rungs[0]!.risk).toEqual({ level: 'none', code: 'same-effective-batch', params: {} });
    expect(say(PLAN_RUNGS, 'zh', out.rungs[0]!.change as never)).toBe('micro-batch 4 → 1，梯度累积 1 → 4');
    expect(en.stdout).not.toMatch(/"summary"|"note"/);
  });

  it('refuses a language it does not speak, naming the flag', () => {
    const r = headroom(['plan', ...FULL_8B, '--lang', 'fr']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: --lang fr: Headroom speaks en (English) and zh (简体中文)\nTry: --lang zh or --lang en\n',
    );
  });
});

describe('headroom fit --lang zh', () => {
  it('says each bound and what stopped the search in Chinese', () => {
    const args = ['fit', 'tinyllama-1.1b', '--method', 'lora', '--seq-len', '1024', '--gpu', 'h200-sxm'];
    const r = headroom([...args, '--lang', 'zh']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^NVIDIA H200 SXM 141GB：可用 140\.40 GiB，预留 10 % 余量后 126\.36 GiB（┃ 标出）$/m,
    );
    expect(r.stdout).toMatch(/^ {2}micro-batch +\d+ × 1024 /m);
    expect(r.stdout).toMatch(/^ {2}序列长度 +2048 个 token /m);
    // TinyLlama's 2048 positions stop the sequence search, not memory.
    expect(r.stdout).toContain(`${say(FIT_LIMITS, 'zh', { code: 'context', params: {} })}，而非因显存`);
    expect(r.stdout).toContain('10 % 的余量：真实批次长度不一');
    const json = JSON.parse(headroom([...args, '--json']).stdout) as {
      seqLen: { value: number; limit: string };
    };
    expect(json.seqLen).toMatchObject({ value: 2048, limit: 'context' });
  });
});

describe('headroom gpus, models and import --lang zh', () => {
  it('gpus lists the catalog and plans capacity in Chinese', () => {
    const list = headroom(['gpus', 'h100', '--lang', 'zh']);
    expect(list.stdout).toMatch(/^id +名称 +可用 +标称 +bf16 +bf16 TFLOP\/s +互联$/m);
    expect(list.stdout).toMatch(/^共 \d+ 种 GPU。/m);
    const plan = headroom([
      'gpus',
      'rtx-3060-12gb',
      'h100-sxm',
      '--for',
      'llama-3.1-70b',
      '--method',
      'full',
      '--gradient-checkpointing',
      'full',
      '--lang',
      'zh',
    ]);
    expect(plan.stdout).toMatch(/^容量规划：llama-3\.1-70b · full/m);
    expect(plan.stdout).toMatch(/^h100-sxm +\d+ × +ZeRO-3 /m);
    expect(plan.stdout).toMatch(
      /^在所试的任何数量下都放不下：rtx-3060-12gb（最好情况下每块 GPU [\d.]+ [GT]iB）$/m,
    );
  });

  it('models names a Hub copy in Chinese', () => {
    const r = headroom(['models', 'unsloth/Llama-3.2-3B-Instruct-bnb-4bit', '--lang', 'zh']);
    expect(r.stdout.split('\n')[0]).toBe(
      'unsloth/Llama-3.2-3B-Instruct-bnb-4bit → llama-3.2-3b（目录；unsloth 的副本，指令版，形状相同，以 bitsandbytes 4-bit 预量化存储）',
    );
    expect(r.stdout).toContain('共 1 个模型。');
  });

  it('import gives each reason in Chinese, and --json gives it as a code with its figures', () => {
    const file = dataFile('fixtures', 'configs', 'llama-factory__examples__train_lora__qwen3_lora_sft.yaml');
    const r = headroom(['import', file, '--lang', 'zh']);
    expect(r.stdout).toContain('——LLaMA-Factory 配置');
    expect(r.stdout).toMatch(
      /^lora\.dropout +0 +未设置 lora_dropout：LLaMA-Factory 默认为 0（训练器默认值）$/m,
    );
    expect(r.stdout).toMatch(/^parallelism\.strategy +single +文件中没有：Headroom 默认值$/m);
    const out = JSON.parse(headroom(['import', file, '--json']).stdout) as {
      assumed: { field: string; reason: { code: string; params: unknown } }[];
    };
    const dropout = out.assumed.find((a) => a.field === 'lora.dropout')!;
    expect(dropout.reason).toEqual({
      code: 'trainer-default',
      params: { key: 'lora_dropout', trainer: 'LLaMA-Factory', value: 0 },
    });
    expect(say(IMPORT_REASONS, 'en', dropout.reason as never)).toBe(
      'lora_dropout not set: LLaMA-Factory defaults to 0',
    );
  });

  it('the figures are the same as the English ones', () => {
    const en = headroom(['plan', ...FULL_8B]).stdout;
    const zh = headroom(['plan', ...FULL_8B, '--lang', 'zh']).stdout;
    const sizes = (text: string) => text.match(/−?\d+\.\d+(?:–\d+\.\d+)? [GM]iB/g) ?? [];
    expect(sizes(zh)).toEqual(sizes(en));
    const last = full8b.rungs.at(-1)!.estimate;
    expect(sizes(en)).toContain(FORMATS.en.bytesRange(last.peak.deviceBytes, last.upper.deviceBytes));
  });
});

describe('--help of plan, fit, gpus, models and import', () => {
  it.each([
    [
      'plan',
      'headroom plan — the cheapest changes that make a run fit',
      'headroom plan —— 让一次运行放得下的最低代价调整',
    ],
    [
      'fit',
      'headroom fit — the largest micro-batch',
      'headroom fit —— 一块 GPU 能容纳的最大 micro-batch 和最长序列',
    ],
    ['gpus', 'Lists the embedded GPU catalog.', '列出内置的 GPU 目录。'],
    ['models', 'Lists the embedded model catalog;', '列出内置的模型目录；'],
    [
      'import',
      'headroom import FILE — turn a trainer config',
      'headroom import FILE —— 把训练配置转换为 Headroom 场景',
    ],
  ])('%s --help is in English, or in Chinese with --lang zh or a zh locale', (command, en, zh) => {
    const english = headroom([command, '--help']);
    expect(english.stdout).toContain(en);
    expect(english.stdout).toContain('--lang en|zh');
    expect(headroom([command, '--help', '--lang', 'zh']).stdout).toContain(zh);
    expect(headroom([command, '--help'], { LANG: 'zh_CN.UTF-8' }).stdout).toContain(zh);
  });
});

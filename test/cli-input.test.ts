/**
 * Bad input on the command line, as a user types it (the built binary): a folder where a file is
 * expected, negative and non-numeric numbers, sizes past their limit or past the model. Each gets one
 * clear error naming the path or flag and what to give instead, exit 1, never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'headroom-input-'));

function headroom(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: home,
    env: { ...process.env, NO_COLOR: '1', HF_ENDPOINT: 'http://127.0.0.1:9', HEADROOM_HOME: home },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The one error a command gave: exit 1, no trace, nothing on stdout. */
function refused(args: readonly string[]): string {
  const r = headroom(...args);
  expect([args.join(' '), r.code, r.stdout]).toEqual([args.join(' '), 1, '']);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  return r.stderr;
}

describe('a folder where a file is expected', () => {
  const dir = join(home, 'configs');
  mkdirSync(dir);
  const empty = join(home, 'empty');
  mkdirSync(empty);

  it.each([
    [['import', 'empty'], 'trainer config', 'empty/config.yaml', /^Try: check the path: a trainer config/m],
    [['estimate', '--from', 'empty'], 'trainer config', 'empty/config.yaml', /trainer config/],
    [['plan', '--from', 'empty', '--gpu', 'a10g'], 'trainer config', 'empty/config.yaml', /trainer config/],
    [
      ['estimate', 'llama-3.1-8b', '--scenario', 'empty'],
      'scenario file',
      'empty/scenario.json',
      /--scenario/,
    ],
    [['fit', '--scenario', 'empty', '--gpu', 'a10g'], 'scenario file', 'empty/scenario.json', /--scenario/],
    [['diagnose', 'empty'], 'log file', 'empty/train.log', /pasted traceback/],
    [['env', 'show', 'empty'], 'environment file', 'empty/env.json', /env capture -o env\.json/],
    [['migrate', '--to-env', 'empty', 'llama-3.1-8b'], 'environment file', 'empty/env.json', /env capture/],
    [['watch', '--log', 'empty'], 'probe log', 'empty/probe.jsonl', /HEADROOM_LOG/],
  ])('%j: "is a folder; give the … inside it", with an example', (args, what, example, hint) => {
    const stderr = refused(args);
    expect(stderr.split('\n')[0]).toBe(
      `error: empty is a folder; give the ${what} inside it, e.g. ${example}`,
    );
    expect(stderr).toMatch(hint);
  });

  it('a folder that holds configs: names them, as paths to type', () => {
    for (const name of ['qlora.yml', 'lora.yaml', 'README.md']) writeFileSync(join(dir, name), 'x: 1\n');
    expect(refused(['import', 'configs/'])).toBe(
      'error: configs/ is a folder; give the trainer config inside it: configs/lora.yaml, configs/qlora.yml\nTry: check the path: a trainer config in YAML or JSON (LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed)\n',
    );
  });

  it.each([
    [['report', 'demo', '-o', 'empty'], 'the HTML report, e.g. empty/run-0.html'],
    [['env', 'capture', '-o', 'empty', '--no-disk-probe'], 'the environment file, e.g. empty/env.json'],
    [['run', '--log', 'empty', '--no-smi', '--', 'true'], 'the probe log, e.g. empty/probe.jsonl'],
  ])('%j, a file to write: "name a file inside it"', (args, rest) => {
    expect(refused(args).split('\n')[0]).toBe(`error: empty is a folder; name a file inside it for ${rest}`);
  });

  it('run --log FOLDER refuses before anything starts: no run is recorded', () => {
    refused(['run', '--log', 'empty', '--no-smi', '--', 'true']);
    expect(JSON.parse(headroom('runs', '--json').stdout)).toEqual([]);
  });

  it('a model folder is still a model: estimate takes a folder on purpose, and its shape sets the limits', () => {
    const model = join(home, 'tinyllama');
    mkdirSync(model);
    // TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json (the fields the shape reads): 22 layers.
    writeFileSync(
      join(model, 'config.json'),
      JSON.stringify({
        architectures: ['LlamaForCausalLM'],
        model_type: 'llama',
        hidden_size: 2048,
        intermediate_size: 5632,
        num_hidden_layers: 22,
        num_attention_heads: 32,
        num_key_value_heads: 4,
        vocab_size: 32000,
        max_position_embeddings: 2048,
        rms_norm_eps: 1e-5,
        tie_word_embeddings: false,
        torch_dtype: 'bfloat16',
      }),
    );
    const r = headroom('estimate', 'tinyllama/', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).model).toEqual({ id: 'tinyllama/', source: 'config.json' });
    expect(refused(['estimate', 'tinyllama/', '--method', 'freeze', '--trainable-layers', '23'])).toBe(
      'error: --trainable-layers 23 is more than the 22 layers tinyllama/ has\nTry: from 1 to 22; method full trains every layer and the embeddings too\n',
    );
  });
});

describe('negative, zero and non-numeric numbers name the flag and the range', () => {
  it.each([
    [
      ['--micro-batch', '-2'],
      '--micro-batch -2 must be a whole number from 1 to 65536',
      'e.g. --micro-batch 4',
    ],
    [['--micro-batch=-2'], '--micro-batch -2 must be a whole number from 1 to 65536', 'e.g. --micro-batch 4'],
    [
      ['--seq-len', '-1'],
      '--seq-len -1 must be a whole number from 1 to 10485760',
      'e.g. --seq-len 4096 (or 4k)',
    ],
    [
      ['--seq-len', '0'],
      '--seq-len 0 must be a whole number from 1 to 10485760',
      'e.g. --seq-len 4096 (or 4k)',
    ],
    [['--gpus', '-8'], '--gpus -8 must be a whole number from 1 to 100000', 'e.g. --gpus 8'],
    [['--grad-accum', '0'], '--grad-accum 0 must be a whole number from 1 to 65536', 'e.g. --grad-accum 8'],
    [
      ['--method', 'lora', '--lora-rank', '-4'],
      '--lora-rank -4 must be a whole number from 1 to 65536',
      'e.g. --lora-rank 16',
    ],
    [
      ['--micro-batch', 'abc'],
      '--micro-batch abc: not a number; give a whole number from 1 to 65536',
      'e.g. --micro-batch 4',
    ],
    [
      ['--micro-batch', '1.5'],
      '--micro-batch 1.5 must be a whole number from 1 to 65536',
      'e.g. --micro-batch 4',
    ],
  ])('estimate %j', (flags, message, hint) => {
    expect(refused(['estimate', 'llama-3.1-8b', ...flags])).toBe(`error: ${message}\nTry: ${hint}\n`);
  });

  it('--headroom -5% on fit, plan and gpus --for: the margin range, not "argument is ambiguous"', () => {
    for (const command of [
      ['fit', 'llama-3.1-8b', '--gpu', 'a10g'],
      ['plan', 'llama-3.1-8b', '--gpu', 'a10g'],
      ['gpus', '--for', 'llama-3.1-8b'],
    ]) {
      expect(refused([...command, '--headroom', '-5%'])).toBe(
        'error: --headroom -5%: not a margin between 0 % and 90 %\nTry: e.g. --headroom 10%\n',
      );
    }
  });

  it('--max-gpus -3 names its range', () => {
    expect(refused(['gpus', '--for', 'llama-3.1-8b', '--max-gpus', '-3'])).toBe(
      'error: --max-gpus -3: not a whole number from 1 to 100000\nTry: e.g. --max-gpus 8\n',
    );
  });
});

describe('sizes past their limit are refused with the limit named', () => {
  it.each([
    [
      ['--seq-len', '1e12'],
      "--seq-len 1e12 is more than 10485760 tokens, the most Headroom takes (Llama 4 Scout's 10M-token context, the longest of any model)",
    ],
    [
      ['--micro-batch', '100000'],
      '--micro-batch 100000 is more than 65536 sequences, the most Headroom takes (far past any per-GPU batch a fine-tuning recipe uses)',
    ],
    [
      ['--gpus', '200000'],
      '--gpus 200000 is more than 100000 GPUs, the most Headroom takes (the size of the largest training clusters)',
    ],
    [
      ['--method', 'lora', '--lora-rank', '100000'],
      "--lora-rank 100000 is more than 65536, the most Headroom takes (above every model's hidden size, where a rank adds nothing)",
    ],
  ])('estimate %j', (flags, message) => {
    expect(refused(['estimate', 'llama-3.1-8b', ...flags]).split('\n')[0]).toBe(`error: ${message}`);
  });

  it('a LoRA rank past the model’s hidden size, and more trainable layers than it has, on every command that resolves the model', () => {
    const commands = [
      ['estimate', 'llama-3.1-8b'],
      ['plan', 'llama-3.1-8b', '--gpu', 'a10g'],
      ['fit', 'llama-3.1-8b', '--gpu', 'a10g'],
      ['gpus', '--for', 'llama-3.1-8b'],
      ['migrate', '--to-gpu', 'h100-sxm', 'llama-3.1-8b'],
    ];
    for (const command of commands) {
      expect(refused([...command, '--method', 'lora', '--lora-rank', '5000'])).toBe(
        'error: --lora-rank 5000 is more than the hidden size of llama-3.1-8b, 4096: a LoRA rank above it adds parameters, not capacity\nTry: a rank from 1 to 4096; 8 to 256 are the usual ones\n',
      );
      expect(refused([...command, '--method', 'freeze', '--trainable-layers', '40'])).toBe(
        'error: --trainable-layers 40 is more than the 32 layers llama-3.1-8b has\nTry: from 1 to 32; method full trains every layer and the embeddings too\n',
      );
    }
  });

  it('from a scenario file: names the file; in JSON Lines, the line’s own result carries the code', () => {
    const one = join(home, 'rank.json');
    writeFileSync(one, JSON.stringify({ model: 'llama-3.1-8b', method: 'lora', lora: { rank: 5000 } }));
    expect(refused(['plan', '--scenario', one, '--gpu', 'a10g']).split('\n')[0]).toBe(
      `error: ${one}: lora.rank: 5000 is more than the hidden size of llama-3.1-8b, 4096: a LoRA rank above it adds parameters, not capacity`,
    );
    const lines = join(home, 'two.jsonl');
    writeFileSync(lines, '{"model":"llama-3.2-1b"}\n{"model":"llama-3.1-8b","seqLen":1e12}\n');
    const r = headroom('estimate', '--scenario', lines, '--json');
    expect(r.code).toBe(1);
    const [first, second] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(first.line).toBe(1);
    expect(second).toMatchObject({ line: 2, error: { code: 'out-of-range', where: 'seqLen' } });
  });

  it('the limit itself is accepted', () => {
    const r = headroom('estimate', 'llama-3.1-8b', '--method', 'lora', '--lora-rank', '4096', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scenario.lora.rank).toBe(4096);
  });
});

describe('report --json, as the usage promises ("Every command takes --json")', () => {
  it('prints the file written, its size and the run, as JSON alone', () => {
    const out = join(home, 'demo.html');
    const r = headroom('report', 'demo', '-o', out, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      file: out,
      bytes: readFileSync(out).length,
      run: { id: 0, name: 'demo: llama-3.2-3b LoRA, eval OOM (synthetic)' },
    });
    expect(headroom('report', '--help').stdout).toContain('--json');
  });
});

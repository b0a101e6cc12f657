/** Black-box tests of the built `headroom` binary, as a user runs it. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HF_ENDPOINT: 'http://127.0.0.1:9' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('headroom estimate', () => {
  it('prints the scenario, a bar per part, the three peaks and the fit', () => {
    const r = headroom(
      'estimate',
      'llama-3.1-8b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--precision',
      'bf16-true',
      '--gradient-checkpointing',
      'full',
      '--gpu',
      'rtx-4090',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'llama-3.1-8b · qlora r16 (q_proj,v_proj) nf4 · bf16-true · adamw · b1×2048 · ckpt full',
    );
    for (const part of ['weights', 'gradients', 'optimizer', 'activations', 'runtime'])
      expect(r.stdout).toMatch(new RegExp(`^  ${part} .*(GiB|MiB|B)$`, 'm'));
    expect(r.stdout).toMatch(
      /peak at backward: {2}allocated [\d.]+–[\d.]+ GiB {2}· {2}reserved [\d.]+–[\d.]+ GiB {2}· {2}nvidia-smi [\d.]+–[\d.]+ GiB/,
    );
    expect(r.stdout).toMatch(
      /✓ fits on NVIDIA GeForce RTX 4090 with [\d.]+ (GiB|MiB) to spare at the upper bound \(\d+ % free; the budget keeps the 10 % margin\)/,
    );
    expect(r.stdout).toMatch(
      /upper bound [\d.]+× the estimate at nvidia-smi: in each of the \d+ sources of \d+ measured .*, nine runs in ten stayed under [\d.]+× their estimate/,
    );
    expect(r.stdout).toContain('attack first:');
  });

  it('--json prints the SCENARIO.md object with the resolved scenario, matching the library', async () => {
    const r = headroom(
      'estimate',
      'meta-llama/Llama-3.1-8B',
      '--method',
      'lora',
      '--precision',
      'bf16-true',
      '--micro-batch',
      '2',
      '--gpu',
      'a10g',
      '--json',
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.perGpu).toBe(true);
    expect(json.scenario).toMatchObject({
      model: 'llama-3.1-8b',
      method: 'lora',
      microBatchSize: 2,
      precision: 'bf16-true',
      lora: { rank: 16 },
    });
    const { estimate } = await import('../src/core/estimate.js');
    const { parseScenario } = await import('../src/core/scenario.js');
    const { resolveModelRef } = await import('../src/core/model-ref.js');
    const { findGpu } = await import('../src/core/catalog/index.js');
    const scenario = parseScenario(json.scenario);
    const expected = estimate({
      scenario,
      shape: resolveModelRef(scenario.model)!.shape,
      gpu: findGpu('a10g')!,
    });
    expect(json.peak).toEqual(expected.peak);
    expect(json.components).toEqual(expected.components);
    expect(json.fits).toEqual(expected.fits);
  });

  it('reads a JSON Lines scenario file: one result per line, a bad line reported by number, exit 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'runs.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ model: 'qwen2.5-0.5b', method: 'full', gpu: 't4' }),
        '{"model": "qwen2.5-7b", "method": ',
        JSON.stringify({ model: 'qwen2.5-7b', method: 'qlora' }),
        JSON.stringify({ model: 'qwen2.5-7b', method: 'lora', lora: { rank: 8 }, seqLen: 4096 }),
      ].join('\n'),
    );
    const r = headroom('estimate', '--scenario', file, '--json');
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3, 4]);
    expect(lines[0].scenario.model).toBe('qwen2.5-0.5b');
    expect(lines[0].fits.gpu).toBe('t4');
    expect(lines[1].error.message).toMatch(/runs.jsonl:2: not valid JSON/);
    expect(lines[2].error).toMatchObject({ code: 'invalid-field', where: 'quantization' });
    expect(lines[3].scenario.seqLen).toBe(4096);
    expect(r.stderr).toContain('2 of 4 scenarios failed');
  });

  it('--explain adds how the peak adds up, term by term, to the figures the JSON carries', () => {
    const args = ['estimate', 'llama-3.2-1b', '--method', 'lora', '--gradient-checkpointing', 'full'];
    const json = JSON.parse(headroom(...args, '--json').stdout);
    const text = headroom(...args, '--explain').stdout;
    expect(text).toContain(`how the ${json.peakPhase} peak adds up (torch allocated, then above it):`);
    const sum = json.peakTerms.reduce((total: number, t: { bytes: number }) => total + t.bytes, 0);
    expect(Math.abs(sum - json.peak.allocatedBytes)).toBeLessThanOrEqual(json.peakTerms.length);
    expect(text).toMatch(/\n {4}saved activations +[\d.]+ MiB/);
    expect(text).toMatch(/= reserved [\d.]+ GiB/);
    expect(text).toMatch(/= nvidia-smi [\d.]+ GiB/);
    // Without the flag, the block is not there.
    expect(headroom(...args).stdout).not.toContain('peak adds up');
  });

  it('lets flags override the fields of a scenario file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'one.json');
    writeFileSync(file, JSON.stringify({ model: 'llama-3.2-1b', method: 'lora', seqLen: 1024 }));
    const json = JSON.parse(headroom('estimate', '--scenario', file, '--seq-len', '4096', '--json').stdout);
    expect(json.scenario.seqLen).toBe(4096);
    expect(json.scenario.method).toBe('lora');
  });

  it('reads --seq-len 8k as 8192 tokens, the way model cards write it', () => {
    const json = JSON.parse(headroom('estimate', 'llama-3.2-1b', '--seq-len', '8k', '--json').stdout);
    expect(json.scenario.seqLen).toBe(8192);
  });

  it('--optimizer-in-backward keeps one gradient at a time, and refuses gradient accumulation', () => {
    const base = [
      'estimate',
      'llama-3.2-1b',
      '--method',
      'full',
      '--precision',
      'bf16-true',
      '--gradient-checkpointing',
      'full',
    ];
    const plain = JSON.parse(headroom(...base, '--json').stdout);
    const inBwd = JSON.parse(headroom(...base, '--optimizer-in-backward', '--json').stdout);
    expect(inBwd.scenario.optimizerInBackward).toBe(true);
    // Llama-3.2-1B's largest tensor is its 128,256 × 2,048 embedding, in bf16.
    expect(inBwd.breakdown.gradientsBytes).toBe(128_256 * 2048 * 2);
    expect(inBwd.peak.allocatedBytes).toBeLessThan(plain.peak.allocatedBytes);
    expect(headroom(...base, '--optimizer-in-backward').stdout).toContain('adamw in backward');
    const bad = headroom(...base, '--optimizer-in-backward', '--grad-accum', '4');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--optimizer-in-backward steps the optimizer on every micro-batch/);
    expect(bad.stderr).toMatch(/Try: set gradAccumSteps to 1/);
  });

  it("a config's fused AdamW: off with --no-fused-optimizer, and dropped when --optimizer names another", () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'hf.yaml');
    // TrainingArguments without optim: the importer assumes adamw_torch_fused (torch >= 2.8).
    writeFileSync(file, 'model_name_or_path: meta-llama/Llama-3.2-1B\nbf16: true\n');
    const run = (...flags: string[]) => {
      const r = headroom('estimate', '--from', file, ...flags, '--json');
      expect(r.stderr).not.toMatch(/^error/m);
      return JSON.parse(r.stdout).scenario;
    };
    expect(run()).toMatchObject({ optimizer: 'adamw', fusedOptimizer: true });
    expect(run('--no-fused-optimizer').fusedOptimizer).toBeUndefined();
    expect(run('--torch-compile').torchCompile).toBe(true);
    expect(run('--torch-compile', '--no-torch-compile').torchCompile).toBeUndefined();
    expect(run('--expandable-segments').expandableSegments).toBe(true);
    expect(run('--expandable-segments', '--no-expandable-segments').expandableSegments).toBeUndefined();
    const eightBit = run('--optimizer', 'adamw-8bit');
    expect(eightBit.optimizer).toBe('adamw-8bit');
    expect(eightBit.fusedOptimizer).toBeUndefined();
    // Asked for both, it says which field and why.
    const both = headroom('estimate', 'llama-3.2-1b', '--optimizer', 'adamw-8bit', '--fused-optimizer');
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/^error: --fused-optimizer applies to torch's AdamW and SGD only/);
  });

  it("drops a file's FSDP options when a flag switches the strategy away from FSDP", () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'fsdp.json');
    writeFileSync(
      file,
      JSON.stringify({
        model: 'llama-3.2-1b',
        gradAccumSteps: 4,
        parallelism: { strategy: 'fsdp', gpus: 4, wrapEmbeddings: true, syncEachMicroBatch: true },
      }),
    );
    const r = headroom('estimate', '--scenario', file, '--strategy', 'zero3', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scenario.parallelism).toEqual({ strategy: 'zero3', gpus: 4 });
  });

  it("sizes DeepSpeed's reduce bucket from --reduce-bucket-size and --overlap-comm, and drops them off ZeRO", () => {
    const base = ['estimate', 'llama-3.2-1b', '--method', 'lora', '--strategy', 'zero2', '--gpus', '2'];
    const json = (...flags: string[]) => JSON.parse(headroom(...base, ...flags, '--json').stdout);
    expect(json().breakdown.commBufferBytes).toBe(5e8 * 2);
    const qwen = json('--reduce-bucket-size', '2e8', '--overlap-comm');
    expect(qwen.scenario.parallelism).toEqual({
      strategy: 'zero2',
      gpus: 2,
      reduceBucketSize: 2e8,
      overlapComm: true,
    });
    expect(qwen.breakdown.commBufferBytes).toBe(2 * 2e8 * 2);
    // "auto" is the Hugging Face integration's hidden_size² (2,048² for Llama-3.2-1B).
    expect(json('--reduce-bucket-size', 'auto').breakdown.commBufferBytes).toBe(2048 * 2048 * 2);
    expect(headroom(...base, '--reduce-bucket-size', '2e8', '--overlap-comm').stdout).toContain(
      'zero2 × 2 GPUs (reduce bucket 2e8, overlap comm)',
    );
    // A file's DeepSpeed settings go when a flag leaves ZeRO; asked for on the same line, they are an error.
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'zero2.json');
    writeFileSync(
      file,
      JSON.stringify({
        model: 'llama-3.2-1b',
        method: 'lora',
        parallelism: { strategy: 'zero2', gpus: 2, reduceBucketSize: 2e8, overlapComm: true },
      }),
    );
    const moved = headroom('estimate', '--scenario', file, '--strategy', 'fsdp', '--json');
    expect(JSON.parse(moved.stdout).scenario.parallelism).toEqual({ strategy: 'fsdp', gpus: 2 });
    const both = headroom(...base, '--strategy', 'fsdp', '--reduce-bucket-size', '2e8');
    expect(both.stderr).toMatch(/^error: --reduce-bucket-size 2e8 is a DeepSpeed ZeRO setting/);
    const bad = headroom(...base, '--reduce-bucket-size', 'lots');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--reduce-bucket-size lots: not a number/);
  });

  it("--lora-adapter-dtype model keeps the adapters in the model's dtype", () => {
    const base = ['estimate', 'llama-3.2-1b', '--method', 'lora', '--precision', 'bf16-true', '--json'];
    const fp32 = JSON.parse(headroom(...base).stdout);
    const model = JSON.parse(headroom(...base, '--lora-adapter-dtype', 'model').stdout);
    expect(model.scenario.lora.adapterDtype).toBe('model');
    expect(fp32.breakdown.weightsBytes - model.breakdown.weightsBytes).toBe(fp32.params.trainable * 2);
    const line = headroom(...base.filter((f) => f !== '--json'), '--lora-adapter-dtype', 'model').stdout;
    expect(line).toContain('lora r16 (q_proj,v_proj; model-dtype adapters)');
    const bad = headroom(...base, '--lora-adapter-dtype', 'bf16');
    expect(bad.stderr).toMatch(/^error: --lora-adapter-dtype bf16 is not one of fp32 \| model/);
  });

  it('--quantizer torchao shards the NF4 scales under FSDP; another quantization drops it', () => {
    const base = ['estimate', 'llama-3.2-1b', '--method', 'qlora', '--quantization', 'nf4-dq'];
    const json = (...flags: string[]) => JSON.parse(headroom(...base, ...flags, '--json').stdout);
    const fsdp = ['--strategy', 'fsdp', '--gpus', '4'];
    const bnb = json(...fsdp);
    const torchao = json(...fsdp, '--quantizer', 'torchao');
    expect(torchao.scenario.quantizer).toBe('torchao');
    expect(torchao.breakdown.weightsBytes).toBeLessThan(bnb.breakdown.weightsBytes);
    expect(headroom(...base, '--quantizer', 'torchao').stdout).toContain('nf4-dq (torchao)');
    // A file's torchao base goes with a flag that picks a quantization torchao does not do.
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'torchtune.json');
    writeFileSync(
      file,
      JSON.stringify({
        model: 'llama-3.2-1b',
        method: 'qlora',
        quantization: 'nf4-dq',
        quantizer: 'torchao',
      }),
    );
    const int8 = headroom('estimate', '--scenario', file, '--quantization', 'int8', '--json');
    expect(JSON.parse(int8.stdout).scenario).toMatchObject({ quantization: 'int8' });
    expect(JSON.parse(int8.stdout).scenario.quantizer).toBeUndefined();
  });

  it("drops a file's LoRA settings when a flag switches the method to full", () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const file = join(dir, 'lora.json');
    writeFileSync(file, JSON.stringify({ model: 'llama-3.2-1b', method: 'lora', lora: { rank: 8 } }));
    const r = headroom('estimate', '--scenario', file, '--method', 'full', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.scenario.method).toBe('full');
    expect(json.scenario.lora).toBeUndefined();
  });

  it.each([
    [['estimate', 'llama-9b'], /model "llama-9b" is not a catalog model/, /Try: a catalog id \(did you mean/],
    [
      ['estimate', 'llama-3.1-8b', '--batch', '4'],
      /estimate: Unknown option '--batch'/,
      /Try: headroom estimate --help/,
    ],
    [
      ['estimate', 'llama-3.1-8b', '--micro-batch', 'four'],
      /--micro-batch four: not a number/,
      /Try: e.g. --micro-batch 4/,
    ],
    [
      ['estimate', 'llama-3.1-8b', '--method', 'qlora'],
      /quantization: method "qlora" needs a quantized base/,
      /Try: set quantization to nf4/,
    ],
    [['estimate', 'llama-3.1-8b', '--gpu', 'a100'], /gpu "a100" is not in the catalog/, /did you mean a100-/],
    [
      ['estimate', 'llama-3.1-8b', '--gpu', '4090ti'],
      /gpu "4090ti" is not in the catalog/,
      /did you mean rtx-4090,/,
    ],
    [
      ['estimate', 'llama-3.1-8b', '--seq-len', '8kb'],
      /--seq-len 8kb: not a number/,
      /Try: e.g. --seq-len 4096 \(or 4k\)/,
    ],
    [
      ['estimate', 'llama-3.1-8b', '--method', 'lora', '--lora-targets', 'c_attn'],
      /--lora-targets c_attn is not a linear module of llama models/,
      /q_proj/,
    ],
    [
      ['estimate', './nope/config.json'],
      /model path \.\/nope\/config\.json does not exist/,
      /check the path/,
    ],
    [['estimate', 'nope/config.json'], /model path nope\/config\.json does not exist/, /a model folder/],
    [
      ['estimate', 'no-such-org/no-such-model'],
      /Hub could not be reached|could not be reached/i,
      /the nearest catalog models are/,
    ],
    [
      ['import', '/nonexistent/x.yaml'],
      /trainer config \/nonexistent\/x\.yaml does not exist/,
      /check the path: a trainer config/,
    ],
    [
      ['estimate', '--scenario', '/nonexistent/x.jsonl'],
      /scenario file \/nonexistent\/x\.jsonl does not exist/,
      /--scenario/,
    ],
  ])('a user mistake (%j) gets a message and a Try line, never a stack trace', (args, message, hint) => {
    const r = headroom(...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(hint);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad field in a scenario file names the file, the field and where to fix it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'headroom-cli-')), 'run.json');
    writeFileSync(file, JSON.stringify({ model: 'llama-3.1-8b', microBatchSize: -2 }));
    for (const command of ['estimate', 'plan', 'fit']) {
      const r = headroom(command, '--scenario', file, '--gpu', 'a10g');
      expect([command, r.code]).toEqual([command, 1]);
      expect(r.stderr).toBe(
        `error: ${file}: microBatchSize: -2 must be a whole number from 1 to 65536\nTry: fix microBatchSize in ${file}; docs/scenario.md lists every field and the values it takes\n`,
      );
    }
    // A flag that overrides the file is the flag's mistake, not the file's.
    const flag = headroom('estimate', '--scenario', file, '--micro-batch', '0');
    expect(flag.stderr).toBe(
      'error: --micro-batch 0 must be a whole number from 1 to 65536\nTry: e.g. --micro-batch 4\n',
    );
  });

  it('a bad value a flag set names the flag as typed, for every command that takes scenario flags', () => {
    for (const command of ['estimate', 'plan', 'fit']) {
      const r = headroom(command, 'llama-3.2-1b', '--gpu', 'a10g', '--precision', 'fp8');
      expect([command, r.code]).toEqual([command, 1]);
      expect(r.stderr).toBe(
        `error: --precision fp8 is not one of fp32 | fp16-mixed | bf16-mixed | fp16-true | bf16-true\nTry: headroom ${command} --help says what each value of --precision means\n`,
      );
    }
    // Nested fields and the --flag=value spelling.
    expect(headroom('estimate', 'llama-3.2-1b', '--strategy=zero4').stderr).toMatch(
      /^error: --strategy zero4 is not one of single \| ddp/,
    );
    expect(headroom('estimate', 'llama-3.2-1b', '--method', 'lora', '--lora-rank', '0').stderr).toMatch(
      /^error: --lora-rank 0 must be a whole number from 1 to 65536\nTry: e.g. --lora-rank 16\n/,
    );
    // A field no flag set keeps the field's name: here quantization, left at its default.
    expect(headroom('estimate', 'llama-3.2-1b', '--method', 'qlora').stderr).toMatch(
      /^error: quantization: /,
    );
    // Each line of a JSON Lines file that the flag breaks says so in its own result.
    const file = join(mkdtempSync(join(tmpdir(), 'headroom-cli-')), 'two.jsonl');
    writeFileSync(file, '{"model":"llama-3.2-1b"}\n{"model":"llama-3.2-1b","method":"lora"}\n');
    const lines = headroom('estimate', '--scenario', file, '--attention', 'xformers', '--json');
    expect(lines.code).toBe(1);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).error.where),
    ).toEqual(['--attention', '--attention']);
  });
});

describe('Hub ids of catalog models, with the Hub out of reach', () => {
  /** [as typed, catalog id, variant] — HF_ENDPOINT points at a closed port, so none may need the Hub. */
  const SPELLINGS: ReadonlyArray<readonly [string, string, string | null]> = [
    ['mistralai/Mistral-7B-Instruct-v0.3', 'mistral-7b-v0.3', 'instruct'],
    ['Qwen/Qwen2-7B-Instruct', 'qwen2.5-7b', 'instruct'],
    ['qwen/qwen2.5-7b-instruct', 'qwen2.5-7b', 'instruct'],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct', 'llama-3.1-8b', 'instruct'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama-3.1-8b', 'instruct'],
    ['google/gemma-2-9b-it', 'gemma-2-9b', 'instruct'],
    ['microsoft/Phi-3-mini-4k-instruct', 'phi-3-mini', null],
    ['unsloth/Llama-3.2-3B-Instruct', 'llama-3.2-3b', 'instruct'],
    ['NousResearch/Meta-Llama-3.1-8B', 'llama-3.1-8b', null],
    ['unsloth/Llama-3.2-3B-Instruct-bnb-4bit', 'llama-3.2-3b', 'instruct'],
  ];

  it('estimate resolves each spelling to its catalog model, with the figures of the catalog id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-'));
    const lines = (models: readonly string[]) => {
      const file = join(dir, `${models.length}-${models[0]!.replace(/\W/g, '')}.jsonl`);
      writeFileSync(
        file,
        models.map((model) => JSON.stringify({ model, method: 'lora', gpu: 'a10g' })).join('\n'),
      );
      const r = headroom('estimate', '--scenario', file, '--json');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    };
    const typed = lines(SPELLINGS.map(([ref]) => ref));
    const byId = lines(SPELLINGS.map(([, id]) => id));
    SPELLINGS.forEach(([ref, id, variant], i) => {
      expect(typed[i].model).toMatchObject({ id, source: 'catalog', resolvedFrom: ref, variant });
      expect(typed[i].scenario.model).toBe(id);
      expect(typed[i].peak).toEqual(byId[i].peak);
      // Named by its id, the model carries no resolution.
      expect(byId[i].model).toEqual({ id, source: 'catalog' });
    });
    expect(typed.at(-1).model.prequantized).toBe('bnb-4bit');
  });

  it('says once, dimmed, how the name resolved, and what a pre-quantized copy is stored as', () => {
    const r = headroom('estimate', 'mistralai/Mistral-7B-Instruct-v0.3', '--method', 'lora', '--gpu', 'a10g');
    expect(r.code).toBe(0);
    const said = r.stdout.split('\n').filter((l) => l.includes(' → '));
    expect(said).toEqual([
      'mistralai/Mistral-7B-Instruct-v0.3 → mistral-7b-v0.3 (catalog; instruct variant, same shapes)',
    ]);
    const q = headroom(
      'estimate',
      'unsloth/Llama-3.2-3B-Instruct-bnb-4bit',
      '--method',
      'lora',
      '--gpu',
      'a10g',
    );
    expect(q.stdout).toContain(
      'note: unsloth/Llama-3.2-3B-Instruct-bnb-4bit stores its weights pre-quantized (bitsandbytes 4-bit); these figures use --quantization none as given — add --quantization nf4-dq to size them as stored',
    );
  });

  it('an id the catalog does not know names the nearest catalog ids, how to add it, and headroom models', () => {
    for (const ref of ['acme/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.2-11B-Vision-Instruct']) {
      const r = headroom('estimate', ref, '--method', 'lora', '--gpu', 'a10g');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `${ref} is not in the catalog and the Hugging Face Hub (http://127.0.0.1:9) could not be reached`,
      );
      expect(r.stderr).toMatch(
        /the nearest catalog models are llama-3\.[12]-\w+, [^;]+ \(headroom models llama lists that family\)/,
      );
      expect(r.stderr).toContain('give its folder or its config.json: headroom estimate ./my-model/');
    }
  });

  it('headroom models finds a catalog model by its Hub spellings', () => {
    const r = headroom('models', 'unsloth/Llama-3.2-3B-Instruct-bnb-4bit');
    expect(r.code).toBe(0);
    const [said, , , first] = r.stdout.split('\n');
    expect(said).toBe(
      "unsloth/Llama-3.2-3B-Instruct-bnb-4bit → llama-3.2-3b (catalog; unsloth's copy, instruct variant, same shapes, stored as bitsandbytes 4-bit)",
    );
    expect(first).toMatch(/^llama-3\.2-3b\s+meta-llama\/Llama-3\.2-3B\s/);
    expect(headroom('models', 'Qwen/Qwen2-7B', '--json').stdout).toMatch(
      /^\[\n {2}\{\n {4}"id": "qwen2\.5-7b"/,
    );
  });
});

describe('headroom report', () => {
  it('writes a self-contained HTML report of the demo run', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'headroom-report-')), 'demo.html');
    const r = headroom('report', 'demo', '-o', out);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote ${out} (run #0 demo: llama-3.2-3b LoRA, eval OOM (synthetic))\n`);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script/i);
  });

  it('names what is missing', () => {
    const r = headroom('report', 'demo');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: report needs an output file');
    expect(r.stderr).toContain('Try: headroom report demo -o run-demo.html');
  });
});

describe('headroom models and gpus', () => {
  it('searches the model catalog', () => {
    const r = headroom('models', 'qwen3');
    expect(r.code).toBe(0);
    const ids = r.stdout
      .split('\n')
      .slice(2)
      .map((l) => l.split(/\s+/)[0])
      .filter((id) => id?.startsWith('qwen3'));
    expect(ids).toEqual([
      'qwen3-0.6b',
      'qwen3-1.7b',
      'qwen3-4b',
      'qwen3-8b',
      'qwen3-14b',
      'qwen3-32b',
      'qwen3-30b-a3b',
    ]);
  });

  it('lists GPUs with the usable memory nvidia-smi reports', () => {
    const json = JSON.parse(headroom('gpus', 'a100', '80gb', '--json').stdout);
    expect(json.map((g: { id: string }) => g.id)).toEqual(['a100-sxm-80gb', 'a100-pcie-80gb']);
    expect(json[0].usableBytes).toBe(81920 * 2 ** 20);
    expect(headroom('gpus', 'h100').stdout).toMatch(/h100-sxm\s+NVIDIA H100 SXM5 80GB\s+79\.6 GiB\s+80 GB/);
    // The count under the table agrees with its noun.
    expect(headroom('gpus', 'rtx-4090').stdout).toMatch(/\n1 GPU\. Check a fit: /);
    expect(headroom('gpus', 'a100', '80gb').stdout).toMatch(/\n2 GPUs\. Check a fit: /);
    expect(headroom('models', 'qwen3-8b').stdout).toMatch(/\n1 model\. Estimate one: /);
  });

  it('explains itself', () => {
    expect(headroom('--help').stdout).toContain('estimate MODEL [flags]');
    expect(headroom('estimate', '--help').stdout).toContain('--lora-targets');
    expect(headroom('frobnicate').stderr).toContain('unknown command "frobnicate"');
  });
});

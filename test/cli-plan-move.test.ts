/** Black-box tests of import, plan, fit, gpus --for, env and migrate, run as a user runs them (build first). */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../src/core/architecture.js';
import { findGpu, findModel } from '../src/core/catalog/index.js';
import { estimate } from '../src/core/estimate.js';
import { usableBytes } from '../src/core/margin.js';
import { parseScenario } from '../src/core/scenario.js';
import { TORCHTUNE_8B_FULL_PAGED } from '../src/core/test-helpers/scenarios.js';
import { formatBytes } from '../src/core/units.js';
import { FORMATS } from '../src/words/format.js';
import { dataFile, REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const CONFIGS = (name: string) => dataFile('fixtures', 'configs', name);

function headroom(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HF_ENDPOINT: 'http://127.0.0.1:9', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const json = (args: string[]) => {
  const r = headroom([...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe('headroom import', () => {
  it('--json is exactly { scenario, mapped, unmapped, assumed }', () => {
    const out = json(['import', CONFIGS('axolotl__examples__llama-3__qlora.yml')]);
    expect(Object.keys(out)).toEqual(['scenario', 'mapped', 'unmapped', 'assumed']);
    expect(out.scenario).toEqual({
      model: 'NousResearch/Meta-Llama-3-8B',
      method: 'qlora',
      quantization: 'nf4-dq',
      lora: { rank: 32, alpha: 16, dropout: 0.05, targets: 'all-linear' },
      microBatchSize: 2,
      seqLen: 4096,
      gradAccumSteps: 4,
      optimizer: 'paged-adamw',
      gradientCheckpointing: 'full',
      attention: 'flash',
      precision: 'bf16-true',
      padding: 'packed',
      framework: 'axolotl',
    });
    expect(out.mapped).toContainEqual({ key: 'lora_r', value: 32, field: 'lora.rank', to: 32 });
  });

  it('shows each field with where it came from, Headroom defaults included', () => {
    const r = headroom(['import', CONFIGS('llama-factory__examples__train_lora__qwen3_lora_sft.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('— LLaMA-Factory config');
    expect(r.stdout).toMatch(/^lora\.targets +all-linear +lora_target$/m);
    expect(r.stdout).toMatch(
      /^gradientCheckpointing +full +trainer default: LLaMA-Factory turns gradient checkpointing on/m,
    );
    expect(r.stdout).toMatch(/^parallelism\.strategy +single +not in the file: Headroom default$/m);
  });

  it('sets the framework of the file’s format, and names the profile fact of each field it fills', () => {
    const r = headroom(['import', CONFIGS('axolotl__examples__llama-3__qlora.yml')]);
    expect(r.stdout).toMatch(/^framework +axolotl +trainer default: the file's format is axolotl/m);
    expect(r.stdout).toMatch(
      /^quantizedInputsKept +none +not in the file: axolotl profile \(bnb\.inputs-kept-none\)$/m,
    );
    expect(r.stdout).not.toContain('profile.applied');
  });

  it('a file that is not a config is a user error with a hint', () => {
    const r = headroom(['import', join(REPO_ROOT, 'package.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: package\.json: not a trainer config Headroom recognises/);
    expect(r.stderr).toContain('Try: write the scenario as JSON instead');
  });
});

describe('--from on estimate', () => {
  it('imports the config, lets flags override it, and says what was imported', () => {
    const out = json([
      'estimate',
      '--from',
      CONFIGS('torchtune__recipes__configs__llama3_1__8B_lora_single_device.yaml'),
      '--seq-len',
      '1024',
      '--gpu',
      'l40s',
    ]);
    expect(out.scenario).toMatchObject({
      model: 'llama-3.1-8b',
      method: 'lora',
      seqLen: 1024,
      microBatchSize: 2,
      loss: 'chunked',
      lora: { rank: 8, targets: ['q_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
    });
    expect(out.imported).toMatchObject({ format: 'torchtune' });
    expect((out.fits as { ok: boolean }).ok).toBe(true);
  });

  it('a DeepSpeed file has no model: MODEL comes from the command line', () => {
    const file = CONFIGS('llama-factory__examples__deepspeed__ds_z3_offload_config.json');
    const missing = headroom(['estimate', '--from', file]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/names no model \(deepspeed config\)/);
    const out = json(['estimate', 'llama-3.1-8b', '--from', file, '--gpus', '4', '--gpu', 'a100-sxm-80gb']);
    expect(out.scenario).toMatchObject({
      parallelism: { strategy: 'zero3', gpus: 4 },
      offload: { optimizer: 'cpu', params: 'cpu' },
    });
  });

  it('a flag that changes the method drops the imported adapter settings', () => {
    const out = json([
      'estimate',
      '--from',
      CONFIGS('axolotl__examples__llama-3__qlora.yml'),
      '--model',
      'llama-3-8b',
      '--method',
      'full',
    ]);
    expect(out.scenario).toMatchObject({ method: 'full', quantization: 'none' });
    expect((out.scenario as Record<string, unknown>).lora).toBeUndefined();
  });
});

describe('headroom plan', () => {
  it('shows memory falling rung by rung until it fits', () => {
    const r = headroom([
      'plan',
      'llama-3.1-8b',
      '--method',
      'full',
      '--micro-batch',
      '4',
      '--gpu',
      'rtx-4090',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {3}as given +█+┃█+[▏▎▍▌▋▊▉]?▒+ +188\.88–212\.05 GiB +1\.00× +✗$/m);
    expect(r.stdout).toMatch(
      /^1 {2}micro-batch 4 → 1, accumulation 1 → 4 .* 155\.88–174\.99 GiB +−33\.00 GiB +1\.00× +none +✗$/m,
    );
    expect(r.stdout).toMatch(
      /^2 {2}full gradient checkpointing .* 153\.73–172\.67 GiB +−2\.15 GiB +1\.31× +none +✗$/m,
    );
    expect(r.stdout).toMatch(
      /^3 {2}precision bf16-mixed → bf16-true .* 77\.15–86\.59 GiB +−76\.58 GiB +1\.31× +medium +✗$/m,
    );
    expect(r.stdout).toMatch(
      /^4 {2}LoRA r16 on all linear layers .* 20\.20–22\.35 GiB +−56\.95 GiB +1\.01× +medium +✗$/m,
    );
    // The upper bound (22.35 GiB) is past the 21.59 GiB budget; the chunked loss brings it under.
    expect(r.stdout).toMatch(
      /^5 {2}chunked cross-entropy loss .* 19\.11–21\.14 GiB +−1\.09 GiB +1\.01× +none +✓$/m,
    );
    expect(r.stdout).toContain(
      '✓ fits after 5 changes: 19.11–21.14 GiB per GPU, 2.85 GiB free at the upper bound (12 %)',
    );
    // The rungs the climb applied on the way that LoRA made pointless, each with what it saved then and now.
    expect(r.stdout).toContain(
      'tried on the way and not needed: the changes above fit without each, as fast',
    );
    expect(r.stdout).toMatch(
      /^ {2}fused AdamW kernel \(torch fused=True; HF optim adamw_torch_fused\) +−6\.93 GiB +nothing +not needed after 4 \(LoRA r16 on all linear layers\)$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}torch\.compile with the chunked loss +−1\.05 GiB +−1\.16 GiB +not needed: fits without it$/m,
    );
    expect(r.stdout).toContain('instead of 5, each of these fits too:');
    expect(r.stdout).toContain('real batches vary in length');
  });

  it('--json is exactly { scenario, target, fitsAlready, rungs, alternatives, dropped } with rungs in order', () => {
    const out = json(['plan', 'llama-3.1-8b', '--method', 'full', '--micro-batch', '4', '--gpu', 'rtx-4090']);
    expect(Object.keys(out)).toEqual([
      'scenario',
      'target',
      'fitsAlready',
      'rungs',
      'alternatives',
      'dropped',
    ]);
    const rungs = out.rungs as Record<string, unknown>[];
    expect(Object.keys(rungs[0]!)).toEqual([
      'change',
      'scenario',
      'estimate',
      'savedBytes',
      'relativeStepTime',
      'risk',
      'fits',
    ]);
    expect(rungs.map((r) => (r.change as { id: string }).id)).toEqual([
      'smaller-micro-batch',
      'full-checkpointing',
      'pure-bf16',
      'lora',
      'chunked-loss',
    ]);
    const dropped = out.dropped as {
      rung: { change: { id: string } };
      savingBytes: number;
      after: string | null;
    }[];
    expect(Object.keys(dropped[0]!)).toEqual(['rung', 'from', 'savingBytes', 'after']);
    expect(dropped.map((d) => [d.rung.change.id, d.after])).toEqual([
      ['expandable-segments', 'smaller-micro-batch'],
      ['selective-checkpointing', null],
      ['fused-optimizer', 'lora'],
      ['compile-loss', null],
      ['8bit-optimizer', 'lora'],
    ]);
    expect(out.scenario).toMatchObject({ model: 'llama-3.1-8b', microBatchSize: 4, gpu: 'rtx-4090' });
  });

  it('llama-3.1-8b --method full on an RTX 5090: no 8-bit optimizer in the ladder once the rungs after it make it pointless', () => {
    const r = headroom(['plan', 'llama-3.1-8b', '--method', 'full', '--gpu', 'rtx-5090']);
    expect(r.code).toBe(0);
    const ladder = r.stdout.slice(0, r.stdout.indexOf('✓ fits after'));
    // Checkpointing comes first: it shrinks the activation cache the optimizer step's temporaries sit
    // beside, so it saves at the full fine-tune's optimizer-step peak too (allocator.ts OPTIMIZER_STEP_RESERVE).
    expect(ladder).toMatch(
      /^1 {2}full gradient checkpointing .* 153\.78–172\.72 GiB +−9\.48 GiB +1\.31× +none +✗$/m,
    );
    expect(ladder).toMatch(/^2 {2}precision bf16-mixed → bf16-true /m);
    expect(ladder).toMatch(
      /^3 {2}LoRA r16 on all linear layers .* 20\.09–22\.23 GiB +−57\.11 GiB +1\.01× +medium +✓$/m,
    );
    expect(ladder).not.toContain('adamw-8bit');
    expect(r.stdout).toContain('✓ fits after 3 changes: 20.09–22.23 GiB per GPU');
    expect(r.stdout).toMatch(
      /^ {2}optimizer adamw → adamw-8bit +−14\.93 GiB +−297 MiB +not needed after 2 \(precision bf16-mixed → bf16-true\)$/m,
    );
  });

  it('says when a run fits already, with its headroom', () => {
    const r = headroom([
      'plan',
      'llama-3.1-8b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--gradient-checkpointing',
      'full',
      '--gpu',
      'rtx-4090',
    ]);
    expect(r.code).toBe(0);
    // The figures are the library's, written the way the terminal writes them.
    const scenario = parseScenario({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      gradientCheckpointing: 'full',
      gpu: 'rtx-4090',
    });
    const gpu = findGpu('rtx-4090')!;
    const e = estimate({ scenario, shape: shapeFromConfig(findModel('llama-3.1-8b')!), gpu });
    const peak = e.peak.deviceBytes;
    // Free and beyond the margin are what the upper bound leaves: the verdict judges it.
    const held = e.upper.deviceBytes;
    const usable = usableBytes(gpu);
    const headroomPct = Math.round(((usable - held) / usable) * 100);
    expect(r.stdout).toContain(
      `✓ fits already: ${FORMATS.en.bytesRange(peak, held)} per GPU, ${formatBytes(usable - held)} free at the upper bound (${headroomPct} % headroom, ${formatBytes(usable * 0.9 - held)} beyond the margin)`,
    );
  });

  it('a run that fits only with its paged optimizer states in host RAM fits, and says what it costs', () => {
    const flags = [
      '--method',
      'full',
      '--precision',
      'bf16-true',
      '--optimizer',
      'paged-adamw-8bit',
      '--optimizer-in-backward',
      '--gradient-checkpointing',
      'full',
      '--loss',
      'chunked',
      '--micro-batch',
      '1',
      '--gpu',
      'rtx-4090',
      // The card itself, no margin: the run fits only as the managed memory pages states out.
      '--headroom',
      '0%',
    ];
    const scenario = parseScenario({
      model: 'llama-3.1-8b',
      ...TORCHTUNE_8B_FULL_PAGED,
      microBatchSize: 1,
      gpu: 'rtx-4090',
    });
    const gpu = findGpu('rtx-4090')!;
    const e = estimate({ scenario, shape: shapeFromConfig(findModel('llama-3.1-8b')!), gpu });
    // Judged at the upper bound, as every verdict is.
    const spilled = formatBytes(e.upper.deviceBytes - usableBytes(gpu));
    const p = headroom(['plan', 'llama-3.1-8b', ...flags]);
    expect(p.code).toBe(0);
    expect(p.stdout).toContain(
      `✓ fits already, with ${spilled} of the paged optimizer states in CPU RAM (paged in for every optimizer step: slower) — nothing has to change`,
    );
    const est = headroom(['estimate', 'llama-3.1-8b', ...flags]);
    expect(est.stdout).toContain(
      `✓ fits on NVIDIA GeForce RTX 4090 with the 0 % margin only with ${spilled} of the paged optimizer states in CPU RAM: they are paged in for every optimizer step (slower)`,
    );
    // fit bars what must stay on the GPU, and says the paged states come on top: the largest micro-batch
    // that fits so is 2.
    const two = estimate({
      scenario: { ...scenario, microBatchSize: 2 },
      shape: shapeFromConfig(findModel('llama-3.1-8b')!),
      gpu,
    });
    const fit = headroom(['fit', 'llama-3.1-8b', ...flags]);
    expect(fit.stdout).toMatch(
      new RegExp(
        `^ {2}micro-batch +2 × 2048 .* ${FORMATS.en.bytesRange(two.peak.deviceBytes - two.breakdown.pagedOptimizerBytes!, two.upper.deviceBytes - two.breakdown.pagedOptimizerBytes!)} \\+ [\\d.]+ GiB paged optimizer states, in host RAM where they do not fit$`,
        'm',
      ),
    );
  });

  it('needs a GPU, and a valid margin', () => {
    const r = headroom(['plan', 'llama-3.1-8b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: plan needs a target GPU\nTry: add --gpu ID (headroom gpus lists them), and --gpus N for several\n',
    );
    const m = headroom(['plan', 'llama-3.1-8b', '--gpu', 'a10g', '--headroom', 'lots']);
    expect(m.stderr).toBe(
      'error: --headroom lots: not a margin between 0 % and 90 %\nTry: e.g. --headroom 10%\n',
    );
  });
});

describe('headroom fit', () => {
  it('shows both limits, the value that does not fit, and why the margin exists', () => {
    const r = headroom([
      'fit',
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
    ]);
    expect(r.code).toBe(0);
    // Judged at the upper bound: the range runs from the point of 2 × 2048 to it.
    expect(r.stdout).toMatch(/^ {2}micro-batch {8}2 × 2048 .* 14\.33–18\.33 GiB$/m);
    expect(r.stdout).toMatch(/^ +3 × 2048 {2}would need 23\.46 GiB: 1\.87 GiB over the budget$/m);
    expect(r.stdout).toMatch(/^ {2}sequence {8}5398 tokens .* 16\.86–21\.59 GiB$/m);
    expect(r.stdout).toContain(
      'the 10 % margin: real batches vary in length — each is padded to its longest sample',
    );
  });

  it('says what even the smallest micro-batch and sequence need when nothing fits', () => {
    // An fp32 base (bf16-mixed), as a LoRA run loaded without a 16-bit dtype keeps it: 16 GB of weights alone.
    const r = headroom([
      'fit',
      'llama-3.1-8b',
      '--method',
      'lora',
      '--precision',
      'bf16-mixed',
      '--gpu',
      'rtx-4090',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}micro-batch {2}none: even 1 × 2048 needs [\d.]+ GiB, over the 21\.59 GiB budget$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}sequence {5}none: even 1 token needs [\d.]+ GiB, over the 21\.59 GiB budget$/m,
    );
    // One line says what to run next: the same flags, to plan.
    expect(r.stdout).toMatch(
      /^ {2}headroom plan llama-3\.1-8b --method lora --precision bf16-mixed --gpu rtx-4090 finds the changes that make it fit$/m,
    );
  });

  it('--json carries the scenario, the target and both bounds', () => {
    const out = json([
      'fit',
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
      '--headroom',
      '5%',
    ]);
    expect(Object.keys(out)).toEqual(['target', 'scenario', 'microBatch', 'seqLen']);
    expect(out.target).toMatchObject({ gpu: 'rtx-4090', marginFraction: 0.05 });
    expect(out.microBatch).toMatchObject({ value: 2, limit: 'memory', next: { value: 3 } });
    // With a 5 % margin the sequence can grow past the 5527 tokens a 10 % margin allows.
    expect((out.seqLen as { value: number }).value).toBeGreaterThan(5527);
  });
});

describe('headroom gpus --for', () => {
  it('lists the fewest of each GPU, cheapest first, with the run time for --tokens', () => {
    const r = headroom([
      'gpus',
      'a100',
      'h100',
      '--for',
      'llama-3.1-70b',
      '--method',
      'full',
      '--gradient-checkpointing',
      'full',
      '--tokens',
      '2e9',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^gpu +count +layout +peak\/GPU +headroom +step +throughput +2B tokens +bought$/m,
    );
    expect(r.stdout).toMatch(/^h100-sxm +32 × +ZeRO-3 +55\.61–62\.31 GiB +17\.34 GiB \(22 %\) .* 2560 GB$/m);
    // The 40 GB cards: at the upper bound no count tried fits, and the line says so.
    expect(r.stdout).toMatch(
      /^does not fit at any count tried: a100-sxm-40gb \([\d.]+ GiB per GPU at best\)/m,
    );
  });

  it('--json gives each option with its scenario; a trainer config works as --for', () => {
    const out = json([
      'gpus',
      'rtx-4090',
      '--for',
      CONFIGS('torchtune__recipes__configs__qwen2_5__7B_lora_single_device.yaml'),
      '--seq-len',
      '2048',
    ]);
    expect(out.scenario).toMatchObject({ model: 'qwen2.5-7b', method: 'lora', seqLen: 2048 });
    const options = out.options as { gpu: string; gpus: number; strategy: string }[];
    // One 24 GB card holds the point but not the upper bound with the margin: two, sharded. (Four while
    // the verdict judged the reserve's whole climb over the padded run; the card must hold only what
    // the allocator keeps of it under pressure.)
    expect(options.map((o) => [o.gpu, o.gpus, o.strategy])).toEqual([['rtx-4090', 2, 'zero3']]);
    const [two] = out.options as { upper: { deviceBytes: number; neededDeviceBytes: number } }[];
    expect(two!.upper.neededDeviceBytes).toBeLessThan(two!.upper.deviceBytes);
  });

  it('rejects a bad sort', () => {
    const r = headroom(['gpus', '--for', 'llama-3.1-8b', '--sort', 'price']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: --sort price: cost or time\nTry: --sort time\n');
  });
});

describe('headroom env and migrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-cli-env-'));
  // A stand-in nvidia-smi first on PATH, printing real H200 captures (data/validation/nvidia-smi).
  const bin = join(dir, 'bin');
  spawnSync('mkdir', [bin]);
  writeFileSync(
    join(bin, 'nvidia-smi'),
    `#!/bin/sh
case "$1" in
  --query-gpu=*) exec /bin/cat '${dataFile('validation', 'nvidia-smi', '12_h200_query_gpu_full.csv')}' ;;
  topo) printf '\\tGPU0\\tCPU Affinity\\nGPU0\\t X \\t0-19\\n' ;;
  *) exec /bin/cat '${dataFile('validation', 'nvidia-smi', '04_h200_table_load.txt')}' ;;
esac
`,
  );
  chmodSync(join(bin, 'nvidia-smi'), 0o755);
  const h200 = join(dir, 'h200.json');

  it('env capture writes the environment and prints a summary', () => {
    const r = headroom(['env', 'capture', '-o', h200, '--dir', dir, '--no-disk-probe'], {
      PATH: `${bin}:${process.env.PATH}`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}GPUs {10}0: NVIDIA H200 \(h200-sxm\) · 140\.40 GiB · compute 9\.0 · MIG off · PCIe gen 5 x16$/m,
    );
    expect(r.stdout).toMatch(/^ {2}driver {8}590\.48\.01 · CUDA 13\.1$/m);
    const env = JSON.parse(readFileSync(h200, 'utf8'));
    expect(env.kind).toBe('headroom-env');
    expect(env.gpus.value[0].catalogId).toBe('h200-sxm');
  });

  it('env capture on a machine without nvidia-smi records it missing and exits 0', () => {
    const r = headroom(['env', 'capture', '--dir', dir, '--no-disk-probe'], { PATH: '/nonexistent' });
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout);
    expect(env.gpus).toEqual({
      status: 'missing',
      reason: 'nvidia-smi is not installed (not on PATH)',
      code: 'not-installed',
      params: { command: 'nvidia-smi' },
    });
  });

  it('env show renders a file, and refuses what is not one', () => {
    const r = headroom(['env', 'show', h200]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('interconnect  one GPU');
    const zh = headroom(['env', 'show', h200, '--lang', 'zh']);
    expect(zh.stdout).toMatch(
      /^ {2}GPU {11}0: NVIDIA H200 \(h200-sxm\) · 140\.40 GiB · 计算能力 9\.0 · MIG 关闭 · PCIe gen 5 x16$/m,
    );
    expect(zh.stdout).toMatch(/^ {2}互联 {10}单 GPU$/m);
    const bad = headroom(['env', 'show', CONFIGS('expected.jsonl')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*expected\.jsonl: not valid JSON/);
    expect(headroom(['env', 'frobnicate']).stderr).toBe(
      'error: env: unknown subcommand "frobnicate"\nTry: headroom env capture -o env.json, or headroom env show env.json\n',
    );
  });

  it('migrate: a captured H200 to a catalog T4 fails on bf16 and lists what it could not check', () => {
    const r = headroom([
      'migrate',
      '--from-env',
      h200,
      '--to-gpu',
      't4',
      'llama-3.1-8b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--precision',
      'bf16-true',
      '--gradient-checkpointing',
      'full',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}✓ peak memory fits the target +peak 10\.35–13\.21 GiB per GPU ≤ 13\.50 GiB/m,
    );
    expect(r.stdout).toMatch(/^ {2}✗ bf16 supported +t4 \(catalog\) has no bf16 tensor cores/m);
    expect(r.stdout).toContain('· versions: no environment file for t4');
    expect(r.stdout).toMatch(
      /1\. smoke run on t4: 30 steps on a small subset \(61k tokens\)\. Expect a peak of 10\.35 GiB per GPU/,
    );
    expect(r.stdout).toContain('✗ not ready: fix the ✗ items before moving');
  });

  it('migrate --lang zh (or a zh locale) prints the checklist, the plan and the verdict in Chinese', () => {
    const args = ['migrate', '--from-env', h200, '--to-gpu', 't4', 'llama-3.1-8b', '--method', 'qlora'];
    const flags = ['--quantization', 'nf4', '--precision', 'bf16-true', '--gradient-checkpointing', 'full'];
    const r = headroom([...args, ...flags, '--lang', 'zh']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^迁移 llama-3\.1-8b：.*h200\.json \(h200-sxm\) → t4 \[目录\]$/m);
    // Titles are padded to the same terminal width (a Chinese character takes two columns).
    expect(r.stdout).toMatch(/^ {2}✓ 峰值显存放得下目标 GPU {6}单卡峰值 10\.35–13\.21 GiB ≤ 13\.50 GiB/m);
    expect(r.stdout).toMatch(/^ {2}✗ 支持 bf16 {19}t4（目录） 没有 bf16 张量核心/m);
    expect(r.stdout).toMatch(/^ {4}· 版本：没有 t4 的环境文件$/m);
    expect(r.stdout).toMatch(
      /1\. 在 t4 上做冒烟运行：用一小部分数据跑 30 步（61k token）。nvidia-smi 中单卡峰值应约为 10\.35 GiB/,
    );
    expect(r.stdout).toContain('✗ 尚不能迁移：先修复标 ✗ 的项');
    const locale = headroom([...args, ...flags], { LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' });
    expect(locale.stdout).toBe(r.stdout);
    expect(headroom([...args, ...flags, '--lang', 'fr']).stderr).toMatch(/^error: --lang fr: /);
  });

  it('migrate --json carries the scenario, the items and the plan', () => {
    const out = json([
      'migrate',
      '--from-env',
      h200,
      '--to-env',
      h200,
      'llama-3.1-8b',
      '--method',
      'lora',
      '--precision',
      'bf16-true',
      '--save-steps',
      '100',
    ]);
    expect(out.scenario).toMatchObject({ model: 'llama-3.1-8b', gpu: 'h200-sxm' });
    const items = out.items as { id: string; status: string }[];
    expect(items.map((i) => i.id)).toEqual([
      'memory-fit',
      'gpu-count',
      'bf16',
      'interconnect',
      'checkpoint-disk',
      'versions',
      'checkpoint-frequency',
    ]);
    expect(items.find((i) => i.id === 'versions')!.status).toBe('fail');
  });

  it('migrate needs a target', () => {
    const r = headroom(['migrate', 'llama-3.1-8b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: migrate needs a target: --to-env FILE/);
  });
});

describe('headroom --help', () => {
  it('lists the new commands', () => {
    const r = headroom(['--help']);
    for (const command of [
      'import FILE',
      'plan MODEL --gpu ID',
      'fit MODEL --gpu ID',
      'env capture|show',
      'migrate --to-env B.json',
    ])
      expect(r.stdout).toContain(`  ${command}`);
  });
});

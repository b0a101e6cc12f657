/** Findings for real corpus cases and hostile variants, in the fixed order, with the numbers they read. */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { dataFile } from '../../../test/data.js';
import { findingWords, remedyFigure } from '../../words/diagnosis.js';
import { EVIDENCE_LABEL_WORDS } from '../../words/evidence.js';
import type { Lang } from '../../words/lang.js';
import { findGpu } from '../catalog/index.js';
import { estimate } from '../estimate.js';
import { resolveModelRef } from '../model-ref.js';
import { parseScenario, type Scenario } from '../scenario.js';
import { formatBytes } from '../units.js';
import { type DiagnoseInput, diagnose as diagnoseData, withOptimizerKernel } from './diagnose.js';
import { FINDING_GROUP, FINDING_ORDER } from './finding.js';

// The search's mechanics at a point upper bound (ratio 1): its boundaries stay put when the table is
// regenerated. The verdict on the real upper bound is tested in margin, estimate, fit and capacity.
vi.mock('../estimate/upper-table.js', () => import('../test-helpers/point-upper.js'));

const CORPUS: readonly { id: string; text: string }[] = readFileSync(
  dataFile('validation', 'oom_corpus.jsonl'),
  'utf8',
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const text = (id: string) => CORPUS.find((c) => c.id === id)!.text;

/** The diagnosis with its findings in words (the catalog renders what these tests read). */
const diagnose = (input: DiagnoseInput, lang: Lang = 'en') => {
  const d = diagnoseData(input);
  return { ...d, findings: d.findings.map((f) => findingWords(f, lang)) };
};
const codes = (id: string) => diagnose({ text: text(id) }).findings.map((f) => f.code);
const finding = (id: string, code: string) =>
  diagnose({ text: text(id) }).findings.find((f) => f.code === code)!;
const values = (id: string, code: string) => finding(id, code).evidence.map((e) => `${e.label}: ${e.value}`);

describe('the fixed order', () => {
  it('lists the groups environment, configuration, code, each code once', () => {
    const groups = FINDING_ORDER.map((c) => FINDING_GROUP[c]);
    expect(groups.indexOf('configuration')).toBeGreaterThan(groups.lastIndexOf('environment'));
    expect(groups.indexOf('code')).toBeGreaterThan(groups.lastIndexOf('configuration'));
    expect(new Set(FINDING_ORDER).size).toBe(FINDING_ORDER.length);
  });

  it('sorts every corpus diagnosis in that order', () => {
    for (const c of CORPUS) {
      const ranks = diagnose({ text: c.text }).findings.map((f) => FINDING_ORDER.indexOf(f.code));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
  });
});

describe('environment', () => {
  it('the container trap: one "Process N" that adds up to the used memory is this process', () => {
    expect(codes('kaito-976-private-pools')).toEqual([
      'own-process-in-container',
      'activations',
      'fragmentation',
    ]);
    expect(values('kaito-976-private-pools', 'own-process-in-container')).toEqual([
      'process: pid 562167: 15.25 GiB',
      'used on the card (total − free): 15.27 GiB',
    ]);
    expect(codes('pt-152135-hours-in')).toEqual(['own-process-in-container', 'mid-run', 'fragmentation']);
  });

  it('another process beside this one is an error, with its size', () => {
    const d = diagnose({
      text: 'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free. Process 441650 has 30.51 GiB memory in use. Including non-PyTorch memory, this process has 47.60 GiB memory in use. Of the allocated memory 45.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.',
    });
    const f = d.findings[0]!;
    expect([f.code, f.severity, f.title]).toEqual([
      'other-processes',
      'error',
      '1 other process holds 30.51 GiB on GPU 0',
    ]);
    expect(f.evidence.map((e) => e.value)).toEqual([
      'pid 441650: 30.51 GiB',
      '30.51 GiB',
      '47.60 GiB',
      '79.15 GiB',
    ]);
    expect(d.phase).toBe('other-process');
  });

  it('memory used that no process accounts for (NVML lists none)', () => {
    expect(values('pt-1.0-cached-format', 'memory-outside-process')).toEqual([
      'used on the card (total − free): 1.64 GiB',
      'reserved by PyTorch in total: 13.3 MiB',
      'CUDA context (assumed): 500 MiB',
      'used by nothing listed: 1.14 GiB (10 % of the card)',
    ]);
    // On a known card the context is the estimator's for it: 758 MiB measured on Hopper.
    const noProcesses =
      'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 1.00 GiB is free. Of the allocated memory 100.00 GiB is allocated by PyTorch, and 2.00 GiB is reserved by PyTorch but unallocated.';
    const outside = (gpu?: string) =>
      diagnose({ text: noProcesses, gpu: gpu ? findGpu(gpu)! : null })
        .findings.find((f) => f.code === 'memory-outside-process')!
        .evidence.map((e) => `${e.label}: ${e.value}`);
    expect(outside('h200-sxm')).toEqual([
      'used on the card (total − free): 138.80 GiB',
      'reserved by PyTorch in total: 102.00 GiB',
      'CUDA context (assumed): 758 MiB',
      'used by nothing listed: 36.06 GiB (26 % of the card)',
    ]);
    expect(outside()).toContain('CUDA context (assumed): 500 MiB');
    expect(codes('pt-1.x-59778-free-but-fails')).toEqual([
      'memory-outside-process',
      'free-exceeds-request',
      'phase-unknown',
    ]);
  });

  it('"free > requested" is explained, not read as a contradiction; rounding slack is not reported', () => {
    expect(finding('taggui-188-expandable', 'free-exceeds-request').title).toBe(
      'The card reported 2.35 GiB free, more than the 20.0 MiB requested',
    );
    expect(codes('mygirlgpt-11-4gb')).toEqual(['weights-at-load']); // 41.6 MiB free for 32 MiB: rounding
  });

  it('a request larger than the card is a shape bug; allocated > total is WDDM', () => {
    expect(codes('replacer-74-wddm')).toEqual([
      'request-exceeds-card',
      'allocated-exceeds-card',
      'activations',
    ]);
    expect(finding('replacer-74-wddm', 'request-exceeds-card').title).toBe(
      'One request of 27.12 GiB on a 11.99 GiB card: a shape bug, not memory pressure',
    );
    expect(finding('nccl-1284-1EB', 'request-exceeds-card').title).toBe(
      'A request of more than 1 EB: a corrupted size, not memory pressure',
    );
  });

  it('a request larger than --gpu when the message has no total', () => {
    const d = diagnose({ text: text('slime-1951-logits-fp32'), gpu: findGpu('a100-sxm-40gb')! });
    expect(d.findings.map((f) => f.code)).toEqual(['request-exceeds-card', 'phase-unknown']);
  });

  it('host-memory kills, by kind', () => {
    expect(codes('alpaca-546-host-oom-loading')).toEqual(['host-memory']);
    expect(finding('alpaca-546-host-oom-loading', 'host-memory').action).toContain('low_cpu_mem_usage=True');
    expect(finding('dataloader-dcpdn-12', 'host-memory').action).toContain('num_workers');
    const shm = diagnose({
      text: "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
    });
    expect(shm.findings[0]!.action).toContain('--shm-size');
  });

  it('leftover processes and a second model copy, from the words of the text', () => {
    expect(codes('trixie-92-stopped-process')).toEqual(['no-oom-message', 'leftover-process']);
    expect(finding('trixie-92-stopped-process', 'leftover-process').evidence[0]!.quote).toBe(
      '| 0 N/A N/A 1395 C python 25081MiB |', // quotes collapse whitespace
    );
    expect(codes('internvl-154-eval-reload-gpu0')).toEqual(['no-oom-message', 'second-model-copy']);
  });

  it('a look-alike is named, and nothing else is claimed', () => {
    const d = diagnose({ text: text('xtuner-247-paged-unsupported') });
    expect(d.oom.family).toBe('not-oom');
    expect(d.findings.map((f) => [f.code, f.severity])).toEqual([['not-an-oom', 'error']]);
    expect(d.findings[0]!.action).toContain('non-paged optimizer');
  });

  it('numberless messages send you to the system layer', () => {
    expect(finding('graphgdp-1-dataparallel', 'numberless-oom').action).toContain('CUDA_LAUNCH_BLOCKING=1');
    expect(finding('opensora-386-nccl', 'numberless-oom').action).toContain('NCCL_DEBUG=INFO');
    expect(finding('jaxline-11', 'framework-preallocation').action).toContain(
      'XLA_PYTHON_CLIENT_PREALLOCATE=false',
    );
  });
});

describe('configuration and code', () => {
  it('the phase picks the part: optimizer states, with the frame quoted', () => {
    const f = finding('fsdp-70b-optimizer-step', 'optimizer-states');
    expect(f.evidence).toEqual([
      {
        label: 'phase',
        value: 'optimizer step (from the traceback: the code it printed belongs to this phase)',
        quote: 'optimizer.step()',
      },
    ]);
  });

  it('a genuinely full card is activations, with the share it read', () => {
    expect(values('pt-2.x-16417-batch', 'activations')).toEqual([
      'phase: forward (from the allocator’s figures: PyTorch tensors fill the card: the forward pass’s activations (kept for backward when training) filled it)',
      'allocated by PyTorch: 22.90 GiB of 23.65 GiB (97 %)',
      'reserved by PyTorch, unallocated: 195 MiB',
    ]);
    expect(codes('pt-2.x-16417-batch')).not.toContain('fragmentation');
  });

  it('fragmentation from the message: whether free + cache would have covered the request', () => {
    expect(values('lerf-73-reserved', 'fragmentation')).toEqual([
      'reserved by PyTorch, unallocated: 4.84 GiB (20 % of the card)',
      'requested: 3.00 GiB',
      'free + reserved-unallocated: 1.66 GiB + 4.84 GiB = 6.50 GiB ≥ 3.00 GiB',
    ]);
    expect(values('cads-4-reserved-unalloc', 'fragmentation')[2]).toBe(
      'free + reserved-unallocated: 12.73 GiB + 9.35 GiB = 22.08 GiB < 22.78 GiB',
    );
    // PyTorch ≤ 2.0 has no expandable_segments.
    expect(finding('alpaca-65-fsdp-save', 'fragmentation').action).toContain('max_split_size_mb:128');
  });

  /** An 8B LoRA scenario diagnosed against a real out-of-memory at the batch: its activations finding. */
  const batchOom = (fields: Record<string, unknown>) => {
    const scenario = parseScenario({
      model: 'llama-3.1-8b',
      method: 'lora',
      precision: 'bf16-true',
      ...fields,
    });
    const shape = resolveModelRef('llama-3.1-8b')!.shape;
    const d = diagnose({ text: text('pt-2.x-16417-batch'), scenario: { scenario, shape } });
    return { scenario, shape, f: d.findings.find((x) => x.code === 'activations')! };
  };

  it('each remedy carries the estimator’s figure against the card in the message', () => {
    const { scenario, shape, f } = batchOom({ microBatchSize: 4, seqLen: 2048 });
    expect(f.severity).toBe('error');
    const card = 25393994138; // 23.65 GiB, the message's total capacity
    const device = (raw: Record<string, unknown>) =>
      estimate({ scenario: parseScenario({ ...scenario, ...raw }), shape }).peak.deviceBytes;
    const before = device({});
    const ckpt = device({ gradientCheckpointing: 'full' });
    const both = device({ microBatchSize: 1, gradAccumSteps: 4, gradientCheckpointing: 'full' });
    expect(f.remedies!.map((r) => r.flags)).toEqual([
      '--micro-batch 1 --grad-accum 4',
      '--gradient-checkpointing full',
      '--loss fused',
      '--offload-activations cpu',
      '--seq-len 1024',
      '--micro-batch 1 --grad-accum 4 --gradient-checkpointing full',
    ]);
    expect(f.remedies![1]).toEqual({
      change: 'gradient checkpointing (none → full)',
      flags: '--gradient-checkpointing full',
      savedBytes: before - ckpt,
      fitsAfter: false,
      headroomAfterBytes: card - ckpt,
    });
    expect(f.remedies![5]).toMatchObject({
      savedBytes: before - both,
      fitsAfter: true,
      headroomAfterBytes: card - both,
    });
    expect(remedyFigure(f.remedies![5]!, 'en')).toBe('−59.75 GiB, fits with 4.04 GiB to spare');
  });

  it('a chunked loss that is not compiled: compiling it is a remedy, for the fp32 logits it drops', () => {
    const { scenario, shape, f } = batchOom({
      gradientCheckpointing: 'full',
      loss: 'chunked',
      microBatchSize: 4,
      seqLen: 4096,
    });
    const remedy = f.remedies!.find((r) => r.flags === '--torch-compile')!;
    const device = (raw: Record<string, unknown>) =>
      estimate({ scenario: parseScenario({ ...scenario, ...raw }), shape }).peak.deviceBytes;
    expect(remedy.change).toBe('torch.compile over the chunked loss (no fp32 copy of the logits)');
    expect(remedy.savedBytes).toBe(device({}) - device({ torchCompile: true }));
    expect(remedy.savedBytes).toBeGreaterThanOrEqual(4 * 128_256 * 4 * 4096);
  });

  it('an old bitsandbytes that keeps the 4-bit inputs is the first remedy, and what it frees', () => {
    const raw = {
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      microBatchSize: 4,
      seqLen: 2048,
      quantizedInputsKept: 'next-forward',
    };
    const shape = resolveModelRef('llama-3.1-8b')!.shape;
    const d = diagnose({
      text: text('pt-2.x-16417-batch'),
      scenario: { scenario: parseScenario(raw), shape },
    });
    const first = d.findings.find((x) => x.code === 'activations')!.remedies![0]!;
    const device = (fields: Record<string, unknown>) =>
      estimate({ scenario: parseScenario({ ...raw, ...fields }), shape }).peak.deviceBytes;
    expect(first).toMatchObject({
      change:
        'bitsandbytes 0.43.2 or later (pip install -U bitsandbytes): 4-bit layers stop keeping their inputs',
      flags: '--quantized-inputs-kept none',
      savedBytes: device({}) - device({ quantizedInputsKept: 'none' }),
    });
    expect(first.savedBytes).toBeGreaterThan(0);
    // The environment step names the old bitsandbytes itself, with the same figure.
    const old = d.findings.find((x) => x.code === 'old-bitsandbytes')!;
    expect(old.title).toBe('A bitsandbytes before 0.43.2 keeps every 4-bit layer’s input');
    expect(old.remedies).toEqual([first]);
    // A version the probe recorded overrides the scenario: 0.44.1 keeps nothing, so nothing to say.
    const fresh = diagnose({
      text: text('pt-2.x-16417-batch'),
      scenario: { scenario: parseScenario(raw), shape },
      bitsandbytes: '0.44.1',
    });
    expect(fresh.findings.map((x) => x.code)).not.toContain('old-bitsandbytes');
  });

  it('when the estimate’s floor is another part, the combination that fits reaches into it', () => {
    const scenario = parseScenario({
      model: 'llama-3.2-1b',
      method: 'full',
      microBatchSize: 4,
      seqLen: 1024,
    });
    const shape = resolveModelRef('llama-3.2-1b')!.shape;
    const f = diagnose({ text: text('pt-2.x-16417-batch'), scenario: { scenario, shape } }).findings[0]!;
    expect(f.remedies!.at(-1)!.fitsAfter).toBe(true);
    expect(f.remedies!.slice(0, -1).every((r) => r.fitsAfter === false)).toBe(true);
    const last = f.remedies!.at(-1)!;
    // The card of the message (25,393,994,138 bytes) less the 10 % margin every fit verdict keeps.
    const budget = Math.floor(25393994138 * 0.9);
    // A fused loss for the activations, then the optimizer part: 8-bit states, the floor once
    // activations are small.
    expect(last.flags).toBe('--loss fused --optimizer adamw-8bit');
    const device = (raw: Record<string, unknown>) =>
      estimate({ scenario: parseScenario({ ...scenario, ...raw }), shape }).peak.deviceBytes;
    const both = { loss: 'fused', optimizer: 'adamw-8bit' };
    expect(last.savedBytes).toBe(device({}) - device(both));
    expect(device(both)).toBeLessThanOrEqual(budget);
    // Neither alone fits: the two are the smallest combination.
    expect(device({ loss: 'fused' })).toBeGreaterThan(budget);
    expect(device({ optimizer: 'adamw-8bit' })).toBeGreaterThan(budget);
  });

  it('the optimizer kernel in the traceback overrides the one the scenario assumed', () => {
    // fsdp-70b-optimizer-step fails inside _multi_tensor_adamw: the foreach kernel, temporary and all.
    // Checkpointed and short, so the optimizer step is the estimate's peak and the kernel shows in it.
    const raw = {
      model: 'llama-2-70b',
      method: 'full',
      gradientCheckpointing: 'full',
      seqLen: 512,
      parallelism: { strategy: 'fsdp', gpus: 8 },
    };
    const shape = resolveModelRef('llama-2-70b')!.shape;
    const device = (fields: Record<string, unknown>) =>
      estimate({ scenario: parseScenario({ ...raw, ...fields }), shape }).peak.deviceBytes;
    expect(device({ fusedOptimizer: true })).toBeLessThan(device({}));
    const trace = text('fsdp-70b-optimizer-step');
    expect(trace).toContain('_multi_tensor_adamw');
    const assumedFused = parseScenario({ ...raw, fusedOptimizer: true });
    expect(withOptimizerKernel(assumedFused, trace).fusedOptimizer).toBeUndefined();
    const estimateOf = (scenario: Scenario) => {
      const d = diagnose({ text: trace, scenario: { scenario, shape, gpu: findGpu('a100-sxm-80gb')! } });
      return d.findings.find((f) => f.code === 'optimizer-states')!.evidence;
    };
    expect(estimateOf(assumedFused)).toEqual(estimateOf(parseScenario(raw)));
    // A fused frame says the opposite; an optimizer of another kind is left alone.
    const foreach = parseScenario(raw);
    expect(
      withOptimizerKernel(foreach, '  File "torch/optim/adamw.py", in _fused_adamw').fusedOptimizer,
    ).toBe(true);
    const eightBit = parseScenario({ ...raw, optimizer: 'adamw-8bit' });
    expect(withOptimizerKernel(eightBit, trace)).toBe(eightBit);
  });

  it('an unknown phase with a scenario points at the estimate’s largest part', () => {
    const scenario = parseScenario({ model: 'qwen2.5-7b', method: 'full', precision: 'bf16-mixed' });
    const d = diagnose({
      text: text('lerf-73-reserved'),
      scenario: { scenario, shape: resolveModelRef('qwen2.5-7b')!.shape },
    });
    const f = d.findings.find((x) => x.code === 'phase-unknown')!;
    expect(f.evidence[1]!.value).toMatch(/^optimizer [\d.]+ GiB \(\d+ % of the peak\)$/);
    // Least disruptive first: the same AdamW with its fused kernel, then 8-bit states.
    expect(f.remedies!.map((r) => r.flags).slice(0, 2)).toEqual([
      '--fused-optimizer',
      '--optimizer adamw-8bit',
    ]);
  });
});

describe('the JSON contract', () => {
  it('is { oom, phase, findings } with the corpus’s names, each finding data: a code and raw params', () => {
    const d = diagnoseData({ text: text('kaito-976-private-pools') });
    expect(d.oom).toEqual({
      family: 'torch-v2',
      requestedBytes: 572522496,
      totalBytes: 16932908564,
      freeBytes: 539167293,
      allocatedByTorchBytes: 14742475244,
      reservedUnallocatedBytes: 772653711,
      reservedTotalBytes: null,
      gpuIndex: 0,
      processes: [{ pid: 562167, bytes: 16374562816 }],
      privatePoolsBytes: 48234496,
    });
    expect(d.phase).toBe('forward');
    for (const f of d.findings)
      expect(Object.keys(f)).toEqual(
        expect.arrayContaining(['code', 'severity', 'group', 'params', 'evidence']),
      );
    // Raw figures, not formatted ones: the container trap's process and its bytes as the message gave them.
    expect(d.findings[0]).toMatchObject({
      code: 'own-process-in-container',
      params: { pid: 562167, bytes: 16374562816 },
      evidence: [
        {
          label: 'process',
          value: { code: 'process', params: { pid: 562167, name: null, bytes: 16374562816 } },
        },
        { label: 'card-used', value: { code: 'bytes', params: { bytes: 16932908564 - 539167293 } } },
      ],
    });
    // Only the log's own quotes carry units; every figure is a number.
    expect(JSON.stringify(d.findings.map((f) => [f.params, f.evidence.map((e) => e.value)]))).not.toMatch(
      /GiB|MiB|%/,
    );
  });

  it('an empty text has no findings', () => {
    expect(diagnose({ text: '' }).findings).toEqual([]);
  });
});

describe('diagnose: the estimate against a recorded run, (estimate − measured) / measured', () => {
  const scenario = parseScenario({ model: 'llama-3.1-8b', method: 'lora', precision: 'bf16-true' });
  const shape = resolveModelRef('llama-3.1-8b')!.shape;
  const est = estimate({ scenario, shape }).peak.allocatedBytes;
  /** Three training steps that peaked at `peak` bytes allocated. */
  const timeline = (peak: number) => ({
    steps: [1, 2, 3].map((step) => ({
      step,
      phase: 'train' as const,
      allocatedBytes: peak / 2,
      reservedBytes: peak,
      peakAllocatedBytes: peak,
      peakReservedBytes: peak,
      inactiveSplitBytes: 0,
      numAllocRetries: 0,
      rank: 0,
      device: 0,
    })),
  });
  const line = (peak: number, lang: Lang = 'en') =>
    diagnose(
      {
        text: text('pt-2.x-16417-batch'),
        scenario: { scenario, shape },
        timeline: timeline(peak),
      },
      lang,
    )
      .findings.find((f) => f.code === 'activations')!
      .evidence.find((e) => e.label === EVIDENCE_LABEL_WORDS[lang]['estimate-error'])?.value;

  it('a run that needed 25 % more than estimated: the estimate under the measured peak', () => {
    const measured = est * 1.25;
    expect(line(measured)).toBe(
      `estimate 20.0 % under the measured peak (${formatBytes(est)} estimated, ${formatBytes(measured)} measured)`,
    );
    expect(line(measured, 'zh')).toBe(
      `估算比实测峰值低 20.0 %（估算 ${formatBytes(est)}，实测 ${formatBytes(measured)}）`,
    );
  });

  it('a run that needed less than estimated: the estimate over the measured peak', () => {
    const measured = est / 1.1;
    expect(line(measured)).toMatch(/^estimate 10\.0 % over the measured peak \(/);
    expect(line(measured, 'zh')).toMatch(/^估算比实测峰值高 10\.0 %/);
  });

  it('no recorded run, no such line', () => {
    const f = diagnose({ text: text('pt-2.x-16417-batch'), scenario: { scenario, shape } }).findings;
    expect(
      f.flatMap((x) => x.evidence).some((e) => e.label === EVIDENCE_LABEL_WORDS.en['estimate-error']),
    ).toBe(false);
  });
});

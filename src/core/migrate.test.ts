import { describe, expect, it, vi } from 'vitest';
import { say } from '../words/catalog.js';
import { checkWords } from '../words/migrate-checks.js';
import { MIGRATE_NOT_CHECKED } from '../words/migrate-report.js';
import { findGpu } from './catalog/index.js';
import type { EnvFrameworks, EnvGpu, EnvInterconnect, EnvSnapshot } from './env.js';
import { estimate } from './estimate.js';
import {
  type CheckId,
  checkMigration,
  checkpointBytes,
  type MigrateSide,
  type MigrationReport,
} from './migrate.js';
import { resolveModelRef } from './model-ref.js';
import { parseScenario, type Scenario } from './scenario.js';
import { TORCHTUNE_8B_FULL_PAGED } from './test-helpers/scenarios.js';
import { formatBytes } from './units.js';

// The search's mechanics at a point upper bound (ratio 1): its boundaries stay put when the table is
// regenerated. The verdict on the real upper bound is tested in margin, estimate, fit and capacity.
vi.mock('./estimate/upper-table.js', () => import('./test-helpers/point-upper.js'));

const MIB = 1024 ** 2;
const shape = resolveModelRef('llama-3.1-8b')!.shape;

const gpu = (name: string, mib: number, cc: string, catalogId: string | null, index = 0): EnvGpu => ({
  index,
  name,
  memoryTotalBytes: mib * MIB,
  computeCapability: cc,
  migMode: 'disabled',
  migDevicesMemoryBytes: [],
  pcie: { gen: 4, lanes: 16 },
  catalogId,
});

const FRAMEWORKS: EnvFrameworks = {
  python: '3.11.7',
  packages: {
    torch: '2.5.1',
    transformers: '4.46.0',
    peft: '0.13.2',
    trl: '0.12.0',
    accelerate: '1.1.0',
    deepspeed: '0.15.4',
    bitsandbytes: '0.44.1',
    'flash-attn': '2.6.3',
  },
  torchCuda: '12.4',
};

function env(options: {
  gpus: EnvGpu[];
  interconnect?: EnvInterconnect['kind'];
  driver?: string;
  cuda?: string;
  frameworks?: Partial<EnvFrameworks> & { packages?: Record<string, string | null> };
  freeBytes?: number;
  writeBytesPerSecond?: number | null;
  memoryBytes?: number;
}): EnvSnapshot {
  const n = options.gpus.length;
  return {
    kind: 'headroom-env',
    version: 1,
    capturedAt: '2026-07-01T00:00:00.000Z',
    host: {
      hostname: 'h',
      platform: 'linux',
      arch: 'x64',
      cpus: 64,
      memoryBytes: options.memoryBytes ?? 512 * 1024 ** 3,
    },
    gpus: { status: 'ok', value: options.gpus },
    driver: {
      status: 'ok',
      value: { driverVersion: options.driver ?? '550.54.15', cudaVersion: options.cuda ?? '12.4' },
    },
    frameworks: {
      status: 'ok',
      value: {
        ...FRAMEWORKS,
        ...options.frameworks,
        packages: { ...FRAMEWORKS.packages, ...(options.frameworks?.packages ?? {}) },
      },
    },
    interconnect: {
      status: 'ok',
      value: {
        kind: options.interconnect ?? (n === 1 ? 'single' : 'nvlink'),
        gpuCount: n,
        nvlinkPairs: options.interconnect === 'pcie' ? 0 : (n * (n - 1)) / 2,
        matrix: [],
      },
    },
    disk: {
      status: 'ok',
      value: {
        path: '/data',
        freeBytes: options.freeBytes ?? 2e12,
        totalBytes: 4e12,
        writeBytesPerSecond: options.writeBytesPerSecond === undefined ? 1e9 : options.writeBytesPerSecond,
      },
    },
  };
}

const side = (label: string, e: EnvSnapshot | null, gpuId?: string): MigrateSide => ({
  label,
  env: e,
  gpu: gpuId
    ? findGpu(gpuId)!
    : e?.gpus.status === 'ok' && e.gpus.value[0]?.catalogId
      ? findGpu(e.gpus.value[0].catalogId)!
      : null,
});

const h100x8 = env({
  gpus: Array.from({ length: 8 }, (_, i) => gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm', i)),
});

/** A report with its items and not-checked lines in English (src/words), as the CLI prints them. */
function english(report: MigrationReport) {
  return {
    ...report,
    items: report.items.map((item) => {
      const words = checkWords('en', item);
      return {
        id: item.id,
        status: item.status,
        title: words.title,
        reason: words.reason,
        ...(words.action === null ? {} : { action: words.action }),
      };
    }),
    notChecked: report.notChecked.map((n) => say(MIGRATE_NOT_CHECKED, 'en', n)),
  };
}

function check(
  scenario: Record<string, unknown>,
  from: MigrateSide,
  to: MigrateSide,
  extra: Record<string, unknown> = {},
) {
  return english(
    checkMigration({
      scenario: parseScenario({ model: 'llama-3.1-8b', ...scenario }),
      shape,
      from,
      to,
      ...extra,
    }),
  );
}
const status = (r: ReturnType<typeof check>) =>
  Object.fromEntries(r.items.map((i) => [i.id, i.status])) as Partial<Record<CheckId, string>>;

describe('checkMigration on crafted environment pairs', () => {
  it('the same software on a like-for-like machine passes everything it can check', () => {
    const r = check(
      {
        method: 'lora',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        parallelism: { strategy: 'ddp', gpus: 8 },
      },
      side('a.json', h100x8),
      side('b.json', h100x8),
      { saveEverySteps: 200 },
    );
    expect(status(r)).toEqual({
      'memory-fit': 'pass',
      'gpu-count': 'pass',
      bf16: 'pass',
      interconnect: 'pass',
      'checkpoint-disk': 'pass',
      versions: 'pass',
      'checkpoint-frequency': 'pass',
    });
    expect(r.verdict).toBe('pass');
    expect(r.notChecked).toEqual([]);
  });

  it('H100 → T4: bf16 fails (fp16 with loss scaling instead), a full fine-tune does not fit', () => {
    const t4 = env({ gpus: [gpu('Tesla T4', 15360, '7.5', 't4')], driver: '535.104.05', cuda: '12.2' });
    const lora = check(
      { method: 'qlora', quantization: 'nf4', precision: 'bf16-true', gradientCheckpointing: 'full' },
      side('a', h100x8),
      side('t4', t4),
    );
    const bf16 = lora.items.find((i) => i.id === 'bf16')!;
    expect(bf16.status).toBe('fail');
    expect(bf16.reason).toMatch(
      /^compute capability 7\.5 has no bf16 tensor cores \(needs ≥ 8\.0\): run fp16-true with dynamic loss scaling/,
    );
    expect(bf16.action).toBe(
      '--precision fp16-true, then re-check: headroom migrate … --precision fp16-true',
    );
    expect(status(lora)['memory-fit']).toBe('pass');
    const full = check({ method: 'full' }, side('a', h100x8), side('t4', t4));
    expect(status(full)['memory-fit']).toBe('fail');
    expect(full.items.find((i) => i.id === 'bf16')!.reason).toContain('run fp16-mixed');
    expect(full.verdict).toBe('fail');
  });

  it('paged optimizer states do not count against the target: they wait in host RAM when it is full', () => {
    const raw = TORCHTUNE_8B_FULL_PAGED;
    const r = check(raw, side('a', h100x8), side('rtx-4090', null, 'rtx-4090'));
    const fit = r.items.find((i) => i.id === 'memory-fit')!;
    const e = estimate({
      scenario: parseScenario({ model: 'llama-3.1-8b', ...raw }),
      shape,
      gpu: findGpu('rtx-4090')!,
    });
    expect(fit.status).toBe('pass');
    expect(fit.reason).toContain(
      `peak ${formatBytes(e.peak.deviceBytes - e.breakdown.pagedOptimizerBytes!)} per GPU ≤ `,
    );
    expect(fit.reason).toContain(
      `; the ${formatBytes(e.breakdown.pagedOptimizerBytes!)} of paged optimizer states come on top where there is room and wait in host RAM where there is not`,
    );
    expect(
      status(check({ ...raw, optimizer: 'adamw-8bit' }, side('a', h100x8), side('r', null, 'rtx-4090')))[
        'memory-fit'
      ],
    ).toBe('fail');
  });

  it('ZeRO-3 over PCIe warns with the communication time per step', () => {
    const l40s = env({
      gpus: Array.from({ length: 4 }, (_, i) => gpu('NVIDIA L40S', 46068, '8.9', 'l40s', i)),
      interconnect: 'pcie',
    });
    const r = check(
      {
        method: 'lora',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        parallelism: { strategy: 'zero3', gpus: 4 },
      },
      side('a', h100x8),
      side('b', l40s),
    );
    const item = r.items.find((i) => i.id === 'interconnect')!;
    expect(item.status).toBe('warn');
    expect(item.reason).toMatch(
      /^zero3 gathers every weight twice per micro-batch over PCIe: .* of communication per step against .* of compute \(.* per GPU over PCIe gen 4 x16; nvidia-smi topo: PCIe only\)$/,
    );
    // The same layout over NVLink passes.
    const nv = check(
      {
        method: 'lora',
        precision: 'bf16-true',
        gradientCheckpointing: 'full',
        parallelism: { strategy: 'zero3', gpus: 4 },
      },
      side('a', h100x8),
      side('b', h100x8),
    );
    expect(status(nv).interconnect).toBe('pass');
  });

  it('too few GPUs on the target fails', () => {
    const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
    const r = check(
      { method: 'full', parallelism: { strategy: 'zero3', gpus: 8 } },
      side('a', h100x8),
      side('b', one),
    );
    expect(r.items.find((i) => i.id === 'gpu-count')).toMatchObject({
      status: 'fail',
      reason: 'the scenario uses 8 GPUs, the target has 1',
    });
  });

  it('a MIG slice is what a process gets: the fit is checked against the instance', () => {
    const mig = env({
      gpus: [
        {
          ...gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm'),
          migMode: 'enabled',
          migDevicesMemoryBytes: [40448 * MIB, 20096 * MIB],
        },
      ],
    });
    const r = check(
      { method: 'lora', precision: 'bf16-true', gradientCheckpointing: 'full' },
      side('a', h100x8),
      side('b', mig),
    );
    expect(r.target.usableBytes).toBe(20096 * MIB);
    expect(r.items.find((i) => i.id === 'memory-fit')!.reason).toContain(
      'MIG instance of NVIDIA H100 80GB HBM3',
    );
  });

  it('checkpoints and data against the disk, with the time one save takes at the measured speed', () => {
    const small = env({
      gpus: h100x8.gpus.status === 'ok' ? [...h100x8.gpus.value] : [],
      freeBytes: 100e9,
      writeBytesPerSecond: 500e6,
    });
    const scenario = { method: 'full', precision: 'bf16-true', parallelism: { strategy: 'fsdp', gpus: 8 } };
    const r = check(scenario, side('a', h100x8), side('b', small), { datasetBytes: 20e9 });
    const ckpt = checkpointBytes(parseScenario({ model: 'x', ...scenario }), 8_030_261_248, 8_030_261_248);
    // bf16-true full fine-tune: 2 B weights + 2 × 2 B AdamW states per parameter.
    expect(ckpt).toBe(8_030_261_248 * 6);
    const item = r.items.find((i) => i.id === 'checkpoint-disk')!;
    expect(item.status).toBe('fail');
    expect(item.reason).toMatch(
      /^2 checkpoints of 44\.87 GiB \(weights \+ optimizer states\) \+ 18\.63 GiB of data = 108\.37 GiB against 93\.13 GiB free on \/data; one save takes 2 min at 477 MiB\/s$/,
    );
  });

  it('DeepSpeed mixed precision checkpoints hold 16-bit weights, fp32 masters and states; LoRA only adapters', () => {
    const zero = parseScenario({ model: 'x', method: 'full', parallelism: { strategy: 'zero3', gpus: 8 } });
    expect(checkpointBytes(zero, 1e9, 1e9)).toBe(1e9 * (2 + 8 + 4));
    const amp = parseScenario({ model: 'x', method: 'full' });
    expect(checkpointBytes(amp, 1e9, 1e9)).toBe(1e9 * (4 + 8));
    const lora = parseScenario({ model: 'x', method: 'lora' });
    expect(checkpointBytes(lora, 8e9, 1e6)).toBe(1e6 * (4 + 8));
  });

  it('versions: differences warn; a package the scenario needs, missing on the target, fails', () => {
    const drift = env({
      gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')],
      frameworks: { packages: { transformers: '4.44.2' } },
    });
    const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
    const r = check({ method: 'lora', precision: 'bf16-true' }, side('a', one), side('b', drift));
    expect(r.items.find((i) => i.id === 'versions')).toMatchObject({
      status: 'warn',
      reason: 'differs: transformers 4.46.0 → 4.44.2',
    });
    const noFlash = env({
      gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')],
      frameworks: { packages: { 'flash-attn': null } },
    });
    const f = check(
      { method: 'lora', precision: 'bf16-true', attention: 'flash' },
      side('a', one),
      side('b', noFlash),
    );
    expect(f.items.find((i) => i.id === 'versions')).toMatchObject({
      status: 'fail',
      reason: 'flash-attn not installed on b, and the scenario needs it; differs: flash-attn 2.6.3 → absent',
    });
    // torchtune's QLoRA base is torchao's, not bitsandbytes'.
    const torchao = check(
      { method: 'qlora', quantization: 'nf4-dq', quantizer: 'torchao', precision: 'bf16-true' },
      side('a', one),
      side('b', one),
    );
    expect(torchao.items.find((i) => i.id === 'versions')).toMatchObject({
      status: 'fail',
      reason: 'torchao not installed on b, and the scenario needs it',
    });
  });

  it("the target's bitsandbytes decides whether 4-bit layers keep their inputs, and an old one is named", () => {
    const qlora = { method: 'qlora', quantization: 'nf4', precision: 'bf16-true' };
    const on = (version: string) =>
      env({
        gpus: [gpu('NVIDIA GeForce RTX 4090', 24564, '8.9', 'rtx-4090')],
        frameworks: { packages: { bitsandbytes: version } },
      });
    const onRtx = (raw: Record<string, unknown>) =>
      estimate({
        scenario: parseScenario({ model: 'llama-3.1-8b', ...raw }),
        shape,
        gpu: findGpu('rtx-4090')!,
      });
    const old = check(qlora, side('a', on('0.44.1')), side('b', on('0.42.0')));
    expect(old.scenario.quantizedInputsKept).toBe('step');
    expect(old.estimate.peak.deviceBytes).toBe(
      onRtx({ ...qlora, quantizedInputsKept: 'step' }).peak.deviceBytes,
    );
    const fit = old.items.find((i) => i.id === 'memory-fit')!;
    expect(fit.reason).toContain("bitsandbytes 0.42.0 on b keeps every 4-bit layer's input");
    // A scenario written on an old bitsandbytes, moved to a new one, drops the kept inputs.
    const fresh = check(
      { ...qlora, quantizedInputsKept: 'next-forward' },
      side('a', on('0.42.0')),
      side('b', on('0.45.0')),
    );
    expect(fresh.scenario.quantizedInputsKept).toBe('none');
    expect(fresh.estimate.peak.deviceBytes).toBe(onRtx(qlora).peak.deviceBytes);
    // Where it does not fit, upgrading is offered first, with what it gives back.
    const tight = { ...qlora, microBatchSize: 4, quantizedInputsKept: 'next-forward' };
    const over = check(tight, side('a', on('0.42.0')), side('b', on('0.42.0')));
    const saved =
      onRtx(tight).peak.deviceBytes - onRtx({ ...tight, quantizedInputsKept: 'none' }).peak.deviceBytes;
    expect(over.items.find((i) => i.id === 'memory-fit')).toMatchObject({
      status: 'fail',
      action: `pip install -U "bitsandbytes>=0.43.2" on the target (−${formatBytes(saved)}), or headroom plan … --gpu rtx-4090 finds the cheapest change that fits`,
    });
  });

  it('a torch built for a newer CUDA than the driver supports fails', () => {
    const old = env({
      gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')],
      cuda: '11.8',
      driver: '520.61.05',
    });
    const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
    const r = check({ method: 'lora', precision: 'bf16-true' }, side('a', one), side('b', old));
    const item = r.items.find((i) => i.id === 'versions')!;
    expect(item.status).toBe('fail');
    expect(item.reason).toContain('torch is built for CUDA 12.4 but the driver supports CUDA 11.8');
  });

  it('checkpoint interval against preemption: too long warns with the interval that fits', () => {
    const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
    const scenario = { method: 'lora', precision: 'bf16-true', gradAccumSteps: 64 };
    const r = check(scenario, side('a', one), side('b', one), { saveEverySteps: 5000 });
    const item = r.items.find((i) => i.id === 'checkpoint-frequency')!;
    expect(item.status).toBe('warn');
    expect(item.action).toMatch(/^save_steps ≤ \d+$/);
    const every = Number(item.action!.split('≤ ')[1]);
    const r2 = check(scenario, side('a', one), side('b', one), { saveEverySteps: every });
    expect(r2.items.find((i) => i.id === 'checkpoint-frequency')!.status).toBe('pass');
  });

  it('a catalog GPU stands in for a missing environment, and the checklist says what it could not check', () => {
    const r = check(
      { method: 'lora', precision: 'bf16-true', gradientCheckpointing: 'full' },
      side('a100-sxm-80gb', null, 'a100-sxm-80gb'),
      side('l4', null, 'l4'),
    );
    expect(status(r)).toEqual({
      'memory-fit': 'pass',
      bf16: 'pass',
      interconnect: 'pass',
      'checkpoint-disk': 'unknown',
      versions: 'unknown',
      'checkpoint-frequency': 'warn',
    });
    expect(r.notChecked).toEqual([
      'gpu-count: no GPU list for l4 (catalog stands in; 1 GPU assumed)',
      'checkpoint-disk: no environment file for l4 (free disk and write speed unknown)',
      'versions: no environment file for either side',
    ]);
    expect(r.to).toEqual({ label: 'l4', gpu: 'l4', source: 'catalog' });
  });

  it('plans a smoke run with the peak and tokens/s to expect, then the full run', () => {
    const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
    const scenario: Scenario = parseScenario({
      model: 'llama-3.1-8b',
      method: 'lora',
      precision: 'bf16-true',
      microBatchSize: 2,
      gradAccumSteps: 4,
    });
    const r = checkMigration({ scenario, shape, from: side('a', one), to: side('b', one), tokens: 1e9 });
    const est = estimate({ scenario, shape, gpu: findGpu('h100-sxm')! });
    expect(r.plan.smoke).toMatchObject({
      steps: 30,
      tokens: 30 * 2 * 2048 * 4,
      peakDeviceBytes: est.peak.deviceBytes,
      peakAllocatedBytes: est.peak.allocatedBytes,
    });
    expect(r.plan.smoke.seconds).toBeCloseTo((30 * 2 * 2048 * 4) / r.plan.smoke.tokensPerSecond!, 6);
    expect(r.plan.full.seconds).toBeCloseTo(1e9 / r.plan.smoke.tokensPerSecond!, 3);
  });
});

describe('checkMigration: host memory for what the run offloads', () => {
  const GIB = 1024 ** 3;
  const rtx4090 = (memoryBytes: number) =>
    env({ gpus: [gpu('NVIDIA GeForce RTX 4090', 24564, '8.9', 'rtx-4090')], memoryBytes });
  const offloaded = {
    method: 'qlora',
    quantization: 'nf4',
    precision: 'bf16-true',
    gradientCheckpointing: 'full',
    seqLen: 32768,
    offload: { activations: 'cpu' },
  };
  const hostItem = (r: ReturnType<typeof check>) => r.items.find((i) => i.id === 'host-memory');

  it('passes when the target has room for the offloaded activations, and names the figure', () => {
    const r = check(offloaded, side('a.json', rtx4090(64 * GIB)), side('b.json', rtx4090(64 * GIB)));
    const item = hostItem(r)!;
    expect(item.status).toBe('pass');
    expect(item.reason).toBe('the offload needs 8.00 GiB of CPU RAM per node; the target has 64.00 GiB');
  });

  it('warns past 60 % of the RAM (pinned pages cannot swap), fails past all of it', () => {
    expect(
      hostItem(check(offloaded, side('a.json', rtx4090(64 * GIB)), side('b.json', rtx4090(12 * GIB))))!
        .status,
    ).toBe('warn');
    const fail = hostItem(
      check(offloaded, side('a.json', rtx4090(64 * GIB)), side('b.json', rtx4090(6 * GIB))),
    )!;
    expect(fail.status).toBe('fail');
    expect(fail.reason).toBe('the offload needs 8.00 GiB of CPU RAM per node; the target has 6.00 GiB');
  });

  it('says what it cannot know for a catalog GPU, and stays out of a run that offloads nothing', () => {
    const unknown = hostItem(
      check(offloaded, side('a.json', rtx4090(64 * GIB)), side('rtx-4090', null, 'rtx-4090')),
    )!;
    expect(unknown.status).toBe('unknown');
    expect(unknown.action).toBe('headroom env capture on the target records it');
    const { offload: _none, ...plain } = offloaded;
    expect(
      hostItem(check(plain, side('a.json', rtx4090(64 * GIB)), side('b.json', rtx4090(6 * GIB)))),
    ).toBeUndefined();
  });

  it('a full fine-tune with optimizer offload over eight H100s needs more than a 128 GiB node holds', () => {
    const small = env({
      gpus: Array.from({ length: 8 }, (_, i) => gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm', i)),
      memoryBytes: 128 * GIB,
    });
    const scenario = {
      method: 'full',
      gradientCheckpointing: 'full',
      parallelism: { strategy: 'zero3', gpus: 8 },
      offload: { optimizer: 'cpu' },
    };
    const need = estimate({ scenario: parseScenario({ model: 'llama-3.1-8b', ...scenario }), shape }).host!
      .cpuBytes;
    const item = hostItem(check(scenario, side('a.json', h100x8), side('b.json', small)))!;
    expect(item.status).toBe('fail');
    expect(item.reason).toBe(
      `the offload needs ${formatBytes(need)} of CPU RAM per node; the target has 128.00 GiB`,
    );
    expect(hostItem(check(scenario, side('a.json', h100x8), side('b.json', h100x8)))!.status).toBe('pass');
  });
});

describe('checkMigration: items are data, worded at the edge', () => {
  const one = env({ gpus: [gpu('NVIDIA H100 80GB HBM3', 81559, '9.0', 'h100-sxm')] });
  const t4 = env({ gpus: [gpu('Tesla T4', 15360, '7.5', 't4')], driver: '535.104.05', cuda: '12.2' });
  const raw = (scenario: Record<string, unknown>, from: MigrateSide, to: MigrateSide) =>
    checkMigration({
      scenario: parseScenario({ model: 'llama-3.1-8b', ...scenario }),
      shape,
      from,
      to,
    });

  it('an item is its id, status, a reason code with raw figures and an action code', () => {
    const r = raw(
      { method: 'full', parallelism: { strategy: 'zero3', gpus: 8 } },
      side('a', h100x8),
      side('b', one),
    );
    expect(r.items.find((i) => i.id === 'gpu-count')).toEqual({
      id: 'gpu-count',
      status: 'fail',
      code: 'gpus-too-few',
      params: { need: 8, has: 1 },
      action: { code: 'replan-gpus', params: { gpus: 1 } },
    });
    // The memory figures are the fit verdict's bytes, unformatted.
    const fit = r.items.find((i) => i.id === 'memory-fit')!;
    expect(fit.code).toBe('memory-fits');
    if (fit.code === 'memory-fits') {
      expect(fit.params.peakBytes).toBe(r.estimate.peak.deviceBytes);
      expect(fit.params.budgetBytes).toBe(r.target.budgetBytes);
      expect(fit.params.on).toEqual({ kind: 'gpu', name: 'NVIDIA H100 80GB HBM3' });
    }
    // The report survives JSON unchanged (what --json prints), and words the same after it.
    const back = JSON.parse(JSON.stringify(r)) as MigrationReport;
    expect(back.items).toEqual(r.items);
    expect(english(back).items).toEqual(english(r).items);
  });

  it('the versions check lists what breaks and what differs as codes with the versions', () => {
    const old = env({
      gpus: [gpu('Tesla T4', 15360, '7.5', 't4')],
      driver: '520.61.05',
      cuda: '11.8',
      frameworks: { packages: { 'flash-attn': null } },
    });
    const r = raw(
      { method: 'lora', precision: 'bf16-true', attention: 'flash' },
      side('a', one),
      side('b', old),
    );
    expect(r.items.find((i) => i.id === 'versions')).toEqual({
      id: 'versions',
      status: 'fail',
      code: 'versions-broken',
      params: {
        problems: [
          { code: 'not-installed', params: { packages: ['flash-attn'], label: 'b' } },
          { code: 'cuda-mismatch', params: { torchCuda: '12.4', driverCuda: '11.8', driverMajor: 11 } },
        ],
        diffs: [
          { code: 'driver', params: { from: '550.54.15', to: '520.61.05' } },
          { code: 'cuda', params: { from: '12.4', to: '11.8' } },
          { code: 'package', params: { name: 'flash-attn', from: '2.6.3', to: null } },
        ],
      },
      action: { code: 'pin-versions', params: {} },
    });
  });

  it('speaks Chinese: the title, the reason with its figures and the action', () => {
    const r = raw(
      { method: 'qlora', quantization: 'nf4', precision: 'bf16-true', gradientCheckpointing: 'full' },
      side('a', h100x8),
      side('t4', t4),
    );
    const bf16 = checkWords('zh', r.items.find((i) => i.id === 'bf16')!);
    expect(bf16.title).toBe('支持 bf16');
    expect(bf16.reason).toMatch(
      /^计算能力 7\.5 没有 bf16 张量核心（需要 ≥ 8\.0）：改用 fp16-true 并启用动态损失缩放/,
    );
    expect(bf16.action).toBe(
      '改用 --precision fp16-true，然后重新检查：headroom migrate … --precision fp16-true',
    );
    const disk = checkWords('zh', r.items.find((i) => i.id === 'checkpoint-disk')!);
    expect(disk.reason).toMatch(
      /^2 个检查点，每个 78\.0 MiB（适配器 \+ 其优化器状态） = 156 MiB，\/data 上剩余 1\.82 TiB；以 954 MiB\/s 保存一次需要 0\.1 秒/,
    );
  });
});

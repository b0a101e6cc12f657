import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { parseComputeApps, parseGpuQuery } from '../core/nvidia-smi.js';
import {
  type AppsSnapshot,
  type GpuSnapshot,
  NvidiaSmiSampler,
  queryNvidiaSmi,
  SAMPLER_APP_FIELDS,
  SAMPLER_GPU_FIELDS,
  type SamplerProblem,
} from './sampler.js';

const STANDIN_PATH = [join(REPO_ROOT, 'test', 'fixtures', 'bin'), process.env.PATH].join(delimiter);
const env = (extra: Record<string, string> = {}) => ({ ...process.env, PATH: STANDIN_PATH, ...extra });

// What the stand-in replays: data/validation/nvidia-smi/12_h200_query_gpu_full.csv and 05_h200_compute_apps.csv.
const H200 = {
  index: 0,
  uuid: 'GPU-00000000-0000-0000-0000-000000000000',
  name: 'NVIDIA H200',
  busId: null,
  memoryTotalMiB: 143771,
  memoryReservedMiB: 614,
  memoryUsedMiB: 32362,
  memoryFreeMiB: 110796,
  utilizationGpuPercent: 100,
  migMode: null,
};
const PROCESSES = [
  [10291, '/root/tools/memhog', 2566],
  [10293, '/root/tools/memhog', 1542],
  [10309, './gpu_burn', 28234],
];

describe('queryNvidiaSmi (one reading, before a launch)', () => {
  it('reads every GPU and compute process from the stand-in, exactly', async () => {
    const result = await queryNvidiaSmi({ env: env() });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.gpuFields).toEqual([...SAMPLER_GPU_FIELDS]);
    expect(result.gpus.map(({ line: _l, timestamp: _t, ...g }) => g)).toEqual([H200]);
    expect(result.gpus[0]!.timestamp).toMatch(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    expect(result.processes.map((p) => [p.pid, p.name, p.usedMiB])).toEqual(PROCESSES);
    expect(new Set(result.processes.map((p) => p.gpuUuid))).toEqual(new Set([H200.uuid]));
  });

  it('a driver without memory.reserved: asks again without it', async () => {
    const result = await queryNvidiaSmi({ env: env({ STANDIN_NVSMI_NO_RESERVED: '1' }) });
    expect(result.ok && result.gpuFields).toEqual(SAMPLER_GPU_FIELDS.filter((f) => f !== 'memory.reserved'));
    expect(result.ok && result.gpus[0]!.memoryReservedMiB).toBeNull();
    expect(result.ok && result.gpus[0]!.memoryUsedMiB).toBe(32362);
  });

  it.each<[string, Record<string, string>, number, SamplerProblem]>([
    [
      'missing',
      { PATH: '/nonexistent' },
      10_000,
      {
        code: 'not-found',
        message: 'nvidia-smi was not found on PATH: GPU memory as the system sees it is not recorded',
        hint: 'install the NVIDIA driver utilities or put nvidia-smi on PATH; the probe layer (torch allocated and reserved) is recorded without it',
      },
    ],
    [
      'failing',
      { STANDIN_NVSMI_MODE: 'fail' },
      10_000,
      {
        code: 'failed',
        message:
          "nvidia-smi exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
        hint: 'run nvidia-smi yourself to see what the driver says (a driver/library version mismatch needs a reboot or a driver reinstall)',
      },
    ],
    [
      'hanging',
      { STANDIN_NVSMI_MODE: 'hang' },
      300,
      {
        code: 'hung',
        message: 'nvidia-smi printed nothing for 0.3 s and was stopped',
        hint: 'nvidia-smi hangs when the driver is stuck (check dmesg for Xid errors); the probe layer is still recorded',
      },
    ],
  ])('a %s nvidia-smi is a problem, as data', async (_name, extra, timeoutMs, problem) => {
    expect(await queryNvidiaSmi({ env: env(extra) }, timeoutMs)).toEqual({ ok: false, problem });
  });
});

function collect(
  extra: Record<string, string>,
  intervalMs: number,
  ms: number,
  hangTimeoutMs?: number,
  until?: (problems: readonly SamplerProblem[]) => boolean,
) {
  const gpus: GpuSnapshot[] = [];
  const apps: AppsSnapshot[] = [];
  const problems: SamplerProblem[] = [];
  const sampler = new NvidiaSmiSampler({
    env: env(extra),
    intervalMs,
    ...(hangTimeoutMs ? { hangTimeoutMs } : {}),
    onGpus: (s) => gpus.push(s),
    onApps: (s) => apps.push(s),
    onProblem: (p) => problems.push(p),
  });
  sampler.start();
  const started = Date.now();
  return new Promise<{ gpus: GpuSnapshot[]; apps: AppsSnapshot[]; problems: SamplerProblem[] }>((resolve) => {
    const timer = setInterval(async () => {
      if (Date.now() - started < ms && !(until?.(problems) ?? false)) return;
      clearInterval(timer);
      await sampler.stop();
      resolve({ gpus, apps, problems });
    }, 20);
  });
}

describe('NvidiaSmiSampler (two long-lived -lms loops)', () => {
  it('delivers a snapshot per loop iteration from exactly two nvidia-smi processes', async () => {
    const calls = join(mkdtempSync(join(tmpdir(), 'headroom-smi-')), 'calls');
    const { gpus, apps, problems } = await collect({ STANDIN_NVSMI_CALLS: calls }, 50, 1200);
    expect(problems).toEqual([]);
    expect(gpus.length).toBeGreaterThanOrEqual(4);
    expect(apps.length).toBeGreaterThanOrEqual(4);
    for (const s of gpus) expect(s.gpus.map(({ line: _l, timestamp: _t, ...g }) => g)).toEqual([H200]);
    for (const s of apps) expect(s.processes.map((p) => [p.pid, p.name, p.usedMiB])).toEqual(PROCESSES);
    expect(readFileSync(calls, 'utf8').trim().split('\n').sort()).toEqual([
      '--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_gpu_memory --format=csv,noheader,nounits -lms 50',
      `--query-gpu=${SAMPLER_GPU_FIELDS.join(',')} --format=csv,noheader,nounits -lms 50`,
    ]);
  });

  it('a loop that dies is reported and restarted, then given up on', async () => {
    const { gpus, problems } = await collect(
      { STANDIN_NVSMI_MODE: 'die-after:1' },
      20,
      15_000,
      undefined,
      (p) => p.filter((x) => x.code === 'gave-up').length === 2,
    );
    const gpuProblems = problems.filter(
      (p) => p.message.startsWith('nvidia-smi exited') || p.code === 'gave-up',
    );
    expect(gpuProblems.filter((p) => p.code === 'failed').map((p) => p.message)).toContain(
      'nvidia-smi exited with code 15: Unable to determine the device handle for GPU0000:83:00.0: GPU is lost.',
    );
    // Each loop: the first start and 3 restarts, then it gives up (one message per loop).
    expect(problems.filter((p) => p.code === 'failed')).toHaveLength(8);
    expect(problems.filter((p) => p.code === 'gave-up')).toHaveLength(2);
    expect(gpus.length).toBe(4);
  });

  it('a loop that goes silent is reported hung and killed', async () => {
    const { problems } = await collect({ STANDIN_NVSMI_MODE: 'hang-after:1' }, 20, 700, 300);
    expect(problems[0]).toEqual({
      code: 'hung',
      message: 'nvidia-smi printed nothing for 0.3 s and was stopped',
      hint: 'nvidia-smi hangs when the driver is stuck (check dmesg for Xid errors); the probe layer is still recorded',
    });
  });

  it('no nvidia-smi: one problem, no snapshots, no crash', async () => {
    const { gpus, apps, problems } = await collect({ PATH: '/nonexistent' }, 50, 300);
    expect([gpus.length, apps.length, problems.map((p) => p.code)]).toEqual([0, 0, ['not-found']]);
  });
});

describe("the sampler's two queries on a real H200 (bench/gpu/results, sampled while the harness ran)", () => {
  const results = join(REPO_ROOT, 'bench', 'gpu', 'results');
  const read = (name: string) => readFileSync(join(results, name), 'utf8');

  it('--query-gpu rows: every one parsed, and used + free + reserved is the total', () => {
    const { gpus, problems } = parseGpuQuery(read('smi-gpu-loop.csv'), SAMPLER_GPU_FIELDS);
    expect(problems).toEqual([]);
    expect(gpus).toHaveLength(138);
    for (const g of gpus) {
      expect([g.name, g.memoryTotalMiB, g.memoryReservedMiB]).toEqual(['NVIDIA H200', 143_771, 616]);
      // nvidia-smi rounds each of the three figures to a MiB.
      expect(
        Math.abs(g.memoryUsedMiB! + g.memoryFreeMiB! + g.memoryReservedMiB! - g.memoryTotalMiB!),
      ).toBeLessThanOrEqual(2);
    }
    // The designed out-of-memory scenarios filled the card.
    expect(Math.max(...gpus.map((g) => g.memoryUsedMiB!))).toBe(142_391);
  });

  it('--query-compute-apps rows: one process per scenario that ran, each with its memory', () => {
    const { processes, problems } = parseComputeApps(read('smi-apps-loop.csv'), SAMPLER_APP_FIELDS);
    expect(problems).toEqual([]);
    // A process caught while it exits has its name as "[No data]": no name, its pid and memory kept.
    expect(new Set(processes.map((p) => p.name))).toEqual(new Set(['python3', null]));
    expect(processes.filter((p) => p.name === null).length).toBe(12);
    expect(processes.every((p) => Number.isInteger(p.pid) && Number.isInteger(p.usedMiB))).toBe(true);
    // The grid run's children: 48 measured and 3 out of memory (measure.log), each a fresh process.
    const ran = read('measure.log')
      .split('\n')
      .filter((l) => / -> (ok|OOM) /.test(l)).length;
    expect(ran).toBe(51);
    expect(new Set(processes.map((p) => p.pid)).size).toBe(ran);
  });
});

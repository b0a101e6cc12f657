/** The checks before launch on a real nvidia-smi reading: sample 12 (an H200) and its three processes. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../../test/data.js';
import { parseComputeApps, parseGpuQuery } from '../nvidia-smi.js';
import { GIB, MIB } from '../units.js';
import {
  allocatorSetting,
  type GpuReading,
  launchEnv,
  prelaunchChecks,
  storedWarningCode,
  targetGpus,
  UNLISTED_USE_BYTES,
  visibleGpus,
} from './prelaunch.js';

const sample = (name: string) => readFileSync(dataFile('validation', 'nvidia-smi', name), 'utf8');
const gpus = parseGpuQuery(sample('12_h200_query_gpu_full.csv')).gpus;
const processes = parseComputeApps(sample('05_h200_compute_apps.csv')).processes;
const busy: GpuReading = { ok: true, gpus, processes };
const GPU = gpus[0]!;
const FREE = GPU.memoryFreeMiB! * MIB;

describe('prelaunchChecks', () => {
  it('names the processes on the GPU that are not the run’s, with their memory', () => {
    expect(GPU).toMatchObject({ index: 0, name: 'NVIDIA H200', memoryUsedMiB: 32_362 });
    const verdict = prelaunchChecks({ reading: busy, visible: null, neededBytes: null, strict: false });
    expect(verdict.warnings).toEqual([
      {
        code: 'foreign-processes',
        params: {
          gpu: 0,
          gpuName: 'NVIDIA H200',
          processes: [
            { pid: 10291, name: '/root/tools/memhog', usedBytes: 2566 * MIB },
            { pid: 10293, name: '/root/tools/memhog', usedBytes: 1542 * MIB },
            { pid: 10309, name: './gpu_burn', usedBytes: 28_234 * MIB },
          ],
        },
      },
    ]);
    expect(verdict.refuse).toBe(false);
    expect(prelaunchChecks({ reading: busy, visible: null, neededBytes: null, strict: true }).refuse).toBe(
      true,
    );
  });

  it('with no process listed, memory in use above 1 GiB is someone else’s', () => {
    const hidden: GpuReading = { ok: true, gpus, processes: [] };
    expect(
      prelaunchChecks({ reading: hidden, visible: null, neededBytes: null, strict: false }).warnings,
    ).toEqual([
      { code: 'unlisted-use', params: { gpu: 0, gpuName: 'NVIDIA H200', usedBytes: 32_362 * MIB } },
    ]);
    const small = { ...GPU, memoryUsedMiB: UNLISTED_USE_BYTES / MIB - 1 };
    const idle: GpuReading = { ok: true, gpus: [small], processes: [] };
    expect(prelaunchChecks({ reading: idle, visible: null, neededBytes: null, strict: true })).toEqual({
      warnings: [],
      fits: [],
      refuse: false,
    });
  });

  it('free memory against the estimate: a warning below it, a fit at or above it', () => {
    const idle: GpuReading = { ok: true, gpus, processes: [] };
    const short = prelaunchChecks({ reading: idle, visible: null, neededBytes: FREE + 1, strict: false });
    expect(short.warnings.map((w) => w.code)).toEqual(['unlisted-use', 'low-free-memory']);
    expect(short.warnings[1]!.params).toEqual({
      gpu: 0,
      gpuName: 'NVIDIA H200',
      freeBytes: 110_796 * MIB,
      neededBytes: FREE + 1,
    });
    expect(short.fits).toEqual([]);
    const fits = prelaunchChecks({ reading: idle, visible: null, neededBytes: FREE, strict: false });
    expect(fits.fits).toEqual([{ gpu: 0, freeBytes: FREE, neededBytes: FREE }]);
  });

  it('looks only at the GPUs CUDA_VISIBLE_DEVICES leaves, by index or UUID', () => {
    expect(visibleGpus(undefined)).toBeNull();
    expect(visibleGpus(' 1, GPU-abc ,')).toEqual(['1', 'GPU-abc']);
    expect(targetGpus(gpus, ['1'])).toEqual([]);
    expect(targetGpus(gpus, [GPU.uuid!])).toEqual([GPU]);
    expect(prelaunchChecks({ reading: busy, visible: ['1'], neededBytes: 80 * GIB, strict: true })).toEqual({
      warnings: [],
      fits: [],
      refuse: false,
    });
  });

  it('an nvidia-smi that cannot be run is a warning of its own, stored under nvidia-smi-<problem>', () => {
    const reading: GpuReading = {
      ok: false,
      problem: { code: 'missing', message: 'nvidia-smi was not found on PATH', hint: 'pass --no-smi' },
    };
    const verdict = prelaunchChecks({ reading, visible: null, neededBytes: 8 * GIB, strict: true });
    expect(verdict).toEqual({
      warnings: [
        {
          code: 'nvidia-smi',
          params: { problem: 'missing', detail: 'nvidia-smi was not found on PATH', hint: 'pass --no-smi' },
        },
      ],
      fits: [],
      refuse: true,
    });
    expect(storedWarningCode(verdict.warnings[0]!)).toBe('nvidia-smi-missing');
  });
});

describe('allocatorSetting', () => {
  it('is PYTORCH_ALLOC_CONF when set (torch ≥ 2.9), else the older name', () => {
    expect(allocatorSetting({})).toEqual({ variable: 'PYTORCH_CUDA_ALLOC_CONF', value: undefined });
    expect(allocatorSetting({ PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' })).toEqual({
      variable: 'PYTORCH_CUDA_ALLOC_CONF',
      value: 'expandable_segments:True',
    });
    expect(allocatorSetting({ PYTORCH_ALLOC_CONF: '', PYTORCH_CUDA_ALLOC_CONF: 'x' })).toEqual({
      variable: 'PYTORCH_ALLOC_CONF',
      value: '',
    });
  });
});

describe('launchEnv', () => {
  it('keeps the GPUs and other processes seen before launch, in bytes', () => {
    const env = launchEnv({
      platform: 'linux',
      node: 'v20',
      cudaVisibleDevices: undefined,
      allocator: { variable: 'PYTORCH_CUDA_ALLOC_CONF', value: undefined },
      reading: busy,
    });
    expect(env).toMatchObject({
      cudaVisibleDevices: null,
      pytorchAllocConf: null,
      pytorchAllocConfVariable: null,
      nvidiaSmi: 'ok',
      gpus: [{ index: 0, name: 'NVIDIA H200', usedBytes: 32_362 * MIB, freeBytes: FREE }],
    });
    expect((env.otherProcesses as unknown[]).length).toBe(3);
    expect(
      launchEnv({
        platform: 'linux',
        node: 'v20',
        cudaVisibleDevices: '0',
        allocator: { variable: 'PYTORCH_ALLOC_CONF', value: 'expandable_segments:True' },
        reading: null,
      }),
    ).toMatchObject({
      cudaVisibleDevices: '0',
      pytorchAllocConfVariable: 'PYTORCH_ALLOC_CONF',
      nvidiaSmi: 'off',
      gpus: [],
      otherProcesses: [],
    });
  });
});

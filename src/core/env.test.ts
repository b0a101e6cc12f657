import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFile, REPO_ROOT } from '../../test/data.js';
import {
  matchCatalogGpu,
  parseDriverVersions,
  parseEnvGpus,
  parseEnvSnapshot,
  parseFrameworkProbe,
  parseTopoMatrix,
} from './env.js';

const sample = (name: string) => readFileSync(dataFile('validation', 'nvidia-smi', name), 'utf8');
const MIB = 1024 ** 2;

// Real `nvidia-smi topo -m` outputs, copied from public READMEs.
/** casys-kaist/HUVM README.md: AWS p3.8xlarge, 4 × V100 with NVLink 2.0 between every pair. */
const TOPO_P3 = `\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV1\tNV1\tNV2\t0-31\t\tN/A
GPU1\tNV1\t X \tNV2\tNV1\t0-31\t\tN/A
GPU2\tNV1\tNV2\t X \tNV2\t0-31\t\tN/A
GPU3\tNV2\tNV1\tNV2\t X \t0-31\t\tN/A

Legend:

  X    = Self
  NV#  = Connection traversing a bonded set of # NVLinks
`;
/** milanpro Masterthesis-Heterogeneous-PC README.md: IBM AC922, NVLink in pairs, NIC rows below. */
const TOPO_AC922 = `\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tmlx5_1\tmlx5_2\tmlx5_3\tmlx5_4\tmlx5_5\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV3\tSYS\tSYS\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-63\t0
GPU1\tNV3\t X \tSYS\tSYS\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-63\t0
GPU2\tSYS\tSYS\t X \tNV3\tSYS\tSYS\tNODE\tNODE\tNODE\tNODE\t64-127\t8
GPU3\tSYS\tSYS\tNV3\t X \tSYS\tSYS\tNODE\tNODE\tNODE\tNODE\t64-127\t8
mlx5_0\tNODE\tNODE\tSYS\tSYS\t X \tPIX\tSYS\tSYS\tSYS\tSYS
mlx5_1\tNODE\tNODE\tSYS\tSYS\tPIX\t X \tSYS\tSYS\tSYS\tSYS

Legend:
`;
/** A 4 × RTX A4000 workstation report (public issue): PCIe only. */
const TOPO_PCIE = `\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNODE\tNODE\tNODE\t0-31\t0\t\tN/A
GPU1\tNODE\t X \tNODE\tNODE\t0-31\t0\t\tN/A
GPU2\tNODE\tNODE\t X \tNODE\t0-31\t0\t\tN/A
GPU3\tNODE\tNODE\tNODE\t X \t0-31\t0\t\tN/A
`;
const TOPO_SINGLE = `\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \t0-19\t0\t\tN/A
`;

describe('parseEnvGpus', () => {
  it('reads the H200 from a real --query-gpu CSV (250 fields, units in the header)', () => {
    const gpus = parseEnvGpus(sample('12_h200_query_gpu_full.csv'), sample('04_h200_table_load.txt'));
    expect(gpus).toEqual([
      {
        index: 0,
        name: 'NVIDIA H200',
        memoryTotalBytes: 143771 * MIB,
        computeCapability: '9.0',
        migMode: 'disabled',
        migDevicesMemoryBytes: [],
        pcie: { gen: 5, lanes: 16 },
        catalogId: 'h200-sxm',
      },
    ]);
  });

  it('takes MIG instance sizes from the table when MIG is on (a process gets an instance, not the card)', () => {
    // The query CSV is built here (no MIG query sample exists); the table is the real H100 MIG capture.
    const csv =
      'index, name, memory.total [MiB], driver_version, compute_cap, mig.mode.current, pcie.link.gen.max, pcie.link.width.max\n' +
      '0, NVIDIA H100 80GB HBM3, 81559 MiB, 590.48.01, 9.0, Enabled, 5, 16\n';
    const [gpu] = parseEnvGpus(csv, sample('01_h100_mig_table_3procs.txt'));
    expect(gpu).toMatchObject({ migMode: 'enabled', catalogId: 'h100-sxm', memoryTotalBytes: 81559 * MIB });
    expect(gpu!.migDevicesMemoryBytes).toEqual([40448 * MIB, 20096 * MIB, 9984 * MIB, 9984 * MIB]);
  });

  it('keeps [N/A] fields as null', () => {
    const csv =
      'index, name, memory.total [MiB], compute_cap, mig.mode.current\n0, NVIDIA GeForce RTX 4090, 24564 MiB, 8.9, [N/A]\n';
    expect(parseEnvGpus(csv)[0]).toMatchObject({ migMode: null, pcie: null, catalogId: 'rtx-4090' });
  });
});

describe('parseDriverVersions', () => {
  it('reads the table header and the -q report', () => {
    expect(parseDriverVersions(sample('04_h200_table_load.txt'))).toEqual({
      driverVersion: '590.48.01',
      cudaVersion: '13.1',
    });
    expect(parseDriverVersions(sample('08_l40s_table_load.txt'))).toEqual({
      driverVersion: '595.80',
      cudaVersion: '13.2',
    });
    expect(parseDriverVersions(sample('11_h100_mig_query_q.txt'))).toEqual({
      driverVersion: '590.48.01',
      cudaVersion: '13.1',
    });
    expect(parseDriverVersions('no versions here')).toEqual({ driverVersion: null, cudaVersion: null });
  });
});

describe('parseTopoMatrix', () => {
  it('NVLink between every pair', () => {
    expect(parseTopoMatrix(TOPO_P3)).toEqual({
      kind: 'nvlink',
      gpuCount: 4,
      nvlinkPairs: 6,
      matrix: [
        ['X', 'NV1', 'NV1', 'NV2'],
        ['NV1', 'X', 'NV2', 'NV1'],
        ['NV1', 'NV2', 'X', 'NV2'],
        ['NV2', 'NV1', 'NV2', 'X'],
      ],
    });
  });
  it('NVLink in pairs, NIC rows and columns ignored', () => {
    expect(parseTopoMatrix(TOPO_AC922)).toMatchObject({ kind: 'partial', gpuCount: 4, nvlinkPairs: 2 });
  });
  it('PCIe only, and a single GPU', () => {
    expect(parseTopoMatrix(TOPO_PCIE)).toMatchObject({ kind: 'pcie', gpuCount: 4, nvlinkPairs: 0 });
    expect(parseTopoMatrix(TOPO_SINGLE)).toMatchObject({ kind: 'single', gpuCount: 1 });
  });
  it('text without a GPU matrix gives null', () => {
    expect(parseTopoMatrix('')).toBeNull();
    expect(
      parseTopoMatrix('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'),
    ).toBeNull();
  });
});

describe('matchCatalogGpu', () => {
  it.each([
    ['NVIDIA H100 80GB HBM3', 81559, 'h100-sxm'],
    ['NVIDIA H200', 143771, 'h200-sxm'],
    ['NVIDIA L40S', 46068, 'l40s'],
    ['NVIDIA A100-SXM4-80GB', 81920, 'a100-sxm-80gb'],
    ['NVIDIA A100-SXM4-40GB', 40960, 'a100-sxm-40gb'],
    ['NVIDIA GeForce RTX 4080 SUPER', 16376, 'rtx-4080'],
    ['NVIDIA RTX 6000 Ada Generation', 49140, 'rtx-6000-ada'],
    ['Tesla T4', 15360, 't4'],
    ['Tesla V100-SXM2-16GB', 16160, 'v100-sxm2-16gb'],
    ['NVIDIA RTX A4000', 16376, null],
  ] as const)('%s (%i MiB) → %s', (name, mib, id) => {
    expect(matchCatalogGpu(name, mib)).toBe(id);
  });
});

describe('parseFrameworkProbe and parseEnvSnapshot', () => {
  it('reads the python probe and fills absent packages with null', () => {
    expect(
      parseFrameworkProbe('{"python": "3.11.7", "packages": {"torch": "2.5.1"}, "torch_cuda": "12.4"}'),
    ).toEqual({
      python: '3.11.7',
      packages: {
        torch: '2.5.1',
        transformers: null,
        peft: null,
        trl: null,
        accelerate: null,
        deepspeed: null,
        bitsandbytes: null,
        torchao: null,
        'flash-attn': null,
        torchtune: null,
        litgpt: null,
        lightning: null,
        axolotl: null,
        llamafactory: null,
        'ms-swift': null,
        unsloth: null,
        torchtitan: null,
      },
      torchCuda: '12.4',
    });
    expect(parseFrameworkProbe('Traceback (most recent call last):')).toBeNull();
    expect(parseFrameworkProbe('{"packages": {}}')).toBeNull();
  });

  it('rejects files that are not environments, naming the file', () => {
    expect(() => parseEnvSnapshot('{', 'a.json')).toThrow(/^a\.json: not valid JSON/);
    expect(() => parseEnvSnapshot('{"kind": "scenario"}', 'a.json')).toThrow(
      'a.json: not a Headroom environment file',
    );
    expect(() => parseEnvSnapshot('{"kind": "headroom-env", "version": 2}', 'a.json')).toThrow(
      /version 2 is not supported/,
    );
    const ok = { status: 'missing', reason: 'x' };
    const good = {
      kind: 'headroom-env',
      version: 1,
      capturedAt: '2026-01-01T00:00:00Z',
      host: { hostname: 'h', platform: 'linux', arch: 'x64', cpus: 8, memoryBytes: 1e9 },
      gpus: ok,
      driver: ok,
      frameworks: ok,
      interconnect: ok,
      disk: ok,
    };
    expect(parseEnvSnapshot(JSON.stringify(good), 'a.json').gpus).toEqual(ok);
    expect(() => parseEnvSnapshot(JSON.stringify({ ...good, disk: { status: 'ok' } }), 'a.json')).toThrow(
      'a.json: disk.value must be an object, not missing',
    );
    expect(() =>
      parseEnvSnapshot(JSON.stringify({ ...good, gpus: { status: 'ok', value: {} } }), 'a.json'),
    ).toThrow('a.json: gpus.value must be a list, not an object');
  });
});

describe('env capture on the real H200 the GPU harness ran on (bench/gpu/results/nvidia-smi.txt)', () => {
  const text = readFileSync(join(REPO_ROOT, 'bench', 'gpu', 'results', 'nvidia-smi.txt'), 'utf8');
  // The file holds the plain table, then the query env capture runs, each after a "# command" line.
  const section = (command: string) => text.split(/^# /m).find((s) => s.startsWith(command))!;

  it("reads the card from env capture's own query, and its catalog entry", () => {
    const query = section('nvidia-smi --query-gpu=').split('\n').slice(1).join('\n');
    expect(parseEnvGpus(query)).toEqual([
      {
        index: 0,
        name: 'NVIDIA H200',
        memoryTotalBytes: 143_771 * 2 ** 20,
        computeCapability: '9.0',
        migMode: 'disabled',
        migDevicesMemoryBytes: [],
        pcie: { gen: 5, lanes: 16 },
        catalogId: 'h200-sxm',
      },
    ]);
  });

  it('reads the driver and CUDA versions from the plain table', () => {
    expect(parseDriverVersions(section('nvidia-smi\n'))).toEqual({
      driverVersion: '580.159.04',
      cudaVersion: '13.0',
    });
  });
});

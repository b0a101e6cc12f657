import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import {
  canonicalField,
  parseComputeApps,
  parseGpuQuery,
  parseNvidiaSmiCsv,
  readComputeApps,
} from './nvidia-smi.js';

const sample = (name: string) => readFileSync(dataFile('validation', 'nvidia-smi', name), 'utf8');
const expected = JSON.parse(
  readFileSync(dataFile('validation', 'nvidia-smi', 'expected.json'), 'utf8'),
).files;

describe('nvidia-smi --query-compute-apps CSV, on the real samples', () => {
  it.each([
    '02_h100_mig_compute_apps.csv',
    '05_h200_compute_apps.csv',
    '06_windows_wddm_compute_apps_NA.csv',
  ])('%s parses to expected.json', (file) => {
    const { processes, problems } = parseComputeApps(sample(file));
    expect(problems).toEqual([]);
    expect(
      processes.map((p) => ({
        gpuName: p.gpuName,
        gpuBusId: p.gpuBusId,
        pid: p.pid,
        name: p.name,
        usedMiB: p.usedMiB,
      })),
    ).toEqual(expected[file].processes);
  });

  it('26 (queried as gpu_uuid,name, printed as process_name): pid and memory are null', () => {
    const { processes, problems } = parseComputeApps(sample('26_issue_dcgmexporter94_compute_apps_vgpu.csv'));
    expect(problems).toEqual([]);
    expect(
      processes.map((p) => ({ gpuUuid: p.gpuUuid, pid: p.pid, name: p.name, usedMiB: p.usedMiB })),
    ).toEqual(expected['26_issue_dcgmexporter94_compute_apps_vgpu.csv'].processes);
  });

  it('keeps the timestamp and the GPU uuid of each row (05)', () => {
    const [first] = parseComputeApps(sample('05_h200_compute_apps.csv')).processes;
    expect(first).toEqual({
      line: 2,
      timestamp: '2026/07/03 22:11:09.916',
      gpuName: 'NVIDIA H200',
      gpuBusId: '00000000:83:00.0',
      gpuUuid: 'GPU-00000000-0000-0000-0000-000000000000',
      pid: 10291,
      name: '/root/tools/memhog',
      usedMiB: 2566,
    });
  });
});

describe('nvidia-smi --query-gpu CSV, on the real samples', () => {
  it('12: ~250 fields with [N/A] and other bracketed values; memory as expected.json', () => {
    const text = sample('12_h200_query_gpu_full.csv');
    const csv = parseNvidiaSmiCsv(text);
    expect(csv.problems).toEqual([]);
    expect(csv.hadHeader).toBe(true);
    expect(csv.fields).toHaveLength(text.split('\n')[0]!.split(', ').length);
    const { gpus } = parseGpuQuery(text);
    expect(
      gpus.map((g) => ({
        index: g.index,
        name: g.name,
        memoryTotalMiB: g.memoryTotalMiB,
        memoryReservedMiB: g.memoryReservedMiB,
        memoryUsedMiB: g.memoryUsedMiB,
        memoryFreeMiB: g.memoryFreeMiB,
      })),
    ).toEqual(expected['12_h200_query_gpu_full.csv'].gpus);
    expect(gpus[0]).toMatchObject({
      timestamp: '2026/07/03 22:11:09.763',
      uuid: 'GPU-00000000-0000-0000-0000-000000000000',
      busId: '00000000:83:00.0',
      utilizationGpuPercent: 100,
      migMode: 'Disabled',
    });
    const row = csv.rows[0]!.cells;
    // A bracketed token is no value, its text kept; units come from the header.
    expect(row['vgpu_driver_capability.heterogenous_multivGPU']).toEqual({
      raw: '[N/A]',
      value: null,
      unit: null,
    });
    expect(row.display_mode).toEqual({
      raw: '[Requested functionality has been deprecated]',
      value: null,
      unit: null,
    });
    expect(row['power.draw']).toEqual({ raw: '627.40 W', value: 627.4, unit: 'W' });
    expect(row['fan.speed']).toEqual({ raw: '[N/A]', value: null, unit: '%' });
    expect(row['clocks_event_reasons.supported']?.value).toBe('0x00000000000001FF');
    expect(row['fabric.health.summary']).toEqual({ raw: 'N/A', value: null, unit: null });
  });

  it('33: noheader keeps the unit ("1 %"); the queried field names the column', () => {
    const text = sample('33_issue_nvtop64_noheader_csv.txt');
    const output = text.slice(text.indexOf('# Output'));
    const csv = parseNvidiaSmiCsv(output, { fields: ['utilization.gpu'] });
    expect(csv.hadHeader).toBe(false);
    expect(csv.rows.map((r) => r.cells['utilization.gpu'])).toEqual([{ raw: '1 %', value: 1, unit: '%' }]);
    expect(parseGpuQuery(output, ['utilization.gpu']).gpus.map((g) => g.utilizationGpuPercent)).toEqual(
      expected['33_issue_nvtop64_noheader_csv.txt'].gpus.map(
        (g: { utilizationGpuPercent: number }) => g.utilizationGpuPercent,
      ),
    );
  });
});

describe('nvidia-smi CSV, hostile and variant inputs built in code', () => {
  const FIELDS = ['timestamp', 'gpu_uuid', 'pid', 'process_name', 'used_gpu_memory'];

  it('reads noheader,nounits rows with the field list the sampler asks for', () => {
    const text =
      '2026/07/03 22:11:09.916, GPU-1, 10291, python3, 2566\n2026/07/03 22:11:09.916, GPU-1, 10293, python3, 1542\n';
    expect(parseComputeApps(text, FIELDS).processes.map((p) => [p.pid, p.usedMiB])).toEqual([
      [10291, 2566],
      [10293, 1542],
    ]);
  });

  it('a process name with commas: pid from the left, memory from the right', () => {
    const text =
      '2026/06/22 23:04:33.535, GPU-1, 4242, C:\\Program Files\\My, Odd, App\\app.exe, 300\n' +
      '2026/06/22 23:04:33.535, GPU-1, 4243, python train.py --tags a,b,c, 1200\n';
    const { processes, problems } = parseComputeApps(text, FIELDS);
    expect(problems).toEqual([]);
    expect(processes.map((p) => [p.pid, p.name, p.usedMiB])).toEqual([
      [4242, 'C:\\Program Files\\My, Odd, App\\app.exe', 300],
      [4243, 'python train.py --tags a,b,c', 1200],
    ]);
  });

  it.each([
    ['[N/A]'],
    ['[Not Supported]'],
    ['[Insufficient Permissions]'],
    ['[Unknown Error]'],
    ['[GPU requires reset]'],
  ])('%s is no value, with its text kept', (token) => {
    const csv = parseNvidiaSmiCsv(`index, memory.used [MiB]\n0, ${token}\n`);
    expect(csv.rows[0]!.cells['memory.used']).toEqual({ raw: token, value: null, unit: 'MiB' });
    expect(parseGpuQuery(`index, memory.used [MiB]\n0, ${token}\n`).gpus[0]!.memoryUsedMiB).toBeNull();
  });

  it('MIG: one row per GPU, mig.mode.current read as text', () => {
    const { gpus } = parseGpuQuery(
      'index, name, memory.total [MiB], memory.used [MiB], mig.mode.current\n0, NVIDIA H100 80GB HBM3, 81559 MiB, 11125 MiB, Enabled\n1, NVIDIA H100 80GB HBM3, 81559 MiB, 4 MiB, Disabled\n',
    );
    expect(gpus.map((g) => [g.index, g.memoryTotalMiB, g.memoryUsedMiB, g.migMode])).toEqual([
      [0, 81559, 11125, 'Enabled'],
      [1, 81559, 4, 'Disabled'],
    ]);
  });

  it('reports a short row and a row without a header by line, and keeps the others', () => {
    const csv = parseNvidiaSmiCsv('index, memory.used [MiB]\n0, 100 MiB\n1\n2, 300 MiB\n');
    expect(csv.rows.map((r) => r.cells.index?.value)).toEqual([0, 2]);
    expect(csv.problems).toEqual([{ line: 3, text: '1', message: 'expected 2 values, found 1' }]);
    expect(parseNvidiaSmiCsv('0, 100\n').problems[0]?.message).toBe(
      'no header line: pass the queried fields',
    );
    expect(parseNvidiaSmiCsv('index, memory.used\n0, 1, 2\n').problems[0]?.message).toBe(
      'expected 2 values, found 3',
    );
  });

  it('skips a header printed again by a loop, and # lines', () => {
    const text = 'index, memory.used [MiB]\n0, 1 MiB\n# comment\nindex, memory.used [MiB]\n0, 2 MiB\n';
    expect(parseGpuQuery(text).gpus.map((g) => g.memoryUsedMiB)).toEqual([1, 2]);
  });

  it('converts other byte units to MiB; aliases map to the printed names', () => {
    expect(parseGpuQuery('memory.used\n2 GiB\n').gpus[0]!.memoryUsedMiB).toBe(2048);
    expect(parseGpuQuery('memory.used\n512 KiB\n').gpus[0]!.memoryUsedMiB).toBe(0.5);
    expect(canonicalField('used_memory', 'apps')).toBe('used_gpu_memory');
    expect(canonicalField('name', 'apps')).toBe('process_name');
    expect(canonicalField('memory.used [MiB]')).toBe('memory.used');
    const csv = parseNvidiaSmiCsv('10, proc, 7\n', { fields: ['pid', 'name', 'used_memory'], kind: 'apps' });
    expect(readComputeApps(csv)[0]).toMatchObject({ pid: 10, name: 'proc', usedMiB: 7 });
  });

  it('Windows line endings', () => {
    expect(parseGpuQuery('index, memory.used [MiB]\r\n0, 5 MiB\r\n').gpus[0]!.memoryUsedMiB).toBe(5);
  });
});

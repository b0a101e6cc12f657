import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import { type NvidiaSmiTable, parseNvidiaSmiTable } from './nvidia-smi-table.js';

const sample = (name: string) => readFileSync(dataFile('validation', 'nvidia-smi', name), 'utf8');
const expected = JSON.parse(readFileSync(dataFile('validation', 'nvidia-smi', 'expected.json'), 'utf8'))
  .files as Record<
  string,
  {
    kind: string;
    gpus: unknown[];
    processes: unknown[];
    migDevices?: unknown[];
    snapshots?: { label: string; gpus: unknown[]; processes: unknown[] }[];
  }
>;

/** The parse in expected.json's shape (migDevices only where the sample has MIG rows). */
const asExpected = (t: NvidiaSmiTable) => ({
  gpus: t.gpus,
  processes: t.processes,
  ...(t.migDevices.length > 0 ? { migDevices: t.migDevices } : {}),
});

describe('nvidia-smi human table, on every real table sample', () => {
  const tables = Object.entries(expected).filter(([, e]) => e.kind === 'table');

  it('covers the 14 table samples', () => expect(tables).toHaveLength(14));

  it.each(tables)('%s parses to expected.json', (file, e) => {
    expect(asExpected(parseNvidiaSmiTable(sample(file)))).toEqual({
      gpus: e.gpus,
      processes: e.processes,
      ...(e.migDevices ? { migDevices: e.migDevices } : {}),
    });
  });

  it('25: the container sees no process, the host sees PID 28290 (split at the collector’s # labels)', () => {
    const parts = sample('25_issue_nvidiadocker179_container_empty_vs_host.txt').split(/^#.*$/m).slice(1);
    expect(parts.map((p) => asExpected(parseNvidiaSmiTable(p)))).toEqual(
      expected['25_issue_nvidiadocker179_container_empty_vs_host.txt']!.snapshots!.map((s) => ({
        gpus: s.gpus,
        processes: s.processes,
      })),
    );
  });

  it('30: memory grows 1906 → 5202 → 8108 MiB across three snapshots (split at --)', () => {
    const parts = sample('30_issue_loop57_memory_growth_during_validation.txt').split(/^--$/m).slice(1);
    expect(parts.map((p) => asExpected(parseNvidiaSmiTable(p)))).toEqual(
      expected['30_issue_loop57_memory_growth_during_validation.txt']!.snapshots!.map((s) => ({
        gpus: s.gpus,
        processes: s.processes,
      })),
    );
  });
});

describe('nvidia-smi human table, built in code', () => {
  it('MPS process types and a name with a pipe-free path of spaces', () => {
    const t = parseNvidiaSmiTable(
      [
        '|    0   N/A  N/A      4242    M+C   /opt/my app/bin/train server          1000MiB |',
        '|    1   N/A  N/A      4243      M   nvidia-cuda-mps-server                  30MiB |',
      ].join('\n'),
    );
    expect(t.processes.map((p) => [p.gpu, p.pid, p.type, p.name, p.usedMiB])).toEqual([
      [0, 4242, 'M+C', '/opt/my app/bin/train server', 1000],
      [1, 4243, 'M', 'nvidia-cuda-mps-server', 30],
    ]);
  });

  it('ignores a GPU row whose memory line is missing (a truncated paste) and text that only looks close', () => {
    const t = parseNvidiaSmiTable(
      '|   3  GeForce RTX 208...  Off  | 00000000:09:00.\n| hello | 12MiB |\nrandom text 5 C python 10MiB',
    );
    expect(t).toEqual({ gpus: [], processes: [], migDevices: [] });
  });
});

/**
 * captureEnvironment against stand-in tools: an `nvidia-smi` script placed first on PATH prints real
 * captured outputs from data/validation/nvidia-smi; a PATH without python3 or nvidia-smi shows what
 * a machine lacking them records.
 */
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import { captureDisk, captureEnvironment } from './env-capture.js';

const MIB = 1024 ** 2;

/** A folder holding a stand-in nvidia-smi that answers like the H200 of samples 04 and 12. */
function standInTools(options: { failTopo?: boolean; python?: string } = {}): string {
  const bin = mkdtempSync(join(tmpdir(), 'headroom-bin-'));
  const query = dataFile('validation', 'nvidia-smi', '12_h200_query_gpu_full.csv');
  const table = dataFile('validation', 'nvidia-smi', '04_h200_table_load.txt');
  writeFileSync(
    join(bin, 'nvidia-smi'),
    `#!/bin/sh
case "$1" in
  --query-gpu=*) exec /bin/cat '${query}' ;;
  topo) ${options.failTopo ? 'echo "topo is not supported on this system" >&2; exit 3' : `printf '\\tGPU0\\tCPU Affinity\\tNUMA Affinity\\tGPU NUMA ID\\nGPU0\\t X \\t0-19\\t0\\t\\tN/A\\n'`} ;;
  *) exec /bin/cat '${table}' ;;
esac
`,
  );
  chmodSync(join(bin, 'nvidia-smi'), 0o755);
  if (options.python !== undefined) {
    writeFileSync(join(bin, 'python3'), `#!/bin/sh\nprintf '%s\\n' '${options.python}'\n`);
    chmodSync(join(bin, 'python3'), 0o755);
  }
  return bin;
}

describe('captureEnvironment', () => {
  it('records the GPU, driver, CUDA and topology nvidia-smi reports', async () => {
    const bin = standInTools({
      python:
        '{"python": "3.11.7", "packages": {"torch": "2.5.1", "transformers": "4.46.0"}, "torch_cuda": "12.4"}',
    });
    const dir = mkdtempSync(join(tmpdir(), 'headroom-disk-'));
    const env = await captureEnvironment({ dir, env: { PATH: bin }, probeBytes: 1024 * 1024 });
    expect(env.kind).toBe('headroom-env');
    expect(env.gpus).toEqual({
      status: 'ok',
      value: [
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
      ],
    });
    expect(env.driver).toEqual({ status: 'ok', value: { driverVersion: '590.48.01', cudaVersion: '13.1' } });
    expect(env.interconnect).toEqual({
      status: 'ok',
      value: { kind: 'single', gpuCount: 1, nvlinkPairs: 0, matrix: [['X']] },
    });
    expect(env.frameworks).toMatchObject({
      status: 'ok',
      value: {
        python: '3.11.7',
        torchCuda: '12.4',
        packages: { torch: '2.5.1', transformers: '4.46.0', peft: null },
      },
    });
    expect(env.disk.status).toBe('ok');
    if (env.disk.status === 'ok') {
      expect(env.disk.value.path).toBe(dir);
      expect(env.disk.value.freeBytes).toBeGreaterThan(0);
      expect(env.disk.value.writeBytesPerSecond).toBeGreaterThan(0);
    }
    // The probe file is removed.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('records each missing tool as missing, with why, and never throws', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'headroom-empty-'));
    const env = await captureEnvironment({ dir: empty, env: { PATH: empty }, probeBytes: 0 });
    const notInstalled = (command: string) => ({
      status: 'missing',
      reason: `${command} is not installed (not on PATH)`,
      code: 'not-installed',
      params: { command },
    });
    expect(env.gpus).toEqual(notInstalled('nvidia-smi'));
    expect(env.driver).toEqual(notInstalled('nvidia-smi'));
    expect(env.interconnect).toEqual(notInstalled('nvidia-smi'));
    expect(env.frameworks).toEqual(notInstalled('python3'));
    expect(env.disk).toMatchObject({ status: 'ok', value: { writeBytesPerSecond: null } });
  });

  it('a failing subcommand or unreadable output is missing too', async () => {
    const bin = standInTools({ failTopo: true, python: 'Traceback (most recent call last):' });
    const env = await captureEnvironment({ dir: bin, env: { PATH: bin }, probeBytes: 0 });
    expect(env.gpus.status).toBe('ok');
    expect(env.interconnect).toEqual({
      status: 'missing',
      reason: 'nvidia-smi topo -m failed: topo is not supported on this system',
      code: 'failed',
      params: { command: 'nvidia-smi', args: ['topo', '-m'], output: 'topo is not supported on this system' },
    });
    expect(env.frameworks).toEqual({
      status: 'missing',
      reason: 'python3 printed no package versions',
      code: 'no-package-versions',
      params: {},
    });
  });

  it('a folder that does not exist is a missing disk, not an error', async () => {
    const disk = await captureDisk('/nonexistent/headroom/dir', 0);
    expect(disk).toEqual({
      status: 'missing',
      reason: 'cannot read free space of /nonexistent/headroom/dir: ENOENT',
      code: 'disk-unreadable',
      params: { path: '/nonexistent/headroom/dir', error: 'ENOENT' },
    });
  });
});

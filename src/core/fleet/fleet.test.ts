import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { analyzeFleet, type FleetInput } from './fleet.js';
import { readInstantVector, type VectorSample } from './prometheus-response.js';

const MIB = 2 ** 20;
/** An H100 80GB HBM3 as DCGM counts it: used + free + reserved = 81559 MiB. */
const H100 = 81_559 * MIB;

/** Real answers of Prometheus 2.42.0 (Debian) scraping the two hosts' dcgm pages and a live 8-rank run. */
const answer = (name: string) =>
  readInstantVector(
    JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'fleet', 'api', `${name}.json`), 'utf8')),
    name,
  ).samples;

const recorded: FleetInput = {
  used: answer('DCGM_FI_DEV_FB_USED'),
  free: answer('DCGM_FI_DEV_FB_FREE'),
  reserved: answer('DCGM_FI_DEV_FB_RESERVED'),
  peaks: answer('headroom_run_peak_bytes'),
  running: answer('headroom_run_running'),
};

const uuidA = (i: number) => `GPU-00000000-0000-0000-0000-00000000000${i}`;
const uuidB = (i: number) => `GPU-5f3c2b1a-9d8e-4f70-a615-2c4b8e9d0a1${i}`;

describe('analyzeFleet on what a real Prometheus answered', () => {
  const report = analyzeFleet(recorded);

  it('lists the twelve cards of both hosts with their bytes, in host and index order', () => {
    expect(report.gpus.map((g) => [g.host, g.gpu, g.uuid, g.usedBytes, g.freeBytes, g.totalBytes])).toEqual([
      ...[4340, 4340, 4340, 24820, 4340, 14580, 4340, 4340].map((used, i) => [
        'gpu-node-a',
        i,
        uuidA(i),
        used * MIB,
        H100 - (used + 529) * MIB,
        H100,
      ]),
      ...[78_000, 76_000, 0, 0].map((used, i) => [
        'gpu-node-b',
        i,
        uuidB(i),
        used * MIB,
        H100 - (used + 529) * MIB,
        H100,
      ]),
    ]);
    expect(report.gpus[0]!.modelName).toBe('NVIDIA H100 80GB HBM3');
    expect(report.gpus[0]!.reservedBytes).toBe(529 * MIB);
  });

  it('puts each rank of the run on its card by UUID, though the hostnames differ', () => {
    expect(report.gpus.slice(0, 8).map((g) => g.runs.map((r) => [r.run, r.rank, r.reservedBytes]))).toEqual(
      Array.from({ length: 8 }, (_, i) => [['1', String(i), (i === 3 ? 3840 + 20_480 : 3840) * MIB]]),
    );
    expect(report.gpus[0]!.runs[0]).toMatchObject({ instance: '127.0.0.1:19464', name: 'fleet-8' });
    expect(report.gpus.slice(8).every((g) => g.runs.length === 0)).toBe(true);
  });

  it('finds the outlier card, the unaccounted memory and the full card with no run', () => {
    expect(report.findings).toEqual([
      {
        code: 'above-siblings',
        severity: 'warn',
        params: {
          host: 'gpu-node-a',
          gpu: 3,
          uuid: uuidA(3),
          run: '1',
          name: 'fleet-8',
          usedBytes: 24_820 * MIB,
          medianBytes: 4340 * MIB,
          thresholdBytes: Math.round(0.2 * H100),
          cards: 8,
        },
      },
      {
        code: 'unaccounted',
        severity: 'warn',
        params: {
          host: 'gpu-node-a',
          gpu: 5,
          uuid: uuidA(5),
          usedBytes: 14_580 * MIB,
          accountedBytes: 3840 * MIB,
          unaccountedBytes: 10_740 * MIB,
          totalBytes: H100,
        },
      },
      {
        code: 'full-no-run',
        severity: 'warn',
        params: { host: 'gpu-node-b', gpu: 0, uuid: uuidB(0), usedBytes: 78_000 * MIB, totalBytes: H100 },
      },
    ]);
  });
});

const card = (
  host: string,
  gpu: number,
  uuid: string | null,
  mib: number,
  extra: Record<string, string> = {},
) =>
  ({
    metric: { Hostname: host, gpu: String(gpu), ...(uuid === null ? {} : { UUID: uuid }), ...extra },
    value: mib,
    timestampS: 1,
  }) satisfies VectorSample;
const ours = (
  run: string,
  rank: number,
  labels: Record<string, string>,
  level: string,
  bytes: number,
): VectorSample => ({
  metric: { run, rank: String(rank), level, instance: 'h:9464', job: 'headroom', ...labels },
  value: bytes,
  timestampS: 1,
});
const running = (run: string, value = 1): VectorSample => ({
  metric: { run, instance: 'h:9464', job: 'headroom' },
  value,
  timestampS: 1,
});

/** Cards of 10,000 MiB: used + free, no reserved. */
function fleet(used: readonly number[], more: Partial<FleetInput> = {}): FleetInput {
  return {
    used: used.map((u, i) => card('n', i, `GPU-${i}`, u)),
    free: used.map((u, i) => card('n', i, `GPU-${i}`, 10_000 - u)),
    reserved: [],
    peaks: [],
    running: [],
    ...more,
  };
}

describe('the thresholds', () => {
  it('calls a card full at 95 % used, not below', () => {
    const codes = analyzeFleet(fleet([9500, 9499])).findings.map((f) => [f.code, f.params.gpu]);
    expect(codes).toEqual([['full-no-run', 0]]);
  });

  it('counts only running runs as being on a card', () => {
    const peaks = [ours('4', 0, { UUID: 'GPU-0' }, 'reserved', 9000 * MIB)];
    expect(analyzeFleet(fleet([9900], { peaks, running: [running('4')] })).findings).toEqual([]);
    expect(
      analyzeFleet(fleet([9900], { peaks, running: [running('4', 0)] })).findings.map((f) => f.code),
    ).toEqual(['full-no-run']);
  });

  it('joins on Hostname and gpu where our series has no UUID, and reads the later lower-case hostname', () => {
    const input: FleetInput = {
      used: [card('', 0, 'GPU-0', 9000, { hostname: 'n' })],
      free: [card('', 0, 'GPU-0', 1000, { hostname: 'n' })],
      reserved: [],
      peaks: [ours('4', 0, { Hostname: 'n', gpu: '0' }, 'device', 8500 * MIB)],
      running: [running('4')],
    };
    const [gpu] = analyzeFleet(input).gpus;
    expect(gpu).toMatchObject({ host: 'n', gpu: 0, usedBytes: 9000 * MIB, totalBytes: 10_000 * MIB });
    expect(gpu!.runs.map((r) => r.deviceBytes)).toEqual([8500 * MIB]);
  });

  it('flags unaccounted memory past max(1 GiB, 10 %) of the card, counting the larger of device and reserved', () => {
    const mib = (n: number) => n * MIB;
    const big = (used: number, device: number, reserved: number) =>
      analyzeFleet({
        used: [card('n', 0, 'GPU-0', used)],
        free: [card('n', 0, 'GPU-0', 100_000 - used)],
        reserved: [],
        peaks: [
          ours('4', 0, { UUID: 'GPU-0' }, 'device', mib(device)),
          ours('4', 0, { UUID: 'GPU-0' }, 'reserved', mib(reserved)),
        ],
        running: [running('4')],
      }).findings.map((f) => f.code);
    // 10 % of 100,000 MiB is 10,000 MiB, above the 1 GiB floor.
    expect(big(50_000, 40_000, 39_000)).toEqual([]);
    expect(big(50_001, 40_000, 39_000)).toEqual(['unaccounted']);
    expect(big(50_001, 39_000, 40_000)).toEqual(['unaccounted']);
    expect(big(50_000, 10, 40_000)).toEqual([]);
    // On a small card the 1 GiB floor holds: 10 % of 8,000 MiB is 800 MiB.
    const small = (used: number) =>
      analyzeFleet({
        used: [card('n', 0, 'GPU-0', used)],
        free: [card('n', 0, 'GPU-0', 8000 - used)],
        reserved: [],
        peaks: [ours('4', 0, { UUID: 'GPU-0' }, 'reserved', mib(4000))],
        running: [running('4')],
      }).findings.map((f) => f.code);
    expect(small(4000 + 1024)).toEqual([]);
    expect(small(4000 + 1025)).toEqual(['unaccounted']);
  });

  it("flags a job's card past its siblings' median by max(2 GiB, 20 %) of the card", () => {
    const job = (used: readonly number[]) =>
      analyzeFleet(
        fleet(used, {
          peaks: used.map((u, i) => ours('9', i, { UUID: `GPU-${i}` }, 'reserved', u * MIB)),
          running: [running('9')],
        }),
      ).findings.map((f) => [f.code, f.params.gpu]);
    // 20 % of 10,000 MiB is 2,000 MiB, below the 2 GiB (2,048 MiB) floor.
    expect(job([3000, 3000, 3000 + 2048])).toEqual([]);
    expect(job([3000, 3000, 3000 + 2049])).toEqual([['above-siblings', 2]]);
    // One card is no job to compare.
    expect(job([9000])).toEqual([]);
    // Two runs of the same number on two exporters are two jobs.
    const two = analyzeFleet(
      fleet([1000, 6000], {
        peaks: [
          ours('9', 0, { UUID: 'GPU-0' }, 'reserved', 1000 * MIB),
          {
            ...ours('9', 0, { UUID: 'GPU-1' }, 'reserved', 6000 * MIB),
            metric: {
              run: '9',
              rank: '0',
              level: 'reserved',
              UUID: 'GPU-1',
              instance: 'other:9464',
              job: 'headroom',
            },
          },
        ],
        running: [
          running('9'),
          { ...running('9'), metric: { run: '9', instance: 'other:9464', job: 'headroom' } },
        ],
      }),
    );
    expect(two.findings).toEqual([]);
  });

  it('keeps one series of a card scraped twice', () => {
    const input = fleet([5000]);
    const twice = { ...input, used: [...input.used, { ...input.used[0]!, value: 1 }] };
    expect(analyzeFleet(twice).gpus.map((g) => g.usedBytes)).toEqual([5000 * MIB]);
  });
});

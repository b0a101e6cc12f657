import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RunMetrics } from '../core/fleet/metrics-source.js';
import { HEADROOM_METRIC_NAMES } from '../core/fleet/names.js';
import { exposition, registryOf } from './metrics-registry.js';

const GIB = 2 ** 30;

const RUN: RunMetrics = {
  id: 7,
  name: 'sft "8b"',
  running: true,
  host: 'node-a',
  ranks: [
    {
      rank: 3,
      localRank: 3,
      host: null,
      gpu: 4,
      uuid: 'GPU-a0a0a0a0-0000-4000-8000-000000000003',
      peakAllocatedBytes: 32 * GIB,
      peakReservedBytes: 34 * GIB,
      peakDeviceBytes: null,
      lastStep: 12,
    },
    {
      rank: 4,
      localRank: 4,
      host: 'node-b',
      gpu: null,
      uuid: null,
      peakAllocatedBytes: null,
      peakReservedBytes: 30 * GIB,
      peakDeviceBytes: 31 * GIB,
      lastStep: null,
    },
  ],
  estimate: { allocatedBytes: 31 * GIB, reservedBytes: 33 * GIB, deviceBytes: null },
  upper: { allocatedBytes: 35 * GIB, reservedBytes: 37 * GIB, deviceBytes: 38 * GIB },
  findings: [{ code: 'rank-imbalance', severity: 'warn', count: 1 }],
};

const samples = (body: string) => body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('the exposition', () => {
  it('writes every series of a run, with the labels that join with dcgm-exporter', async () => {
    const { body, contentType } = await exposition({ runs: () => [RUN] });
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const card3 =
      'run="7",name="sft \\"8b\\"",rank="3",Hostname="node-a",gpu="4",UUID="GPU-a0a0a0a0-0000-4000-8000-000000000003"';
    expect(samples(body)).toEqual([
      `headroom_run_peak_bytes{${card3},level="allocated"} ${32 * GIB}`,
      `headroom_run_peak_bytes{${card3},level="reserved"} ${34 * GIB}`,
      // Rank 4's own host; its unknown gpu and UUID are left out, its unknown allocated too.
      `headroom_run_peak_bytes{run="7",name="sft \\"8b\\"",rank="4",Hostname="node-b",level="reserved"} ${30 * GIB}`,
      `headroom_run_peak_bytes{run="7",name="sft \\"8b\\"",rank="4",Hostname="node-b",level="device"} ${31 * GIB}`,
      'headroom_run_step{run="7",rank="3"} 12',
      'headroom_run_running{run="7",name="sft \\"8b\\"",Hostname="node-a"} 1',
      `headroom_run_estimate_bytes{run="7",level="allocated"} ${31 * GIB}`,
      `headroom_run_estimate_bytes{run="7",level="reserved"} ${33 * GIB}`,
      `headroom_run_upper_bytes{run="7",level="allocated"} ${35 * GIB}`,
      `headroom_run_upper_bytes{run="7",level="reserved"} ${37 * GIB}`,
      `headroom_run_upper_bytes{run="7",level="device"} ${38 * GIB}`,
      'headroom_findings{run="7",code="rank-imbalance",severity="warn"} 1',
    ]);
    // Every family is declared, with its help and type, even with no series.
    for (const name of HEADROOM_METRIC_NAMES) expect(body).toContain(`# TYPE ${name} gauge\n`);
  });

  it('builds a registry per scrape: a run gone from the source is gone from the next scrape', async () => {
    let runs: RunMetrics[] = [RUN];
    const source = { runs: () => runs };
    expect(samples((await exposition(source)).body)).toHaveLength(12);
    runs = [];
    expect(samples((await exposition(source)).body)).toEqual([]);
    expect(registryOf([RUN])).not.toBe(registryOf([RUN]));
  });

  it('marks a finished run 0 in headroom_run_running', async () => {
    const { body } = await exposition({ runs: () => [{ ...RUN, running: false, ranks: [] }] });
    expect(samples(body)).toContain('headroom_run_running{run="7",name="sft \\"8b\\"",Hostname="node-a"} 0');
  });

  const promtool = spawnSync('promtool', ['--version']).status === 0;
  it.skipIf(!promtool)('passes promtool check metrics with no lint problem', async () => {
    const { body } = await exposition({ runs: () => [RUN] });
    const check = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
});

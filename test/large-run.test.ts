/**
 * Every command that reads a run, on a run of 200,000 steps and 50,000 nvidia-smi samples (per GPU
 * and per process): each completes, and says the figures that were written — the peak is the true
 * highest row, the chart keeps it, the export has every row. The rows are read one at a time
 * (src/io/ledger-rows.ts); what the commands say is held to what the whole-array readings give.
 * Times and memory at 2,000,000 steps are npm run bench:ledger-rows's, in the README.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderStepChart } from '../src/cli/_chart.js';
import type { CommandContext } from '../src/cli/_command.js';
import { styleFor } from '../src/cli/_output.js';
import { main } from '../src/cli/main.js';
import { maxBy, minOf } from '../src/core/extremes.js';
import { detectGrowth, perStepPeaks, type StepPeak } from '../src/core/run-summary.js';
import { Ledger } from '../src/io/ledger.js';
import { runDetail } from '../src/server/runs-api.js';
import { type LargeRun, writeLargeRun } from './large-run-fixture.js';
import { tempHome } from './ledger-fixture.js';

const STEPS = 200_000;
const SAMPLES = 50_000;

/** Runs a command in process; its stdout as text, or line by line to `line`. */
async function headroom(env: NodeJS.ProcessEnv, args: string[], line?: (text: string) => void) {
  let text = '';
  let partial = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      if (!line) text += String(chunk);
      else {
        const parts = (partial + String(chunk)).split('\n');
        partial = parts.pop()!;
        for (const p of parts) line(p);
      }
      done();
    },
  });
  let err = '';
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      err += String(chunk);
      done();
    },
  });
  const ctx: CommandContext = { stdout: Object.assign(stdout, { columns: 100 }), stderr, env };
  const code = await main(args, ctx);
  if (line && partial !== '') line(partial);
  return { code, stdout: text, stderr: err };
}

describe('a run of 200,000 steps in every command', { timeout: 120_000 }, () => {
  const home = tempHome();
  const env = { HEADROOM_HOME: home, NO_COLOR: '1' };
  let run: LargeRun;
  let resumable: LargeRun;
  let peaks: StepPeak[];

  beforeAll(() => {
    run = writeLargeRun(home, { steps: STEPS, samples: SAMPLES });
    resumable = writeLargeRun(home, { steps: STEPS, samples: SAMPLES, name: 'resumable', running: true });
    const ledger = Ledger.open(home);
    try {
      peaks = perStepPeaks(ledger.steps(run.id));
    } finally {
      ledger.close();
    }
  }, 120_000);

  it('runs lists it with its peak and every step', async () => {
    const r = await headroom(env, ['runs', '--json']);
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.stdout) as { id: number; steps: number; peakAllocatedBytes: number }[]).find(
      (x) => x.id === run.id,
    )!;
    expect(listed.steps).toBe(STEPS);
  });

  it('runs show --json has every step, the true peak among them, and the whole-array growth', async () => {
    const r = await headroom(env, ['runs', 'show', String(run.id), '--json']);
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as {
      perStep: StepPeak[];
      growth: unknown;
      gpuSamples: number;
      processSamples: number;
    };
    expect(shown.perStep).toHaveLength(STEPS);
    expect(maxBy(shown.perStep, (p) => p.peakAllocatedBytes)).toBe(run.maxAllocated.bytes);
    expect(shown.perStep.find((p) => p.peakAllocatedBytes === run.maxAllocated.bytes)!.step).toBe(
      run.maxAllocated.step,
    );
    expect(shown.perStep).toEqual(peaks);
    expect(shown.growth).toEqual(detectGrowth(peaks));
    expect(shown.growth).toMatchObject({ kind: 'flat', steps: STEPS });
    expect(shown.gpuSamples).toBe(SAMPLES);
    expect(shown.processSamples).toBe(SAMPLES);
  });

  it('runs show draws the chart the whole series draws, its peak column at the true peak', async () => {
    const r = await headroom(env, ['runs', 'show', String(run.id)]);
    expect(r.code).toBe(0);
    const chart = renderStepChart(
      peaks.map((p) => ({
        step: p.step,
        allocatedBytes: p.peakAllocatedBytes,
        reservedBytes: p.peakReservedBytes,
      })),
      styleFor({ isTTY: false }),
      { width: 84 },
    );
    expect(r.stdout).toContain(chart);
    expect(chart).toContain('32.00 GiB'); // the reserved peak, the chart's top
    expect(r.stdout).toContain('30.00 GiB'); // the allocated peak, in the summary
  });

  it('runs export writes every row, the true peak among them', async () => {
    const counts = new Map<string, number>();
    let top = 0;
    const r = await headroom(env, ['runs', 'export', String(run.id), '--format', 'jsonl'], (text) => {
      const row = JSON.parse(text) as { type: string; peakAllocatedBytes?: number };
      counts.set(row.type, (counts.get(row.type) ?? 0) + 1);
      if (row.type === 'step') top = Math.max(top, row.peakAllocatedBytes!);
    });
    expect(r.code).toBe(0);
    expect(Object.fromEntries(counts)).toMatchObject({
      run: 1,
      step: STEPS,
      'gpu-sample': SAMPLES,
      'process-sample': SAMPLES,
    });
    expect(top).toBe(run.maxAllocated.bytes);
    let lines = 0;
    const csv = await headroom(env, ['runs', 'export', String(run.id), '--format', 'csv'], () => {
      lines += 1;
    });
    expect(csv.code).toBe(0);
    expect(lines).toBe(STEPS + 1);
  });

  it('calibrate reads the true peaks at every level and every step after the warm-up', async () => {
    const r = await headroom(env, ['calibrate', String(run.id), '--json']);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout) as {
      calibration: { measured: { allocatedBytes: number; reservedBytes: number; deviceBytes: number } };
      steps: { used: number; first: number; last: number };
    };
    expect(c.calibration.measured).toMatchObject({
      allocatedBytes: run.maxAllocated.bytes,
      reservedBytes: run.maxReserved.bytes,
      deviceBytes: run.maxDeviceBytes,
    });
    expect(c.steps).toMatchObject({ used: STEPS - 1, first: 2, last: STEPS });
  });

  it('report writes the HTML, its chart thinned to a few thousand points with every peak kept', async () => {
    const file = join(home, 'report.html');
    const r = await headroom(env, ['report', String(run.id), '-o', file]);
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('<svg');
    const ledger = Ledger.open(home);
    try {
      const detail = runDetail(ledger, ledger.getRun(run.id)!, { diagnoseRun: () => [] });
      expect(detail.recorded).toEqual({ steps: STEPS, samples: SAMPLES });
      expect(detail.steps.length).toBeLessThanOrEqual(4000);
      expect(maxBy(detail.steps, (p) => p.peakAllocatedBytes ?? 0)).toBe(run.maxAllocated.bytes);
      expect(detail.steps.find((p) => p.peakAllocatedBytes === run.maxAllocated.bytes)!.step).toBe(
        run.maxAllocated.step,
      );
      expect(minOf(detail.steps.map((p) => p.peakAllocatedBytes ?? Number.POSITIVE_INFINITY))).toBe(
        run.minAllocated.bytes,
      );
      expect(maxBy(detail.samples, (p) => p.usedBytes)).toBe(run.maxGpuUsedBytes);
      expect(detail.rankSteps.ranks).toEqual([0]);
      expect(maxBy(detail.rankSteps.steps, (s) => s.allocatedBytes[0] ?? 0)).toBe(run.maxAllocated.bytes);
    } finally {
      ledger.close();
    }
  });

  it('diagnose reads the whole timeline', async () => {
    const r = await headroom(env, ['diagnose', String(run.id), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('findings');
  });

  it('watch resumes the run and sums it up', async () => {
    const r = await headroom(env, ['watch', '--log', resumable.logPath!, '--no-smi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('30.00 GiB');
    const ledger = Ledger.open(home);
    try {
      expect(ledger.getRun(resumable.id)!.status).toBe('ok');
    } finally {
      ledger.close();
    }
  });
});

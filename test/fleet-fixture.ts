/**
 * Multi-rank runs recorded into a real ledger the way the recorder does it (probe lines of each rank →
 * ingestProbe), for the exporter's tests and bench:metrics.
 */
import { parseProbeLine } from '../src/core/probe-log.js';
import type { EstimatedPeak } from '../src/core/run-record.js';
import type { Ledger, ProbeLineRead } from '../src/io/ledger.js';

export const MIB = 2 ** 20;

export interface RankPlan {
  readonly rank: number;
  /** The CUDA ordinal it uses (default: its rank). */
  readonly device?: number;
  /** What torch's get_device_properties(i).uuid printed; null when it gave none. */
  readonly uuid?: string | null;
  readonly host?: string;
  readonly allocatedMiB: number;
  readonly reservedMiB: number;
  readonly steps: number;
  /** An eval phase after the last step whose peak passes the steps'. */
  readonly evalPeakMiB?: number;
}

export interface RunPlan {
  readonly name: string;
  readonly host: string;
  readonly ranks: readonly RankPlan[];
  readonly status?: 'running' | 'ok' | 'oom';
  readonly estimate?: (EstimatedPeak & { readonly upper?: EstimatedPeak }) | null;
  readonly env?: Record<string, unknown>;
  readonly startMs?: number;
}

/** Records one run; returns its id. */
export function recordRun(ledger: Ledger, plan: RunPlan): number {
  const startMs = plan.startMs ?? 1_767_225_600_000;
  const run = ledger.createRun({
    name: plan.name,
    command: ['torchrun', '--nproc-per-node', String(plan.ranks.length), 'train.py'],
    cwd: '/work',
    host: plan.host,
    scenario: null,
    estimate: (plan.estimate ?? null) as EstimatedPeak | null,
    env: plan.env ?? {},
    startedAtMs: startMs,
    monitorPid: null,
  });
  const world = plan.ranks.length;
  const batches = plan.ranks.map((r) => {
    const device = r.device ?? r.rank;
    const pid = 10_000 + run.id * 16 + r.rank;
    const base = { v: 1, pid, rank: r.rank, localRank: r.rank, worldSize: world };
    const stats = (peakMiB: number) => ({
      index: device,
      allocatedBytes: Math.round(r.allocatedMiB * 0.5) * MIB,
      reservedBytes: r.reservedMiB * MIB,
      peakAllocatedBytes: peakMiB * MIB,
      peakReservedBytes: r.reservedMiB * MIB,
      inactiveSplitBytes: 0,
      numAllocRetries: 0,
      numOoms: 0,
    });
    const t = (s: number) => startMs / 1000 + s;
    const lines: Record<string, unknown>[] = [
      {
        ...base,
        event: 'start',
        t: t(0),
        host: r.host ?? plan.host,
        argv: ['train.py'],
        cudaVisibleDevices: plan.env?.cudaVisibleDevices ?? null,
      },
      {
        ...base,
        event: 'device',
        t: t(0.5),
        index: device,
        name: 'NVIDIA H100 80GB HBM3',
        totalBytes: 81_559 * MIB,
        uuid: r.uuid === undefined ? null : r.uuid,
      },
    ];
    for (let step = 1; step <= r.steps; step++) {
      lines.push({
        ...base,
        event: 'step',
        t: t(step),
        step,
        phase: 'train',
        loss: 2 / step,
        lr: 1e-4,
        batchSize: 4,
        seqLen: 2048,
        // The peak grows to the plan's figure at the last step.
        devices: [stats(step === r.steps ? r.allocatedMiB : r.allocatedMiB - 64)],
      });
    }
    if (r.evalPeakMiB !== undefined) {
      lines.push({
        ...base,
        event: 'phase',
        t: t(r.steps + 0.5),
        phase: 'eval',
        previous: 'train',
        step: r.steps,
        devices: [stats(r.evalPeakMiB)],
      });
    }
    let offset = 0;
    const reads: ProbeLineRead[] = lines.map((line) => {
      const text = JSON.stringify(line);
      const parsed = parseProbeLine(text);
      if (!parsed.ok) throw new Error(parsed.problem.message);
      const read = { offset, event: parsed.event };
      offset += text.length + 1;
      return read;
    });
    return { path: `/tmp/probe-${run.id}.rank${r.rank}.jsonl`, endOffset: offset, lines: reads };
  });
  ledger.ingestProbe(run.id, batches);
  const status = plan.status ?? 'running';
  if (status !== 'running')
    ledger.updateRun(run.id, { status, exitCode: status === 'ok' ? 0 : 1, endedAtMs: startMs + 60_000 });
  return run.id;
}

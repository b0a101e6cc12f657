/** Records runs into a real ledger the way the recorder does (probe lines → ingestProbe), for server tests. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProbeLine } from '../src/core/probe-log.js';
import { Ledger } from '../src/io/ledger.js';

export const GIB = 2 ** 30;

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'headroom-home-'));
}

export interface FixtureStep {
  readonly step: number;
  readonly allocatedGiB: number;
  readonly peakGiB: number;
  readonly reservedGiB: number;
  readonly loss?: number;
  readonly phase?: string;
}

function probeLine(event: Record<string, unknown>, tSeconds: number): string {
  return JSON.stringify({ v: 1, t: tSeconds, pid: 4242, rank: 0, localRank: 0, worldSize: 1, ...event });
}

/** Starts a run and returns a writer that appends steps as the recorder would. */
export function startRun(
  home: string,
  name: string,
  scenario: Record<string, unknown> | null,
  startMs = 1_767_225_600_000,
) {
  const ledger = Ledger.open(home);
  const run = ledger.createRun({
    name,
    command: ['python', 'train.py', '--batch-size', String(scenario?.microBatchSize ?? 1)],
    cwd: '/work',
    host: 'test',
    scenario,
    estimate: null,
    env: {},
    startedAtMs: startMs,
    monitorPid: null,
  });
  let offset = 0;
  const write = (lines: string[]) => {
    const reads = lines.map((line) => {
      const parsed = parseProbeLine(line);
      const read = parsed.ok ? { offset, event: parsed.event } : { offset, problem: parsed.problem };
      offset += line.length + 1;
      return read;
    });
    ledger.ingestProbe(run.id, [
      { path: join(home, `probe-${run.id}.jsonl`), endOffset: offset, lines: reads },
    ]);
  };
  return {
    id: run.id,
    ledger,
    /** The probe's start record, with any of its fields (e.g. the installed bitsandbytes). */
    started(fields: Record<string, unknown> = {}) {
      write([probeLine({ event: 'start', argv: ['train.py'], ...fields }, startMs / 1000)]);
    },
    steps(steps: readonly FixtureStep[], secondsPerStep = 1) {
      write(
        steps.map((s) =>
          probeLine(
            {
              event: 'step',
              step: s.step,
              phase: s.phase ?? 'train',
              loss: s.loss ?? 1,
              lr: 1e-4,
              devices: [
                {
                  index: 0,
                  allocatedBytes: Math.round(s.allocatedGiB * GIB),
                  reservedBytes: Math.round(s.reservedGiB * GIB),
                  peakAllocatedBytes: Math.round(s.peakGiB * GIB),
                  peakReservedBytes: Math.round(s.reservedGiB * GIB),
                  inactiveSplitBytes: 0,
                  numAllocRetries: 0,
                  numOoms: 0,
                },
              ],
            },
            startMs / 1000 + s.step * secondsPerStep,
          ),
        ),
      );
    },
    oom(text: string, tSeconds: number) {
      write([
        probeLine(
          {
            event: 'oom',
            type: 'OutOfMemoryError',
            message: text.split('\n').at(-1),
            traceback: text,
            phase: 'train',
            step: null,
            thread: 'MainThread',
            devices: [],
          },
          startMs / 1000 + tSeconds,
        ),
      ]);
    },
    finish(status: 'ok' | 'oom', endSeconds: number) {
      ledger.updateRun(run.id, {
        status,
        exitCode: status === 'ok' ? 0 : 1,
        endedAtMs: startMs + endSeconds * 1000,
      });
      ledger.close();
    },
  };
}

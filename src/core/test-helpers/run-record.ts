/** A RunRecord with every field set, for tests: override what the test is about. */
import type { RunRecord } from '../run-record.js';

/** A finished run with nothing recorded, plus `over`. */
export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 1,
    name: null,
    status: 'ok',
    exitCode: 0,
    signal: null,
    command: [],
    cwd: null,
    host: null,
    scenario: null,
    estimate: null,
    env: {},
    logPath: null,
    stderrPath: null,
    startedAtMs: 0,
    endedAtMs: 1000,
    monitorPid: null,
    childPid: null,
    steps: 0,
    lastStep: null,
    batchSize: null,
    seqLen: null,
    peakAllocated: null,
    peakReserved: null,
    peakDevice: null,
    versions: null,
    peakGpuUsed: null,
    snapshots: [],
    ranks: [],
    peakRank: null,
    ...over,
  };
}

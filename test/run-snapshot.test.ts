/**
 * `headroom run --snapshot` end to end on the stand-in torch (probe/tests/standin): a training step
 * that runs out of memory writes the allocator snapshot, the ledger points at it (runs show, runs
 * --json), `diagnose RUN` reads the five parts at the moment of failure from it, and with the run's
 * scenario names the part the estimate got wrong. The script (test/fixtures/train_snapshot.py) makes
 * each allocation where PyTorch would, with the sizes the estimate gives each part, and three times
 * the estimate's activations.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimate } from '../src/core/estimate.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import { allocatedParts } from '../src/core/snapshot/compare.js';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const SCRIPT = join(REPO_ROOT, 'test', 'fixtures', 'train_snapshot.py');
const GIB = 2 ** 30;
const SCENARIO = { model: 'llama-3.2-1b', method: 'full', microBatchSize: 4, seqLen: 1024 };
const FLAGS = ['--model', 'llama-3.2-1b', '--method', 'full', '--micro-batch', '4', '--seq-len', '1024'];

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const est = allocatedParts(
  estimate({ scenario: parseScenario(SCENARIO), shape: resolveModelRef('llama-3.2-1b')!.shape }),
);
const activations = 3 * est.activations;
const live = est.weights + est.gradients + est.optimizer + est.runtime + activations;

describe('headroom run --snapshot, on a run that runs out of memory', () => {
  // The card: what the step holds plus the stand-in's CUDA context and a GiB; the last request of 4 GiB fails.
  const { dir, env } = standinHome('headroom-run-snapshot-', {
    env: { STANDIN_CAPACITY_BYTES: String(live + 500 * 2 ** 20 + GIB), LANG: 'C.UTF-8', LC_ALL: '' },
  });
  let run: ReturnType<typeof headroom>;
  beforeAll(() => {
    const sizes = [est.weights, est.gradients, est.optimizer, est.runtime, activations, 4 * GIB];
    run = headroom(
      env,
      'run',
      '--snapshot',
      '--no-smi',
      ...FLAGS,
      '--',
      'python3',
      SCRIPT,
      ...sizes.map(String),
    );
  });

  it('says it records, fails as the command did, and the run points at the snapshot the probe wrote', () => {
    expect(run.code).toBe(1);
    const path = join(dir, 'runs', '1', 'memory-snapshot.pickle');
    expect(run.stderr).toContain(
      `headroom: recording PyTorch's memory history (at most 100,000 entries); an out-of-memory writes the allocator snapshot to ${join(dir, 'runs', '1')}`,
    );
    expect(existsSync(path)).toBe(true);
    const shown = headroom(env, 'runs', 'show', '1', '--json');
    const json = JSON.parse(shown.stdout) as { status: string; snapshots: unknown[] };
    expect(json.status).toBe('oom');
    expect(json.snapshots).toEqual([
      {
        tMs: expect.any(Number),
        pid: expect.any(Number),
        rank: 0,
        path,
        bytes: statSync(path).size,
        reason: 'oom',
        entries: 100_000,
        step: 1,
      },
    ]);
    const listed = JSON.parse(headroom(env, 'runs', '--json').stdout) as { snapshots: { path: string }[] }[];
    expect(listed[0]!.snapshots.map((s) => s.path)).toEqual([path]);
    const human = headroom(env, 'runs', 'show', '1');
    expect(human.stdout).toContain(`at the out-of-memory, rank 0, after step 1: ${path}`);
  });

  it('diagnose RUN gives the five parts at the moment of failure and the part the estimate got wrong', () => {
    const r = headroom(env, 'diagnose', '1', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as {
      snapshot: {
        problem: null;
        explanation: {
          moment: string;
          requestedBytes: number;
          liveBytes: number;
          parts: Record<string, number>;
          unattributedBytes: number;
          sites: { bytes: number; part: string; frame: { name: string } }[];
          findings: { code: string; params: Record<string, unknown>; words: string }[];
        };
      };
    };
    const e = json.snapshot.explanation;
    expect(json.snapshot.problem).toBeNull();
    expect(e.moment).toBe('oom-event');
    expect(e.requestedBytes).toBe(4 * GIB);
    expect(e.liveBytes).toBe(live);
    expect(e.parts).toEqual({
      weights: est.weights,
      gradients: est.gradients,
      optimizer: est.optimizer,
      activations,
      runtime: est.runtime,
    });
    expect(e.unattributedBytes).toBe(0);
    expect(e.sites[0]).toMatchObject({ bytes: Math.max(est.weights, activations) });
    const largest = est.weights >= activations ? 'weights' : 'activations';
    expect(e.findings.map((f) => f.code)).toEqual(['live-parts', 'estimate-part-low']);
    expect(e.findings[0]!.params).toMatchObject({ part: largest, liveBytes: live, requestedBytes: 4 * GIB });
    expect(e.findings[1]!.params).toEqual({
      part: 'activations',
      estimateBytes: est.activations,
      measuredBytes: activations,
      error: (est.activations - activations) / activations,
    });
    expect(e.findings[1]!.words).toMatch(/^the estimate's activations part is too low: .* \(-67 %\)/);
    const zh = headroom(env, 'diagnose', '1', '--lang', 'zh');
    expect(zh.stdout).toContain('估算的激活偏低');
    const human = headroom(env, 'diagnose', '1');
    expect(human.stdout).toContain('the allocator snapshot (rank 0, when the allocation failed)');
    expect(human.stdout).toContain('transformers/modeling_utils.py:4000 from_pretrained');
  });
});

describe('headroom run --snapshot-entries', () => {
  it('refuses a bound the probe would not keep, naming the flag, before anything is recorded', () => {
    const { env } = standinHome('headroom-run-snapshot-bad-');
    for (const [value, message] of [
      ['0', '--snapshot-entries 0: not a whole number of at least 1'],
      ['20000000', '--snapshot-entries 20000000: not a whole number from 1 to 10000000'],
    ] as const) {
      const r = headroom(env, 'run', '--no-smi', '--snapshot-entries', value, '--', 'python3', '-c', 'pass');
      expect([r.code, r.stderr.split('\n')[0]]).toEqual([1, `error: ${message}`]);
    }
    expect(JSON.parse(headroom(env, 'runs', '--json').stdout)).toEqual([]);
  });

  it('hands the child the bound as HEADROOM_SNAPSHOT', () => {
    const { env } = standinHome('headroom-run-snapshot-env-');
    delete env.HEADROOM_SNAPSHOT;
    const script = 'import os; print("HS=" + os.environ.get("HEADROOM_SNAPSHOT", "unset"))';
    const bound = headroom(
      env,
      'run',
      '--no-smi',
      '--snapshot-entries',
      '5000',
      '--',
      'python3',
      '-c',
      script,
    );
    expect(bound.stdout).toContain('HS=5000');
    const plain = headroom(env, 'run', '--no-smi', '--', 'python3', '-c', script);
    expect(plain.stdout).toContain('HS=unset');
  });
});

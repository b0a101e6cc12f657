/**
 * `headroom diagnose RUN` on runs recorded as a user records them: the built binary runs
 * test/fixtures/train_patterns.py under `headroom run`, with the probe, the stand-in torch
 * (probe/tests/standin) and the stand-in nvidia-smi (test/fixtures/bin) on PATH, as test/run.test.ts
 * does. Each memory pattern yields its finding and no other; every figure asserted follows from the
 * script's allocations (sizes in its docstring).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGpu } from '../src/core/catalog/index.js';
import { diagnose, probeCapacityBytes, timelineFromSteps } from '../src/core/diagnose/index.js';
import { matchCatalogGpu } from '../src/core/env.js';
import { estimate } from '../src/core/estimate.js';
import { minOf } from '../src/core/extremes.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { parseScenario } from '../src/core/scenario.js';
import { formatBytes, MIB } from '../src/core/units.js';
import { diagnoseRun } from '../src/io/diagnose-run.js';
import { Ledger } from '../src/io/ledger.js';
import { recordedBitsandbytes, runScenarioContextSync } from '../src/io/run-context.js';
import { REPO_ROOT } from './data.js';
import { STANDIN_TORCH, standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const PATTERNS = join(REPO_ROOT, 'test', 'fixtures', 'train_patterns.py');
const GIB = 2 ** 30;

function home(): { dir: string; env: NodeJS.ProcessEnv } {
  return standinHome('headroom-diagnose-run-', { idleGpu: true, env: { LANG: 'C.UTF-8', LC_ALL: '' } });
}

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Records one pattern under `headroom run`: `flags` go to headroom (a setup), `args` to the script.
 * Throws when the run fails, unless it is meant to (`fails`).
 */
function record(
  env: NodeJS.ProcessEnv,
  name: string,
  pattern: string,
  options: { flags?: string[]; args?: string[]; fails?: boolean } = {},
) {
  const r = headroom(
    env,
    'run',
    '--name',
    name,
    '--interval-ms',
    '50',
    ...(options.flags ?? []),
    '--',
    'python3',
    PATTERNS,
    '--pattern',
    pattern,
    ...(options.args ?? []),
  );
  if (r.code !== 0 && !options.fails) throw new Error(`headroom run ${pattern} failed: ${r.stderr}`);
  return r;
}

interface Finding {
  code: string;
  severity: string;
  title: string;
  evidence: { label: string; value: string; quote?: string }[];
}

/** A finding of `--json`: its data, and its words in the language asked for. */
interface FindingJson {
  code: string;
  severity: string;
  words: { title: string; evidence: { label: string; value: string }[] };
}

/** `diagnose RUN --json`, each finding read through the words it carries. */
function diagnosis(env: NodeJS.ProcessEnv, ref: string, ...args: string[]) {
  const r = headroom(env, 'diagnose', ref, '--json', ...args);
  if (r.code !== 0) throw new Error(`headroom diagnose ${ref} failed: ${r.stderr}`);
  const json = JSON.parse(r.stdout) as { oom: { family: string }; phase: string; findings: FindingJson[] };
  const findings: Finding[] = json.findings.map((f) => ({ code: f.code, severity: f.severity, ...f.words }));
  return { ...json, findings };
}

const evidence = (f: Finding) => f.evidence.map((e) => `${e.label}: ${e.value}`);

/**
 * A recorded run's diagnosis as diagnoseRun made it before it read columns: every nvidia-smi sample and
 * every step as a record (Ledger.gpuSamples, processSamples, rows.steps through timelineFromSteps).
 */
function diagnosisOfRecords(ledger: Ledger, runRef: string) {
  const record = ledger.getRun(runRef)!;
  const events = ledger.events(record.id, ['device']);
  const gpus = ledger.gpuSamples(record.id);
  const cardTotals = gpus.map((g) => g.totalBytes).filter((t): t is number => t !== null && t > 0);
  const capacityBytes = probeCapacityBytes(events) ?? (cardTotals.length > 0 ? minOf(cardTotals) : null);
  const timeline = timelineFromSteps(
    ledger.rows.steps(record.id),
    capacityBytes,
    ledger.rows.count('steps', record.id),
  );
  const card = gpus.find((g) => g.name !== null);
  const cardId = card
    ? matchCatalogGpu(card.name!, card.totalBytes === null ? null : card.totalBytes / MIB)
    : null;
  return diagnose({
    text: ledger.oomText(record.id),
    timeline,
    ranks: record.ranks,
    samples: { gpus, processes: ledger.processSamples(record.id) },
    capacityBytes,
    gpu: cardId === null ? null : (findGpu(cardId) ?? null),
    scenario: runScenarioContextSync(record),
    bitsandbytes: recordedBitsandbytes(ledger, record.id),
  });
}

const python = spawnSync('python3', ['-c', 'import os, sys; print(os.path.basename(sys.executable))'], {
  encoding: 'utf8',
}).stdout.trim();

describe('diagnose RUN: the timeline rules on recorded runs', () => {
  const { env } = home();
  let holder: ChildProcess | null = null;
  let holderPid = 0;

  beforeAll(async () => {
    record(env, 'steady', 'steady');
    record(env, 'leak', 'leak');
    record(env, 'fragmentation', 'fragmentation');
    record(env, 'eval-growth', 'eval-growth');
    record(env, 'imbalance', 'imbalance');
    record(env, 'stable-full', 'stable-full');
    // The same program left holding 2.5 GiB from an earlier run, outside this run's process tree.
    holder = spawn('python3', [PATTERNS, '--pattern', 'hold', '--hold-gib', '2.5'], {
      env: { ...env, PYTHONPATH: [join(REPO_ROOT, 'probe'), STANDIN_TORCH].join(delimiter) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    holderPid = holder.pid!;
    await new Promise<void>((resolve) => holder!.stdout!.once('data', () => resolve()));
    record(env, 'leftover', 'steady');
    const gone = new Promise((resolve) => holder!.once('exit', resolve));
    holder.kill();
    await gone; // gone before the next recording, as a real exited process is gone from nvidia-smi
    holder = null;
    // Other programs on the card (the stand-in's three, on sample 12's card), then memory no process
    // accounts for (the same card with no process listed).
    const { STANDIN_NVSMI_APPS_CSV: _apps, STANDIN_NVSMI_GPU_CSV: _gpu, ...shared } = env;
    record(shared, 'others', 'steady');
    record({ ...shared, STANDIN_NVSMI_APPS_CSV: 'none' }, 'outside', 'steady');
    // A leak on a 12 GiB card, recorded with its setup: it runs out of memory at step 24.
    const r = record({ ...env, STANDIN_CAPACITY_BYTES: String(12 * GIB) }, 'oom', 'leak', {
      flags: ['--model', 'llama-3.2-1b', '--method', 'lora', '--micro-batch', '4', '--seq-len', '1024'],
      args: ['--steps', '40'],
      fails: true,
    });
    expect(r.code).toBe(1);
  }, 120_000);

  afterAll(() => {
    holder?.kill();
  });

  it('a steady run: nothing to report', () => {
    const d = diagnosis(env, 'steady');
    expect(d).toEqual({ oom: expect.objectContaining({ family: 'none' }), phase: 'unknown', findings: [] });
    expect(headroom(env, 'diagnose', 'steady').stdout).toBe(
      'run 1 "steady" · ok · 20 steps\n\nNothing to report.\n',
    );
  });

  it('a leak: allocated grows by the 256 MiB each step keeps', () => {
    const { findings } = diagnosis(env, 'leak');
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['leak', 'error']]);
    expect(findings[0]!.title).toBe('Allocated memory grows step after step (rank 0, GPU 0)');
    // After step n: weights 4 GiB + states 1 GiB + n × 256 MiB; the card (143771 MiB) fills at about step 539.
    expect(evidence(findings[0]!)).toEqual([
      'allocated: 6.00 GiB at step 4 → 10.00 GiB at step 20',
      'growth per step: 256 MiB',
      'steps that grew: 16 of 16',
      'card full at about step: 539',
    ]);
  });

  it('fragmentation: reserved climbs by the 256 MiB each step leaves unusable, allocated stays flat', () => {
    const { findings } = diagnosis(env, 'fragmentation');
    expect(findings.map((f) => f.code)).toEqual(['fragmentation']);
    expect(evidence(findings[0]!)).toEqual([
      'reserved: 6.78 GiB at step 4 → 10.84 GiB at step 20',
      'peak allocated: 6.00 GiB at step 4 → 6.00 GiB at step 20',
      'inactive split blocks (cached, unusable): 5.84 GiB (54 % of reserved)',
    ]);
  });

  it('growth during evaluation: each batch keeps 256 MiB of predictions', () => {
    const { findings } = diagnosis(env, 'eval-growth');
    expect(findings.map((f) => f.code)).toEqual(['eval-growth']);
    expect(evidence(findings[0]!)).toEqual([
      'allocated: 5.25 GiB at step 21 → 7.00 GiB at step 28',
      'growth per step: 256 MiB',
      'steps that grew: 7 of 7',
    ]);
  });

  it('a rank imbalance: two ranks on two GPUs, rank 0 holding 3 GiB more', () => {
    const { findings } = diagnosis(env, 'imbalance');
    expect(findings.map((f) => f.code)).toEqual(['rank-imbalance']);
    // Rank 0 holds its 3 GiB from the first step on, at every step: uneven shards.
    expect(evidence(findings[0]!)).toEqual([
      'peak reserved: 9.00 GiB (+2.99 GiB) on rank 0',
      'peak reserved: 6.02 GiB on rank 1',
      'peak allocated at the first step, and at every step after it: rank 0: 8.00 GiB at step 1, the others 5.00 GiB (median)',
    ]);
  });

  it('a stable card that looks full: a note, with nvidia-smi’s figure', () => {
    const { findings } = diagnosis(env, 'stable-full');
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['stable-full', 'info']]);
    // 100 GiB weights + 20 GiB states, 8 GiB transient; nvidia-smi adds the 500 MiB context.
    expect(evidence(findings[0]!)).toEqual([
      'reserved: 128.01 GiB (91 % of the card)',
      'allocated: 120.00 GiB → 120.00 GiB',
      'nvidia-smi memory.used: 128.50 GiB of 140.40 GiB (92 %)',
    ]);
  });

  it('a leftover of an earlier run: the same program on the card, not this run’s', () => {
    const { findings } = diagnosis(env, 'leftover');
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['leftover-process', 'warn']]);
    const child = JSON.parse(headroom(env, 'runs', 'show', 'leftover', '--json').stdout).childPid;
    expect(evidence(findings[0]!)).toEqual([
      `process: pid ${holderPid} ${python}: 2.99 GiB`,
      `this run’s processes (nvidia-smi): pid ${child} ${python}: 6.50 GiB`,
    ]);
  });

  it('other programs on the card, from nvidia-smi’s process list', () => {
    const { findings } = diagnosis(env, 'others');
    expect(findings.map((f) => [f.code, f.title])).toEqual([
      ['other-processes', '3 other processes hold 31.58 GiB on GPU 0'],
    ]);
    expect(evidence(findings[0]!)).toEqual([
      'process: pid 10309 ./gpu_burn: 27.57 GiB',
      'process: pid 10291 /root/tools/memhog: 2.51 GiB',
      'process: pid 10293 /root/tools/memhog: 1.51 GiB',
      'other processes in total: 31.58 GiB',
      'card total: 140.40 GiB',
    ]);
  });

  it('memory used with no process listed: the card’s 32362 MiB that nvidia-smi lists nobody for', () => {
    const { findings } = diagnosis(env, 'outside');
    expect(findings.map((f) => f.code)).toEqual(['memory-outside-process']);
    expect(findings[0]!.title).toBe('31.60 GiB in use on the card that no listed process accounts for');
    const lines = evidence(findings[0]!);
    expect(lines.slice(0, 2)).toEqual([
      'nvidia-smi memory.used: 38.11 GiB of 140.40 GiB (27 %)',
      'this run’s processes (nvidia-smi): 6.50 GiB',
    ]);
    expect(lines[2]).toMatch(
      /^used by nothing listed: 31\.60 GiB \(23 % of the card; the median of \d+ nvidia-smi samples\)$/,
    );
  });

  it('a run that ran out of memory after 23 steps: mid-run, and the leak behind it', () => {
    const d = diagnosis(env, 'oom');
    expect(d.oom).toMatchObject({ family: 'torch-v2', totalBytes: 12 * GIB, requestedBytes: 256 * 2 ** 20 });
    // The allocator's figures alone would say backward; 23 steps fit before it failed.
    expect(d.phase).toBe('mid-run');
    expect(d.findings.map((f) => f.code)).toEqual(['mid-run', 'leak']);
    // The run's stored scenario (llama-3.2-1b, LoRA on a bf16 base by default, micro-batch 4) is
    // estimated against the 12 GiB card.
    const storedPeak = estimate({
      scenario: parseScenario({ model: 'llama-3.2-1b', method: 'lora', microBatchSize: 4, seqLen: 1024 }),
      shape: resolveModelRef('llama-3.2-1b')!.shape,
    }).peak;
    const stored = storedPeak.deviceBytes;
    const storedAllocated = storedPeak.allocatedBytes;
    expect(stored).toBeGreaterThan(12 * GIB);
    expect(evidence(d.findings[0]!)).toEqual([
      'phase: mid-run (from the recorded steps: the run had completed many training steps before it failed: the setup fit, then something changed)',
      `estimate for this setup (nvidia-smi level): ${formatBytes(stored)} / 12.00 GiB, ${formatBytes(stored - 12 * GIB)} short`,
      // The run's highest allocated step against the estimate: the estimate was high.
      `estimate against this run (torch allocated): estimate ${(((storedAllocated - 11.5 * GIB) / (11.5 * GIB)) * 100).toFixed(1)} % over the measured peak (${formatBytes(storedAllocated)} estimated, 11.50 GiB measured)`,
    ]);
    expect(evidence(d.findings[1]!)).toEqual([
      'allocated: 6.00 GiB at step 4 → 10.75 GiB at step 23',
      'growth per step: 256 MiB',
      'steps that grew: 19 of 19',
      'card full at about step: 25',
    ]);
    const human = headroom(env, 'diagnose', 'oom').stdout;
    expect(human.split('\n').slice(0, 3)).toEqual([
      'run 10 "oom" · oom · 23 steps',
      'PyTorch caching allocator (2.x layout) · GPU 0 · phase: mid-run (from the recorded steps)',
      '  requested 256 MiB · total 12.00 GiB · free 8.0 MiB · allocated by PyTorch 11.50 GiB · reserved-unallocated 4.0 MiB · this process 11.99 GiB',
    ]);
  });

  it('last, a name, an id: the same run; --json keeps { oom, phase, findings }', () => {
    const byName = headroom(env, 'diagnose', 'oom', '--json').stdout;
    expect(headroom(env, 'diagnose', 'last', '--json').stdout).toBe(byName);
    expect(headroom(env, 'diagnose', '10', '--json').stdout).toBe(byName);
    expect(Object.keys(JSON.parse(byName))).toEqual(['oom', 'phase', 'findings']);
  });

  it('--lang zh, or a Chinese locale: the findings in Chinese', () => {
    const zh = diagnosis(env, 'leak', '--lang', 'zh');
    expect(zh.findings.map((f) => f.title)).toEqual(['已分配显存逐步增长（rank 0，GPU 0）']);
    const human = headroom({ ...env, LANG: 'zh_CN.UTF-8' }, 'diagnose', 'imbalance').stdout;
    expect(human.split('\n').slice(0, 5)).toEqual([
      '运行 5“imbalance” · ok · 20 步',
      '',
      '配置',
      ' 1. rank 0 从第一步起每一步都比其他 rank 多 2.99 GiB：分片不均 [警告]',
      '     预留峰值：rank 0 为 9.00 GiB (+2.99 GiB)',
    ]);
    // --lang wins over the locale.
    expect(headroom({ ...env, LANG: 'zh_CN.UTF-8' }, 'diagnose', 'steady', '--lang', 'en').stdout).toContain(
      'Nothing to report.',
    );
  });

  it('each run’s diagnosis from the columns it reads is the one every record gave', () => {
    // With card-rules.test.ts (the rules on columns give what they gave on records, for any samples)
    // and ledger-rows.test.ts (the columns hold what the records held), this holds the whole path.
    const ledger = Ledger.open(env.HEADROOM_HOME!, 'read');
    try {
      const names = ledger.listRuns().map((r) => r.name!);
      expect(names).toHaveLength(10);
      const codes = new Set<string>();
      for (const name of names) {
        const { findings, oom, phase } = diagnoseRun(ledger, name);
        const old = diagnosisOfRecords(ledger, name);
        expect({ name, findings, oom, phase }).toEqual({
          name,
          findings: old.findings,
          oom: old.oom,
          phase: old.phase,
        });
        for (const f of findings) codes.add(f.code);
      }
      expect(codes.size).toBeGreaterThanOrEqual(9);
    } finally {
      ledger.close();
    }
  });

  it('a run that is not there: a message and a Try line', () => {
    const r = headroom(env, 'diagnose', '99');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: no run "99" in ${join(env.HEADROOM_HOME!, 'ledger.db')}\nTry: headroom runs lists the 10 recorded (ids 1–10)\n`,
    );
  });
});

describe('diagnose RUN: the bitsandbytes the probe recorded', () => {
  it('a 4-bit run on bitsandbytes 0.42.0: its kept inputs are counted, and the upgrade names what it frees', () => {
    const { dir, env } = home();
    const info = join(dir, 'site', 'bitsandbytes-0.42.0.dist-info');
    mkdirSync(info, { recursive: true });
    writeFileSync(join(info, 'METADATA'), 'Metadata-Version: 2.1\nName: bitsandbytes\nVersion: 0.42.0\n');
    const r = record(
      { ...env, PYTHONPATH: [env.PYTHONPATH, join(dir, 'site')].join(delimiter) },
      'qlora',
      'steady',
      {
        flags: [
          '--model',
          'llama-3.2-1b',
          '--method',
          'qlora',
          '--quantization',
          'nf4',
          '--precision',
          'bf16-true',
        ],
      },
    );
    // The stored setup: llama-3.2-1b, QLoRA nf4, bf16-true, micro-batch 1 × 2048 by default.
    expect(r.code).toBe(0);
    const { findings } = diagnosis(env, 'qlora');
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['old-bitsandbytes', 'warn']]);
    expect(findings[0]!.title).toBe('bitsandbytes 0.42.0 keeps every 4-bit layer’s input');
    const device = (kept: string) =>
      estimate({
        scenario: parseScenario({
          model: 'llama-3.2-1b',
          method: 'qlora',
          quantization: 'nf4',
          precision: 'bf16-true',
          quantizedInputsKept: kept,
        }),
        shape: resolveModelRef('llama-3.2-1b')!.shape,
      }).peak.deviceBytes;
    expect(evidence(findings[0]!)).toEqual([
      `inputs the 4-bit layers keep (estimate): ${formatBytes(device('step') - device('none'))}`,
    ]);
  });
});

describe('diagnose RUN: mistakes', () => {
  it('an id with nothing recorded yet says so, and a missing file is still a missing file', () => {
    const { env } = home();
    const none = headroom(env, 'diagnose', 'last');
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `error: no run "last": nothing is recorded in ${env.HEADROOM_HOME}, and there is no file of that name\nTry: record a run with headroom run -- python train.py, or give the path of a log file\n`,
    );
    const file = headroom(env, 'diagnose', 'train.log');
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/^error: log file train\.log does not exist\n/);
    const lang = headroom(env, 'diagnose', '-', '--lang', 'fr');
    expect(lang.stderr).toBe(
      'error: --lang fr: the findings speak en (English) and zh (简体中文)\nTry: --lang zh or --lang en\n',
    );
  });
});

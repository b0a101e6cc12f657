/**
 * End-to-end tests of `headroom run`, `watch` and `runs`, as a new user runs them: the built binary,
 * a small Python training script using the probe against the stand-in torch
 * (probe/tests/standin), and the stand-in nvidia-smi (test/fixtures/bin) on PATH. Every figure
 * asserted is computed from the script's allocations (test/fixtures/train_standin.py).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../src/io/ledger.js';
import { claimLogLock } from '../src/io/log-lock.js';
import { dataFile, REPO_ROOT } from './data.js';
import { STANDIN_TORCH, standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_standin.py');
const MIB = 2 ** 20;
// Sample 12 (the stand-in's GPU): 32362 MiB used by other processes, 143771 MiB total.
const OTHERS_USED_MIB = 32362;
const CONTEXT_MIB = 500;

function home(): { dir: string; env: NodeJS.ProcessEnv } {
  return standinHome('headroom-run-');
}

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const json = (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const r = headroom(env, ...args, '--json');
  if (r.code !== 0) throw new Error(`headroom ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

// --hold-s: the process lingers after its last step long enough for nvidia-smi to sample it even on a
// loaded machine (the stand-in starts a Python process per loop).
const COMMON = ['--steps', '12', '--eval-every', '5', '--step-s', '0.02', '--hold-s', '2'];

describe('a new user: three runs, one of them out of memory, then runs / show / diff / export / rm', () => {
  const { dir, env } = home();
  let a: ReturnType<typeof headroom>;
  let c: ReturnType<typeof headroom>;

  beforeAll(() => {
    a = headroom(
      env,
      'run',
      '--name',
      'bs4',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      '--batch-size',
      '4',
      ...COMMON,
    );
    headroom(
      env,
      'run',
      '--name',
      'bs8',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      '--batch-size',
      '8',
      ...COMMON,
    );
    c = headroom(
      { ...env, STANDIN_CAPACITY_BYTES: String(4096 * MIB) },
      'run',
      '--name',
      'oom',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      '--batch-size',
      '8',
      ...COMMON,
      '--leak-mib',
      '256',
    );
  }, 120_000);

  it('passes the command’s output through unchanged and exits with its code', () => {
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(
      `${Array.from({ length: 12 }, (_, i) => `step ${i + 1} loss ${(2 / (i + 1)).toFixed(4)}`).join('\n')}\ndone\n`,
    );
    expect(c.code).toBe(1);
    // The command's stderr reaches ours whole (the traceback), and is kept in the run's folder.
    const captured = readFileSync(join(dir, 'runs', '3', 'stderr.log'), 'utf8');
    expect(captured).toMatch(
      /^Traceback \(most recent call last\):\n[\s\S]*torch\.cuda\.OutOfMemoryError: CUDA out of memory/,
    );
    expect(c.stderr).toContain(captured);
  });

  it('warns before launch about the processes already on the GPU', () => {
    expect(a.stderr).toContain(
      "headroom: ⚠ GPU 0 (NVIDIA H200) already has 3 processes that are not this run's: 10291 /root/tools/memhog 2.51 GiB, 10293 /root/tools/memhog 1.51 GiB, 10309 ./gpu_burn 27.57 GiB\n  Try: if they are leftovers of an earlier run, stop them (kill 10291 10293 10309); or pick another GPU with CUDA_VISIBLE_DEVICES",
    );
  });

  it('ends with a summary: peak per layer and when, the gaps, and how it ended', () => {
    expect(a.stderr).toMatch(/run 1 "bs4" · ok · exit 0 · [\d.]+ s · 12 steps/);
    expect(a.stderr).toMatch(
      / {2}allocated {4}2\.88 GiB {2}step 2 · 0:0\d · GPU 0 {2}torch max_memory_allocated/,
    );
    expect(a.stderr).toMatch(
      / {2}reserved {5}2\.89 GiB {2}step 2 · 0:0\d · GPU 0 {2}torch max_memory_reserved/,
    );
    expect(a.stderr).toMatch(/ {2}nvidia-smi {3}3\.38 GiB {2}0:0\d · GPU 0 {11}this run's processes/);
    expect(a.stderr).toContain(
      'between the layers: 16.0 MiB cached by the allocator (reserved − allocated) · 500 MiB CUDA context and non-PyTorch memory (nvidia-smi − reserved)',
    );
    expect(a.stderr).toContain('memory: flat across 12 steps (per-step peak about 2.88 GiB)');
    expect(a.stderr).toContain('✓ finished');
    expect(c.stderr).toContain('✗ ended in a CUDA out-of-memory (after step 2, phase train, rank 0)');
    expect(c.stderr).toContain('recorded as run 3: headroom runs show 3');
  });

  it('runs --json gives each run’s status, exit code and peaks at the three levels, exactly', () => {
    const runs = json(env, 'runs');
    const pick = (r: Record<string, unknown>) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      exitCode: r.exitCode,
      peakAllocatedBytes: r.peakAllocatedBytes,
      peakReservedBytes: r.peakReservedBytes,
      peakDeviceBytes: r.peakDeviceBytes,
      peakGpuUsedBytes: r.peakGpuUsedBytes,
      steps: r.steps,
      batchSize: r.batchSize,
      seqLen: r.seqLen,
    });
    expect(runs.map(pick)).toEqual([
      // batch 4: weights 2048 + states 512 + activations 128 + gradients 256 MiB; reserved in 20 MiB segments.
      {
        id: 1,
        name: 'bs4',
        status: 'ok',
        exitCode: 0,
        peakAllocatedBytes: 2944 * MIB,
        peakReservedBytes: 2960 * MIB,
        peakDeviceBytes: (2960 + CONTEXT_MIB) * MIB,
        peakGpuUsedBytes: (OTHERS_USED_MIB + 2960 + CONTEXT_MIB) * MIB,
        steps: 12,
        batchSize: 4,
        seqLen: 512,
      },
      {
        id: 2,
        name: 'bs8',
        status: 'ok',
        exitCode: 0,
        peakAllocatedBytes: 3072 * MIB,
        peakReservedBytes: 3080 * MIB,
        peakDeviceBytes: (3080 + CONTEXT_MIB) * MIB,
        peakGpuUsedBytes: (OTHERS_USED_MIB + 3080 + CONTEXT_MIB) * MIB,
        steps: 12,
        batchSize: 8,
        seqLen: 512,
      },
      // 256 MiB kept every step on a 4 GiB card: step 3's gradients do not fit.
      {
        id: 3,
        name: 'oom',
        status: 'oom',
        exitCode: 1,
        peakAllocatedBytes: 3328 * MIB,
        peakReservedBytes: 3340 * MIB,
        peakDeviceBytes: (3340 + CONTEXT_MIB) * MIB,
        peakGpuUsedBytes: (OTHERS_USED_MIB + 3340 + CONTEXT_MIB) * MIB,
        steps: 2,
        batchSize: 8,
        seqLen: 512,
      },
    ]);
    expect(runs[0].command).toEqual(['python3', TRAIN, '--batch-size', '4', ...COMMON]);
    expect(runs[0].peaks.allocated).toMatchObject({ bytes: 2944 * MIB, step: 2, gpu: 0 });
  });

  it('runs (a table) shows the same figures', () => {
    const r = headroom(env, 'runs');
    expect(r.code).toBe(0);
    const cells = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/ {2,}/));
    expect(cells[0]).toEqual([
      'id',
      'name',
      'status',
      'model',
      'method',
      'batch',
      'seq',
      'allocated',
      'reserved',
      'nvidia-smi',
      'steps',
      'duration',
      'started (UTC)',
    ]);
    expect(cells[2]!.slice(0, 11)).toEqual([
      '1',
      'bs4',
      'ok',
      '—',
      '—',
      '4',
      '512',
      '2.88 GiB',
      '2.89 GiB',
      '3.38 GiB',
      '12',
    ]);
    expect(cells[4]!.slice(0, 11)).toEqual([
      '3',
      'oom',
      'oom',
      '—',
      '—',
      '8',
      '512',
      '3.25 GiB',
      '3.26 GiB',
      '3.75 GiB',
      '2',
    ]);
  });

  it('runs show: the OOM text, the per-step peaks, the phases', () => {
    const show = json(env, 'runs', 'show', '3');
    expect(
      show.perStep.map((p: { step: number; peakAllocatedBytes: number; peakReservedBytes: number }) => [
        p.step,
        p.peakAllocatedBytes / MIB,
        p.peakReservedBytes / MIB,
      ]),
    ).toEqual([
      [1, 2816, 2820],
      [2, 3328, 3340],
    ]);
    expect(show.outcome).toEqual({
      status: 'oom',
      error: {
        kind: 'oom',
        type: 'torch.cuda.OutOfMemoryError',
        message:
          'CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 4.00 GiB of which 256.00 MiB is free. Including non-PyTorch memory, this process has 3.75 GiB memory in use. Of the allocated memory 3.25 GiB is allocated by PyTorch, and 12.00 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)',
        step: 2,
        phase: 'train',
        rank: 0,
      },
    });
    const oom = show.events.find((e: { kind: string }) => e.kind === 'oom');
    expect(oom.data.devices).toEqual([
      {
        index: 0,
        allocatedBytes: 3328 * MIB,
        reservedBytes: 3340 * MIB,
        peakAllocatedBytes: 3328 * MIB,
        peakReservedBytes: 3340 * MIB,
        inactiveSplitBytes: 12 * MIB,
        numAllocRetries: 0,
        numOoms: 1,
      },
    ]);
    const stderrOom = show.events.find((e: { kind: string }) => e.kind === 'oom-text');
    expect(stderrOom.source).toBe('stderr');
    expect(stderrOom.message).toBe(`torch.cuda.OutOfMemoryError: ${oom.data.message}`);
    const human = headroom(env, 'runs', 'show', '1');
    expect(human.stdout).toContain('per-step peak (█ allocated, ░ reserved)');
    // 12 columns, the first (step 1, before the optimizer states of step 2's peak) a little lower.
    expect(human.stdout).toContain('  2.89 GiB ┤▅███████████\n');
    expect(human.stdout).toContain('       0 B └────────────\n            1         12  step\n');
    const phases = human.stdout
      .slice(human.stdout.indexOf('  phases'))
      .split('\n')
      .slice(3, 7)
      .map((l) => l.trim().split(/ {2,}/).slice(1));
    // After step 5 and 10: the peak before eval is the step's resting memory; eval adds 64 MiB of activations.
    expect(phases).toEqual([
      ['5', '0', 'train → eval', '2.50 GiB'],
      ['5', '0', 'eval → train', '2.56 GiB'],
      ['10', '0', 'train → eval', '2.50 GiB'],
      ['10', '0', 'eval → train', '2.56 GiB'],
    ]);
  });

  it('runs diff: one variable, no warning; two variables, the warning', () => {
    const one = json(env, 'runs', 'diff', '2', '3');
    expect(one.changes).toEqual([{ name: '--leak-mib', a: null, b: '256' }]);
    expect(one.warning).toBeNull();
    expect(one.peaks[0]).toEqual({
      layer: 'allocated',
      aBytes: 3072 * MIB,
      bBytes: 3328 * MIB,
      deltaBytes: 256 * MIB,
      deltaPercent: (256 / 3072) * 100,
    });
    const two = headroom(env, 'runs', 'diff', 'bs4', 'oom');
    const rows = two.stdout.split('\n').map((l) => l.trim().split(/ {2,}/));
    expect(rows).toContainEqual(['--batch-size', '4', '8', 'changed']);
    expect(rows).toContainEqual(['--leak-mib', '—', '256', 'changed']);
    expect(rows).toContainEqual(['peak allocated', '2.88 GiB', '3.25 GiB', '+384 MiB (+13.0 %)']);
    expect(two.stdout).toContain(
      '⚠ 2 variables changed (--batch-size, --leak-mib): the change in peak memory cannot be put down to one of them; change one at a time',
    );
  });

  it('runs export: JSON Lines of everything, CSV of the steps, the recorded values exactly', () => {
    const lines = headroom(env, 'runs', 'export', '3', '--format', 'jsonl')
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'run', id: 3, status: 'oom', peakAllocatedBytes: 3328 * MIB });
    const steps = lines.filter((l) => l.type === 'step');
    expect(
      steps.map((s) => ({
        step: s.step,
        loss: s.loss,
        lr: s.lr,
        batchSize: s.batchSize,
        seqLen: s.seqLen,
        allocatedBytes: s.allocatedBytes,
        peakAllocatedBytes: s.peakAllocatedBytes,
      })),
    ).toEqual([
      {
        step: 1,
        loss: 2,
        lr: 1e-4,
        batchSize: 8,
        seqLen: 512,
        allocatedBytes: 2816 * MIB,
        peakAllocatedBytes: 2816 * MIB,
      },
      {
        step: 2,
        loss: 1,
        lr: 1e-4,
        batchSize: 8,
        seqLen: 512,
        allocatedBytes: 3072 * MIB,
        peakAllocatedBytes: 3328 * MIB,
      },
    ]);
    expect(lines.filter((l) => l.type === 'event').map((e) => e.kind)).toEqual(
      expect.arrayContaining(['prelaunch', 'start', 'device', 'oom', 'end', 'oom-text', 'stderr-tail']),
    );
    const ours = lines.filter((l) => l.type === 'process-sample' && l.ours);
    expect(Math.max(...ours.map((p) => p.usedBytes))).toBe((3340 + CONTEXT_MIB) * MIB);
    expect(lines.filter((l) => l.type === 'process-sample' && !l.ours).map((p) => p.pid)).toEqual(
      expect.arrayContaining([10291, 10293, 10309]),
    );

    const csv = headroom(env, 'runs', 'export', '1', '--format', 'csv').stdout.trim().split('\n');
    expect(csv[0]).toBe(
      'tMs,pid,rank,localRank,device,step,phase,loss,lossText,lr,batchSize,seqLen,durationS,allocatedBytes,reservedBytes,peakAllocatedBytes,peakReservedBytes,inactiveSplitBytes,numAllocRetries,numOoms',
    );
    expect(csv).toHaveLength(13);
    const row2 = csv[2]!.split(',');
    expect(row2.slice(4, 8)).toEqual(['0', '2', 'train', '1']);
    expect(row2.slice(13)).toEqual([
      String(2560 * MIB),
      String(2960 * MIB),
      String(2944 * MIB),
      String(2960 * MIB),
      String(400 * MIB),
      '0',
      '0',
    ]);
  });

  it('runs rm deletes a run and its files; the others stay', () => {
    expect(headroom(env, 'runs', 'rm', '2').stdout).toBe('removed run 2 "bs8" and its files\n');
    expect(json(env, 'runs').map((r: { id: number }) => r.id)).toEqual([1, 3]);
    expect(existsSync(join(dir, 'runs', '2'))).toBe(false);
    const missing = headroom(env, 'runs', 'show', '2');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `error: no run "2" in ${join(dir, 'ledger.db')}\nTry: headroom runs lists the 2 recorded (ids 1–3)\n`,
    );
  });
});

describe('a run that killed its recorder: nothing recorded is lost, and watch resumes', () => {
  it('SIGKILL headroom mid-run; the training goes on; headroom watch finishes the record exactly once per step', async () => {
    const { dir, env } = home();
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--interval-ms',
        '50',
        '--',
        'python3',
        TRAIN,
        '--steps',
        '30',
        '--step-s',
        '0.08',
        '--hold-s',
        '0.3',
      ],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
    });
    child.stderr!.resume();
    const ledgerPath = join(dir, 'ledger.db');
    const stepsIn = () => {
      if (!existsSync(ledgerPath)) return 0;
      const db = new Database(ledgerPath, { readonly: true, fileMustExist: true });
      try {
        return Number((db.prepare('SELECT count(*) AS n FROM steps').get() as { n: number }).n);
      } catch {
        return 0;
      } finally {
        db.close();
      }
    };
    await until(() => stepsIn() >= 6, 20_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const recordedBeforeKill = stepsIn();
    expect(recordedBeforeKill).toBeGreaterThanOrEqual(6);
    expect(recordedBeforeKill).toBeLessThan(30);
    // The run is left "running"; runs says how to resume it.
    const listed = headroom(env, 'runs');
    const logPath = join(dir, 'runs', '1', 'probe.jsonl');
    expect(listed.stdout).toContain(
      `run 1 is "running" but nothing records it: headroom watch --log ${logPath} resumes it`,
    );
    const watch = headroom(env, 'watch', '--log', logPath, '--interval-ms', '50');
    expect(watch.code).toBe(0);
    expect(watch.stderr).toContain('headroom: resuming run 1 from where the ledger stopped');
    expect(watch.stderr).toMatch(/run 1 · ok · [\d.]+ s · 30 steps/);
    // The training never noticed: its output is whole.
    await until(() => out.includes('done'), 10_000);
    expect(out.trim().split('\n')).toHaveLength(31);
    const db = new Database(ledgerPath, { readonly: true });
    const rows = db.prepare('SELECT step FROM steps ORDER BY rowid').all() as { step: number }[];
    db.close();
    expect(rows.map((r) => r.step)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const run = json(env, 'runs', 'show', '1');
    expect([run.status, run.steps, run.peakAllocatedBytes, run.peakReservedBytes]).toEqual([
      'ok',
      30,
      2944 * MIB,
      2960 * MIB,
    ]);
    expect(
      run.events
        .filter((e: { kind: string }) => e.kind === 'note')
        .map((e: { message: string }) => e.message),
    ).toEqual([
      expect.stringMatching(/^resumed by headroom watch \(pid \d+\) from the stored probe-log offsets$/),
    ]);
    // Watching a finished run again is refused with a pointer to it.
    const again = headroom(env, 'watch', '--log', logPath);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `error: run 1 already recorded ${logPath} (ok)\nTry: headroom runs show 1; to record the log again, headroom runs rm 1 first\n`,
    );
  }, 60_000);

  it('two watches of one log started at once record it once', async () => {
    const { dir, env } = home();
    const log = join(dir, 'probe.jsonl');
    const rec = (r: Record<string, unknown>) =>
      `${JSON.stringify({ v: 1, pid: 999_999, rank: 0, localRank: 0, worldSize: 1, ...r })}\n`;
    const device = {
      index: 0,
      allocatedBytes: MIB,
      reservedBytes: 2 * MIB,
      peakAllocatedBytes: MIB,
      peakReservedBytes: 2 * MIB,
      inactiveSplitBytes: 0,
      numAllocRetries: 0,
      numOoms: 0,
    };
    writeFileSync(
      log,
      rec({ event: 'start', t: 1, argv: ['train.py'] }) +
        Array.from({ length: 20 }, (_, i) =>
          rec({ event: 'step', t: 2 + i, step: i + 1, loss: 1, devices: [device] }),
        ).join('') +
        rec({ event: 'end', t: 30, reason: 'exit', steps: 20 }),
    );
    const start = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'watch', '--log', log, '--no-smi'], { env });
        let stderr = '';
        child.stderr!.on('data', (d) => {
          stderr += String(d);
        });
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    const results = await Promise.all([start(), start()]);
    if (results.some((r) => r.code !== 0 && r.code !== 1))
      throw new Error(results.map((r) => r.stderr).join('\n---\n'));
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(results.find((r) => r.code === 1)!.stderr).toMatch(/is being watched already|already recorded/);
    const runs = json(env, 'runs');
    expect(runs.runs ?? runs).toHaveLength(1);
  }, 60_000);

  it('a second watch is refused by the lock at once, while the first holds the ledger busy', () => {
    const { dir, env } = home();
    const log = join(dir, 'probe.jsonl');
    writeFileSync(log, '');
    // The first watcher: this process holds the log's lock and, mid-write, the ledger's write lock.
    const lock = claimLogLock(dir, log);
    if ('heldBy' in lock) throw new Error('the lock of a fresh home is held');
    Ledger.open(dir).close();
    const writer = new Database(join(dir, 'ledger.db'));
    writer.exec('BEGIN IMMEDIATE');
    try {
      const r = headroom(env, 'watch', '--log', log, '--no-smi');
      expect(r.code).toBe(1);
      // Refused for the lock, not after waiting out the ledger's busy timeout ("ledger … is busy").
      expect(r.stderr).toMatch(/is being watched already \(headroom pid \d+ on /);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      lock.release();
    }
  });

  it('Ctrl-C stops the command cleanly and keeps the record', async () => {
    const { env } = home();
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--interval-ms', '50', '--', 'python3', TRAIN, '--steps', '500', '--step-s', '0.05'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, as a terminal's foreground job
      },
    );
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
    });
    child.stderr!.on('data', (d) => {
      err += String(d);
    });
    // The loop prints a step before the probe records it, so "step 5" on stdout is the first sign
    // that step 4 is in the probe log (waiting for "step 4" raced the probe's write).
    await until(() => out.includes('step 5 '), 20_000);
    process.kill(-child.pid!, 'SIGINT'); // what Ctrl-C does: the whole group gets SIGINT
    const code = await new Promise((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(err).toContain(
      'headroom: stopping the command (Ctrl-C again to terminate it now); the record is kept',
    );
    expect(err).toMatch(/■ stopped by SIGINT; everything recorded until then is kept/);
    // The Ctrl-C was the training's: nvidia-smi, sampled all along, is not reported as failing (it
    // used to get the SIGINT too, and "exited" with a hint about a driver/library mismatch).
    expect(err).not.toMatch(/nvidia-smi exited|driver|⚠ nvidia-smi/);
    const run = json(env, 'runs', 'show', 'last');
    expect([run.status, run.exitCode, run.signal]).toEqual(['killed', 130, 'SIGINT']);
    expect(run.events.filter((e: { kind: string }) => e.kind === 'sampler-problem')).toEqual([]);
    expect(run.peakDeviceBytes).not.toBeNull(); // nvidia-smi was sampled
    expect(run.steps).toBeGreaterThanOrEqual(4);
    expect(run.events.map((e: { kind: string }) => e.kind)).toEqual(
      expect.arrayContaining(['exception', 'end', 'interrupted']),
    );
    expect(run.events.find((e: { kind: string }) => e.kind === 'exception').data.type).toBe(
      'KeyboardInterrupt',
    );
  }, 60_000);
});

describe('headroom watch of a run started elsewhere', () => {
  it('records it from its probe log until the writer ends', () => {
    const { dir, env } = home();
    const log = join(dir, 'elsewhere.jsonl');
    const training = spawn('python3', [TRAIN, '--steps', '5', '--step-s', '0.1'], {
      env: {
        ...env,
        HEADROOM_LOG: log,
        PYTHONPATH: [join(REPO_ROOT, 'probe'), STANDIN_TORCH].join(delimiter),
      },
      stdio: 'ignore',
    });
    const watch = headroom(env, 'watch', '--log', log, '--name', 'outside', '--no-smi');
    expect(watch.code).toBe(0);
    training.kill();
    const [run] = json(env, 'runs');
    expect(run).toMatchObject({
      id: 1,
      name: 'outside',
      status: 'ok',
      steps: 5,
      command: [],
      logPath: log,
      peakAllocatedBytes: 2944 * MIB,
      peakDeviceBytes: null,
    });
  });
});

describe('bad input: each a clear message, nothing recorded lost', () => {
  it('a garbage line and a truncated last line in the probe log are reported; the steps around them count', () => {
    const { env } = home();
    const script = [
      'import os, torch, headroom_probe',
      'torch.cuda.standin_allocate(2**20)',
      'headroom_probe.step(1)',
      "open(os.environ['HEADROOM_LOG'], 'a').write('Segmentation fault (core dumped)\\n')",
      'headroom_probe.step(2)',
      'headroom_probe._probe.end()',
      'open(os.environ[\'HEADROOM_LOG\'], \'a\').write(\'{"v":1,"event":"step","step":3,"dev\')',
      'os._exit(0)',
    ].join('\n');
    const r = headroom(env, 'run', '--no-smi', '--', 'python3', '-c', script);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('! 2 probe lines could not be read (headroom runs show 1 lists them)');
    const run = json(env, 'runs', 'show', '1');
    expect(run.steps).toBe(2);
    expect(
      run.events
        .filter((e: { kind: string }) => e.kind === 'probe-bad-line')
        .map((e: { data: { code: string; excerpt: string } }) => [e.data.code, e.data.excerpt]),
    ).toEqual([
      ['not-json', 'Segmentation fault (core dumped)'],
      ['truncated', '{"v":1,"event":"step","step":3,"dev'],
    ]);
  });

  it.each([
    [
      'missing',
      { PATH: pythonOnlyPath() },
      'headroom: ⚠ nvidia-smi was not found on PATH: GPU memory as the system sees it is not recorded; the GPUs could not be checked',
    ],
    [
      'failing',
      { STANDIN_NVSMI_MODE: 'fail' },
      "headroom: ⚠ nvidia-smi exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.; the GPUs could not be checked",
    ],
    [
      'hanging',
      { STANDIN_NVSMI_MODE: 'hang', HEADROOM_NVIDIA_SMI_TIMEOUT_MS: '500' },
      'headroom: ⚠ nvidia-smi printed nothing for 0.5 s and was stopped; the GPUs could not be checked',
    ],
  ])('a %s nvidia-smi: a warning, and the probe layer is still recorded', (_name, extra, message) => {
    const { env } = home();
    const r = headroom({ ...env, ...extra }, 'run', '--', 'python3', TRAIN, '--steps', '3');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(message);
    const [run] = json(env, 'runs');
    expect([
      run.status,
      run.steps,
      run.peakAllocatedBytes,
      run.peakReservedBytes,
      run.peakDeviceBytes,
    ]).toEqual(['ok', 3, 2944 * MIB, 2960 * MIB, null]);
  });

  it('an nvidia-smi loop that dies mid-run is reported and the run goes on', () => {
    const { env } = home();
    const r = headroom(
      { ...env, STANDIN_NVSMI_MODE: 'die-after:2' },
      'run',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      '--steps',
      '3',
      '--hold-s',
      '1.5', // long enough for two samples and the loop's death on a loaded machine
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'headroom: ⚠ nvidia-smi exited with code 15: Unable to determine the device handle for GPU0000:83:00.0: GPU is lost.',
    );
    const run = json(env, 'runs', 'show', '1');
    expect(run.status).toBe('ok');
    expect(run.events.some((e: { kind: string }) => e.kind === 'sampler-problem')).toBe(true);
  });

  it('a command that does not exist: an error naming it, a failed record, exit 1', () => {
    const { env } = home();
    const r = headroom(env, 'run', '--', 'no-such-trainer-xyz', '--epochs', '3');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: cannot start "no-such-trainer-xyz": not found (not on PATH, or no such file) (recorded as run 1)\nTry: check the command after --, e.g. headroom run -- python3 train.py; headroom runs rm 1 drops the record\n',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const [run] = json(env, 'runs');
    expect([run.status, run.exitCode, run.command]).toEqual([
      'failed',
      null,
      ['no-such-trainer-xyz', '--epochs', '3'],
    ]);
    expect(headroom(env, 'runs', 'show', '1').stdout).toContain(
      '✗ failed: cannot start no-such-trainer-xyz: not found (not on PATH, or no such file)',
    );
  });

  it('a ledger file that is not a database: nothing starts, the file is untouched', () => {
    const { dir, env } = home();
    const ledger = join(dir, 'ledger.db');
    writeFileSync(ledger, 'my notes\n'.repeat(500));
    const marker = join(dir, 'started');
    const r = headroom(env, 'run', '--', 'python3', '-c', `open(${JSON.stringify(marker)}, 'w')`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the ledger ${ledger} is not a SQLite database (file is not a database); no run was read or written\nTry: move it aside (mv ${ledger} ${ledger}.bad) so headroom starts a new ledger, or set HEADROOM_HOME to another folder\n`,
    );
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(ledger, 'utf8')).toBe('my notes\n'.repeat(500));
    expect(headroom(env, 'runs').stderr).toContain('is not a SQLite database');
  });

  it.each([
    [['run'], 'error: run needs a command after --\nTry: headroom run -- python train.py\n'],
    [
      ['run', '--interval-ms', 'fast', '--', 'python3'],
      'error: --interval-ms fast: not a positive number\nTry: e.g. --interval-ms 500\n',
    ],
    [
      ['watch'],
      'error: watch needs --log FILE, the probe log of the run\nTry: headroom watch --log /tmp/probe.jsonl (the HEADROOM_LOG the training was started with)\n',
    ],
    [['runs', 'export', '1', '--format', 'xml'], null],
    [
      ['runs', 'frob'],
      'error: runs: unknown subcommand "frob"\nTry: headroom runs [show|diff|export|rm] (headroom runs --help)\n',
    ],
    [['probe'], 'error: probe needs a subcommand\nTry: headroom probe path\n'],
  ])('%j: a message and a Try line', (args, stderr) => {
    const { env } = home();
    const r = headroom(env, ...args);
    expect(r.code).toBe(1);
    if (stderr !== null) expect(r.stderr).toBe(stderr);
    else
      expect(r.stderr).toMatch(
        /^error: no run "1" in .*\nTry: record one with headroom run -- python train.py\n$/,
      );
  });
});

describe('checks before launch', () => {
  const idleGpuCsv = (dir: string) => {
    // Sample 12's header and row with the GPU idle: nothing used, everything free.
    const [header, row] = readFileSync(
      dataFile('validation', 'nvidia-smi', '12_h200_query_gpu_full.csv'),
      'utf8',
    ).split('\n');
    const path = join(dir, 'idle.csv');
    writeFileSync(path, `${header}\n${row!.replace('32362 MiB, 110796 MiB', '0 MiB, 143157 MiB')}\n`);
    return path;
  };
  /** A fresh home whose stand-in nvidia-smi shows the GPU idle, with `extra` variables on top. */
  const idleHome = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const { dir, env } = home();
    return { ...env, STANDIN_NVSMI_APPS_CSV: 'none', STANDIN_NVSMI_GPU_CSV: idleGpuCsv(dir), ...extra };
  };

  it('--strict refuses to start next to other processes; nothing is recorded', () => {
    const { env } = home();
    const r = headroom(env, 'run', '--strict', '--', 'python3', TRAIN, '--steps', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "error: refusing to start (--strict): GPU 0 (NVIDIA H200) already has 3 processes that are not this run's",
    );
    expect(r.stdout).toBe('');
    expect(json(env, 'runs')).toEqual([]);
  });

  it('with a scenario: free memory against the estimate; --strict refuses when it does not fit', () => {
    const idle = idleHome();
    const fits = headroom(
      idle,
      'run',
      '--strict',
      '--model',
      'llama-3.2-1b',
      '--method',
      'lora',
      '--',
      'python3',
      TRAIN,
      '--steps',
      '2',
    );
    expect(fits.code).toBe(0);
    expect(fits.stderr).toMatch(/headroom: GPU 0 has 139\.80 GiB free for an estimated [\d.]+ GiB\n/);
    const [run] = json(idle, 'runs');
    expect(run.scenario).toMatchObject({ model: 'llama-3.2-1b', method: 'lora' });
    expect(Object.keys(run.estimate)).toEqual(['allocatedBytes', 'reservedBytes', 'deviceBytes', 'upper']);
    // The upper bound is kept with the run (headroom_run_upper_bytes on /metrics), at or above each level.
    for (const level of ['allocatedBytes', 'reservedBytes', 'deviceBytes'] as const)
      expect(run.estimate.upper[level]).toBeGreaterThanOrEqual(run.estimate[level]);
    const tooBig = headroom(
      idle,
      'run',
      '--strict',
      '--model',
      'llama-3.1-70b',
      '--method',
      'full',
      '--',
      'python3',
      TRAIN,
    );
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toMatch(
      /^headroom: ⚠ GPU 0 \(NVIDIA H200\) has 139\.80 GiB free; the estimate needs [\d.]+ (GiB|TiB) per GPU \(nvidia-smi level\)\n/,
    );
    expect(tooBig.stderr).toContain('error: refusing to start (--strict)');
  });

  it('takes expandable segments from PYTORCH_CUDA_ALLOC_CONF into the scenario, unless told otherwise', () => {
    const idle = idleHome({ PYTORCH_CUDA_ALLOC_CONF: 'max_split_size_mb:512,expandable_segments:True' });
    const setup = ['--model', 'llama-3.2-1b', '--method', 'lora', '--seq-len', '4096'];
    const r = headroom(idle, 'run', '--name', 'env', ...setup, '--', 'python3', TRAIN, '--steps', '1');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'headroom: PYTORCH_CUDA_ALLOC_CONF sets expandable_segments:True; the estimate counts it\n',
    );
    headroom(
      idle,
      'run',
      '--name',
      'flag',
      ...setup,
      '--no-expandable-segments',
      '--',
      'python3',
      TRAIN,
      '--steps',
      '1',
    );
    const [fromEnv, declined] = json(idle, 'runs');
    expect(fromEnv.scenario.expandableSegments).toBe(true);
    expect(fromEnv.env.pytorchAllocConf).toBe('max_split_size_mb:512,expandable_segments:True');
    expect(fromEnv.env.pytorchAllocConfVariable).toBe('PYTORCH_CUDA_ALLOC_CONF');
    expect(declined.scenario.expandableSegments).toBeUndefined();
    // The same allocated peak; the expandable run's estimate keeps less reserve above it.
    expect(fromEnv.estimate.allocatedBytes).toBe(declined.estimate.allocatedBytes);
    expect(fromEnv.estimate.reservedBytes).toBeLessThan(declined.estimate.reservedBytes);
  });

  it('reads PYTORCH_ALLOC_CONF over PYTORCH_CUDA_ALLOC_CONF when both are set, as PyTorch 2.9 does', () => {
    const both = idleHome({
      PYTORCH_ALLOC_CONF: 'max_split_size_mb:512',
      PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True',
    });
    const lora = ['--model', 'llama-3.2-1b', '--method', 'lora'];
    const r = headroom(both, 'run', ...lora, '--', 'python3', TRAIN, '--steps', '1');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('sets expandable_segments:True');
    const [run] = json(both, 'runs');
    expect(run.env).toMatchObject({
      pytorchAllocConf: 'max_split_size_mb:512',
      pytorchAllocConfVariable: 'PYTORCH_ALLOC_CONF',
    });
    expect(run.scenario.expandableSegments).toBeUndefined();
  });
});

describe('what a run shows while it runs', () => {
  it('without a terminal: a plain status line now and then', () => {
    const { env } = home();
    const r = headroom(
      env,
      'run',
      '--interval-ms',
      '50',
      '--status-every',
      '0.2',
      '--',
      'python3',
      TRAIN,
      '--steps',
      '12',
      '--step-s',
      '0.1',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /\[headroom\] step \d+ · loss [\d.]+ · allocated 2\.\d\d GiB · reserved 2\.\d\d GiB · nvidia-smi 3\.\d\d GiB · free \d+\.\d\d GiB · [\d.]+ s\n/,
    );
  });

  it('on a terminal: the status line pinned to the last row, given back at the end', () => {
    const { env } = home();
    // A pseudo-terminal of 30 rows from Python's pty module.
    const inner = `stty rows 30 cols 160; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run --interval-ms 50 -- python3 ${JSON.stringify(TRAIN)} --steps 8 --step-s 0.15`;
    const r = spawnSync('python3', ['-c', 'import pty, sys; pty.spawn(["sh", "-c", sys.argv[1]])', inner], {
      encoding: 'utf8',
      env: { ...env, TERM: 'xterm', NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('\u001b7\u001b[1;29r\u001b8'); // rows 1–29 scroll; row 30 is ours
    const draw = '\u001b7\u001b[30;1H\u001b[2K● step ';
    const drawn = r.stdout.split(draw).slice(1);
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.at(-1)).toMatch(
      /^\d+ · loss [\d.]+ · alloc 2\.\d\d GiB · rsvd 2\.\d\d GiB · smi 3\.\d\d GiB · free [\d.]+ GiB · peak [▁▂▃▄▅▆▇█]+/,
    );
    expect(r.stdout).toContain('\u001b7\u001b[r\u001b[30;1H\u001b[2K\u001b8'); // given back
  });

  it('--json prints the record alone on stdout; the command’s own output goes to stderr', () => {
    const { env } = home();
    const r = headroom(env, 'run', '--json', '--no-smi', '--', 'python3', TRAIN, '--steps', '2');
    expect(r.code).toBe(0);
    // `headroom run --json -- … | jq` parses: stdout is one JSON document.
    expect(r.stderr).toContain('step 1 loss 2.0000\nstep 2 loss 1.0000\ndone\n');
    expect(JSON.parse(r.stdout)).toMatchObject({
      id: 1,
      status: 'ok',
      exitCode: 0,
      steps: 2,
      peakAllocatedBytes: 2944 * MIB,
    });
  });

  it('exits with the command’s code', () => {
    const { env } = home();
    const r = headroom(env, 'run', '--no-smi', '--', 'python3', '-c', 'import sys; sys.exit(3)');
    expect(r.code).toBe(3);
    expect(json(env, 'runs')[0]).toMatchObject({ status: 'failed', exitCode: 3 });
  });
});

describe('headroom probe path', () => {
  it('prints the folder that makes `import headroom_probe` work', () => {
    const { env } = home();
    const r = headroom(env, 'probe', 'path');
    expect(r.stdout).toBe(`${join(REPO_ROOT, 'probe')}\n`);
    const imported = spawnSync('python3', ['-c', 'import headroom_probe; print(headroom_probe.enabled())'], {
      encoding: 'utf8',
      env: { ...env, PYTHONPATH: r.stdout.trim() },
    });
    expect(imported.stdout).toBe('False\n');
    expect(json(env, 'probe', 'path')).toEqual({
      dir: join(REPO_ROOT, 'probe'),
      file: join(REPO_ROOT, 'probe', 'headroom_probe.py'),
    });
  });
});

/** A PATH holding python3 and nothing else (no nvidia-smi, even on a machine that has one). */
function pythonOnlyPath(): string {
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'headroom-python-only-'));
  symlinkSync(python, join(dir, 'python3'));
  return dir;
}

function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (condition()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - start > timeoutMs) {
        clearInterval(timer);
        reject(new Error('timed out waiting'));
      }
    }, 50);
  });
}

/**
 * A recorded run of many rows, written straight into a real ledger in one transaction through prepared
 * statements (seconds for millions of rows, where the probe-log path would take minutes): for
 * `npm run bench:ledger-rows` (2,000,000 steps) and the tests that hold every command to a large run
 * (test/large-run.test.ts). Its figures are made so that the true extremes are known: each layer's
 * highest value is at one chosen row, well above every other row, and the lowest at another.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Ledger } from '../src/io/ledger.js';

const GIB = 2 ** 30;
const MIB = 2 ** 20;
export const LARGE_RUN_START_MS = 1_767_225_600_000;
/** Time between two steps, ms. */
const STEP_MS = 100;

export interface LargeRunOptions {
  readonly steps: number;
  /** nvidia-smi samples: this many per-GPU rows, and as many per-process rows. */
  readonly samples: number;
  readonly name?: string;
  /** Left `running` with a probe log whose every line is already read (for watch's resume). */
  readonly running?: boolean;
}

/** What was written, with the true extremes to check the commands against. */
export interface LargeRun {
  readonly id: number;
  readonly steps: number;
  readonly samples: number;
  /** The highest per-step allocated peak and its step; likewise reserved. */
  readonly maxAllocated: { readonly bytes: number; readonly step: number };
  readonly maxReserved: { readonly bytes: number; readonly step: number };
  /** The lowest per-step allocated peak (after the first step) and its step. */
  readonly minAllocated: { readonly bytes: number; readonly step: number };
  /** nvidia-smi: the highest used figure of the GPU, and the run's own process's highest. */
  readonly maxGpuUsedBytes: number;
  readonly maxDeviceBytes: number;
  readonly totalBytes: number;
  /** The probe log of a `running` run (its rows are in the ledger already), else null. */
  readonly logPath: string | null;
}

/** The per-step figures: a slow sawtooth around 20 GiB, the peak at 3/5 of the run, the low at 1/5. */
function peakAt(step: number, peakStep: number, lowStep: number): number {
  if (step === peakStep) return 30 * GIB;
  if (step === lowStep) return 10 * GIB;
  return 20 * GIB + (step % 97) * MIB;
}

/** Writes a finished (or, with `running`, resumable) run of `steps` steps into the ledger of `home`. */
export function writeLargeRun(home: string, options: LargeRunOptions): LargeRun {
  const { steps, samples } = options;
  const ledger = Ledger.open(home);
  const run = ledger.createRun({
    name: options.name ?? `rows-${steps}`,
    command: ['python', 'train.py'],
    cwd: '/work',
    host: 'bench',
    scenario: { model: 'llama-3.2-1b', method: 'lora', microBatchSize: 4, seqLen: 1024, gpu: 'h100-sxm' },
    estimate: null,
    env: {},
    startedAtMs: LARGE_RUN_START_MS,
    monitorPid: null,
  });
  const path = ledger.path;
  ledger.close();
  const peakStep = Math.max(2, Math.floor((steps * 3) / 5));
  const lowStep = Math.max(3, Math.floor(steps / 5));
  const totalBytes = 80 * GIB;
  const endMs = LARGE_RUN_START_MS + (steps + 1) * STEP_MS;
  const peakSample = Math.floor((samples * 2) / 5);
  const sampleT = (i: number) =>
    LARGE_RUN_START_MS + Math.floor(((i + 1) * (endMs - LARGE_RUN_START_MS)) / (samples + 1));
  const usedAt = (i: number) => (i === peakSample ? 40 * GIB : 24 * GIB + (i % 89) * MIB);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insertStep = db.prepare(
    `INSERT INTO steps (run_id, t_ms, pid, rank, local_rank, device, step, phase, loss, loss_text, lr, batch_size,
       seq_len, duration_s, allocated_bytes, reserved_bytes, peak_allocated_bytes, peak_reserved_bytes,
       inactive_split_bytes, num_alloc_retries, num_ooms)
     VALUES (?, ?, 4242, 0, 0, 0, ?, 'train', ?, NULL, 0.0001, 4, 1024, 0.1, ?, ?, ?, ?, 0, 0, 0)`,
  );
  const insertGpu = db.prepare(
    `INSERT INTO gpu_samples (run_id, t_ms, gpu, uuid, name, total_bytes, reserved_bytes, used_bytes, free_bytes,
       utilization_percent, own_bytes) VALUES (?, ?, 0, 'GPU-bench-0', 'NVIDIA H100 80GB HBM3', ?, 0, ?, ?, 99, NULL)`,
  );
  const insertProcess = db.prepare(
    `INSERT INTO process_samples (run_id, t_ms, gpu, gpu_uuid, pid, name, used_bytes, ours)
     VALUES (?, ?, 0, 'GPU-bench-0', 4242, 'python', ?, 1)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (run_id, t_ms, kind, source, pid, rank, step, phase, message, data)
     VALUES (?, ?, ?, 'probe', 4242, 0, ?, ?, ?, ?)`,
  );
  const reservedAt = (allocated: number) => allocated + 2 * GIB;
  db.transaction(() => {
    insertEvent.run(run.id, LARGE_RUN_START_MS, 'start', null, null, null, JSON.stringify({ packages: {} }));
    insertEvent.run(
      run.id,
      LARGE_RUN_START_MS,
      'device',
      null,
      null,
      null,
      JSON.stringify({ index: 0, totalBytes }),
    );
    for (let step = 1; step <= steps; step++) {
      const peak = peakAt(step, peakStep, lowStep);
      insertStep.run(
        run.id,
        LARGE_RUN_START_MS + step * STEP_MS,
        step,
        2 * Math.exp(-step / steps) + 0.5,
        peak - 4 * GIB,
        reservedAt(peak),
        peak,
        reservedAt(peak),
      );
    }
    for (let i = 0; i < samples; i++) {
      const used = usedAt(i);
      insertGpu.run(run.id, sampleT(i), totalBytes, used, totalBytes - used);
      insertProcess.run(run.id, sampleT(i), used - 512 * MIB);
    }
    const peakMs = LARGE_RUN_START_MS + peakStep * STEP_MS;
    const sampleMs = samples > 0 ? sampleT(peakSample) : null;
    db.prepare(
      `UPDATE runs SET status = ?, exit_code = ?, ended_at_ms = ?, batch_size = 4, seq_len = 1024, last_step = ?,
         peak_allocated_bytes = ?, peak_allocated_at_ms = ?, peak_allocated_step = ?, peak_allocated_gpu = 0,
         peak_reserved_bytes = ?, peak_reserved_at_ms = ?, peak_reserved_step = ?, peak_reserved_gpu = 0,
         peak_device_bytes = ?, peak_device_at_ms = ?, peak_device_gpu = 0,
         peak_gpu_used_bytes = ?, peak_gpu_used_at_ms = ?, peak_gpu_used_gpu = 0 WHERE id = ?`,
    ).run(
      options.running ? 'running' : 'ok',
      options.running ? null : 0,
      options.running ? null : endMs,
      steps,
      30 * GIB,
      peakMs,
      peakStep,
      reservedAt(30 * GIB),
      peakMs,
      peakStep,
      samples > 0 ? 40 * GIB - 512 * MIB : null,
      sampleMs,
      samples > 0 ? 40 * GIB : null,
      sampleMs,
      run.id,
    );
    db.prepare(
      `INSERT INTO run_ranks (run_id, rank, local_rank, world_size, host, pid, gpu, gpu_uuid, cuda_visible_devices,
         peak_allocated_bytes, peak_allocated_step, peak_allocated_phase, peak_reserved_bytes, peak_device_bytes,
         steps, last_step) VALUES (?, 0, 0, 1, 'bench', 4242, 0, 'GPU-bench-0', NULL, ?, ?, 'train', ?, ?, ?, ?)`,
    ).run(
      run.id,
      30 * GIB,
      peakStep,
      reservedAt(30 * GIB),
      samples > 0 ? 40 * GIB - 512 * MIB : null,
      steps,
      steps,
    );
  })();
  let logPath: string | null = null;
  if (options.running) {
    // A probe log already read to its end, but for its last line (the writer's end record): watch resumes
    // at the stored offset, reads that line, sees every writer ended and closes the run.
    logPath = join(home, `probe-${run.id}.jsonl`);
    const head = `${JSON.stringify({ v: 1, t: LARGE_RUN_START_MS / 1000, pid: 4242, rank: 0, localRank: 0, worldSize: 1, event: 'start', argv: ['train.py'] })}\n`;
    const end = `${JSON.stringify({ v: 1, t: endMs / 1000, pid: 4242, rank: 0, localRank: 0, worldSize: 1, event: 'end', reason: 'exit' })}\n`;
    writeFileSync(logPath, head + end);
    db.prepare('UPDATE runs SET log_path = ? WHERE id = ?').run(logPath, run.id);
    db.prepare('INSERT INTO log_files (run_id, path, offset) VALUES (?, ?, ?)').run(
      run.id,
      logPath,
      head.length,
    );
  }
  db.close();
  return {
    id: run.id,
    steps,
    samples,
    maxAllocated: { bytes: 30 * GIB, step: peakStep },
    maxReserved: { bytes: reservedAt(30 * GIB), step: peakStep },
    minAllocated: { bytes: 10 * GIB, step: lowStep },
    maxGpuUsedBytes: samples > 0 ? 40 * GIB : 0,
    maxDeviceBytes: samples > 0 ? 40 * GIB - 512 * MIB : 0,
    totalBytes,
    logPath,
  };
}

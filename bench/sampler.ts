/**
 * Sampler benchmark: the CPU the nvidia-smi sampler costs headroom at 500 ms and 100 ms, against
 * the stand-in nvidia-smi (test/fixtures/bin/nvidia-smi, replaying a real H200 capture).
 * Run: npm run bench:sampler. Writes bench/results/sampler.md; the figures go in the README.
 *
 * Measured: this process's CPU time (process.cpuUsage: reading the two loops' output, parsing,
 * and storing each sample in the ledger as `headroom run` does) over the wall time, as a share of
 * one core; the same recorder without the sampler, over the same time, is the baseline subtracted. The stand-in's own CPU (a Python
 * script, not the real nvidia-smi, whose cost lies in the driver) is shown apart, read from /proc.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ledger } from '../src/io/ledger.js';
import { RunRecorder } from '../src/io/recorder.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = {
  ...process.env,
  PATH: [join(root, 'test', 'fixtures', 'bin'), process.env.PATH].join(delimiter),
};
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux (/proc/PID/stat utime and stime are in these ticks)

function cpuOfPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU of a recorder for `seconds`, with the sampler at `intervalMs` (or without one: the baseline). */
async function measure(intervalMs: number | null, seconds: number) {
  const home = mkdtempSync(join(tmpdir(), 'headroom-bench-sampler-'));
  const ledger = Ledger.open(home);
  const run = ledger.createRun({
    name: `bench ${intervalMs ?? 'no sampler'}`,
    command: ['bench'],
    cwd: null,
    host: null,
    scenario: null,
    estimate: null,
    env: {},
    startedAtMs: Date.now(),
    monitorPid: process.pid,
  });
  const rec = new RunRecorder({
    ledger,
    runId: run.id,
    logPath: join(home, 'probe.jsonl'),
    sample: intervalMs !== null,
    intervalMs: intervalMs ?? 500,
    env,
    visibleGpus: null,
    onProblem: (p) => {
      throw new Error(p.message);
    },
  });
  const before = process.cpuUsage();
  const start = performance.now();
  rec.start();
  await sleep(500);
  const pids = rec.samplerPids();
  const loopCpuStart = pids.map(cpuOfPid);
  await sleep(seconds * 1000 - 500);
  const loopCpuEnd = pids.map(cpuOfPid);
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(before);
  const samples = rec.live.gpuSamples;
  await rec.finish();
  ledger.close();
  const standin = loopCpuEnd.reduce<number>((sum, end, i) => sum + ((end ?? 0) - (loopCpuStart[i] ?? 0)), 0);
  return {
    intervalMs,
    wall,
    cpuS: (used.user + used.system) / 1e6,
    samples,
    standinShare: standin / (seconds - 0.5),
  };
}

await measure(100, 3); // warm-up: JIT and the first SQLite statements, not counted
const baseline = await measure(null, SECONDS);
const idle = baseline.cpuS;
const rows = [];
for (const interval of [500, 100]) rows.push(await measure(interval, SECONDS));

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const table = [
  '| interval | GPU samples | headroom CPU (share of one core) | minus idle baseline | per sample | stand-in nvidia-smi (2 loops) |',
  '| ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.intervalMs} ms | ${r.samples} | ${pct(r.cpuS / r.wall)} | ${pct((r.cpuS - idle) / r.wall)} | ${(((r.cpuS - idle) / Math.max(1, r.samples)) * 1000).toFixed(2)} ms | ${pct(r.standinShare)} |`,
  ),
].join('\n');
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`;
const report = `# Sampler CPU

\`npm run bench:sampler\` (${new Date().toISOString().slice(0, 10)}, ${machine}), ${SECONDS} s per interval,
sampling one GPU with three other processes (the stand-in replays data/validation/nvidia-smi 12 and 05),
each sample stored in the ledger. Baseline, the same recorder without the sampler (it still polls the
probe log every 200 ms): ${pct(idle / baseline.wall)} of one core.

${table}

The stand-in is a Python script; the real nvidia-smi's cost is in NVML and the driver and was not
measured here (no GPU on this machine).
`;
writeFileSync(join(root, 'bench', 'results', 'sampler.md'), report);
process.stdout.write(`${report}\n`);

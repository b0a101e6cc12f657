/**
 * Ingest benchmark: how many probe lines per second go from the log file into the ledger (read,
 * parse, store with their offsets), the path every recorded step takes. Run: npm run bench:ingest.
 * Writes bench/results/ingest.md; the figures go in the README.
 *
 * Three cases: parsing alone; a backlog read in one go (what `headroom watch` does when it resumes);
 * and live batches of 20 lines (a 200 ms poll of a run doing 100 steps/s), each its own transaction.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseProbeLine } from '../src/core/probe-log.js';
import { Ledger } from '../src/io/ledger.js';
import { RunRecorder } from '../src/io/recorder.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MIB = 2 ** 20;

/** A step line as the probe writes it, for `devices` devices. */
function stepLine(step: number, devices: number): string {
  return JSON.stringify({
    v: 1,
    event: 'step',
    t: 1_767_225_600 + step * 0.4,
    pid: 4242,
    rank: 0,
    localRank: 0,
    worldSize: 1,
    step,
    phase: 'train',
    loss: 2 / step,
    lr: 1e-4,
    batchSize: 8,
    seqLen: 2048,
    durationS: 0.4,
    devices: Array.from({ length: devices }, (_, index) => ({
      index,
      allocatedBytes: 20_000 * MIB,
      reservedBytes: 22_000 * MIB,
      peakAllocatedBytes: (21_000 + (step % 7)) * MIB,
      peakReservedBytes: 22_000 * MIB,
      inactiveSplitBytes: 300 * MIB,
      numAllocRetries: 0,
      numOoms: 0,
    })),
  });
}

function recorder(devicesLabel: string): { ledger: Ledger; rec: RunRecorder; log: string } {
  const home = mkdtempSync(join(tmpdir(), `headroom-bench-ingest-${devicesLabel}-`));
  const ledger = Ledger.open(home);
  const run = ledger.createRun({
    name: 'bench',
    command: ['bench'],
    cwd: null,
    host: null,
    scenario: null,
    estimate: null,
    env: {},
    startedAtMs: Date.now(),
    monitorPid: null,
  });
  const log = join(home, 'probe.jsonl');
  writeFileSync(log, '');
  const rec = new RunRecorder({
    ledger,
    runId: run.id,
    logPath: log,
    sample: false,
    intervalMs: 500,
    env: process.env,
    visibleGpus: null,
  });
  return { ledger, rec, log };
}

interface Row {
  readonly case: string;
  readonly lines: number;
  readonly seconds: number;
}

function parseOnly(lines: readonly string[]): Row {
  const start = performance.now();
  let ok = 0;
  for (const l of lines) if (parseProbeLine(l).ok) ok++;
  if (ok !== lines.length) throw new Error('a bench line did not parse');
  return { case: 'parse only', lines: lines.length, seconds: (performance.now() - start) / 1000 };
}

function backlog(lines: readonly string[], devices: number): Row {
  const { ledger, rec, log } = recorder(`backlog${devices}`);
  writeFileSync(log, `${lines.join('\n')}\n`);
  const start = performance.now();
  let read = 0;
  while (read < lines.length) read += rec.readProbe(false);
  const seconds = (performance.now() - start) / 1000;
  ledger.close();
  return {
    case: `backlog in one read (${devices} device${devices > 1 ? 's' : ''}/line)`,
    lines: read,
    seconds,
  };
}

function live(lines: readonly string[], devices: number, batch: number): Row {
  const { ledger, rec, log } = recorder(`live${devices}`);
  const start = performance.now();
  let read = 0;
  for (let i = 0; i < lines.length; i += batch) {
    appendFileSync(log, `${lines.slice(i, i + batch).join('\n')}\n`);
    read += rec.readProbe(false);
  }
  const seconds = (performance.now() - start) / 1000;
  if (read !== lines.length) throw new Error(`read ${read} of ${lines.length}`);
  ledger.close();
  return {
    case: `live, ${batch} lines per poll (${devices} device${devices > 1 ? 's' : ''}/line, append + read + commit)`,
    lines: read,
    seconds,
  };
}

const N = Number(process.env.BENCH_LINES ?? 100_000);
const one = Array.from({ length: N }, (_, i) => stepLine(i + 1, 1));
const eight = Array.from({ length: N / 4 }, (_, i) => stepLine(i + 1, 8));
const rows: Row[] = [
  parseOnly(one),
  backlog(one, 1),
  backlog(eight, 8),
  live(one.slice(0, N / 2), 1, 20),
  live(eight.slice(0, N / 8), 8, 20),
];

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const table = [
  '| case | lines | seconds | lines/s |',
  '| --- | ---: | ---: | ---: |',
  ...rows.map(
    (r) => `| ${r.case} | ${fmt(r.lines)} | ${r.seconds.toFixed(2)} | ${fmt(r.lines / r.seconds)} |`,
  ),
].join('\n');
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`;
const report = `# Probe-log ingest

\`npm run bench:ingest\` (${new Date().toISOString().slice(0, 10)}, ${machine}): probe step lines from a file
into the ledger (SQLite WAL, synchronous=NORMAL), each stored with its byte offset in the same transaction.

${table}
`;
writeFileSync(join(root, 'bench', 'results', 'ingest.md'), report);
process.stdout.write(`${report}\n`);

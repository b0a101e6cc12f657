/**
 * Snapshot benchmark: time and peak memory of `headroom snapshot FILE --json` on a real snapshot and on
 * a synthetic one of about 100 MB (a million trace events with frames, written by python3's own pickle
 * in a temp folder), beside Python's C unpickler (`pickle.load`) on the same file in the same run.
 * Run: npm run bench:snapshot. Writes bench/results/snapshot.md; the figures go in the README.
 *
 * Target: no slower than 2× pickle.load, and memory bounded well below the unpickled size (Python's
 * peak resident memory after pickle.load, less its resident memory before).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MIB = 2 ** 20;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);

/**
 * A synthetic snapshot as torch builds one (torch/csrc/cuda/Module.cpp memorySnapshot): frame dicts
 * shared between tracebacks, a new frames list per traceback, a free_requested and its free_completed
 * sharing one; segments with blocks; pickled with the running Python's default protocol.
 */
const GENERATE = `
import pickle, random, sys
out, n = sys.argv[1], int(sys.argv[2])
random.seed(7)
files = ['/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py',
         '/opt/conda/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py',
         '/opt/conda/lib/python3.11/site-packages/torch/nn/functional.py',
         '/opt/conda/lib/python3.11/site-packages/torch/optim/adamw.py', '/home/me/train.py']
py = [{'name': f'f{i}', 'filename': files[i % len(files)], 'line': 10 + i} for i in range(300)]
cc = [{'name': f'at::native::op{i}(at::Tensor const&)', 'filename': '??', 'line': 0} for i in range(200)]
templates = [[random.choice(cc) for _ in range(random.randint(4, 10))] +
             [random.choice(py) for _ in range(random.randint(6, 14))] for _ in range(80)]
def stack():
    return list(random.choice(templates))
base = 139_900_000_000_000
segments = []
for s in range(400):
    addr = base + s * (64 << 20)
    blocks = []
    for b in range(8):
        size = random.choice([512, 1 << 20, 2 << 20, 8 << 20])
        state = 'active_allocated' if b % 3 else 'inactive'
        blocks.append({'address': addr, 'size': size, 'requested_size': size - (b % 2) * 256,
                       'state': state, 'frames': stack() if state != 'inactive' else []})
        addr += size
    total = sum(b['size'] for b in blocks)
    segments.append({'device': 0, 'address': base + s * (64 << 20), 'total_size': total,
                     'allocated_size': total, 'active_size': total, 'requested_size': total, 'stream': 0,
                     'segment_type': 'large', 'segment_pool_id': (0, 0), 'is_expandable': False,
                     'frames': [], 'blocks': blocks})
trace, live, t = [], [], 1_738_780_408_000_000
while len(trace) < n:
    t += random.randint(1, 50)
    if live and (len(live) > 2000 or random.random() < 0.45):
        addr, size = live.pop(random.randrange(len(live)))
        frames = stack()
        trace.append({'action': 'free_requested', 'addr': addr, 'size': size, 'stream': 0, 'time_us': t, 'frames': frames})
        trace.append({'action': 'free_completed', 'addr': addr, 'size': size, 'stream': 0, 'time_us': t, 'frames': frames})
    else:
        addr = base + (1 << 40) + random.randrange(1 << 30) * 512
        size = random.choice([512, 4096, 1 << 20, 3 << 20, 24 << 20])
        live.append((addr, size))
        trace.append({'action': 'alloc', 'addr': addr, 'size': size, 'stream': 0, 'time_us': t, 'frames': stack()})
with open(out, 'wb') as f:
    pickle.dump({'segments': segments, 'device_traces': [trace[:n]]}, f)
`;

/** Python's pickle.load of the file: seconds, and resident memory before and at its peak (KiB). */
const PY_LOAD = `
import pickle, resource, sys, time
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
with open(sys.argv[1], 'rb') as f:
    data = pickle.load(f)
elapsed = time.perf_counter() - start
print(elapsed, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
`;

interface Measure {
  readonly seconds: number;
  /** Peak resident memory, bytes. */
  readonly peakBytes: number;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** `headroom snapshot FILE --json` under /usr/bin/time: wall seconds and maximum resident set. */
function headroom(file: string): Measure {
  const runs: Measure[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(
      '/usr/bin/time',
      ['-f', '%e %M', process.execPath, join(root, 'dist', 'cli', 'bin.js'), 'snapshot', file, '--json'],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    );
    if (r.status !== 0) throw new Error(`headroom snapshot failed: ${r.stderr}`);
    const [seconds, kib] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
    runs.push({ seconds: seconds!, peakBytes: kib! * 1024 });
  }
  return { seconds: median(runs.map((m) => m.seconds)), peakBytes: median(runs.map((m) => m.peakBytes)) };
}

/**
 * Python's pickle.load, in a python3 process under /usr/bin/time: the load's own seconds, the whole
 * process's wall seconds, and what unpickling added to resident memory (the object graph).
 */
function python(file: string): Measure & { loadSeconds: number; graphBytes: number } {
  const runs: (Measure & { loadSeconds: number; graphBytes: number })[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %M', 'python3', '-c', PY_LOAD, file], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`python3 pickle.load failed: ${r.stderr}`);
    const [load, before, after] = r.stdout.trim().split(' ').map(Number);
    const [wall, kib] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
    runs.push({
      loadSeconds: load!,
      seconds: wall!,
      peakBytes: kib! * 1024,
      graphBytes: (after! - before!) * 1024,
    });
  }
  return {
    loadSeconds: median(runs.map((m) => m.loadSeconds)),
    seconds: median(runs.map((m) => m.seconds)),
    peakBytes: median(runs.map((m) => m.peakBytes)),
    graphBytes: median(runs.map((m) => m.graphBytes)),
  };
}

/** The Node process's resident memory with nothing loaded, to subtract. */
function nodeBaseline(): number {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, join(root, 'dist', 'cli', 'bin.js'), '--version'],
    {
      encoding: 'utf8',
    },
  );
  return Number(r.stderr.trim().split('\n').at(-1)) * 1024;
}

const tmp = mkdtempSync(join(tmpdir(), 'headroom-bench-snapshot-'));
try {
  const synthetic = join(tmp, 'synthetic.pickle');
  const started = Date.now();
  const gen = spawnSync('python3', ['-c', GENERATE, synthetic, String(EVENTS)], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`generating the synthetic snapshot failed: ${gen.stderr}`);
  console.error(`generated ${synthetic} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const version = spawnSync(
    'python3',
    ['-c', 'import sys, pickle; print(sys.version.split()[0], pickle.DEFAULT_PROTOCOL)'],
    {
      encoding: 'utf8',
    },
  ).stdout.trim();

  const cases = [
    {
      name: 'ftcourse (real, 10,307 events)',
      file: join(root, 'data', 'fixtures', 'snapshots', 'ftcourse_memory_snapshot.pickle'),
    },
    { name: `synthetic (${EVENTS.toLocaleString('en-US')} events)`, file: synthetic },
  ];
  const baseline = nodeBaseline();
  const rows: string[] = [];
  for (const c of cases) {
    const size = statSync(c.file).size;
    const p = python(c.file);
    const h = headroom(c.file);
    console.error(
      `${c.name}: headroom ${h.seconds} s ${(h.peakBytes / MIB).toFixed(0)} MiB; python3 ${p.seconds} s`,
    );
    const mib = (bytes: number) => (bytes / MIB).toFixed(0);
    rows.push(
      `| ${c.name} | ${(size / MIB).toFixed(1)} | ${p.loadSeconds.toFixed(2)} | ${p.seconds.toFixed(2)} | ${h.seconds.toFixed(2)} | ${(h.seconds / p.seconds).toFixed(2)}× | ${(h.seconds / p.loadSeconds).toFixed(2)}× | ${mib(p.graphBytes)} | ${mib(p.peakBytes)} | ${mib(h.peakBytes)} | ${mib(h.peakBytes - baseline)} |`,
    );
  }
  const md = `# Memory snapshots

\`npm run bench:snapshot\` (${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, Python ${version.split(' ')[0]} pickle protocol ${version.split(' ')[1]}; median of ${RUNS} runs):
\`headroom snapshot FILE --json\` as a process (start, read, decode, analyse, print the JSON), beside
Python's C unpickler loading the same file in a \`python3\` process (\`pickle.load\`: decode only; its own
time, and the whole process's). The synthetic snapshot is written
by python3's pickle in a temp folder: ${EVENTS.toLocaleString('en-US')} trace events with frames (frame
dicts shared, a new frames list per traceback), 400 segments of 8 blocks.

| snapshot | MiB | pickle.load s | python3 process s | headroom process s | ratio to the python3 process | ratio to pickle.load | Python object graph MiB | python3 peak RSS MiB | headroom peak RSS MiB | headroom above Node's own MiB |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

"Python object graph" is what pickle.load added to Python's resident memory: the unpickled size.
"Above Node's own" subtracts the resident memory of \`headroom --version\` (${(baseline / MIB).toFixed(0)} MiB); it
includes the file's bytes, which the reader holds while it decodes. The trace streams out of the
reader event by event into typed columns (action, address, size, stream, time, stack id: 37 bytes an
event) with each stack stored once, so memory follows the file, not the object graph.
`;
  writeFileSync(join(root, 'bench', 'results', 'snapshot.md'), md);
  console.log(md);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

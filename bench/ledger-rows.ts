/**
 * Every command that reads a run, against a run of millions of rows: time and peak RSS of each, from
 * `/usr/bin/time -v` around the built CLI (`node dist/cli/bin.js`). Run: npm run bench:ledger-rows
 * (builds first); `-- --steps N --samples M` for another size (default 2,000,000 steps and 500,000
 * nvidia-smi samples, per GPU and per process). Writes bench/results/ledger-rows.md; the figures go in
 * the README. A command that runs past --timeout-s (default 300) is stopped and reported as such.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeLargeRun } from '../test/large-run-fixture.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '2000000' },
    samples: { type: 'string', default: '500000' },
    'timeout-s': { type: 'string', default: '300' },
    out: { type: 'string', default: join(root, 'bench', 'results', 'ledger-rows.md') },
    only: { type: 'string' },
    /** Another build of the CLI (e.g. a copy of dist from before a change), to measure it the same way. */
    bin: { type: 'string' },
  },
});
const steps = Number(values.steps);
const samples = Number(values.samples);
const timeoutS = Number(values['timeout-s']);
const bin = values.bin ?? join(root, 'dist', 'cli', 'bin.js');
if (!existsSync(bin)) throw new Error(`${bin} is missing: npm run build first`);

const home = mkdtempSync(join(tmpdir(), 'headroom-rows-'));
const out = mkdtempSync(join(tmpdir(), 'headroom-rows-out-'));
const t0 = performance.now();
const run = writeLargeRun(home, { steps, samples, name: 'rows' });
const resumable = writeLargeRun(home, { steps, samples, name: 'rows-running', running: true });
const writeS = (performance.now() - t0) / 1000;
const dbBytes =
  statSync(join(home, 'ledger.db')).size +
  (statSync(join(home, 'ledger.db-wal'), { throwIfNoEntry: false })?.size ?? 0);
console.error(
  `wrote 2 runs of ${steps} steps and ${samples} samples in ${writeS.toFixed(1)} s (${(dbBytes / 2 ** 20).toFixed(0)} MiB)`,
);

const id = String(run.id);
const commands: { readonly name: string; readonly args: readonly string[] }[] = [
  { name: 'runs', args: ['runs'] },
  { name: 'runs --json', args: ['runs', '--json'] },
  { name: 'runs show', args: ['runs', 'show', id] },
  { name: 'runs show --json', args: ['runs', 'show', id, '--json'] },
  { name: 'runs diff', args: ['runs', 'diff', id, String(resumable.id)] },
  { name: 'runs export (jsonl)', args: ['runs', 'export', id, '--format', 'jsonl'] },
  { name: 'runs export --format csv', args: ['runs', 'export', id, '--format', 'csv', '--table', 'steps'] },
  { name: 'report (HTML)', args: ['report', id, '-o', join(out, 'report.html')] },
  { name: 'calibrate --json', args: ['calibrate', id, '--json'] },
  {
    name: 'fit --calibrated',
    args: [
      'fit',
      'llama-3.2-1b',
      '--method',
      'lora',
      '--micro-batch',
      '8',
      '--seq-len',
      '1024',
      '--gpu',
      'h100-sxm',
      '--calibrated',
      id,
    ],
  },
  { name: 'diagnose', args: ['diagnose', id] },
  { name: 'diagnose --json', args: ['diagnose', id, '--json'] },
  { name: 'watch (resume)', args: ['watch', '--log', resumable.logPath!, '--no-smi'] },
];

interface Measured {
  readonly name: string;
  readonly seconds: number;
  readonly rssMiB: number | null;
  readonly rc: number | null;
  readonly outBytes: number;
  readonly problem: string;
}

function measure(name: string, args: readonly string[]): Measured {
  const stdout = join(out, 'stdout');
  const started = performance.now();
  // timeout(1) inside time(1): a command stopped at the limit is killed itself (not left running on its
  // own), and time still reports the most memory it held.
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-v',
      'timeout',
      '-s',
      'KILL',
      String(timeoutS),
      'sh',
      '-c',
      `exec node "$@" > ${stdout}`,
      'sh',
      bin,
      ...args,
    ],
    {
      env: { ...process.env, HEADROOM_HOME: home, NO_COLOR: '1' },
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const err = r.stderr ?? '';
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const exit = /Exit status: (\d+)/.exec(err);
  const timedOut =
    r.signal === 'SIGKILL' || (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  const message = err
    .split('\n')
    .filter((l) => /Error|error:|heap|RangeError/.test(l) && !l.includes('Exit status'))
    .slice(0, 1)
    .join(' ')
    .slice(0, 120);
  const rc = timedOut ? null : exit ? Number(exit[1]) : r.status;
  return {
    name,
    seconds,
    rssMiB: rss ? Number(rss[1]) / 1024 : null,
    rc,
    outBytes: statSync(stdout, { throwIfNoEntry: false })?.size ?? 0,
    problem: timedOut ? `stopped after ${timeoutS} s` : rc !== 0 ? message || `exit ${rc}` : '',
  };
}

const rows: Measured[] = [];
for (const c of commands) {
  if (values.only && !c.name.includes(values.only)) continue;
  const m = measure(c.name, c.args);
  rows.push(m);
  console.error(
    `${c.name.padEnd(26)} ${m.seconds.toFixed(2).padStart(7)} s  ${m.rssMiB === null ? '—' : `${m.rssMiB.toFixed(0)} MiB`}  ${m.problem}`,
  );
}

const fmtBytes = (b: number) =>
  b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`;
const table = [
  '| command | time | peak RSS | stdout | result |',
  '|---|---|---|---|---|',
  ...rows.map(
    (m) =>
      `| \`${m.name}\` | ${m.seconds.toFixed(2)} s | ${m.rssMiB === null ? '—' : `${m.rssMiB.toFixed(0)} MiB`} | ${fmtBytes(m.outBytes)} | ${m.problem === '' ? 'ok' : m.problem.replace(/\|/g, '\\|')} |`,
  ),
].join('\n');
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(
  values.out,
  `# Commands on a run of ${steps.toLocaleString('en')} steps and ${samples.toLocaleString('en')} nvidia-smi samples

Written by \`npm run bench:ledger-rows\` on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}),
Node ${process.version}. The ledger (two such runs, ${fmtBytes(dbBytes)}) was written in ${writeS.toFixed(1)} s. Each command is
the built CLI under \`/usr/bin/time -v\`, its stdout to a file; time is wall clock, peak RSS the
process's maximum resident set.

${table}
`,
);
console.log(table);
rmSync(home, { recursive: true, force: true });
rmSync(out, { recursive: true, force: true });

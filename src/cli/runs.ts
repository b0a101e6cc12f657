import { fileError } from '../core/file-errors.js';
import { summarizeRun } from '../core/run/summary.js';
import { diffRuns } from '../core/run-diff.js';
import type { RunRecord } from '../core/run-record.js';
import { layerGaps, runOutcome, stepPeaksByStep } from '../core/run-summary.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { EXPORT_TABLES, exportFields } from '../io/ledger-schema.js';
import { alive } from '../io/recorder.js';
import { requireRun } from '../io/run-context.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { styleFor } from './_output.js';
import { readRunSteps, runGrowth } from './_run-steps.js';
import { ChunkWriter, writeJsonWithArray } from './_stream-out.js';
import { renderDiff, renderRunShow, renderRunsTable, runJson, stepChartWidth, ws } from './render-run.js';

export const help = `headroom runs — the runs headroom recorded (headroom run, headroom watch)

Usage:
  headroom runs [--last N] [--json]         a table: id, name, status, model, method, batch, sequence,
                                            peaks at the three levels, steps, duration
  headroom runs show ID [--json]            summary, per-step peak chart, ranks side by side, phases,
                                            events
  headroom runs diff A B [--json]           what changed in the configuration and in the peaks
  headroom runs export ID --format jsonl|csv [--table steps|gpu-samples|process-samples|events|ranks]
  headroom runs rm ID [--force]             delete a run and its files

ID is a run's number, its --name (the latest run of that name), or "last".
Statuses: running, ok, oom (ended in a CUDA out-of-memory), failed, killed.
The ledger is $HEADROOM_HOME/ledger.db (default ~/.headroom).

Options:
${LANG_HELP}`;

const OPTIONS = {
  ...LANG_OPTIONS,
  json: { type: 'boolean' },
  last: { type: 'string' },
  format: { type: 'string' },
  table: { type: 'string' },
  force: { type: 'boolean' },
} as const;

const TABLES = Object.keys(EXPORT_TABLES) as Table[];
type Table = keyof typeof EXPORT_TABLES;

function findRun(ledger: Ledger, ref: string | undefined, sub: string): RunRecord {
  if (ref === undefined) {
    throw fileError(
      'missing-argument',
      { command: `runs ${sub}`, needs: 'run-id', ref: '' },
      'ID',
      'bad-flag',
    );
  }
  return requireRun(ledger, ref, 'ID');
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of one ledger table of a run, one at a time (a run's steps can be millions). */
function tableRows(ledger: Ledger, runId: number, table: Table): Iterable<object> {
  switch (table) {
    case 'steps':
      return ledger.rows.steps(runId);
    case 'gpu-samples':
      return ledger.rows.gpuSamples(runId);
    case 'process-samples':
      return ledger.rows.processSamples(runId);
    case 'events':
      return ledger.rows.events(runId);
    case 'ranks':
      return ledger.ranks(runId);
  }
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'runs', 3);
  const [sub, ...refs] = positionals;
  const style = styleFor(ctx.stdout, ctx.env);
  const lang = langFromFlag(values.lang, ctx.env);
  const out = (text: string) => ctx.stdout.write(`${text}\n`);
  // Every subcommand but rm only reads: a read-only home still lists and shows its runs.
  const ledger = Ledger.open(headroomHome(ctx.env), sub === 'rm' ? 'write' : 'read');
  try {
    if (sub === undefined || sub === 'list') {
      let runs = ledger.listRuns();
      if (values.last !== undefined) {
        const n = Number(values.last);
        if (!Number.isInteger(n) || n < 1) {
          throw fileError(
            'flag-value',
            { flag: '--last', value: values.last, expected: 'whole-number', min: 1, example: '10' },
            '--last',
            'bad-flag',
          );
        }
        runs = runs.slice(-n);
      }
      if (values.json) {
        out(
          JSON.stringify(
            runs.map((r) => ({ ...runJson(r), monitorAlive: r.monitorPid !== null && alive(r.monitorPid) })),
            null,
            2,
          ),
        );
      } else if (runs.length === 0) {
        out(ws(lang, { code: 'no-runs', params: { path: ledger.path } }));
      } else {
        out(renderRunsTable(runs, style, Date.now(), lang));
        const orphaned = runs.filter(
          (r) => r.status === 'running' && (r.monitorPid === null || !alive(r.monitorPid)),
        );
        for (const r of orphaned) {
          out(style.yellow(ws(lang, { code: 'orphaned', params: { id: r.id, log: r.logPath } })));
        }
      }
      return 0;
    }
    if (sub === 'show') {
      const r = findRun(ledger, refs[0], 'show');
      const events = ledger.events(r.id);
      if (values.json) {
        // The per-step peaks are written as they are read (a run can have millions), after a first pass
        // over them for the growth check.
        const growth = runGrowth(ledger, r);
        const out = new ChunkWriter(ctx.stdout);
        await writeJsonWithArray(
          out,
          {
            ...runJson(r),
            gaps: layerGaps(r),
            growth,
            outcome: runOutcome(r, events),
            // How it ended as the summary says it, as a code and its figures (src/core/run/summary.ts).
            end: summarizeRun(r, growth, events, Date.now()).end,
            perStep: null,
            events,
            gpuSamples: ledger.rows.count('gpu_samples', r.id),
            processSamples: ledger.rows.count('process_samples', r.id),
          },
          'perStep',
          stepPeaksByStep(ledger.rows.steps(r.id, 'step')),
        );
      } else {
        const width = ctx.stdout.columns ?? 100;
        const steps = readRunSteps(ledger, r, stepChartWidth(width));
        out(renderRunShow(r, steps, events, style, lang));
      }
      return 0;
    }
    if (sub === 'diff') {
      const a = findRun(ledger, refs[0], 'diff');
      const b = findRun(ledger, refs[1], 'diff');
      const diff = diffRuns(a, b);
      // --json keeps the warning's English words where scripts read them, and its code and params beside.
      if (values.json)
        out(
          JSON.stringify(
            {
              ...diff,
              warning: diff.warning ? ws('en', diff.warning) : null,
              warningMessage: diff.warning,
            },
            null,
            2,
          ),
        );
      else out(renderDiff(diff, a, b, style, lang));
      return 0;
    }
    if (sub === 'export') {
      const r = findRun(ledger, refs[0], 'export');
      const format = values.format ?? 'jsonl';
      if (format !== 'jsonl' && format !== 'csv') {
        throw fileError(
          'flag-value',
          { flag: '--format', value: format, expected: 'one-of', values: ['jsonl', 'csv'], example: 'jsonl' },
          '--format',
          'bad-flag',
        );
      }
      const table = (values.table ?? 'steps') as Table;
      if (!TABLES.includes(table)) {
        throw fileError(
          'flag-value',
          { flag: '--table', value: table, expected: 'one-of', values: TABLES, example: 'steps' },
          '--table',
          'bad-flag',
        );
      }
      // Written as read, row by row: a long run's export is larger than memory should hold.
      const stream = new ChunkWriter(ctx.stdout);
      if (format === 'jsonl') {
        // Everything of the run, one record per line, each with its type.
        await stream.write(JSON.stringify({ type: 'run', ...runJson(r) }));
        const typed = [
          ['step', ledger.rows.steps(r.id)],
          ['gpu-sample', ledger.rows.gpuSamples(r.id)],
          ['process-sample', ledger.rows.processSamples(r.id)],
          ['event', ledger.rows.events(r.id)],
        ] as const;
        for (const [type, rows] of typed)
          for (const row of rows) await stream.write(`\n${JSON.stringify({ type, ...row })}`);
      } else {
        // The table's fields in its declared order (an empty table still has its header).
        const columns = exportFields(EXPORT_TABLES[table]);
        await stream.write(columns.join(','));
        for (const row of tableRows(ledger, r.id, table) as Iterable<Record<string, unknown>>)
          await stream.write(`\n${columns.map((c) => csvCell(row[c])).join(',')}`);
      }
      await stream.write('\n');
      await stream.flush();
      return 0;
    }
    if (sub === 'rm') {
      const r = findRun(ledger, refs[0], 'rm');
      if (r.status === 'running' && r.monitorPid !== null && alive(r.monitorPid) && !values.force) {
        throw fileError('run-being-recorded', { id: r.id, path: '', pid: r.monitorPid }, 'ID', 'bad-flag');
      }
      ledger.deleteRun(r.id);
      if (values.json) out(JSON.stringify({ removed: r.id }));
      else out(ws(lang, { code: 'removed', params: { id: r.id, name: r.name } }));
      return 0;
    }
    throw fileError('unknown-subcommand', { command: 'runs', sub }, sub, 'bad-flag');
  } finally {
    ledger.close();
  }
}

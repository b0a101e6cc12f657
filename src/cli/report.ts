/** `headroom report RUN -o FILE.html`: a self-contained HTML report of a recorded run. */
import { resolve } from 'node:path';
import { fileError } from '../core/file-errors.js';
import { headroomHome, Ledger } from '../io/ledger.js';
import { requireRun } from '../io/run-context.js';
import { writeUserFile } from '../io/user-file.js';
import { runFindings } from '../server/dashboard.js';
import { buildDemoRun, DEMO_RUN_ID } from '../server/demo-run.js';
import { renderReportHtml } from '../server/report-html.js';
import { runDetail } from '../server/runs-api.js';
import { say } from '../words/catalog.js';
import { REPORT } from '../words/report.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';

export const help = `headroom report RUN -o FILE.html [--json]

Writes one self-contained HTML file (no network needed to open it) with the run's memory chart,
estimate vs measured, the diagnosis and the scenario. RUN is an id, a name, or "last" (headroom runs);
"demo" is the dashboard's synthetic demo run.
  -o, --output FILE         the HTML file to write (required)
  --json                    print { file, bytes, run: { id, name } } instead of the "wrote" line
${LANG_HELP}
  headroom report last -o run.html
  headroom report last -o run.zh.html --lang zh`;

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    { ...LANG_OPTIONS, output: { type: 'string', short: 'o' }, json: { type: 'boolean' } },
    'report',
    1,
  );
  const lang = langFromFlag(values.lang, ctx.env);
  const ref = positionals[0];
  if (ref === undefined) {
    throw fileError('missing-argument', { command: 'report', needs: 'run', ref: '' }, 'RUN', 'bad-flag');
  }
  const out = values.output;
  if (out === undefined) {
    throw fileError('missing-argument', { command: 'report', needs: 'output', ref: ref }, '-o', 'bad-flag');
  }
  let detail: ReturnType<typeof runDetail>;
  if (ref === 'demo' || ref === String(DEMO_RUN_ID)) detail = buildDemoRun(lang).detail;
  else {
    const ledger = Ledger.open(headroomHome(ctx.env), 'read');
    try {
      // A run the ledger does not have is the same error as every command's (the ids it has, or how to record one).
      const found = requireRun(ledger, ref);
      detail = runDetail(ledger, found, { diagnoseRun: runFindings }, lang);
    } finally {
      ledger.close();
    }
  }
  const html = renderReportHtml(detail, new Date().toISOString(), lang);
  await writeUserFile(out, html, {
    role: 'html-report',
    advice: 'html-report',
    example: `run-${detail.run.id}.html`,
  });
  if (values.json) {
    ctx.stdout.write(
      `${JSON.stringify({ file: resolve(out), bytes: Buffer.byteLength(html), run: { id: detail.run.id, name: detail.run.name } })}\n`,
    );
  } else {
    const wrote = say(REPORT, lang, {
      code: 'wrote',
      params: { file: out, id: detail.run.id, name: detail.run.name },
    });
    ctx.stdout.write(`${wrote}\n`);
  }
  return 0;
}

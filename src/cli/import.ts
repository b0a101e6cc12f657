/** `headroom import FILE`: the scenario a trainer config maps to, and what was mapped, left out and assumed. */
import { isUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import type { ImportReason, ImportReport, UnmappedKind } from '../core/import/import-report.js';
import type { MessageOf } from '../core/message.js';
import { parseScenario, type Scenario } from '../core/scenario.js';
import { readTrainerConfig } from '../io/read-config.js';
import { say } from '../words/catalog.js';
import { IMPORT_REPORT, type ImportReportParams } from '../words/import.js';
import { IMPORT_REASONS } from '../words/import-reasons.js';
import { COLON, type Lang } from '../words/lang.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { renderTable, type Style, styleFor } from './_output.js';

/** The command's --help in a language. */
export function helpFor(lang: Lang): string {
  return `${say(IMPORT_REPORT, lang, { code: 'help', params: {} })}

${LANG_HELP}`;
}

export const help = helpFor('en');

const OPTIONS = { json: { type: 'boolean' }, ...LANG_OPTIONS } as const;

/**
 * Headroom's defaults for the fields a config leaves unset, as the scenario parser fills them (the
 * precision default follows the method), shown so nothing is hidden. Empty when the imported fields do
 * not parse: the estimate that follows says why.
 */
function headroomDefaults(
  scenario: Readonly<Record<string, unknown>>,
): (readonly [string, unknown, string | undefined])[] {
  let parsed: Scenario;
  try {
    parsed = parseScenario({ ...scenario, model: scenario.model ?? 'model' });
  } catch (error) {
    if (isUserError(error)) return [];
    throw error;
  }
  const out: (readonly [string, unknown, string | undefined])[] = [];
  // A field the framework's profile set names its fact.
  const factOf = new Map(parsed.profile?.applied.map((a) => [a.field as string, a.factId]));
  const walk = (value: unknown, path: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
    } else out.push([path, value, factOf.get(path)]);
  };
  const { model: _model, profile: _profile, ...fields } = parsed;
  walk(fields, '');
  return out;
}

const show = (value: unknown): string =>
  Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : JSON.stringify(value);

function fieldValue(scenario: Readonly<Record<string, unknown>>, field: string): unknown {
  let v: unknown = scenario;
  for (const part of field.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  return v;
}

/** Renders the import report for the terminal, in a language. */
export function renderImport(
  file: string,
  report: ImportReport,
  deepspeedPath: string | null,
  style: Style,
  lang: Lang = 'en',
): string {
  const w = (message: MessageOf<ImportReportParams>) => say(IMPORT_REPORT, lang, message);
  const word = <C extends keyof ImportReportParams>(code: C) =>
    w({ code, params: {} } as MessageOf<ImportReportParams>);
  const why = (reason: ImportReason) => say(IMPORT_REASONS, lang, reason);
  const colon = COLON[lang];
  const lines: string[] = [];
  lines.push(style.bold(w({ code: 'heading', params: { file, format: report.format } })));
  if (deepspeedPath) lines.push(style.dim(w({ code: 'with-deepspeed', params: { path: deepspeedPath } })));
  lines.push('');
  const rows: string[][] = [];
  const seen = new Set<string>();
  for (const m of report.mapped) {
    if (seen.has(m.field)) {
      const row = rows.find((r) => r[0] === m.field)!;
      row[1] = show(fieldValue(report.scenario, m.field));
      row[2] = `${row[2]}, ${m.key}`;
      continue;
    }
    seen.add(m.field);
    rows.push([m.field, show(fieldValue(report.scenario, m.field)), m.key]);
  }
  for (const a of report.assumed) {
    if (seen.has(a.field)) continue;
    seen.add(a.field);
    rows.push([
      a.field,
      show(a.value),
      style.yellow(w({ code: 'trainer-default', params: { reason: a.reason } })),
    ]);
  }
  const hasField = (f: string) =>
    [...seen].some((s) => s === f || s.startsWith(`${f}.`) || f.startsWith(`${s}.`));
  for (const [field, value, factId] of headroomDefaults(report.scenario)) {
    if (hasField(field)) continue;
    const framework = String(report.scenario.framework);
    const from =
      factId === undefined
        ? word('headroom-default')
        : w({ code: 'profile-default', params: { framework, factId } });
    rows.push([style.dim(field), style.dim(show(value)), style.dim(from)]);
  }
  lines.push(renderTable([word('column-field'), word('column-value'), word('column-from')], rows));
  if (report.unmapped.length > 0) {
    lines.push('');
    lines.push(style.bold(word('not-mapped')));
    const kind = (k: UnmappedKind) => {
      if (k === 'auto') return '';
      const words = w({ code: 'kind', params: { kind: k } });
      return `${k === 'unresolved' ? style.yellow(words) : words}${colon}`;
    };
    lines.push(
      renderTable(
        [word('column-key'), word('column-value'), word('column-why')],
        report.unmapped.map((u) => [u.key, show(u.value), `${kind(u.kind)}${why(u.reason)}`]),
      ),
    );
  }
  lines.push('');
  lines.push(
    style.dim(
      report.scenario.model === undefined
        ? w({ code: 'next-no-model', params: { file } })
        : w({ code: 'next', params: { file } }),
    ),
  );
  return lines.join('\n');
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'import', 1);
  const lang = langFromFlag(values.lang, ctx.env);
  const file = positionals[0];
  if (file === undefined) {
    throw fileError(
      'missing-argument',
      { command: 'import', needs: 'trainer-config', ref: '' },
      'FILE',
      'bad-flag',
    );
  }
  const { report, deepspeedPath } = await readTrainerConfig(file);
  if (values.json) {
    const { scenario, mapped, unmapped, assumed } = report;
    ctx.stdout.write(`${JSON.stringify({ scenario, mapped, unmapped, assumed }, null, 2)}\n`);
    return 0;
  }
  ctx.stdout.write(`${renderImport(file, report, deepspeedPath, styleFor(ctx.stdout), lang)}\n`);
  return 0;
}

/** The human view of a diagnosis: the message in one line, then the findings as a numbered list, evidence under each. */
import type { Diagnosis, DiagnosisResult, Finding } from '../core/diagnose/index.js';
import type { MessageOf } from '../core/message.js';
import { say } from '../words/catalog.js';
import {
  DIAGNOSIS,
  type DiagnosisParams,
  findingWords,
  GROUP_WORDS,
  labelled,
  remedyFigure,
  SEVERITY_WORDS,
} from '../words/diagnosis.js';
import type { Lang } from '../words/lang.js';
import { type Style, visibleWidth, WIDE_CHAR } from './_output.js';

const INDENT = '     ';

/** Text pieces: whitespace, one wide character (a line may break around it), or a run of anything else. */
const PIECES = new RegExp(`\\s+|${WIDE_CHAR.source}|[^\\s${WIDE_CHAR.source.slice(1, -1)}]+`, 'g');
/** Punctuation a line does not start with, and punctuation it does not end with (Chinese line breaking). */
const NO_START = /^[，。、；：！？）」』】〉》]$/;
const NO_END = /^[（「『【〈《]$/;

const columns = visibleWidth;

/**
 * Wraps text to `width` columns, each line after the first indented by `indent`: at spaces, and
 * between Chinese characters, which have none.
 */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  // The last piece on the line and the space before it, so an opening bracket can move down with what follows.
  let last = '';
  let lastSep = '';
  let spaced = false;
  for (const piece of text.match(PIECES) ?? []) {
    if (/^\s/.test(piece)) {
      spaced = true;
      continue;
    }
    const sep = spaced && line !== '' ? ' ' : '';
    spaced = false;
    const w = columns(sep + piece);
    if (line !== '' && used + w > width - indent.length && !NO_START.test(piece)) {
      if (NO_END.test(last) && line.length > last.length + lastSep.length) {
        // Break before the opening bracket rather than after it.
        lines.push(line.slice(0, line.length - last.length - lastSep.length));
        line = last + sep + piece;
      } else if (!NO_END.test(last)) {
        lines.push(line);
        line = piece;
      } else line += sep + piece;
      used = columns(line);
    } else {
      line += sep + piece;
      used += w;
    }
    last = piece;
    lastSep = sep;
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${indent}`);
}

/** Renders a diagnosis for the terminal, in a language. */
export function renderDiagnosis(input: {
  readonly diagnosis: DiagnosisResult;
  readonly lang: Lang;
  readonly style: Style;
  readonly width: number;
  /** A recorded run's heading, shown first; the message line then only when there was a message. */
  readonly runLine?: string;
}): string {
  const { diagnosis, lang, style, width } = input;
  const { oom, reading } = diagnosis;
  const frame = (m: MessageOf<DiagnosisParams>) => say(DIAGNOSIS, lang, m);
  const lines: string[] = [];
  if (input.runLine !== undefined) lines.push(style.bold(input.runLine));
  const head = frame({
    code: 'message-head',
    params: {
      family: oom.family,
      gpu: oom.gpuIndex,
      rank: reading.match?.rank ?? null,
      phase: diagnosis.phase,
      basis: reading.phase.basis,
    },
  });
  if (input.runLine === undefined || oom.family !== 'none') lines.push(style.bold(head));
  const nums = frame({ code: 'figures', params: oom });
  if (nums !== '') lines.push(`  ${nums}`);
  if (diagnosis.findings.length === 0) {
    lines.push('', frame({ code: 'no-findings', params: {} }));
    return lines.join('\n');
  }
  const severities = SEVERITY_WORDS[lang];
  let group = '';
  diagnosis.findings.forEach((finding, i) => {
    const f = findingWords(finding, lang);
    if (f.group !== group) {
      group = f.group;
      lines.push('', style.bold(GROUP_WORDS[lang][f.group]));
    }
    const tag =
      f.severity === 'error'
        ? style.red(severities.error)
        : f.severity === 'warn'
          ? style.yellow(severities.warn)
          : style.dim(severities.info);
    const number = `${i + 1}.`.padStart(3);
    lines.push(`${number} ${wrap(`${f.title} [${tag}]`, width, INDENT)}`);
    for (const e of f.evidence) {
      const label = labelled(e.label, lang);
      lines.push(
        `${INDENT}${style.dim(label.trimEnd())}${label.endsWith(' ') ? ' ' : ''}${wrap(e.value, width - columns(label), `${INDENT}  `)}`,
      );
      if (e.quote) lines.push(`${INDENT}  ${style.dim(wrap(`“${e.quote}”`, width, `${INDENT}  `))}`);
    }
    lines.push(`${INDENT}${style.cyan('→')} ${wrap(f.action, width, `${INDENT}  `)}`);
    (finding.remedies ?? []).forEach((r, k) => {
      const figure = remedyFigure(r, lang);
      const colour =
        r.fitsAfter === true ? style.green : r.fitsAfter === false ? style.yellow : (s: string) => s;
      lines.push(
        `${INDENT}  • ${wrap(`${labelled(f.remedies![k]!.change, lang)}${colour(figure)}`, width, `${INDENT}    `)}`,
      );
      lines.push(`${INDENT}    ${style.dim(frame({ code: 'try-flags', params: { flags: r.flags } }))}`);
    });
  });
  return lines.join('\n');
}

/*
 * What `headroom diagnose --json` prints: `{ oom, phase, findings }`, each finding as data (code,
 * severity, group, raw params, evidence and remedies with their codes and figures) plus `words`: the
 * same finding rendered in the language asked for (--lang, else the locale), for readers that show it.
 */

/** A finding's words, as `--json` carries them beside its data. */
export interface FindingJsonWords {
  readonly title: string;
  readonly action: string;
  readonly evidence: readonly { readonly label: string; readonly value: string }[];
  readonly remedies?: readonly { readonly change: string; readonly figure: string }[];
}

/** A finding and its words in `lang`. */
export function findingJson(f: Finding, lang: Lang): Finding & { readonly words: FindingJsonWords } {
  const w = findingWords(f, lang);
  const words: FindingJsonWords = {
    title: w.title,
    action: w.action,
    evidence: w.evidence.map((e) => ({ label: e.label, value: e.value })),
    ...(f.remedies === undefined
      ? {}
      : {
          remedies: f.remedies.map((r, i) => ({
            change: w.remedies![i]!.change,
            figure: remedyFigure(r, lang),
          })),
        }),
  };
  return { ...f, words };
}

/** The diagnosis as `--json` prints it. */
export function diagnosisJson(d: Diagnosis, lang: Lang) {
  return { oom: d.oom, phase: d.phase, findings: d.findings.map((f) => findingJson(f, lang)) };
}

/** The human view of a diagnosis: the message in one line, then the findings as a numbered list, evidence under each. */
import { type DiagnosisResult, type MessageCatalog, remedyFigure } from '../core/diagnose/index.js';
import type { OomMessage } from '../core/oom/index.js';
import { formatBytes } from '../core/units.js';
import type { Style } from './_output.js';

const INDENT = '     ';

/** Characters a terminal draws two columns wide: CJK ideographs, kana, hangul, full-width forms (UAX #11 W/F). */
const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/;
/** Text pieces: whitespace, one wide character (a line may break around it), or a run of anything else. */
const PIECES =
  /\s+|[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[^\s\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]+/g;
/** Punctuation a line does not start with, and punctuation it does not end with (Chinese line breaking). */
const NO_START = /^[，。、；：！？）」』】〉》]$/;
const NO_END = /^[（「『【〈《]$/;

/** Columns a string takes in a terminal: wide characters count two, colour codes none. */
function columns(s: string): number {
  let n = 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes take no columns
  for (const ch of s.replace(/\u001b\[[0-9;]*m/g, '')) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

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

function figures(oom: OomMessage, c: MessageCatalog): string {
  const parts: string[] = [];
  const f = c.words.figures;
  const add = (label: string, value: number | null | undefined) => {
    if (value !== null && value !== undefined) parts.push(`${label} ${formatBytes(value)}`);
  };
  add(f.requested, oom.requestedBytes);
  add(f.total, oom.totalBytes);
  add(f.free, oom.freeBytes);
  add(f.allocated, oom.allocatedByTorchBytes);
  add(f.reservedUnallocated, oom.reservedUnallocatedBytes);
  add(f.reservedTotal, oom.reservedTotalBytes);
  add(f.thisProcess, oom.thisProcessInUseBytes);
  return parts.join(' · ');
}

/** Renders a diagnosis for the terminal. */
export function renderDiagnosis(input: {
  readonly diagnosis: DiagnosisResult;
  readonly catalog: MessageCatalog;
  readonly style: Style;
  readonly width: number;
  /** A recorded run's heading, shown first; the message line then only when there was a message. */
  readonly runLine?: string;
}): string {
  const { diagnosis, catalog: c, style, width } = input;
  const { oom, reading } = diagnosis;
  const lines: string[] = [];
  if (input.runLine !== undefined) lines.push(style.bold(input.runLine));
  const head = [c.families[oom.family]];
  if (oom.gpuIndex !== null) head.push(c.words.gpu(String(oom.gpuIndex)));
  if (reading.match?.rank !== null && reading.match?.rank !== undefined)
    head.push(c.words.rank(String(reading.match.rank)));
  const basis = reading.phase.basis === 'none' ? null : c.bases[reading.phase.basis];
  head.push(c.words.phaseHead(c.phases[diagnosis.phase], basis));
  if (input.runLine === undefined || oom.family !== 'none') lines.push(style.bold(head.join(' · ')));
  const nums = figures(oom, c);
  if (nums !== '') lines.push(`  ${nums}`);
  if (diagnosis.findings.length === 0) {
    lines.push('', c.words.noFindings);
    return lines.join('\n');
  }
  let group = '';
  diagnosis.findings.forEach((f, i) => {
    if (f.group !== group) {
      group = f.group;
      lines.push('', style.bold(c.groups[f.group]));
    }
    const tag =
      f.severity === 'error'
        ? style.red(c.severities.error)
        : f.severity === 'warn'
          ? style.yellow(c.severities.warn)
          : style.dim(c.severities.info);
    const number = `${i + 1}.`.padStart(3);
    lines.push(`${number} ${wrap(`${f.title} [${tag}]`, width, INDENT)}`);
    for (const e of f.evidence) {
      const label = c.words.labelled(e.label);
      lines.push(
        `${INDENT}${style.dim(label.trimEnd())}${label.endsWith(' ') ? ' ' : ''}${wrap(e.value, width - columns(label), `${INDENT}  `)}`,
      );
      if (e.quote) lines.push(`${INDENT}  ${style.dim(wrap(`“${e.quote}”`, width, `${INDENT}  `))}`);
    }
    lines.push(`${INDENT}${style.cyan('→')} ${wrap(f.action, width, `${INDENT}  `)}`);
    for (const r of f.remedies ?? []) {
      const figure = remedyFigure(r, c);
      const colour =
        r.fitsAfter === true ? style.green : r.fitsAfter === false ? style.yellow : (s: string) => s;
      lines.push(
        `${INDENT}  • ${wrap(`${c.words.labelled(r.change)}${colour(figure)}`, width, `${INDENT}    `)}`,
      );
      lines.push(`${INDENT}    ${style.dim(`${c.words.tryFlags} ${r.flags}`)}`);
    }
  });
  return lines.join('\n');
}

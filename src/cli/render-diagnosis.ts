/** The human view of a diagnosis: the message in one line, then the findings as a numbered list, evidence under each. */
import { type DiagnosisResult, type MessageCatalog, remedyFigure } from '../core/diagnose/index.js';
import type { OomMessage } from '../core/oom/index.js';
import { formatBytes } from '../core/units.js';
import type { Style } from './_output.js';

const INDENT = '     ';

/** Wraps text to `width` columns, each line after the first indented by `indent`. */
function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length > width - indent.length) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${indent}`);
}

function figures(oom: OomMessage): string {
  const parts: string[] = [];
  const add = (label: string, value: number | null | undefined) => {
    if (value !== null && value !== undefined) parts.push(`${label} ${formatBytes(value)}`);
  };
  add('requested', oom.requestedBytes);
  add('total', oom.totalBytes);
  add('free', oom.freeBytes);
  add('allocated by PyTorch', oom.allocatedByTorchBytes);
  add('reserved-unallocated', oom.reservedUnallocatedBytes);
  add('reserved in total', oom.reservedTotalBytes);
  add('this process', oom.thisProcessInUseBytes);
  return parts.join(' · ');
}

/** Renders a diagnosis for the terminal. */
export function renderDiagnosis(input: {
  readonly diagnosis: DiagnosisResult;
  readonly catalog: MessageCatalog;
  readonly style: Style;
  readonly width: number;
}): string {
  const { diagnosis, catalog: c, style, width } = input;
  const { oom, reading } = diagnosis;
  const lines: string[] = [];
  const head = [c.families[oom.family]];
  if (oom.gpuIndex !== null) head.push(c.words.gpu(String(oom.gpuIndex)));
  if (reading.match?.rank !== null && reading.match?.rank !== undefined)
    head.push(`rank ${reading.match.rank}`);
  const basis = reading.phase.basis === 'none' ? '' : ` (${c.bases[reading.phase.basis]})`;
  head.push(`phase: ${c.phases[diagnosis.phase]}${basis}`);
  lines.push(style.bold(head.join(' · ')));
  const nums = figures(oom);
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
      lines.push(
        `${INDENT}${style.dim(`${e.label}:`)} ${wrap(e.value, width - e.label.length - 2, `${INDENT}  `)}`,
      );
      if (e.quote) lines.push(`${INDENT}  ${style.dim(wrap(`“${e.quote}”`, width, `${INDENT}  `))}`);
    }
    lines.push(`${INDENT}${style.cyan('→')} ${wrap(f.action, width, `${INDENT}  `)}`);
    for (const r of f.remedies ?? []) {
      const figure = remedyFigure(r, c);
      const colour =
        r.fitsAfter === true ? style.green : r.fitsAfter === false ? style.yellow : (s: string) => s;
      lines.push(`${INDENT}  • ${wrap(`${r.change}: ${colour(figure)}`, width, `${INDENT}    `)}`);
      lines.push(`${INDENT}    ${style.dim(`${c.words.tryFlags} ${r.flags}`)}`);
    }
  });
  return lines.join('\n');
}

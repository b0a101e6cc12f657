/** Terminal output helpers: colour that respects NO_COLOR and pipes, and plain text tables. */

export interface Style {
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly green: (s: string) => string;
  readonly red: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly cyan: (s: string) => string;
  readonly magenta: (s: string) => string;
  readonly blue: (s: string) => string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

const COLOR: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  green: wrap(32, 39),
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  magenta: wrap(35, 39),
  blue: wrap(34, 39),
};

const identity = (s: string) => s;
const PLAIN: Style = {
  bold: identity,
  dim: identity,
  green: identity,
  red: identity,
  yellow: identity,
  cyan: identity,
  magenta: identity,
  blue: identity,
};

/** Colour when writing to a terminal and neither NO_COLOR nor TERM=dumb is set (no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return COLOR;
  if (!stream.isTTY || env.NO_COLOR !== undefined || env.TERM === 'dumb') return PLAIN;
  return COLOR;
}

/**
 * East Asian wide and fullwidth characters, which a terminal draws two columns wide (Unicode UAX #11:
 * Hangul Jamo, CJK radicals to Yi, Hangul syllables, CJK compatibility ideographs, vertical and
 * compatibility forms, fullwidth forms). Ambiguous ones (—, █, ─) count as narrow, as terminals do
 * outside CJK locales.
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;

/** Visible width of a string in terminal columns, ignoring ANSI colour codes (a Chinese character is two). */
export function visibleWidth(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI escape codes
  const text = s.replace(/\u001b\[[0-9;]*m/g, '');
  return text.length + (text.match(WIDE)?.length ?? 0);
}

function pad(s: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleWidth(s)));
  return align === 'left' ? s + fill : fill + s;
}

/** Renders rows as an aligned table with a header; columns listed in `right` are right-aligned. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  right: readonly number[] = [],
): string {
  const widths = header.map((h, i) =>
    Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, right.includes(i) ? 'right' : 'left'))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n');
}

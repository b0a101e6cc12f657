/**
 * Columns a string takes on a terminal: East Asian wide and full-width characters take two (Chinese
 * words), ANSI colour codes none. For aligning words that may be Chinese.
 */

/** Wide and full-width ranges (Unicode East_Asian_Width W and F): CJK, Hangul, kana, full-width forms. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;

/** Terminal columns of a string. */
export function columns(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI escape codes
  const plain = s.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.length + (plain.match(WIDE)?.length ?? 0);
}

/** Pads a string on the right to `width` terminal columns. */
export function padColumns(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - columns(s)));
}

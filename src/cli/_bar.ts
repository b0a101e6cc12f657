/** A horizontal bar of bytes against a limit, for tables that show memory falling rung by rung. */

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** Shade of the cells between the estimate and its upper bound: the range, not a second solid bar. */
const RANGE = '▒';

/**
 * `width` cells scaled to `scale` bytes: the value as a solid bar, the stretch up to `upper` (the
 * estimate's upper bound, when given) shaded, and the limit as ┃ at its position.
 * @example meterBar(18e9, 25e9, 30, 21e9) // '█████████████████████▋   ┃    '
 * @example meterBar(12e9, 24e9, 10, undefined, 18e9) // '█████▒▒▒  '
 */
export function meterBar(
  bytes: number,
  scale: number,
  width: number,
  limit?: number,
  upper?: number,
): string {
  const cellsOf = (b: number) => Math.max(0, Math.min(width, (b / scale) * width));
  const cells = cellsOf(bytes);
  const full = Math.floor(cells);
  const part = EIGHTHS[Math.round((cells - full) * 7)] ?? '';
  const chars = [...('█'.repeat(full) + (full < width ? part : ''))];
  if (upper !== undefined && upper > bytes) {
    const upTo = Math.round(cellsOf(upper));
    while (chars.length < upTo) chars.push(RANGE);
  }
  while (chars.length < width) chars.push(' ');
  if (limit !== undefined && limit > 0 && limit <= scale) {
    const at = Math.min(width - 1, Math.round((limit / scale) * width));
    chars[at] = '┃';
  }
  return chars.join('');
}

/** A horizontal bar of bytes against a limit, for tables that show memory falling rung by rung. */

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * `width` cells scaled to `scale` bytes: the value as a solid bar, and the limit as ┃ at its position.
 * @example meterBar(18e9, 25e9, 30, 21e9) // '█████████████████████▋   ┃    '
 */
export function meterBar(bytes: number, scale: number, width: number, limit?: number): string {
  const cells = Math.max(0, Math.min(width, (bytes / scale) * width));
  const full = Math.floor(cells);
  const part = EIGHTHS[Math.round((cells - full) * 7)] ?? '';
  const chars = [...('█'.repeat(full) + (full < width ? part : ''))];
  while (chars.length < width) chars.push(' ');
  if (limit !== undefined && limit > 0 && limit <= scale) {
    const at = Math.min(width - 1, Math.round((limit / scale) * width));
    chars[at] = '┃';
  }
  return chars.join('');
}

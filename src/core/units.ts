/** Byte units and their formatting. GiB = 2^30 bytes (what torch and nvidia-smi report); GB = 1e9. */

export const KIB = 1024;
export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;
export const TIB = 1024 ** 4;

/** Bytes → GiB as a number. */
export function toGiB(bytes: number): number {
  return bytes / GIB;
}

/** Formats bytes as a short human figure in binary units ("13.42 GiB", "512 MiB"). */
export function formatBytes(bytes: number, digits = 2): string {
  const sign = bytes < 0 ? '-' : '';
  const abs = Math.abs(bytes);
  if (abs >= TIB) return `${sign}${(abs / TIB).toFixed(digits)} TiB`;
  if (abs >= GIB) return `${sign}${(abs / GIB).toFixed(digits)} GiB`;
  if (abs >= MIB) return `${sign}${(abs / MIB).toFixed(abs >= 100 * MIB ? 0 : 1)} MiB`;
  if (abs >= KIB) return `${sign}${(abs / KIB).toFixed(0)} KiB`;
  return `${sign}${abs} B`;
}

/**
 * Formats an element count the way DeepSpeed configs write round ones ("5e8", "2e8"), else short
 * ("16.8M").
 */
export function formatElements(count: number): string {
  const exp = Math.floor(Math.log10(count));
  const mantissa = count / 10 ** exp;
  return Number.isInteger(mantissa) && exp >= 6 ? `${mantissa}e${exp}` : formatParams(count);
}

/** Formats a parameter count ("8.03B", "124.4M"). */
export function formatParams(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(2)}B`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`;
  if (count >= 1e3) return `${(count / 1e3).toFixed(1)}K`;
  return String(count);
}

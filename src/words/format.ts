/**
 * How figures are written in each language: the catalogs' entries get raw numbers in their params and
 * format them here, so the core never holds a formatted figure. Binary units (GiB = 2^30 bytes) in
 * both languages, as torch and nvidia-smi print them.
 */
import { formatBytes, formatElements, formatParams } from '../core/units.js';
import type { Lang } from './lang.js';

export interface Format {
  readonly lang: Lang;
  /** "13.42 GiB", "512 MiB". */
  bytes(bytes: number): string;
  /** A range of bytes, the unit once where both ends share it: "18.20–21.00 GiB"; one figure when equal. */
  bytesRange(low: number, high: number): string;
  /** A ratio as a percent: 0.123 → "12 %" (digits after the point: 0 unless given). */
  percent(ratio: number, digits?: number): string;
  /** A whole count with digit grouping: 12345 → "12,345". */
  count(n: number): string;
  /** A parameter count: "8.03B". */
  params(n: number): string;
  /** An element count as DeepSpeed configs write round ones: "5e8". */
  elements(n: number): string;
  /** A factor: 1.25 → "1.25×". */
  times(factor: number, digits?: number): string;
  /** Items joined as the language lists them: "a, b and c" / "a、b 和 c". */
  list(items: readonly string[]): string;
}

function percent(ratio: number, digits = 0): string {
  return `${(ratio * 100).toFixed(digits)} %`;
}

function bytesRange(low: number, high: number): string {
  const [a, b] = [formatBytes(low), formatBytes(high)];
  if (a === b) return a;
  const unit = (x: string) => x.slice(x.lastIndexOf(' '));
  return unit(a) === unit(b) ? `${a.slice(0, a.lastIndexOf(' '))}–${b}` : `${a}–${b}`;
}

const shared = {
  bytes: (b: number) => formatBytes(b),
  bytesRange,
  percent,
  count: (n: number) => Math.round(n).toLocaleString('en-US'),
  params: formatParams,
  elements: formatElements,
  times: (f: number, digits = 2) => `${f.toFixed(digits)}×`,
};

export const FORMATS: Readonly<Record<Lang, Format>> = {
  en: {
    lang: 'en',
    ...shared,
    list: (items) =>
      items.length <= 1
        ? (items[0] ?? '')
        : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`,
  },
  zh: {
    lang: 'zh',
    ...shared,
    list: (items) =>
      items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join('、')} 和 ${items[items.length - 1]}`,
  },
};

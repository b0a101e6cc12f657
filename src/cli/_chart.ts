/** Terminal charts: a one-line sparkline and a per-step peak chart, as plain strings. */

import { maxBy, maxOf, minOf } from '../core/extremes.js';
import { formatBytes } from '../core/units.js';
import { say } from '../words/catalog.js';
import { CHART } from '../words/chart.js';
import type { Lang } from '../words/lang.js';
import type { Style } from './_output.js';

const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/**
 * One character per value, scaled between the smallest and largest; a spread under 5 % of the
 * largest is drawn as flat, so noise does not look like growth.
 */
export function sparkline(values: readonly number[]): string {
  if (values.length === 0) return '';
  const max = maxOf(values);
  const min = minOf(values);
  const lo = max - min < 0.05 * max ? max - 0.05 * max : min;
  const span = max - lo || 1;
  return values.map((v) => SPARKS[Math.max(0, Math.min(7, Math.round(((v - lo) / span) * 7)))]!).join('');
}

export interface ChartPoint {
  readonly step: number;
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
}

const EIGHTHS = ['', '▁', '▂', '▃', '▄', '▅', '▆', '▇'];

/**
 * Per-step peaks as columns from 0 bytes: allocated in `█` (eighth blocks at the top), the reserved
 * cache above it in `░`. Steps are bucketed to at most `width` columns (the highest of each bucket).
 * The axis is labelled in `lang` (English unless given).
 */
export function renderStepChart(
  points: readonly ChartPoint[],
  style: Style,
  options: { readonly width?: number; readonly height?: number; readonly lang?: Lang } = {},
): string {
  if (points.length === 0) return '';
  const width = Math.max(8, options.width ?? 60);
  const height = Math.max(3, options.height ?? 8);
  const columns = Math.min(width, points.length);
  const buckets: ChartPoint[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * points.length) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * points.length) / columns));
    const slice = points.slice(from, to);
    buckets.push({
      step: slice[slice.length - 1]!.step,
      allocatedBytes: maxBy(slice, (p) => p.allocatedBytes),
      reservedBytes: maxBy(slice, (p) => p.reservedBytes),
    });
  }
  const max = maxBy(buckets, (b) => Math.max(b.allocatedBytes, b.reservedBytes)) || 1;
  const labels = [formatBytes(max), formatBytes(max / 2), '0 B'];
  const labelWidth = maxBy(labels, (l) => l.length);
  const rows: string[] = [];
  for (let r = height - 1; r >= 0; r--) {
    const cells = buckets.map((b) => {
      const alloc = (b.allocatedBytes / max) * height;
      const reserved = Math.round((b.reservedBytes / max) * height);
      const eighths = Math.round((alloc - r) * 8);
      if (eighths >= 8) return style.cyan('█');
      if (eighths > 0) return style.cyan(EIGHTHS[eighths]!);
      if (reserved > r) return style.dim('░');
      return ' ';
    });
    const label = r === height - 1 ? labels[0]! : r === Math.floor((height - 1) / 2) ? labels[1]! : '';
    const axis = label ? '┤' : '│';
    rows.push(`  ${label.padStart(labelWidth)} ${axis}${cells.join('')}`);
  }
  rows.push(`  ${labels[2]!.padStart(labelWidth)} └${'─'.repeat(buckets.length)}`);
  const first = String(points[0]!.step);
  const last = String(points[points.length - 1]!.step);
  const gap = Math.max(1, buckets.length - first.length - last.length);
  rows.push(
    `  ${' '.repeat(labelWidth)}  ${first}${' '.repeat(gap)}${buckets.length > first.length ? last : ''}  ${say(CHART, options.lang ?? 'en', { code: 'step-axis', params: {} })}`,
  );
  return rows.join('\n');
}

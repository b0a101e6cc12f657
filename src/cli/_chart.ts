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

/** A step chart's columns: each the highest of its steps, labelled with its last step. */
export interface StepColumns {
  readonly columns: readonly ChartPoint[];
  readonly firstStep: number;
  readonly lastStep: number;
}

/**
 * The columns of a step chart of `total` points at most `width` wide, the points pushed one at a time
 * in step order (a long run's per-step peaks as the ledger reads them): the memory of the columns, not
 * of the points. Points past `total` join the last column.
 */
export function stepColumns(total: number, width: number) {
  const columns = Math.min(Math.max(8, width), total);
  const out: ChartPoint[] = [];
  let index = 0;
  let column = 0;
  let to = columns > 0 ? Math.max(1, Math.floor(total / columns)) : 0;
  let open: { step: number; allocatedBytes: number; reservedBytes: number } | null = null;
  let firstStep: number | null = null;
  let lastStep = 0;
  return {
    push(p: ChartPoint): void {
      if (columns === 0) return;
      if (index >= to && column < columns - 1 && open) {
        out.push(open);
        open = null;
        column += 1;
        const from = Math.floor((column * total) / columns);
        to = Math.max(from + 1, Math.floor(((column + 1) * total) / columns));
      }
      firstStep ??= p.step;
      lastStep = p.step;
      if (!open) open = { step: p.step, allocatedBytes: p.allocatedBytes, reservedBytes: p.reservedBytes };
      else {
        open.step = p.step;
        if (p.allocatedBytes > open.allocatedBytes) open.allocatedBytes = p.allocatedBytes;
        if (p.reservedBytes > open.reservedBytes) open.reservedBytes = p.reservedBytes;
      }
      index += 1;
    },
    done(): StepColumns | null {
      if (open) out.push(open);
      open = null;
      return firstStep === null ? null : { columns: out, firstStep, lastStep };
    },
  };
}

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
  const columns = stepColumns(points.length, options.width ?? 60);
  for (const p of points) columns.push(p);
  return renderStepColumns(columns.done(), style, options);
}

/** renderStepChart of columns already made (stepColumns). */
export function renderStepColumns(
  chart: StepColumns | null,
  style: Style,
  options: { readonly height?: number; readonly lang?: Lang } = {},
): string {
  if (chart === null || chart.columns.length === 0) return '';
  const height = Math.max(3, options.height ?? 8);
  const buckets = chart.columns;
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
  const first = String(chart.firstStep);
  const last = String(chart.lastStep);
  const gap = Math.max(1, buckets.length - first.length - last.length);
  rows.push(
    `  ${' '.repeat(labelWidth)}  ${first}${' '.repeat(gap)}${buckets.length > first.length ? last : ''}  ${say(CHART, options.lang ?? 'en', { code: 'step-axis', params: {} })}`,
  );
  return rows.join('\n');
}

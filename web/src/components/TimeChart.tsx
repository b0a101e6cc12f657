/**
 * Memory over time with uPlot (fast on long series): nvidia-smi used, torch reserved and allocated,
 * loss on a second axis, phases shaded, the OOM marked. A zoom (drag, or setScale) is reported through
 * `onZoom`; the page's `detail` for it is drawn in place without rebuilding the chart or its zoom.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { GIB } from '../../../src/core/units.js';
import { uiRunsWords } from '../../../src/words/ui-runs.js';
import type { TimeSeries } from '../chart-data.js';
import { useLang } from '../i18n.js';

export type { TimeSeries } from '../chart-data.js';

const gib = (v: number | null) => (v === null ? null : v / GIB);

/** The series as uPlot's aligned data (memory in GiB). */
function alignedData(series: TimeSeries): uPlot.AlignedData {
  return [
    series.t as number[],
    series.used.map(gib),
    series.reserved.map(gib),
    series.allocated.map(gib),
    series.loss as (number | null)[],
  ];
}

export interface Band {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

const PHASE_FILL: Readonly<Record<string, string>> = {
  eval: 'rgba(250, 204, 21, 0.18)',
  evaluation: 'rgba(250, 204, 21, 0.18)',
  save: 'rgba(148, 163, 184, 0.22)',
};

export function TimeChart({
  series,
  bands,
  oomAt,
  detail = null,
  onZoom,
  height = 320,
}: {
  series: TimeSeries;
  bands: readonly Band[];
  oomAt: number | null;
  /** The overview with a zoomed window's detail set in (chart-data.ts withWindow); null: the overview. */
  detail?: TimeSeries | null;
  /** Called on every change of the time axis' range (min, max seconds). */
  onZoom?: (from: number, to: number) => void;
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const lang = useLang();
  const zoomed = useRef(onZoom);
  zoomed.current = onZoom;
  const shown = useRef<TimeSeries>(series);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const w = uiRunsWords(lang);
    const labels = {
      seconds: w({ code: 'axis-seconds', params: {} }),
      time: w({ code: 'series-time', params: {} }),
      used: w({ code: 'series-used', params: {} }),
      reserved: w({ code: 'level', params: { level: 'reserved' } }),
      allocated: w({ code: 'level', params: { level: 'allocated' } }),
      loss: w({ code: 'series-loss', params: {} }),
      oom: w({ code: 'oom', params: {} }),
    };
    const data = alignedData(series);
    shown.current = series;
    const opts: uPlot.Options = {
      width: el.clientWidth || 800,
      height,
      scales: { x: { time: false }, loss: { auto: true } },
      axes: [
        { label: labels.seconds, stroke: '#475569' },
        { label: 'GiB', stroke: '#475569', values: (_u, v) => v.map((x) => x.toFixed(1)) },
        { scale: 'loss', side: 1, label: labels.loss, stroke: '#be185d', grid: { show: false } },
      ],
      series: [
        { label: labels.time },
        { label: labels.used, stroke: '#64748b', width: 1.5, spanGaps: true },
        { label: labels.reserved, stroke: '#d97706', width: 1.5, spanGaps: true },
        { label: labels.allocated, stroke: '#2563eb', width: 1.5, spanGaps: true },
        { label: labels.loss, scale: 'loss', stroke: '#be185d', width: 1, dash: [4, 3], spanGaps: true },
      ],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        setScale: [
          (u, key) => {
            const x = u.scales.x;
            if (key === 'x' && x?.min != null && x.max != null) zoomed.current?.(x.min, x.max);
          },
        ],
        drawClear: [
          (u) => {
            const ctx = u.ctx;
            for (const band of bands) {
              const fill = PHASE_FILL[band.name];
              if (!fill) continue;
              const x0 = u.valToPos(band.start, 'x', true);
              const x1 = u.valToPos(band.end, 'x', true);
              ctx.fillStyle = fill;
              ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
            }
          },
        ],
        draw: [
          (u) => {
            if (oomAt === null) return;
            const ctx = u.ctx;
            const x = u.valToPos(oomAt, 'x', true);
            ctx.strokeStyle = '#dc2626';
            ctx.lineWidth = 2 * devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillStyle = '#dc2626';
            ctx.font = `${12 * devicePixelRatio}px system-ui`;
            ctx.fillText(labels.oom, x + 4 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
          },
        ],
      },
    };
    plot.current?.destroy();
    plot.current = new uPlot(opts, data, el);
    // The instance on its element, for bench/dashboard.ts (it pans the chart and times the frames).
    (el as HTMLDivElement & { uplot?: uPlot }).uplot = plot.current;
    const resize = () => plot.current?.setSize({ width: el.clientWidth, height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [series, bands, oomAt, lang, height]);

  // A zoomed window's detail (or the overview again): new data, the same chart and the same zoom.
  useEffect(() => {
    const next = detail ?? series;
    const u = plot.current;
    if (!u || shown.current === next) return;
    shown.current = next;
    u.setData(alignedData(next), false);
  }, [detail, series]);

  return <div ref={host} className="time-chart" data-testid="time-chart" />;
}

/**
 * Live and reserved memory over a snapshot's trace with uPlot, one pixel bucket per point pair (min and
 * max, core/snapshot/timeline.ts) so a million events draw at once and every peak stays; the peak and
 * the OOMs marked.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Timeline } from '../../../src/core/snapshot/analyse.js';
import { timelinePoints } from '../../../src/core/snapshot/timeline.js';
import { GIB } from '../../../src/core/units.js';

export function SnapshotTimeline({
  timeline,
  peakIndex,
  oomIndices,
  labels,
  height = 280,
}: {
  timeline: Timeline;
  peakIndex: number;
  oomIndices: readonly number[];
  labels: { active: string; reserved: string; events: string; oom: string; peak: string };
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = el.clientWidth || 800;
    const points = timelinePoints(timeline, width);
    const data: uPlot.AlignedData = [
      points.x,
      points.active.map((v) => v / GIB),
      points.reserved.map((v) => v / GIB),
    ];
    const mark = (u: uPlot, index: number, color: string, text: string) => {
      const ctx = u.ctx;
      const x = u.valToPos(index, 'x', true);
      ctx.strokeStyle = color;
      ctx.lineWidth = 2 * devicePixelRatio;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.font = `${12 * devicePixelRatio}px system-ui`;
      ctx.fillText(text, x + 4 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
    };
    const opts: uPlot.Options = {
      width,
      height,
      scales: { x: { time: false } },
      axes: [
        { label: labels.events, stroke: '#475569' },
        { label: 'GiB', stroke: '#475569', values: (_u, v) => v.map((x) => x.toFixed(1)) },
      ],
      series: [
        {},
        { label: labels.active, stroke: '#2563eb', width: 1.25, fill: 'rgba(37, 99, 235, 0.08)' },
        { label: labels.reserved, stroke: '#d97706', width: 1.25 },
      ],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        draw: [
          (u) => {
            if (peakIndex >= 0) mark(u, peakIndex, '#0f172a', labels.peak);
            for (const i of oomIndices) mark(u, i, '#dc2626', labels.oom);
          },
        ],
      },
    };
    const plot = new uPlot(opts, data, el);
    (el as HTMLDivElement & { uplot?: uPlot }).uplot = plot;
    const resize = () => plot.setSize({ width: el.clientWidth, height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [timeline, peakIndex, oomIndices, labels, height]);

  return <div ref={host} className="time-chart" data-testid="snapshot-timeline" />;
}

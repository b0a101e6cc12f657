/**
 * Each step's allocated peak on each rank, one uPlot series per rank (src/core/ranks.ts,
 * perRankStepPeaks): a rank that holds more than its siblings, and whether the ranks rise and fall
 * together, at a glance. The rank whose peak is the run's is drawn thicker.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { PerRankSteps } from '../../../src/core/ranks.js';
import { GIB } from '../../../src/core/units.js';
import { uiRunsWords } from '../../../src/words/ui-runs.js';
import { useLang } from '../i18n.js';

const COLOURS = ['#2563eb', '#d97706', '#16a34a', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

export function RankChart({
  rankSteps,
  peakRank,
  height = 260,
}: {
  rankSteps: PerRankSteps;
  peakRank: number | null;
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const lang = useLang();

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const w = uiRunsWords(lang);
    const data: uPlot.AlignedData = [
      rankSteps.steps.map((s) => s.step),
      ...rankSteps.ranks.map((_, i) =>
        rankSteps.steps.map((s) => {
          const b = s.allocatedBytes[i] ?? null;
          return b === null ? null : b / GIB;
        }),
      ),
    ];
    const plot = new uPlot(
      {
        width: el.clientWidth || 800,
        height,
        scales: { x: { time: false } },
        axes: [
          { label: w({ code: 'axis-step', params: {} }), stroke: '#475569' },
          { label: 'GiB', stroke: '#475569', values: (_u, v) => v.map((x) => x.toFixed(1)) },
        ],
        series: [
          { label: w({ code: 'axis-step', params: {} }) },
          ...rankSteps.ranks.map((rank, i) => ({
            label: w({ code: 'rank-series', params: { rank } }),
            stroke: COLOURS[i % COLOURS.length]!,
            width: rank === peakRank ? 2.5 : 1.25,
            spanGaps: true,
          })),
        ],
      },
      data,
      el,
    );
    const resize = () => plot.setSize({ width: el.clientWidth, height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [rankSteps, peakRank, lang, height]);

  return <div ref={host} className="time-chart" data-testid="rank-chart" />;
}

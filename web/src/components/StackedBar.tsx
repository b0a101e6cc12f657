/** The five parts as one stacked bar against the GPU's usable memory, with the three peak levels marked. */
import type { Components, Estimate } from '../../../src/core/estimate.js';
import { formatBytes } from '../../../src/core/units.js';
import { useT } from '../i18n.js';

export const PART_COLORS: Readonly<Record<keyof Components, string>> = {
  weights: '#2563eb',
  gradients: '#9333ea',
  optimizer: '#d97706',
  activations: '#0891b2',
  runtime: '#94a3b8',
};

const PARTS = Object.keys(PART_COLORS) as (keyof Components)[];

export function StackedBar({ result }: { result: Estimate }) {
  const t = useT();
  const usable = result.fits?.usableBytes ?? 0;
  const scale = Math.max(usable, result.peak.deviceBytes) * 1.04;
  const x = (bytes: number) => (bytes / scale) * 1000;
  let offset = 0;
  const segments = PARTS.map((part) => {
    const start = offset;
    offset += result.components[part];
    return { part, start, bytes: result.components[part] };
  });
  const markers: [string, number][] = [
    [t('level.allocated'), result.peak.allocatedBytes],
    [t('level.reserved'), result.peak.reservedBytes],
    [t('level.device'), result.peak.deviceBytes],
  ];
  return (
    <figure className="stacked" data-testid="stacked-bar">
      <svg
        viewBox="0 0 1000 118"
        role="img"
        aria-label={`${formatBytes(result.peak.deviceBytes)} of ${formatBytes(usable)}`}
      >
        <rect x={0} y={28} width={1000} height={44} fill="#f1f5f9" rx={4} />
        {segments.map((s) =>
          s.bytes > 0 ? (
            <rect
              key={s.part}
              x={x(s.start)}
              y={28}
              width={Math.max(1, x(s.bytes))}
              height={44}
              fill={PART_COLORS[s.part]}
            >
              <title>{`${t(`part.${s.part}`)}: ${formatBytes(s.bytes)}`}</title>
            </rect>
          ) : null,
        )}
        {usable > 0 ? (
          <g>
            <line
              x1={x(usable)}
              x2={x(usable)}
              y1={14}
              y2={86}
              stroke={result.fits?.ok ? '#16a34a' : '#dc2626'}
              strokeWidth={3}
            />
            <text x={Math.min(x(usable), 995)} y={11} textAnchor="end" className="bar-label">
              {`${result.fits?.gpu} ${t('estimate.usable')} ${formatBytes(usable)}`}
            </text>
          </g>
        ) : null}
        {markers.map(([label, bytes], i) => (
          <g key={label}>
            <line
              x1={x(bytes)}
              x2={x(bytes)}
              y1={72}
              y2={84 + i * 10}
              stroke="#0f172a"
              strokeWidth={1}
              strokeDasharray="3 2"
            />
            <text
              x={Math.min(x(bytes) + 3, 880)}
              y={84 + i * 10 + 4}
              className="bar-marker"
            >{`${label} ${formatBytes(bytes)}`}</text>
          </g>
        ))}
      </svg>
      <figcaption>
        {PARTS.map((part) => (
          <span key={part} className="legend">
            <i style={{ background: PART_COLORS[part] }} />
            {t(`part.${part}`)} <b data-testid={`part-${part}`}>{formatBytes(result.components[part])}</b>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

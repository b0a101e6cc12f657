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

/** One stretch of the bar. */
export interface BarSegment {
  readonly key: string;
  readonly label: string;
  readonly bytes: number;
  readonly color: string;
}

/**
 * Segments stacked left to right on a scale of `scaleBytes`, a limit line (the GPU's usable memory)
 * and level markers under it, and a legend whose figures carry data-testid `part-KEY`.
 */
export function PartsBar({
  segments,
  scaleBytes,
  limit,
  markers,
  ariaLabel,
  testId = 'stacked-bar',
}: {
  segments: readonly BarSegment[];
  scaleBytes: number;
  limit: { readonly bytes: number; readonly ok: boolean; readonly label: string } | null;
  markers: readonly (readonly [string, number])[];
  ariaLabel: string;
  testId?: string;
}) {
  const scale = Math.max(1, scaleBytes);
  const x = (bytes: number) => (bytes / scale) * 1000;
  let offset = 0;
  const placed = segments.map((s) => {
    const start = offset;
    offset += s.bytes;
    return { ...s, start };
  });
  return (
    <figure className="stacked" data-testid={testId}>
      <svg viewBox="0 0 1000 118" role="img" aria-label={ariaLabel}>
        <rect x={0} y={28} width={1000} height={44} fill="#f1f5f9" rx={4} />
        {placed.map((s) =>
          s.bytes > 0 ? (
            <rect
              key={s.key}
              x={x(s.start)}
              y={28}
              width={Math.max(1, x(s.bytes))}
              height={44}
              fill={s.color}
            >
              <title>{`${s.label}: ${formatBytes(s.bytes)}`}</title>
            </rect>
          ) : null,
        )}
        {limit && limit.bytes > 0 ? (
          <g>
            <line
              x1={x(limit.bytes)}
              x2={x(limit.bytes)}
              y1={14}
              y2={86}
              stroke={limit.ok ? '#16a34a' : '#dc2626'}
              strokeWidth={3}
            />
            <text x={Math.min(x(limit.bytes), 995)} y={11} textAnchor="end" className="bar-label">
              {limit.label}
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
        {segments.map((s) => (
          <span key={s.key} className="legend">
            <i style={{ background: s.color }} />
            {s.label} <b data-testid={`part-${s.key}`}>{formatBytes(s.bytes)}</b>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

export function StackedBar({ result }: { result: Estimate }) {
  const t = useT();
  const usable = result.fits?.usableBytes ?? 0;
  return (
    <PartsBar
      segments={PARTS.map((part) => ({
        key: part,
        label: t(`part.${part}`),
        bytes: result.components[part],
        color: PART_COLORS[part],
      }))}
      scaleBytes={Math.max(usable, result.peak.deviceBytes) * 1.04}
      limit={
        usable > 0
          ? {
              bytes: usable,
              ok: result.fits?.ok === true,
              label: `${result.fits?.gpu} ${t('estimate.usable')} ${formatBytes(usable)}`,
            }
          : null
      }
      markers={[
        [t('level.allocated'), result.peak.allocatedBytes],
        [t('level.reserved'), result.peak.reservedBytes],
        [t('level.device'), result.peak.deviceBytes],
      ]}
      ariaLabel={`${formatBytes(result.peak.deviceBytes)} of ${formatBytes(usable)}`}
    />
  );
}

/** Across every catalog GPU: does this scenario fit one of it, and with how much to spare. */
import { GPUS } from '../../../src/core/catalog/index.js';
import type { Estimate } from '../../../src/core/estimate.js';
import { fitVerdict, memoryTarget, usableBytes } from '../../../src/core/margin.js';
import { formatBytes } from '../../../src/core/units.js';
import { useT } from '../i18n.js';

export function FitsStrip({
  estimate,
  selected,
  marginFraction,
  onPick,
}: {
  estimate: Pick<Estimate, 'peak' | 'breakdown'>;
  marginFraction: number;
  selected: string;
  onPick: (id: string) => void;
}) {
  const t = useT();
  const gpus = [...GPUS].sort((a, b) => usableBytes(a) - usableBytes(b));
  return (
    <section className="fits-strip" aria-label={t('estimate.fitsOn')}>
      <h3>{t('estimate.fitsOn')}</h3>
      <div className="chips">
        {gpus.map((g) => {
          const fit = fitVerdict(estimate, memoryTarget(g, marginFraction));
          const spare = fit.headroomBytes;
          return (
            <button
              type="button"
              key={g.id}
              className={`chip ${fit.ok ? 'ok' : 'no'} ${g.id === selected ? 'selected' : ''}`}
              title={`${g.name}: ${
                !fit.ok
                  ? `${t('estimate.over')} ${formatBytes(-spare)}`
                  : fit.pagedToHostBytes > 0
                    ? `${t('estimate.pagedToHost')} ${formatBytes(fit.pagedToHostBytes)}`
                    : `${t('estimate.headroom')} ${formatBytes(spare)}`
              }`}
              onClick={() => onPick(g.id)}
            >
              {g.id}
            </button>
          );
        })}
      </div>
    </section>
  );
}

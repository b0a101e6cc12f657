/** Across every catalog GPU: does this scenario fit one of it, and with how much to spare. */
import { GPUS } from '../../../src/core/catalog/index.js';
import { usableBytes } from '../../../src/core/estimate.js';
import { formatBytes } from '../../../src/core/units.js';
import { useT } from '../i18n.js';

export function FitsStrip({
  deviceBytes,
  selected,
  onPick,
}: {
  deviceBytes: number;
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
          const spare = usableBytes(g) - deviceBytes;
          return (
            <button
              type="button"
              key={g.id}
              className={`chip ${spare >= 0 ? 'ok' : 'no'} ${g.id === selected ? 'selected' : ''}`}
              title={`${g.name}: ${spare >= 0 ? `${t('estimate.headroom')} ${formatBytes(spare)}` : `${t('estimate.over')} ${formatBytes(-spare)}`}`}
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

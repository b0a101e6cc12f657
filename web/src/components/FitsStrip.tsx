/** Across every catalog GPU: does this scenario fit one of it, and with how much to spare. */
import { GPUS } from '../../../src/core/catalog/index.js';
import type { Estimate } from '../../../src/core/estimate.js';
import { fitVerdict, memoryTarget, usableBytes } from '../../../src/core/margin.js';
import { say } from '../../../src/words/catalog.js';
import { UI_PLAN } from '../../../src/words/ui-plan.js';
import { useLang } from '../i18n.js';

export function FitsStrip({
  estimate,
  selected,
  marginFraction,
  onPick,
}: {
  estimate: Pick<Estimate, 'peak' | 'upper' | 'breakdown'>;
  marginFraction: number;
  selected: string;
  onPick: (id: string) => void;
}) {
  const lang = useLang();
  const fitsOn = say(UI_PLAN, lang, { code: 'fits-on', params: {} });
  const gpus = [...GPUS].sort((a, b) => usableBytes(a) - usableBytes(b));
  return (
    <section className="fits-strip" aria-label={fitsOn}>
      <h3>{fitsOn}</h3>
      <div className="chips">
        {gpus.map((g) => {
          const fit = fitVerdict(estimate, memoryTarget(g, marginFraction));
          const spare = fit.headroomBytes;
          return (
            <button
              type="button"
              key={g.id}
              className={`chip ${fit.ok ? 'ok' : 'no'} ${g.id === selected ? 'selected' : ''}`}
              title={say(
                UI_PLAN,
                lang,
                !fit.ok
                  ? { code: 'chip-over', params: { gpu: g.name, bytes: -spare } }
                  : fit.pagedToHostBytes > 0
                    ? { code: 'chip-paged', params: { gpu: g.name, bytes: fit.pagedToHostBytes } }
                    : { code: 'chip-headroom', params: { gpu: g.name, bytes: spare } },
              )}
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

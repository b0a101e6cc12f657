/** The Migrate page: two environments (env files or catalog GPUs) and a scenario; the checklist. */
import { useMemo, useState } from 'react';
import { findGpu, GPUS } from '../../../src/core/catalog/index.js';
import { type EnvSnapshot, matchCatalogGpu, parseEnvSnapshot } from '../../../src/core/env.js';
import { isUserError } from '../../../src/core/errors.js';
import { checkMigration, type MigrateSide, type MigrationReport } from '../../../src/core/migrate.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import { parseScenario } from '../../../src/core/scenario.js';
import { checkScenarioAgainstModel } from '../../../src/core/scenario-limits.js';
import { formatBytes } from '../../../src/core/units.js';
import { useCheckTitle, useT } from '../i18n.js';
import { formFromQuery, scenarioFromForm } from '../scenario-url.js';

interface SideState {
  readonly gpu: string;
  readonly env: EnvSnapshot | null;
  readonly fileName: string | null;
  readonly error: string | null;
}

function SidePicker({
  title,
  side,
  onChange,
  testId,
}: {
  title: string;
  side: SideState;
  onChange: (s: SideState) => void;
  testId: string;
}) {
  const t = useT();
  return (
    <fieldset className="panel" data-testid={testId}>
      <legend>{title}</legend>
      <label>
        <span>GPU</span>
        <select
          value={side.gpu}
          onChange={(e) => onChange({ ...side, gpu: e.target.value })}
          data-testid={`${testId}-gpu`}
        >
          {GPUS.map((g) => (
            <option key={g.id} value={g.id}>
              {g.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('migrate.envFile')}</span>
        <input
          type="file"
          accept=".json,application/json"
          onChange={async (e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            try {
              const env = parseEnvSnapshot(await file.text(), file.name);
              onChange({ ...side, env, fileName: file.name, error: null });
            } catch (error) {
              onChange({
                ...side,
                env: null,
                fileName: null,
                error: isUserError(error) ? error.message : String(error),
              });
            }
          }}
        />
      </label>
      {side.fileName ? <p className="muted">{side.fileName}</p> : null}
      {side.error ? <p className="error">{side.error}</p> : null}
    </fieldset>
  );
}

function toSide(side: SideState): MigrateSide {
  const envGpu = side.env?.gpus.status === 'ok' ? side.env.gpus.value[0] : undefined;
  const matchedId = envGpu
    ? matchCatalogGpu(
        envGpu.name,
        envGpu.memoryTotalBytes === null ? null : envGpu.memoryTotalBytes / 2 ** 20,
      )
    : null;
  const fromEnv = matchedId ? (findGpu(matchedId) ?? null) : null;
  return {
    label: side.fileName ?? side.gpu,
    env: side.env,
    gpu: side.env ? (fromEnv ?? findGpu(side.gpu) ?? null) : (findGpu(side.gpu) ?? null),
  };
}

export function MigratePage() {
  const t = useT();
  const checkTitle = useCheckTitle();
  const [from, setFrom] = useState<SideState>({ gpu: 'a10g', env: null, fileName: null, error: null });
  const [to, setTo] = useState<SideState>({ gpu: 'l4', env: null, fileName: null, error: null });
  const [scenarioText, setScenarioText] = useState(() => {
    const { form, config } = formFromQuery(window.location.hash.split('?')[1] ?? '');
    return JSON.stringify(scenarioFromForm(form, config), null, 2);
  });

  const report = useMemo((): MigrationReport | string => {
    try {
      const scenario = parseScenario(JSON.parse(scenarioText));
      const model = resolveModelRef(scenario.model);
      if (!model) return `model ${JSON.stringify(scenario.model)} is not in the catalog`;
      checkScenarioAgainstModel(scenario, model);
      return checkMigration({ scenario, shape: model.shape, from: toSide(from), to: toSide(to) });
    } catch (error) {
      return isUserError(error) ? error.message : `scenario: ${(error as Error).message}`;
    }
  }, [scenarioText, from, to]);

  return (
    <div className="migrate-page">
      <h2>{t('migrate.title')}</h2>
      <div className="run-grid">
        <div>
          <SidePicker title={t('migrate.from')} side={from} onChange={setFrom} testId="from" />
          <SidePicker title={t('migrate.to')} side={to} onChange={setTo} testId="to" />
          <label className="panel">
            <span>{t('migrate.scenario')}</span>
            <textarea
              rows={12}
              value={scenarioText}
              onChange={(e) => setScenarioText(e.target.value)}
              spellCheck={false}
              data-testid="migrate-scenario"
            />
          </label>
        </div>
        <section className="panel" data-testid="checklist">
          {typeof report === 'string' ? (
            <p className="error">{report}</p>
          ) : (
            <>
              <p className={`verdict ${report.verdict === 'fail' ? 'no' : 'ok'}`}>
                {report.from.label} → {report.to.label}: {t(`migrate.${report.verdict}`)}
              </p>
              <ul className="checklist">
                {report.items.map((item) => (
                  <li key={item.id} data-status={item.status}>
                    <b className={item.status}>{t(`migrate.${item.status}`).toUpperCase()}</b>{' '}
                    {checkTitle(item)} — {item.reason}
                    {item.action ? <div className="muted">{item.action}</div> : null}
                  </li>
                ))}
              </ul>
              {report.notChecked.length > 0 ? (
                <p className="muted">
                  {t('migrate.notChecked')}: {report.notChecked.join('; ')}
                </p>
              ) : null}
              <h3>{t('migrate.smoke')}</h3>
              <p>
                {report.plan.smoke.steps} {t('migrate.steps')} · {t('migrate.peak')}{' '}
                {formatBytes(report.plan.smoke.peakDeviceBytes)}
                {report.plan.smoke.tokensPerSecond
                  ? ` · ${Math.round(report.plan.smoke.tokensPerSecond).toLocaleString()} tokens/s`
                  : ''}
              </p>
            </>
          )}
        </section>
      </div>
    </div>
  );
}

/** The Migrate page: two environments (env files or catalog GPUs) and a scenario; the checklist. */
import { useMemo, useState } from 'react';
import { findGpu, GPUS } from '../../../src/core/catalog/index.js';
import { type EnvSnapshot, matchCatalogGpu, parseEnvSnapshot } from '../../../src/core/env.js';
import { isUserError } from '../../../src/core/errors.js';
import type { MessageOf } from '../../../src/core/message.js';
import { checkMigration, type MigrateSide, type MigrationReport } from '../../../src/core/migrate.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import { parseScenario } from '../../../src/core/scenario.js';
import { checkScenarioAgainstModel } from '../../../src/core/scenario-limits.js';
import { say } from '../../../src/words/catalog.js';
import { userErrorWords } from '../../../src/words/errors.js';
import { checkWords } from '../../../src/words/migrate-checks.js';
import { MIGRATE_NOT_CHECKED } from '../../../src/words/migrate-report.js';
import { UI_MIGRATE, type UiMigrateParams } from '../../../src/words/ui-migrate.js';
import { useLang } from '../i18n.js';
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
  const t = useUiWords();
  const lang = useLang();
  return (
    <fieldset className="panel" data-testid={testId}>
      <legend>{title}</legend>
      <label>
        <span>{t('gpu')}</span>
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
        <span>{t('env-file')}</span>
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
                error: isUserError(error) ? userErrorWords(error, lang).message : String(error),
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

/** The page's own words (src/words/ui-migrate.ts) in the current language, for codes without params. */
function useUiWords(): (
  code: {
    [C in keyof UiMigrateParams]: UiMigrateParams[C] extends Record<string, never> ? C : never;
  }[keyof UiMigrateParams],
) => string {
  const lang = useLang();
  return (code) => say(UI_MIGRATE, lang, { code, params: {} });
}

/** Why the page has no report: the scenario names no catalog model, or does not parse. */
type NoReport = Extract<MessageOf<UiMigrateParams>, { code: 'model-not-in-catalog' | 'scenario-error' }>;

export function MigratePage() {
  const lang = useLang();
  const t = useUiWords();
  const [from, setFrom] = useState<SideState>({ gpu: 'a10g', env: null, fileName: null, error: null });
  const [to, setTo] = useState<SideState>({ gpu: 'l4', env: null, fileName: null, error: null });
  const [scenarioText, setScenarioText] = useState(() => {
    const { form, config } = formFromQuery(window.location.hash.split('?')[1] ?? '');
    return JSON.stringify(scenarioFromForm(form, config), null, 2);
  });

  const report = useMemo((): MigrationReport | NoReport | string => {
    try {
      const scenario = parseScenario(JSON.parse(scenarioText));
      const model = resolveModelRef(scenario.model);
      if (!model) return { code: 'model-not-in-catalog', params: { model: JSON.stringify(scenario.model) } };
      checkScenarioAgainstModel(scenario, model);
      return checkMigration({ scenario, shape: model.shape, from: toSide(from), to: toSide(to) });
    } catch (error) {
      return isUserError(error)
        ? userErrorWords(error, lang).message
        : { code: 'scenario-error', params: { message: (error as Error).message } };
    }
  }, [scenarioText, from, to, lang]);

  return (
    <div className="migrate-page">
      <h2>{t('title')}</h2>
      <div className="run-grid">
        <div>
          <SidePicker title={t('from')} side={from} onChange={setFrom} testId="from" />
          <SidePicker title={t('to')} side={to} onChange={setTo} testId="to" />
          <label className="panel">
            <span>{t('scenario')}</span>
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
          ) : 'code' in report ? (
            <p className="error">{say(UI_MIGRATE, lang, report)}</p>
          ) : (
            <>
              <p className={`verdict ${report.verdict === 'fail' ? 'no' : 'ok'}`}>
                {say(UI_MIGRATE, lang, {
                  code: 'verdict',
                  params: { from: report.from.label, to: report.to.label, verdict: report.verdict },
                })}
              </p>
              <ul className="checklist">
                {report.items.map((item) => {
                  const words = checkWords(lang, item);
                  const status = say(UI_MIGRATE, lang, { code: 'status', params: { status: item.status } });
                  return (
                    <li key={item.id} data-status={item.status} data-testid={`check-${item.id}`}>
                      <b className={item.status}>{status.toUpperCase()}</b> {words.title} — {words.reason}
                      {words.action ? <div className="muted">{words.action}</div> : null}
                    </li>
                  );
                })}
              </ul>
              {report.notChecked.length > 0 ? (
                <p className="muted">
                  {say(UI_MIGRATE, lang, {
                    code: 'not-checked',
                    params: { lines: report.notChecked.map((n) => say(MIGRATE_NOT_CHECKED, lang, n)) },
                  })}
                </p>
              ) : null}
              <h3>{t('smoke')}</h3>
              <p>{say(UI_MIGRATE, lang, { code: 'smoke-figures', params: report.plan.smoke })}</p>
            </>
          )}
        </section>
      </div>
    </div>
  );
}

/**
 * The Estimate page: pick a model and a setup; the estimate is computed in the browser as you type.
 * The setup is a form the field table draws (scenario-form.ts, components/ScenarioForm.tsx); the page
 * adds the model picker and the margin, and shows the result (components/EstimateResult.tsx).
 */
import { useMemo, useState } from 'react';
import { shapeFromConfig } from '../../../src/core/architecture.js';
import { findGpu, searchModels } from '../../../src/core/catalog/index.js';
import { isUserError } from '../../../src/core/errors.js';
import { type Estimate, estimate } from '../../../src/core/estimate.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import { parseScenario, type Scenario } from '../../../src/core/scenario.js';
import { checkScenarioAgainstModel } from '../../../src/core/scenario-limits.js';
import { say } from '../../../src/words/catalog.js';
import { userErrorWords } from '../../../src/words/errors.js';
import type { Lang } from '../../../src/words/lang.js';
import { UI_ESTIMATE } from '../../../src/words/ui-estimate.js';
import { EstimateResult } from '../components/EstimateResult.js';
import { NumberInput, ScenarioForm } from '../components/ScenarioForm.js';
import { useLang, useT } from '../i18n.js';
import { type FormState, formModel } from '../scenario-form.js';
import { formFromQuery, marginOf, queryFromForm } from '../scenario-url.js';

interface Computed {
  readonly result: Estimate | null;
  readonly scenario: Scenario | null;
  readonly error: string | null;
}

/** The estimate of the form's scenario, or the words of why it was refused (in the page's language). */
function compute(
  raw: Record<string, unknown>,
  form: FormState,
  config: Record<string, unknown> | null,
  lang: Lang,
): Computed {
  try {
    const scenario = parseScenario(raw);
    const model = config
      ? { shape: shapeFromConfig(config, 'pasted config'), id: 'pasted config' }
      : resolveModelRef(scenario.model);
    if (!model) {
      const error = say(UI_ESTIMATE, lang, {
        code: 'estimate.notInCatalog',
        params: { model: String(form.model) },
      });
      return { result: null, scenario: null, error };
    }
    checkScenarioAgainstModel(scenario, model);
    const gpu = scenario.gpu ? (findGpu(scenario.gpu) ?? null) : null;
    const marginFraction = marginOf(form);
    return {
      result: estimate({ scenario, shape: model.shape, gpu, marginFraction, terms: true }),
      scenario,
      error: null,
    };
  } catch (error) {
    if (!isUserError(error)) return { result: null, scenario: null, error: String(error) };
    const words = userErrorWords(error, lang);
    return { result: null, scenario: null, error: `${words.message}${words.hint ? ` — ${words.hint}` : ''}` };
  }
}

/** The model: a catalog search, or a pasted config.json that stands in for one. */
function ModelPick({
  form,
  config,
  onModel,
  onConfig,
}: {
  form: FormState;
  config: Record<string, unknown> | null;
  onModel: (id: string) => void;
  onConfig: (config: Record<string, unknown> | null) => void;
}) {
  const t = useT();
  const lang = useLang();
  const [search, setSearch] = useState('');
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string | null>(null);
  const matches = useMemo(() => (search.trim() === '' ? [] : searchModels(search).slice(0, 8)), [search]);
  const applyPasted = () => {
    try {
      const parsed = JSON.parse(pasted) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('not a JSON object');
      shapeFromConfig(parsed as Record<string, unknown>, 'pasted config');
      onConfig(parsed as Record<string, unknown>);
      setPasteError(null);
    } catch (e) {
      setPasteError(
        isUserError(e)
          ? userErrorWords(e, lang).message
          : say(UI_ESTIMATE, lang, { code: 'estimate.notConfig', params: { reason: (e as Error).message } }),
      );
    }
  };
  return (
    <div className="model-pick">
      <div className="label">
        <span>{t('estimate.model')}</span>
        {config ? (
          <div className="pasted">
            <b>
              {say(UI_ESTIMATE, lang, {
                code: 'estimate.pastedConfig',
                params: { modelType: String(config.model_type ?? '?') },
              })}
            </b>
            <button type="button" onClick={() => onConfig(null)}>
              {t('estimate.clearConfig')}
            </button>
          </div>
        ) : (
          <>
            <input
              type="search"
              placeholder={`${form.model} — ${t('estimate.modelSearch')}`}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              data-testid="model-search"
            />
            {matches.length > 0 ? (
              <ul className="matches" data-testid="model-matches">
                {matches.map((m) => (
                  <li key={m.id}>
                    <button
                      type="button"
                      onClick={() => {
                        onModel(m.id);
                        setSearch('');
                      }}
                    >
                      <b>{m.id}</b> <small>{m.hfRepo}</small>
                    </button>
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        )}
      </div>
      <details>
        <summary>{t('estimate.pasteConfig')}</summary>
        <textarea
          rows={6}
          value={pasted}
          onChange={(e) => setPasted(e.target.value)}
          data-testid="paste-config"
          spellCheck={false}
        />
        <button type="button" onClick={applyPasted}>
          {t('estimate.useConfig')}
        </button>
        {pasteError ? <p className="error">{pasteError}</p> : null}
      </details>
    </div>
  );
}

export function EstimatePage({ query, onQuery }: { query: string; onQuery: (query: string) => void }) {
  const t = useT();
  const lang = useLang();
  const initial = useMemo(() => formFromQuery(query), [query]);
  const [form, setForm] = useState<FormState>(initial.form);
  const [config, setConfig] = useState<Record<string, unknown> | null>(initial.config);
  const [copied, setCopied] = useState(false);

  const update = (key: string, value: string) => {
    const next = { ...form, [key]: value };
    setForm(next);
    onQuery(queryFromForm(next, config));
  };
  const model = useMemo(() => formModel(form, config, { lang }), [form, config, lang]);
  const { result, scenario, error } = useMemo(
    () => compute(model.scenario, form, config, lang),
    [model, form, config, lang],
  );

  const exportJson = () => {
    if (!scenario) return;
    const blob = new Blob([`${JSON.stringify(scenario, null, 2)}\n`], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${typeof scenario.model === 'string' ? scenario.model : 'model'}-scenario.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  return (
    <div className="estimate-page">
      <section className="panel form">
        <h2>{t('estimate.title')}</h2>
        <ModelPick
          form={form}
          config={config}
          onModel={(id) => update('model', id)}
          onConfig={(next) => {
            setConfig(next);
            onQuery(queryFromForm(form, next));
          }}
        />
        <ScenarioForm
          controls={model.controls}
          onChange={update}
          defaultLabel={(c) =>
            c.defaultValue === undefined
              ? t('estimate.default')
              : say(UI_ESTIMATE, lang, { code: 'estimate.defaultFor', params: { value: c.defaultValue } })
          }
          extra={
            <NumberInput
              label={t('estimate.marginField')}
              value={form.headroom ?? ''}
              min={0}
              onChange={(v) => update('headroom', v)}
              testId="headroom"
            />
          }
        />
        <div className="actions">
          <button type="button" onClick={exportJson} disabled={!scenario} data-testid="export">
            {t('estimate.export')}
          </button>
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard?.writeText(window.location.href);
              setCopied(true);
            }}
          >
            {copied ? t('estimate.copied') : t('estimate.copyLink')}
          </button>
        </div>
      </section>
      <EstimateResult
        result={result}
        scenario={scenario}
        error={error}
        modelName={config ? 'pasted config' : String(form.model)}
        gpu={String(form.gpu)}
        marginFraction={marginOf(form)}
        shapeSource={config}
        onPickGpu={(id) => update('gpu', id)}
      />
    </div>
  );
}

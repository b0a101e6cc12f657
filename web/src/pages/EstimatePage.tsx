/** The Estimate page: pick a model and a setup; the estimate is computed in the browser as you type. */
import { useMemo, useState } from 'react';
import { shapeFromConfig } from '../../../src/core/architecture.js';
import { findGpu, GPUS, searchModels } from '../../../src/core/catalog/index.js';
import { describeScenario } from '../../../src/core/describe.js';
import { isUserError } from '../../../src/core/errors.js';
import { type Estimate, estimate } from '../../../src/core/estimate.js';
import { resolveModelRef } from '../../../src/core/model-ref.js';
import {
  ADAPTER_DTYPES,
  ATTENTIONS,
  CHECKPOINTING,
  defaultPrecision,
  fusesInTorch,
  LOSSES,
  METHODS,
  type Method,
  OFFLOADS,
  OPTIMIZERS,
  PRECISIONS,
  parseScenario,
  QUANTIZATIONS,
  QUANTIZED_INPUTS_KEPT,
  QUANTIZERS,
  type Scenario,
  STRATEGIES,
} from '../../../src/core/scenario.js';
import { checkScenarioAgainstModel } from '../../../src/core/scenario-limits.js';
import { formatBytes } from '../../../src/core/units.js';
import { FitsStrip } from '../components/FitsStrip.js';
import { Ladder } from '../components/Ladder.js';
import { StackedBar } from '../components/StackedBar.js';
import { type MessageKey, useNoteText, useT, useTermLabel } from '../i18n.js';
import {
  bitsandbytesBase,
  type FormState,
  formFromQuery,
  marginOf,
  quantizerChoice,
  queryFromForm,
  scenarioFromForm,
} from '../scenario-url.js';

interface Computed {
  readonly result: Estimate | null;
  readonly scenario: Scenario | null;
  readonly error: string | null;
}

function compute(form: FormState, config: Record<string, unknown> | null): Computed {
  try {
    const scenario = parseScenario(scenarioFromForm(form, config));
    const model = config
      ? { shape: shapeFromConfig(config, 'pasted config'), id: 'pasted config' }
      : resolveModelRef(scenario.model);
    if (!model) return { result: null, scenario: null, error: `model "${form.model}" is not in the catalog` };
    checkScenarioAgainstModel(scenario, model);
    const gpu = scenario.gpu ? (findGpu(scenario.gpu) ?? null) : null;
    const marginFraction = marginOf(form);
    return {
      result: estimate({ scenario, shape: model.shape, gpu, marginFraction, terms: true }),
      scenario,
      error: null,
    };
  } catch (error) {
    return {
      result: null,
      scenario: null,
      error: isUserError(error) ? `${error.message}${error.hint ? ` — ${error.hint}` : ''}` : String(error),
    };
  }
}

function Select({
  label,
  value,
  options,
  onChange,
  testId,
  optionLabel,
}: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
  testId: string;
  /** The words shown for an option, when they are not the value itself. */
  optionLabel?: (option: string) => string;
}) {
  return (
    <label>
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {options.map((o) => (
          <option key={o} value={o}>
            {optionLabel ? optionLabel(o) : o}
          </option>
        ))}
      </select>
    </label>
  );
}

interface FieldProps {
  label: string;
  value: string;
  onChange: (v: string) => void;
  testId: string;
}

/** A free-text input; `number` makes it a numeric one with a lower bound. */
function TextField({
  label,
  value,
  onChange,
  testId,
  placeholder,
  number,
}: FieldProps & { placeholder?: string; number?: { min: number } }) {
  return (
    <label>
      <span>{label}</span>
      <input
        {...(number ? { type: 'number', min: number.min } : {})}
        value={value}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        data-testid={testId}
      />
    </label>
  );
}

function NumberField({ min = 1, ...props }: FieldProps & { min?: number }) {
  return <TextField {...props} number={{ min }} />;
}

function Toggle({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  testId: string;
}) {
  return (
    <label className="toggle">
      <input
        type="checkbox"
        checked={value === 'true'}
        onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
        data-testid={testId}
      />
      <span>{label}</span>
    </label>
  );
}

export function EstimatePage({ query, onQuery }: { query: string; onQuery: (query: string) => void }) {
  const t = useT();
  const termLabel = useTermLabel();
  const noteWords = useNoteText();
  const initial = useMemo(() => formFromQuery(query), [query]);
  const [form, setForm] = useState<FormState>(initial.form);
  const [config, setConfig] = useState<Record<string, unknown> | null>(initial.config);
  const [search, setSearch] = useState('');
  const [pasted, setPasted] = useState('');
  const [pasteError, setPasteError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  const update = (key: string, value: string) => {
    const next = { ...form, [key]: value };
    setForm(next);
    onQuery(queryFromForm(next, config));
  };
  const { result, scenario, error } = useMemo(() => compute(form, config), [form, config]);
  const matches = useMemo(() => (search.trim() === '' ? [] : searchModels(search).slice(0, 8)), [search]);

  const applyPasted = () => {
    try {
      const parsed = JSON.parse(pasted) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('not a JSON object');
      shapeFromConfig(parsed as Record<string, unknown>, 'pasted config');
      setConfig(parsed as Record<string, unknown>);
      setPasteError(null);
      onQuery(queryFromForm(form, parsed as Record<string, unknown>));
    } catch (e) {
      setPasteError(isUserError(e) ? e.message : `not a config.json: ${(e as Error).message}`);
    }
  };

  const exportJson = () => {
    if (!scenario) return;
    const blob = new Blob([`${JSON.stringify(scenario, null, 2)}\n`], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${typeof scenario.model === 'string' ? scenario.model : 'model'}-scenario.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };

  const lora = form.method === 'lora' || form.method === 'qlora';
  return (
    <div className="estimate-page">
      <section className="panel form">
        <h2>{t('estimate.title')}</h2>
        <div className="model-pick">
          <div className="label">
            <span>{t('estimate.model')}</span>
            {config ? (
              <div className="pasted">
                <b>pasted config ({String(config.model_type ?? '?')})</b>
                <button
                  type="button"
                  onClick={() => {
                    setConfig(null);
                    onQuery(queryFromForm(form, null));
                  }}
                >
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
                            update('model', m.id);
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
        <div className="grid">
          <Select
            label={t('estimate.method')}
            value={form.method!}
            options={METHODS}
            onChange={(v) => update('method', v)}
            testId="method"
          />
          <Select
            label={t('estimate.precision')}
            value={form.precision!}
            options={['default', ...PRECISIONS]}
            optionLabel={(o) =>
              o === 'default'
                ? `${t('estimate.precisionDefault')}: ${defaultPrecision(form.method as Method)}`
                : o
            }
            onChange={(v) => update('precision', v)}
            testId="precision"
          />
          {form.method === 'qlora' || form.method === 'lora' ? (
            <Select
              label={t('estimate.quantization')}
              value={form.quantization!}
              options={QUANTIZATIONS}
              onChange={(v) => update('quantization', v)}
              testId="quantization"
            />
          ) : null}
          {quantizerChoice(form) ? (
            <Select
              label={t('estimate.quantizer')}
              value={form.quantizer!}
              options={QUANTIZERS}
              onChange={(v) => update('quantizer', v)}
              testId="quantizer"
            />
          ) : null}
          {bitsandbytesBase(form) ? (
            <Select
              label={t('estimate.quantizedInputsKept')}
              value={form.quantizedInputsKept!}
              options={['default', ...QUANTIZED_INPUTS_KEPT]}
              onChange={(v) => update('quantizedInputsKept', v)}
              testId="quantized-inputs-kept"
            />
          ) : null}
          <Select
            label={t('estimate.optimizer')}
            value={form.optimizer!}
            options={OPTIMIZERS}
            onChange={(v) => update('optimizer', v)}
            testId="optimizer"
          />
          <NumberField
            label={t('estimate.microBatch')}
            value={form.microBatchSize!}
            onChange={(v) => update('microBatchSize', v)}
            testId="micro-batch"
          />
          <NumberField
            label={t('estimate.marginField')}
            value={form.headroom!}
            min={0}
            onChange={(v) => update('headroom', v)}
            testId="headroom"
          />
          <NumberField
            label={t('estimate.seqLen')}
            value={form.seqLen!}
            onChange={(v) => update('seqLen', v)}
            testId="seq-len"
          />
          <NumberField
            label={t('estimate.gradAccum')}
            value={form.gradAccumSteps!}
            onChange={(v) => update('gradAccumSteps', v)}
            testId="grad-accum"
          />
          <Select
            label={t('estimate.checkpointing')}
            value={form.gradientCheckpointing!}
            options={CHECKPOINTING}
            onChange={(v) => update('gradientCheckpointing', v)}
            testId="checkpointing"
          />
          <Select
            label={t('estimate.attention')}
            value={form.attention!}
            options={ATTENTIONS}
            onChange={(v) => update('attention', v)}
            testId="attention"
          />
          <Select
            label={t('estimate.loss')}
            value={form.loss!}
            options={LOSSES}
            onChange={(v) => update('loss', v)}
            testId="loss"
          />
          <Select
            label={t('estimate.strategy')}
            value={form.strategy!}
            options={STRATEGIES}
            onChange={(v) => update('strategy', v)}
            testId="strategy"
          />
          <NumberField
            label={t('estimate.gpus')}
            value={form.gpus!}
            onChange={(v) => update('gpus', v)}
            testId="gpus"
          />
          {form.strategy !== 'single' && form.strategy !== 'ddp' ? (
            <Select
              label={t('estimate.offloadOptimizer')}
              value={form.offloadOptimizer!}
              options={OFFLOADS}
              onChange={(v) => update('offloadOptimizer', v)}
              testId="offload-optimizer"
            />
          ) : null}
          {form.strategy === 'zero3' || form.strategy === 'fsdp' ? (
            <Select
              label={t('estimate.offloadParams')}
              value={form.offloadParams!}
              options={OFFLOADS}
              onChange={(v) => update('offloadParams', v)}
              testId="offload-params"
            />
          ) : null}
          {form.strategy!.startsWith('zero') ? (
            <TextField
              label={t('estimate.reduceBucketSize')}
              value={form.reduceBucketSize!}
              placeholder="5e8"
              onChange={(v) => update('reduceBucketSize', v)}
              testId="reduce-bucket-size"
            />
          ) : null}
          {form.strategy === 'zero1' || form.strategy === 'zero2' ? (
            <Toggle
              label={t('estimate.overlapComm')}
              value={form.overlapComm!}
              onChange={(v) => update('overlapComm', v)}
              testId="overlap-comm"
            />
          ) : null}
          {form.strategy === 'fsdp' || form.strategy === 'fsdp-grad-op' ? (
            <>
              <Toggle
                label={t('estimate.wrapEmbeddings')}
                value={form.wrapEmbeddings!}
                onChange={(v) => update('wrapEmbeddings', v)}
                testId="wrap-embeddings"
              />
              <Toggle
                label={t('estimate.syncEachMicroBatch')}
                value={form.syncEachMicroBatch!}
                onChange={(v) => update('syncEachMicroBatch', v)}
                testId="sync-each-micro-batch"
              />
            </>
          ) : null}
          {fusesInTorch(form.optimizer!) ? (
            <Toggle
              label={t('estimate.fusedOptimizer')}
              value={form.fusedOptimizer!}
              onChange={(v) => update('fusedOptimizer', v)}
              testId="fused-optimizer"
            />
          ) : null}
          <Toggle
            label={t('estimate.optimizerInBackward')}
            value={form.optimizerInBackward!}
            onChange={(v) => update('optimizerInBackward', v)}
            testId="optimizer-in-backward"
          />
          <Toggle
            label={t('estimate.torchCompile')}
            value={form.torchCompile!}
            onChange={(v) => update('torchCompile', v)}
            testId="torch-compile"
          />
          <Toggle
            label={t('estimate.offloadActivations')}
            value={form.offloadActivations!}
            onChange={(v) => update('offloadActivations', v)}
            testId="offload-activations"
          />
          <Toggle
            label={t('estimate.expandableSegments')}
            value={form.expandableSegments!}
            onChange={(v) => update('expandableSegments', v)}
            testId="expandable-segments"
          />
          <Select
            label={t('estimate.gpu')}
            value={form.gpu!}
            options={GPUS.map((g) => g.id)}
            onChange={(v) => update('gpu', v)}
            testId="gpu"
          />
          {lora ? (
            <>
              <NumberField
                label={t('estimate.loraRank')}
                value={form.loraRank!}
                onChange={(v) => update('loraRank', v)}
                testId="lora-rank"
              />
              <TextField
                label={t('estimate.loraTargets')}
                value={form.loraTargets!}
                onChange={(v) => update('loraTargets', v)}
                testId="lora-targets"
              />
              <Select
                label={t('estimate.loraAdapterDtype')}
                value={form.loraAdapterDtype!}
                options={ADAPTER_DTYPES}
                onChange={(v) => update('loraAdapterDtype', v)}
                testId="lora-adapter-dtype"
              />
            </>
          ) : null}
        </div>
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

      <section className="panel result" data-testid="result">
        {error ? (
          <p className="error" data-testid="estimate-error">
            {error}
          </p>
        ) : null}
        {result && scenario ? (
          <>
            <p className="scenario-line">
              {describeScenario(scenario, config ? 'pasted config' : form.model!)}
            </p>
            <div className={`verdict ${result.fits?.ok ? 'ok' : 'no'}`} data-testid="verdict">
              {result.fits
                ? result.fits.ok
                  ? result.fits.pagedToHostBytes > 0
                    ? `✓ ${t('estimate.fits')} ${result.fits.gpu} — ${t('estimate.pagedToHost')} ${formatBytes(result.fits.pagedToHostBytes)}`
                    : `✓ ${t('estimate.fits')} ${result.fits.gpu} — ${t('estimate.headroom')} ${formatBytes(result.fits.headroomBytes)}`
                  : `✗ ${t('estimate.doesNotFit')} ${result.fits.gpu} — ${t('estimate.needs')} ${formatBytes(result.fits.requiredBytes)}, ${t('estimate.budget')} ${formatBytes(result.fits.budgetBytes)}`
                : null}
              {result.fits ? (
                <span className="muted" data-testid="verdict-margin">
                  {' '}
                  (
                  {t('estimate.withMargin').replace(
                    '{pct}',
                    String(Math.round(result.fits.marginFraction * 100)),
                  )}
                  )
                </span>
              ) : null}
            </div>
            <StackedBar result={result} />
            <table className="levels">
              <tbody>
                {(['allocatedBytes', 'reservedBytes', 'deviceBytes'] as const).map((k) => (
                  <tr key={k}>
                    <th>{t(`level.${k.replace('Bytes', '')}` as MessageKey)}</th>
                    <td data-testid={`peak-${k}`}>{formatBytes(result.peak[k])}</td>
                  </tr>
                ))}
                <tr>
                  <th>{t('estimate.peakAt')}</th>
                  <td>{result.peakPhase}</td>
                </tr>
                {result.host ? (
                  <tr>
                    <th>{t('estimate.hostMemory')}</th>
                    <td data-testid="host-cpu">{formatBytes(result.host.cpuBytes)}</td>
                  </tr>
                ) : null}
              </tbody>
            </table>
            <p className="muted">{t('estimate.perGpu')}</p>
            <details className="peak-terms" data-testid="peak-terms">
              <summary>
                {t('estimate.peakTerms')} ({result.peakPhase})
              </summary>
              <table className="levels">
                <tbody>
                  {(result.peakTerms ?? []).map((term) => (
                    <tr key={term.term} data-testid={`term-${term.term}`}>
                      <th>{termLabel(term.term)}</th>
                      <td>{formatBytes(term.bytes)}</td>
                    </tr>
                  ))}
                  <tr>
                    <th>= {t('level.allocated')}</th>
                    <td>{formatBytes(result.peak.allocatedBytes)}</td>
                  </tr>
                  <tr>
                    <th>{t('estimate.reserve')}</th>
                    <td>{formatBytes(result.peak.reservedBytes - result.peak.allocatedBytes)}</td>
                  </tr>
                  <tr>
                    <th>{t('estimate.outsideTorch')}</th>
                    <td>{formatBytes(result.peak.deviceBytes - result.peak.reservedBytes)}</td>
                  </tr>
                </tbody>
              </table>
            </details>
            {result.notes.length > 0 ? (
              <div className="notes" data-testid="estimate-notes">
                <h3>{t('estimate.notes')}</h3>
                <ul>
                  {result.notes.map((note) => (
                    <li key={note.code}>{noteWords(note)}</li>
                  ))}
                </ul>
              </div>
            ) : null}
            <FitsStrip
              estimate={result}
              selected={form.gpu!}
              marginFraction={marginOf(form)}
              onPick={(id) => update('gpu', id)}
            />
            <Ladder
              scenario={scenario}
              shapeSource={config}
              baseDeviceBytes={result.peak.deviceBytes}
              marginFraction={marginOf(form)}
            />
          </>
        ) : null}
      </section>
    </div>
  );
}

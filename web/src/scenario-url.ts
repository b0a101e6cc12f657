/**
 * The scenario in the URL, so a link reproduces it: flat query fields (the form's keys, from the field
 * table) and an inline config as base64url JSON.
 */
import { DEFAULT_MARGIN_FRACTION } from '../../src/core/margin.js';
import { type AnyTable, loose } from '../../src/core/scenario/table.js';
import { SCENARIO_TABLE } from '../../src/core/scenario.js';
import { type FormState, formDefaults, formModel } from './scenario-form.js';

export type { FormState };

/** The form's keys besides the table's: the share of the GPU kept free when judging the fit, in percent (margin.ts; --headroom). */
const PAGE_DEFAULTS: FormState = { headroom: '10' };

/** Every key the form and the URL carry, with the text it starts with. */
export const FORM_DEFAULTS: FormState = { ...formDefaults(), ...PAGE_DEFAULTS };

/** The margin the form judges the fit with, as a fraction; the default when the field is not a percent. */
export function marginOf(form: FormState): number {
  const n = Number(form.headroom);
  return Number.isFinite(n) && n >= 0 && n < 90 ? n / 100 : DEFAULT_MARGIN_FRACTION;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** Reads the form state from a hash query string ("model=...&method=..."), for a table's form. */
export function formFromQuery(
  query: string,
  table: AnyTable = loose(SCENARIO_TABLE),
): { form: FormState; config: Record<string, unknown> | null } {
  const params = new URLSearchParams(query);
  const defaults =
    table === loose(SCENARIO_TABLE) ? FORM_DEFAULTS : { ...formDefaults(table), ...PAGE_DEFAULTS };
  const form: FormState = { ...defaults };
  for (const key of Object.keys(defaults)) {
    const value = params.get(key);
    if (value !== null) form[key] = value;
  }
  let config: Record<string, unknown> | null = null;
  const encoded = params.get('config');
  if (encoded) {
    try {
      config = JSON.parse(fromBase64Url(encoded)) as Record<string, unknown>;
    } catch {
      config = null;
    }
  }
  return { form, config };
}

/** Writes the non-default form fields (and an inline config) as a query string. */
export function queryFromForm(
  form: FormState,
  config: Record<string, unknown> | null,
  defaults: FormState = FORM_DEFAULTS,
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) if (defaults[key] !== value) params.set(key, value);
  if (config) params.set('config', toBase64Url(JSON.stringify(config)));
  return params.toString();
}

/** The scenario object (docs/scenario.md spelling) the form describes: the fields it shows, as it shows them. */
export function scenarioFromForm(
  form: FormState,
  config: Record<string, unknown> | null,
  table: AnyTable = loose(SCENARIO_TABLE),
): Record<string, unknown> {
  return formModel(form, config, { table }).scenario;
}

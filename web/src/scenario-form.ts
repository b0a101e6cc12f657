/**
 * The estimate page's form, derived from the field table (src/core/scenario/fields.ts): which fields
 * it shows, with which options, labels and values, and the scenario object it describes. A field
 * shows where its "applies" rules hold for what the form says so far; a select offers the values its
 * rules allow (QLoRA's bases are quantized ones) and hides when there is nothing to choose. Plain data,
 * for the page's generic renderer (components/ScenarioForm.tsx) and for tests.
 */

import {
  type AnyTable,
  applies,
  type FieldDecl,
  type FormDecl,
  getPath,
  groupOf,
  loose,
  setPath,
  type View,
  viewOf,
} from '../../src/core/scenario/table.js';
import { SCENARIO_TABLE } from '../../src/core/scenario.js';
import { FIELD_WORDS, type FieldWordsTable } from '../../src/words/fields.js';
import type { Lang } from '../../src/words/lang.js';

/** The form's state: each field's text by its form key (as the URL carries it). */
export type FormState = Record<string, string>;

/** A select's first option that stands for the parser's default. */
export const DEFAULT_OPTION = 'default';

/** One control the form draws. */
export interface FormControl {
  readonly path: string;
  readonly key: string;
  readonly control: FormDecl['control'];
  readonly testId: string;
  readonly label: string;
  /** The value shown: the form's, or the option taken when the form's is not offered. */
  readonly value: string;
  /** A select's options; `default` first where the field has one, with the default it stands for. */
  readonly options: readonly string[];
  /** What the default option stands for, when it depends on other fields (precision: bf16-true). */
  readonly defaultValue?: string;
  readonly placeholder?: string;
  readonly min?: number;
}

export interface FormModel {
  readonly controls: readonly FormControl[];
  /** The scenario object (docs/scenario.md spelling) the form describes, for parseScenario. */
  readonly scenario: Record<string, unknown>;
}

export interface FormOptions {
  readonly table?: AnyTable;
  readonly lang?: Lang;
  readonly words?: FieldWordsTable;
}

type Entry = readonly [string, FieldDecl<View>, FormDecl<View>];

/** The table's fields that the form has, in the table's order. */
export function formEntries(table: AnyTable = loose(SCENARIO_TABLE)): Entry[] {
  return Object.entries(table.fields).flatMap(([path, decl]) =>
    decl.form === undefined ? [] : [[path, decl, decl.form] as const],
  );
}

/** The text each field of the form starts with: its `initial`, its default option, or the table's default. */
export function formDefaults(table: AnyTable = loose(SCENARIO_TABLE)): FormState {
  const out: FormState = {};
  for (const [, decl, form] of formEntries(table)) {
    out[form.key] =
      form.initial ??
      (form.defaultOption
        ? DEFAULT_OPTION
        : form.control === 'checkbox'
          ? 'false'
          : decl.kind.toText(decl.default ?? ''));
  }
  return out;
}

/** The values a select offers: its options, less those a value rule refuses here (QLoRA's "none"). */
function offered(decl: FieldDecl<View>, form: FormDecl<View>, view: View): string[] {
  const all = form.options?.() ?? decl.kind.values ?? [];
  return all.filter((value) =>
    (decl.rules ?? []).every(
      (rule) => rule.values === undefined || !rule.values.includes(value) || rule.ok(view),
    ),
  );
}

/** One pass: the controls shown and the scenario they make, reading what applies from `view`. */
function pass(
  entries: readonly Entry[],
  table: AnyTable,
  state: FormState,
  view: View,
  model: unknown,
): { controls: Omit<FormControl, 'label'>[]; scenario: Record<string, unknown> } {
  const controls: Omit<FormControl, 'label'>[] = [];
  const scenario: Record<string, unknown> = {};
  for (const [path, decl, form] of entries) {
    if (form.control === 'model') {
      scenario[path] = model;
      continue;
    }
    const group = groupOf(path);
    const groupDecl = group === undefined ? undefined : table.groups[group];
    if (groupDecl?.optional && !applies(groupDecl.rules, view)) continue;
    if (!applies(decl.rules, view) || (form.shownWhen && !form.shownWhen(view))) continue;
    const text = state[form.key] ?? '';
    let value = text;
    let options: string[] = [];
    if (form.control === 'select') {
      options = offered(decl, form, view);
      if (options.length < (form.defaultOption ? 1 : 2)) continue;
      if (form.defaultOption) options = [DEFAULT_OPTION, ...options];
      if (!options.includes(value))
        value = form.fallback && options.includes(form.fallback) ? form.fallback : options[0]!;
    }
    const dflt = form.defaultOption && decl.defaultOf ? decl.kind.toText(decl.defaultOf(view)) : undefined;
    controls.push({
      path,
      key: form.key,
      control: form.control,
      testId: form.testId,
      value,
      options,
      ...(dflt === undefined ? {} : { defaultValue: dflt }),
      ...(form.placeholder === undefined ? {} : { placeholder: form.placeholder }),
      ...(form.control === 'number' ? { min: form.min ?? 1 } : {}),
    });
    const raw =
      form.control === 'checkbox'
        ? value === 'true'
          ? decl.kind.fromForm(form.checked ?? 'true')
          : undefined
        : value === DEFAULT_OPTION && form.defaultOption
          ? undefined
          : decl.kind.fromForm(value);
    if (raw !== undefined) setPath(scenario, path, raw);
  }
  // A field the form left at its default that another field implies (a single strategy over 4 GPUs: ddp).
  for (const [path, decl] of entries) {
    if (decl.implied === undefined || getPath(scenario, decl.implied.by) === undefined) continue;
    const current = getPath(scenario, path);
    if (current !== undefined && current !== decl.default) continue;
    const implied = decl.implied.value(viewOf(table, scenario));
    if (implied !== undefined) setPath(scenario, path, implied);
  }
  return { controls, scenario };
}

/**
 * The form's controls and the scenario they describe, for a form state and an inline config (which
 * stands in for the model). What a field shows depends on the fields before it, so the view is
 * read again until the form settles.
 */
export function formModel(
  state: FormState,
  config: Record<string, unknown> | null,
  options: FormOptions = {},
): FormModel {
  const table = options.table ?? loose(SCENARIO_TABLE);
  const words: FieldWordsTable = options.words ?? FIELD_WORDS[options.lang ?? 'en'];
  const entries = formEntries(table);
  const model = config ?? state.model;
  let view = viewOf(table, {});
  let result = pass(entries, table, state, view, model);
  for (let i = 0; i < entries.length; i++) {
    view = viewOf(table, result.scenario);
    const next = pass(entries, table, state, view, model);
    const settled = JSON.stringify(next.scenario) === JSON.stringify(result.scenario);
    result = next;
    if (settled) break;
  }
  return {
    controls: result.controls.map((c) => ({ ...c, label: words[c.path]?.label ?? c.path })),
    scenario: result.scenario,
  };
}

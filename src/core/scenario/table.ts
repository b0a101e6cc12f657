/**
 * The shape of the field table: what one declaration of a scenario field says. Parsing, the CLI flags
 * and their help, the drop rules, the web form and the scenario URL are derived from a table of these
 * (fields.ts holds the real one); each derivation takes the table as a parameter, so a table with one
 * more field needs no other edit.
 */
import type { FieldErrorParams, FieldErrorReason } from './field-errors.js';

/** A scenario seen flat, by dotted path: what a rule reads. */
export type View = Readonly<Record<string, unknown>>;

/** What kind of value a field holds: how it is checked, read from a flag and shown in a form. */
export interface FieldKind {
  readonly type:
    | 'model'
    | 'choice'
    | 'count'
    | 'number'
    | 'flag'
    | 'list'
    | 'targets'
    | 'elements'
    | 'versions'
    | 'catalog-id';
  /** A choice's accepted values, in the order help and the form list them. */
  readonly values?: readonly string[];
  /** The largest whole number a count takes (its limit); the smallest is 1. */
  readonly max?: number;
  /** Checks a value the user gave (`undefined` only for a required field) and returns it as the scenario holds it. */
  parse(value: unknown, path: readonly string[]): unknown;
  /** A flag's text as the value `parse` takes: numbers read, lists split. Throws a flag error. */
  fromText(text: string, flag: FlagDecl, path: readonly string[]): unknown;
  /** A form's text as the value `parse` takes; undefined for an empty field. Never throws: the parser names what is wrong. */
  fromForm(text: string): unknown;
  /** The text a form shows for a value. */
  toText(value: unknown): string;
}

/** One condition a field's value must meet, and the reason it is refused when it does not. */
export type Rule<W = View> = {
  [R in FieldErrorReason]: {
    readonly reason: R;
    /**
     * "applies": the field means something only then. A flag that breaks it drops the field a file or
     * config set (as a method change drops the LoRA settings), the form hides it (or those values),
     * and a value given anyway is refused. "conflict": a contradiction between two settings; refused.
     */
    readonly kind: 'applies' | 'conflict';
    /** The values the rule is about (quantizer "torchao"); absent: any value that is set. */
    readonly values?: readonly string[];
    ok(view: W): boolean;
    params(view: W, value: unknown): FieldErrorParams[R];
  };
}[FieldErrorReason];

/** A flag that sets a field. */
export interface FlagDecl {
  /** Its name without dashes: `micro-batch`. */
  readonly name: string;
  /** The placeholder help shows for its value (`N`, `LIST`); absent: a boolean flag. */
  readonly metavar?: string;
  /** What a boolean flag sets: true, or false for a `--no-` negation. */
  readonly sets?: boolean;
  /** Numbers may be written as people say lengths: 8k is 8192. */
  readonly k?: boolean;
  /** A list flag adds to what the file set instead of replacing it (versions). */
  readonly merge?: boolean;
  /** An example value, for the hint of a bad one. */
  readonly example?: string;
  /** The positional argument that sets the field too (MODEL), and wins over the flag. */
  readonly positional?: string;
}

/** How the web form shows a field. */
export interface FormDecl<W = View> {
  /** Its key in the form state and the URL (`loraRank`). */
  readonly key: string;
  /** `model` is the page's own picker; the rest are drawn by the generic renderer. */
  readonly control: 'select' | 'number' | 'checkbox' | 'text' | 'model';
  readonly testId: string;
  /** The form's value before the user picks one, when it is not the field's default. */
  readonly initial?: string;
  /** A select's first option stands for the default (the parser's own, which may depend on other fields). */
  readonly defaultOption?: boolean;
  /** The value a ticked checkbox sets: true, or a choice's value ("cpu"). */
  readonly checked?: string;
  readonly placeholder?: string;
  /** A number input's lower bound (1 unless given). */
  readonly min?: number;
  /** A select's options when they are not the kind's values (the GPU catalog). */
  options?(): readonly string[];
  /** The option taken when the form's value is not offered (QLoRA's base without a choice: nf4). */
  readonly fallback?: string;
  /** Shown only when this holds too, beyond the field's rules (overlap_comm under ZeRO-1/2). */
  shownWhen?(view: W): boolean;
}

/** One scenario field. */
export interface FieldDecl<W = View> {
  readonly kind: FieldKind;
  /** Given or refused: an absent required field is `kind.parse(undefined)`'s error. */
  readonly required?: boolean;
  /** The value an absent field takes; absent: the field stays absent. */
  readonly default?: unknown;
  /** A default that depends on other fields (precision on the method). */
  defaultOf?(view: W): unknown;
  /** The value that means "not used" (false, "none"): only another value needs the field to apply. */
  readonly off?: unknown;
  /** Whether the scenario keeps a value: a field "present only when true" drops the rest. */
  keep?(value: unknown): boolean;
  readonly rules?: readonly Rule<W>[];
  /** Filled in when the field is absent and a flag (or the form) set `by`: `--gpus 4` alone means ddp. */
  readonly implied?: { readonly by: string; value(view: W): unknown };
  readonly flags?: readonly FlagDecl[];
  readonly form?: FormDecl<W>;
}

/** A field that is an object of fields (`lora`, `parallelism`, `offload`). */
export interface GroupDecl<W = View> {
  /** Absent from the scenario unless its rules hold (lora: only for the LoRA methods). */
  readonly optional?: boolean;
  /** The reason a key that is none of its fields is refused for. */
  readonly unknown: 'unknown-lora-field' | 'unknown-sub-field';
  readonly rules?: readonly Rule<W>[];
}

/** A table of fields, by dotted path in the scenario's order, and the groups their paths go through. */
export interface FieldTable<W = View> {
  readonly fields: Readonly<Record<string, FieldDecl<W>>>;
  readonly groups: Readonly<Record<string, GroupDecl<W>>>;
}

/** The table seen loosely: what the derivations walk (they read values by path, untyped). */
export type AnyTable = FieldTable<View>;

/** The table as the derivations take it: rules read a loose view. */
export function loose<W>(table: FieldTable<W>): AnyTable {
  return table as unknown as AnyTable;
}

/** A path's segments. */
export function segments(path: string): string[] {
  return path.split('.');
}

/** The top-level keys of a table, in order (a group once). */
export function topKeys(table: AnyTable): string[] {
  return [...new Set(Object.keys(table.fields).map((p) => segments(p)[0]!))];
}

/** The paths of a group's fields, in order. */
export function groupFields(table: AnyTable, group: string): string[] {
  return Object.keys(table.fields).filter((p) => p.startsWith(`${group}.`));
}

/** The group a path belongs to, or undefined for a top-level field. */
export function groupOf(path: string): string | undefined {
  const parts = segments(path);
  return parts.length > 1 ? parts[0] : undefined;
}

/** The value at a dotted path of a nested object. */
export function getPath(object: Readonly<Record<string, unknown>>, path: string): unknown {
  let at: unknown = object;
  for (const part of segments(path)) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Sets a dotted path of a nested object, copying the groups it goes through (the caller's stay as they were). */
export function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = segments(path);
  let at = object;
  for (const part of parts.slice(0, -1)) {
    const inner = at[part];
    const copy = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? { ...inner } : {};
    at[part] = copy;
    at = copy as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
}

/** Deletes a dotted path of a nested object, copying the group it is in. */
export function deletePath(object: Record<string, unknown>, path: string): void {
  const parts = segments(path);
  if (parts.length === 1) {
    delete object[path];
    return;
  }
  const group = object[parts[0]!];
  if (group === null || typeof group !== 'object' || Array.isArray(group)) return;
  const copy: Record<string, unknown> = { ...group };
  delete copy[parts[1]!];
  object[parts[0]!] = copy;
}

/** Whether a value was given (JSON's null is "not given", as the parser has always read it). */
export function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Whether a field's value is "set": given, and not its "not used" value. */
export function isSet(decl: FieldDecl<View>, value: unknown): boolean {
  return given(value) && (decl.off === undefined || value !== decl.off);
}

/** Whether a rule is about this value: a value rule about one of its values, or any set value. */
export function ruleConcerns(rule: Rule<View>, decl: FieldDecl<View>, value: unknown): boolean {
  return rule.values === undefined
    ? isSet(decl, value)
    : typeof value === 'string' && rule.values.includes(value);
}

/**
 * The flat view of a scenario object, not yet validated: each field's value, else its default (the
 * fields' own, then those that depend on others). Rules read it to decide what applies.
 */
export function viewOf(table: AnyTable, raw: Readonly<Record<string, unknown>>): View {
  const view: Record<string, unknown> = {};
  for (const [path, decl] of Object.entries(table.fields)) {
    const value = getPath(raw, path);
    view[path] = given(value) ? value : decl.default;
  }
  for (const [path, decl] of Object.entries(table.fields)) {
    if (view[path] === undefined && decl.defaultOf) view[path] = decl.defaultOf(view);
  }
  return view;
}

/** Whether every value-independent "applies" rule of a field (or group) holds. */
export function applies(rules: readonly Rule<View>[] | undefined, view: View): boolean {
  return (rules ?? []).every((r) => r.kind !== 'applies' || r.values !== undefined || r.ok(view));
}

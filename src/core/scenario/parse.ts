/**
 * Parsing derived from a field table: every key known, every value checked by its kind, every default
 * filled (those that depend on other fields last), every rule of what applies and what conflicts
 * checked, and the scenario built in the table's order with what each field keeps.
 */
import { fieldError } from './field-errors.js';
import {
  type AnyTable,
  applies,
  type FieldDecl,
  getPath,
  given,
  groupFields,
  groupOf,
  type Rule,
  ruleConcerns,
  segments,
  topKeys,
  type View,
} from './table.js';

function record(value: unknown, path: readonly string[]): Readonly<Record<string, unknown>> | undefined {
  if (!given(value)) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw fieldError('not-an-object', path, {});
  return value as Record<string, unknown>;
}

function refuse(rule: Rule<View>, path: readonly string[], view: View, value: unknown): never {
  // The rule's params are those of its reason: the union narrows them, so the cast only names it.
  throw fieldError(rule.reason as 'needs-zero', path, rule.params(view, value) as { strategy: string });
}

/**
 * Throws the first rule of `rules` the view breaks: a rule about some values for the value in effect
 * (a default too: QLoRA with no quantization), any other for a value the user set.
 */
function checkRules(
  rules: readonly Rule<View>[] | undefined,
  decl: FieldDecl<View> | null,
  path: readonly string[],
  values: { readonly given: unknown; readonly effective: unknown },
  view: View,
): void {
  for (const rule of rules ?? []) {
    const value = rule.values === undefined ? values.given : values.effective;
    const concerned = decl ? ruleConcerns(rule, decl, value) : given(value);
    if (concerned && !rule.ok(view)) refuse(rule, path, view, value);
  }
}

/**
 * The parser of a table: validates a scenario object (parsed JSON or built from flags) and fills every
 * default; throws a HeadroomUserError naming the field and the accepted values.
 */
export function parserOf(table: AnyTable): (input: unknown) => Record<string, unknown> {
  const keys = topKeys(table);
  const fields = Object.entries(table.fields);
  return (input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw fieldError('not-a-scenario', [], {});
    }
    const raw = input as Record<string, unknown>;
    for (const key of Object.keys(raw)) {
      if (!keys.includes(key)) throw fieldError('unknown-field', [key], { known: keys });
    }
    for (const [name, group] of Object.entries(table.groups)) {
      const inner = record(raw[name], [name]);
      const known = groupFields(table, name).map((p) => segments(p)[1]!);
      for (const key of Object.keys(inner ?? {})) {
        if (!known.includes(key)) throw fieldError(group.unknown, [name, key], { known });
      }
    }
    // Each value by its kind, in the table's order.
    const values: Record<string, unknown> = {};
    for (const [path, decl] of fields) {
      const value = getPath(raw, path);
      if (given(value) || decl.required) values[path] = decl.kind.parse(value ?? undefined, segments(path));
    }
    // What applies, and the defaults of what does.
    const view: Record<string, unknown> = { ...values };
    for (const [path, decl] of fields) if (view[path] === undefined) view[path] = decl.default;
    for (const [path, decl] of fields) {
      if (values[path] !== undefined || !decl.defaultOf) continue;
      view[path] = decl.defaultOf(view);
    }
    for (const [name, group] of Object.entries(table.groups)) {
      checkRules(group.rules, null, [name], { given: raw[name], effective: raw[name] }, view);
    }
    for (const [path, decl] of fields) {
      checkRules(decl.rules, decl, segments(path), { given: values[path], effective: view[path] }, view);
    }
    // The scenario, in the table's order: a field that does not apply takes no default.
    const out: Record<string, unknown> = {};
    for (const [path, decl] of fields) {
      const group = groupOf(path);
      const groupDecl = group === undefined ? undefined : table.groups[group];
      if (groupDecl?.optional && !applies(groupDecl.rules, view)) continue;
      if (group !== undefined && out[group] === undefined) out[group] = {};
      const value =
        values[path] !== undefined ? values[path] : applies(decl.rules, view) ? view[path] : undefined;
      if (value === undefined || (decl.keep && !decl.keep(value))) continue;
      if (group === undefined) out[path] = value;
      else (out[group] as Record<string, unknown>)[segments(path)[1]!] = value;
    }
    return out;
  };
}

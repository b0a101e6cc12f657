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
  // What the parser reads of the table, worked out once: each field's segments, group and group rules.
  const keys = topKeys(table);
  const fields = Object.entries(table.fields).map(([path, decl]) => {
    const parts = segments(path);
    const group = groupOf(path);
    return { path, decl, parts, group, groupDecl: group === undefined ? undefined : table.groups[group] };
  });
  const groups = Object.entries(table.groups).map(([name, group]) => ({
    name,
    group,
    known: groupFields(table, name).map((p) => segments(p)[1]!),
  }));
  const at = (raw: Readonly<Record<string, unknown>>, parts: readonly string[]): unknown => {
    const top = raw[parts[0]!];
    if (parts.length === 1) return top;
    return top !== null && typeof top === 'object' && !Array.isArray(top)
      ? (top as Record<string, unknown>)[parts[1]!]
      : undefined;
  };
  return (input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw fieldError('not-a-scenario', [], {});
    }
    const raw = input as Record<string, unknown>;
    for (const key of Object.keys(raw)) {
      if (!keys.includes(key)) throw fieldError('unknown-field', [key], { known: keys });
    }
    for (const { name, group, known } of groups) {
      const inner = record(raw[name], [name]);
      for (const key of Object.keys(inner ?? {})) {
        if (!known.includes(key)) throw fieldError(group.unknown, [name, key], { known });
      }
    }
    // Each value by its kind, in the table's order.
    const values = new Map<string, unknown>();
    for (const { path, decl, parts } of fields) {
      const value = at(raw, parts);
      if (given(value) || decl.required) values.set(path, decl.kind.parse(value ?? undefined, parts));
    }
    // What applies, and the defaults of what does.
    // Built in the table's order every time, so the engine keeps one shape for it (a spread would not).
    const view: Record<string, unknown> = {};
    for (const { path, decl } of fields) view[path] = values.has(path) ? values.get(path) : decl.default;
    for (const { path, decl } of fields) {
      if (values.has(path) || !decl.defaultOf) continue;
      view[path] = decl.defaultOf(view);
    }
    for (const { name, group } of groups) {
      checkRules(group.rules, null, [name], { given: raw[name], effective: raw[name] }, view);
    }
    for (const { path, decl, parts } of fields) {
      checkRules(decl.rules, decl, parts, { given: values.get(path), effective: view[path] }, view);
    }
    // The scenario, in the table's order: a field that does not apply takes no default.
    const out: Record<string, unknown> = {};
    const groupOn = new Map<string, boolean>();
    for (const { path, decl, parts, group, groupDecl } of fields) {
      if (group !== undefined) {
        if (!groupOn.has(group)) groupOn.set(group, !groupDecl?.optional || applies(groupDecl.rules, view));
        if (!groupOn.get(group)) continue;
        if (out[group] === undefined) out[group] = {};
      }
      const value = values.has(path) ? values.get(path) : applies(decl.rules, view) ? view[path] : undefined;
      if (value === undefined || (decl.keep && !decl.keep(value))) continue;
      if (group === undefined) out[path] = value;
      else (out[group] as Record<string, unknown>)[parts[1]!] = value;
    }
    return out;
  };
}

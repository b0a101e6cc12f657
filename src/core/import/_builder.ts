/** Internal: accumulates scenario fields and the import report while a mapper walks a config. */
import type {
  AssumedField,
  ConfigFormat,
  ImportReason,
  ImportReport,
  MappedKey,
  UnmappedKey,
  UnmappedKind,
} from './import-report.js';

export type Config = Readonly<Record<string, unknown>>;

/** Reads a dotted key from a parsed config (`fsdp_config.fsdp_offload_params`). */
export function at(config: Config, key: string): unknown {
  let value: unknown = config;
  for (const part of key.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** True when the key is written in the file (even as null or false). */
export function has(config: Config, key: string): boolean {
  const dot = key.lastIndexOf('.');
  const parent = dot < 0 ? config : at(config, key.slice(0, dot));
  return (
    parent !== null &&
    typeof parent === 'object' &&
    !Array.isArray(parent) &&
    Object.hasOwn(parent, key.slice(dot + 1))
  );
}

/**
 * A table's entry for a name from the file, looked up as the table's own key: `constructor` or
 * `toString` in a config must not find Object.prototype's.
 */
export function own<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  const name = typeof key === 'number' ? String(key) : key;
  return typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
}

/**
 * A config value as text, for matching and messages: a string as it is, a number or boolean as
 * written, anything else as JSON (String() throws on `{"toString": 1}`), cut to 80 characters.
 */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return (json ?? typeof value).slice(0, 80);
}

/** YAML and JSON spellings of "yes": true, "true", "True", 1. */
export function truthy(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === 'string' && /^(true|yes|1)$/i.test(value));
}

/** A whole number from a number or a numeric string, else undefined. */
export function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** A finite number from a number or a numeric string, else undefined. */
export function finiteNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export class ReportBuilder {
  private readonly scenario: Record<string, unknown> = {};
  private readonly mapped: MappedKey[] = [];
  private readonly unmapped: UnmappedKey[] = [];
  private readonly assumed: AssumedField[] = [];

  constructor(private readonly format: ConfigFormat) {}

  /** Sets a scenario field from a config key. */
  map(key: string, value: unknown, field: string, to: unknown): void {
    this.setField(field, to);
    this.mapped.push({ key, value, field, to });
  }

  /** Records a memory-relevant key that did not become a field. */
  skip(key: string, value: unknown, kind: UnmappedKind, reason: ImportReason): void {
    if (this.unmapped.some((u) => u.key === key)) return;
    this.unmapped.push({ key, value, kind, reason });
  }

  /**
   * Records each key of `reasons` the config writes as one no scenario field holds, with why; keys are
   * reported under `prefix`. `whenOn`: only when its value is on (neither false nor null).
   */
  unmodelled(
    config: Config,
    reasons: Iterable<readonly [string, ImportReason]>,
    options: { readonly prefix?: string; readonly whenOn?: boolean } = {},
  ): void {
    for (const [key, why] of reasons) {
      if (!has(config, key)) continue;
      const value = at(config, key);
      if (options.whenOn && (value === false || value === null)) continue;
      this.skip(`${options.prefix ?? ''}${key}`, value, 'no-field', why);
    }
  }

  /** Fills a field the file leaves unset with the trainer's default (never over a mapped value). */
  assume(field: string, value: unknown, reason: ImportReason): void {
    if (this.get(field) !== undefined) return;
    this.setField(field, value);
    this.assumed.push({ field, value, reason });
  }

  /** The current value of a dotted scenario field. */
  get(field: string): unknown {
    return at(this.scenario, field);
  }

  /** Whether the field was set from the file (not assumed). */
  isMapped(field: string): boolean {
    return this.mapped.some((m) => m.field === field);
  }

  /** Drops a field and its mapped/assumed records (used when a later key overrides an earlier one). */
  unset(field: string): void {
    const parts = field.split('.');
    const last = parts.pop()!;
    let target: Record<string, unknown> | undefined = this.scenario;
    for (const part of parts) target = target?.[part] as Record<string, unknown> | undefined;
    if (target) delete target[last];
    if (parts.length > 0) {
      const parent = at(this.scenario, parts.join('.'));
      if (parent && typeof parent === 'object' && Object.keys(parent).length === 0)
        this.unset(parts.join('.'));
    }
    for (const list of [this.mapped, this.assumed]) {
      for (let i = list.length - 1; i >= 0; i--) if (list[i]!.field === field) list.splice(i, 1);
    }
  }

  private setField(field: string, value: unknown): void {
    const parts = field.split('.');
    const last = parts.pop()!;
    let target = this.scenario;
    for (const part of parts) {
      const next = target[part];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) target[part] = {};
      target = target[part] as Record<string, unknown>;
    }
    target[last] = value;
  }

  /** Merges a sub-report (a referenced DeepSpeed file) under a key prefix. */
  absorb(report: ImportReport, prefix: string): void {
    for (const m of report.mapped) this.map(`${prefix}${m.key}`, m.value, m.field, m.to);
    for (const u of report.unmapped) this.skip(`${prefix}${u.key}`, u.value, u.kind, u.reason);
  }

  build(): ImportReport {
    return {
      format: this.format,
      scenario: JSON.parse(JSON.stringify(this.scenario)) as Record<string, unknown>,
      mapped: [...this.mapped],
      unmapped: [...this.unmapped],
      assumed: [...this.assumed],
    };
  }
}

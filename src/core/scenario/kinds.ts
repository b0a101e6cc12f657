/**
 * The kinds of value a scenario field holds, each a small validator with its reading from a flag and
 * from a form: the one place a count's range, a choice's values or a version's spelling is checked.
 */
import { fieldError, shown } from './field-errors.js';
import type { FieldKind, FlagDecl } from './table.js';

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A flag's text read as a number ("8k" as 8 × 1024 with `k`); a flag error naming the limit otherwise. */
function numberFromText(text: string, flag: FlagDecl, path: readonly string[], max?: number): number {
  const thousands = flag.k ? /^\s*(\d+)\s*k\s*$/i.exec(text) : null;
  const n = thousands ? Number(thousands[1]) * 1024 : Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) {
    throw fieldError('flag-not-number', path, { raw: text, ...(max === undefined ? {} : { max }) });
  }
  return n;
}

function numberFromForm(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

const asText = (value: unknown): string =>
  value === undefined || value === null ? '' : Array.isArray(value) ? value.join(',') : String(value);

/** One of a list of words; `declined` values are known but refused for a reason of their own. */
export function choice(
  values: readonly string[],
  declined: Readonly<Record<string, 'not-modelled'>> = {},
): FieldKind {
  return {
    type: 'choice',
    values,
    parse(value, path) {
      if (typeof value === 'string' && declined[value] !== undefined)
        throw fieldError(declined[value], path, { value: shown(value) });
      if (typeof value === 'string' && values.includes(value)) return value;
      throw fieldError('not-one-of', path, { value: shown(value), accepted: values });
    },
    fromText: (text) => text,
    fromForm: (text) => text,
    toText: asText,
  };
}

/**
 * One of a few numbers (FSDP's version: 1 or 2). A flag's or form's text is read as the number; JSON
 * may give the number or its text ("2").
 */
export function numberChoice(values: readonly number[]): FieldKind {
  const words = values.map(String);
  return {
    type: 'choice',
    values: words,
    parse(value, path) {
      const n = typeof value === 'string' && words.includes(value) ? Number(value) : value;
      if (typeof n === 'number' && values.includes(n)) return n;
      throw fieldError('not-one-of', path, { value: shown(value), accepted: words });
    },
    fromText: (text) => text.trim(),
    fromForm: (text) => (text.trim() === '' ? undefined : text.trim()),
    toText: asText,
  };
}

/** A whole number from 1 to `max`: the field's limit, past which no training run goes. */
export function count(max: number): FieldKind {
  return {
    type: 'count',
    max,
    parse(value, path) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
        throw fieldError('not-whole-number', path, { value: shown(value), min: 1, max });
      if (value > max) throw fieldError('above-limit', path, { value, min: 1, max });
      return value;
    },
    fromText: (text, flag, path) => numberFromText(text, flag, path, max),
    fromForm: numberFromForm,
    toText: asText,
  };
}

/** A number checked by `ok`, refused for `reason` otherwise (LoRA dropout, alpha). */
export function number(ok: (n: number) => boolean, reason: 'not-fraction' | 'not-positive'): FieldKind {
  return {
    type: 'number',
    parse(value, path) {
      if (typeof value === 'number' && ok(value)) return value;
      throw fieldError(reason, path, { value: shown(value) });
    },
    fromText: (text, flag, path) => numberFromText(text, flag, path),
    fromForm: numberFromForm,
    toText: asText,
  };
}

/** true or false. */
export function flag(): FieldKind {
  return {
    type: 'flag',
    parse(value, path) {
      if (typeof value === 'boolean') return value;
      throw fieldError('not-boolean', path, { value: shown(value) });
    },
    fromText: (text) => text === 'true',
    fromForm: (text) => (text === 'true' ? true : undefined),
    toText: (value) => (value === true ? 'true' : 'false'),
  };
}

/** A list of module names. */
export function moduleList(): FieldKind {
  return {
    type: 'list',
    parse(value, path) {
      if (Array.isArray(value) && value.every((t) => typeof t === 'string')) return value;
      throw fieldError('not-module-list', path, {});
    },
    fromText: splitList,
    fromForm: (text) => (text.trim() === '' ? undefined : splitList(text)),
    toText: asText,
  };
}

/** "all-linear", or a non-empty list of module names (LoRA targets). */
export function targets(): FieldKind {
  const read = (text: string) => (text.trim() === 'all-linear' ? 'all-linear' : splitList(text));
  return {
    type: 'targets',
    parse(value, path) {
      if (value === 'all-linear') return value;
      if (Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'string')) return value;
      throw fieldError('not-targets', path, {});
    },
    fromText: read,
    fromForm: read,
    toText: asText,
  };
}

/** A whole number of elements (at least 1), or "auto" (DeepSpeed's bucket sizes). */
export function elementsOrAuto(): FieldKind {
  return {
    type: 'elements',
    parse(value, path) {
      if (value === 'auto' || (typeof value === 'number' && Number.isInteger(value) && value >= 1))
        return value;
      throw fieldError('not-bucket-size', path, { value: shown(value) });
    },
    fromText: (text, flag, path) => (text === 'auto' ? 'auto' : numberFromText(text, flag, path)),
    fromForm(text) {
      const raw = text.trim();
      if (raw === '') return undefined;
      if (raw === 'auto') return 'auto';
      const n = Number(raw);
      // A word the parser should name: passed on as written, so the error says which field.
      return Number.isFinite(n) ? n : raw;
    },
    toText: asText,
  };
}

/** A version as packages print it: digits and dots first, then a local or pre-release tail. */
export const VERSION_PATTERN = /^\d{1,6}(\.\d{1,6}){0,3}[0-9A-Za-z.+-]{0,32}$/;

/** Package versions by the names in `keys` ("2.5.1", "4.46.0.dev0", "2.5.1+cu121"). */
export function versions(keys: readonly string[]): FieldKind {
  return {
    type: 'versions',
    parse(value, path) {
      if (typeof value !== 'object' || Array.isArray(value) || value === null)
        throw fieldError('not-an-object', path, {});
      const out: Record<string, string> = {};
      for (const [key, version] of Object.entries(value)) {
        if (!keys.includes(key)) throw fieldError('unknown-package', [...path, key], { known: keys });
        if (typeof version !== 'string' || !VERSION_PATTERN.test(version))
          throw fieldError('not-version', [...path, key], { value: shown(version) });
        out[key] = version;
      }
      return out;
    },
    /** `torch=2.5.1,transformers=4.46.0` as an object; the parser checks the names and versions. */
    fromText(text, _flag, path) {
      const out: Record<string, string> = {};
      for (const item of splitList(text)) {
        const eq = item.indexOf('=');
        if (eq <= 0) throw fieldError('flag-not-package-version', path, { raw: text, item });
        out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
      }
      return out;
    },
    fromForm: () => undefined,
    toText: (value) =>
      value !== null && typeof value === 'object'
        ? Object.entries(value)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(',')
        : '',
  };
}

/** An id of the embedded catalog (a GPU): a non-empty string, looked up where the catalog is. */
export function catalogId(): FieldKind {
  return {
    type: 'catalog-id',
    parse(value, path) {
      if (typeof value === 'string' && value.trim() !== '') return value;
      throw fieldError('not-gpu-id', path, {});
    },
    fromText: (text) => text,
    fromForm: (text) => (text === '' ? undefined : text),
    toText: asText,
  };
}

/** A model reference: a catalog id, a Hugging Face repo id, or an inline config.json object. */
export function modelRef(): FieldKind {
  return {
    type: 'model',
    parse(value, path) {
      if (typeof value === 'string') {
        if (value.trim() === '') throw fieldError('model-empty', path, {});
        return value;
      }
      if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value))
        throw fieldError('model-missing', path, {});
      return value;
    },
    fromText: (text) => text,
    fromForm: (text) => text,
    toText: (value) => (typeof value === 'string' ? value : ''),
  };
}

/**
 * The scenario flags every scenario-taking command shares, derived from the field table
 * (src/core/scenario/fields.ts): the parseArgs options, the help section (English or Chinese), and the
 * merge of flags over a --scenario file or an imported config, which keeps where each field came from,
 * so an error names the flag, file or config key the user set it with.
 */
import type { FieldSource } from '../core/errors.js';
import { isUserError } from '../core/errors.js';
import {
  type AnyTable,
  deletePath,
  type FieldDecl,
  getPath,
  given,
  loose,
  ruleConcerns,
  setPath,
  type View,
  viewOf,
} from '../core/scenario/table.js';
import { SCENARIO_FIELDS, SCENARIO_TABLE } from '../core/scenario.js';
import { withSource } from '../words/errors.js';
import { FIELD_WORDS, type FieldWordsTable, SCENARIO_HELP_WORDS } from '../words/fields.js';
import { COLON, type Lang } from '../words/lang.js';
import { rememberSources, type SourceLookup } from './_last-sources.js';

type FlagOf<D> = D extends { readonly flags: readonly (infer F)[] } ? F : never;
type AllFlags<T> = { [K in keyof T]: FlagOf<T[K]> }[keyof T];
/** The parseArgs options of a table's flags: a flag with a metavar takes a string, the rest are booleans. */
export type OptionsOf<T> = {
  readonly [F in AllFlags<T> as F extends { readonly name: infer N extends string } ? N : never]: {
    readonly type: F extends { readonly metavar: string } ? 'string' : 'boolean';
  };
};

/** The parseArgs options of every flag of a table. */
export function scenarioOptions<T extends Readonly<Record<string, FieldDecl<never>>>>(
  fields: T,
): OptionsOf<T> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const decl of Object.values(fields)) {
    for (const flag of decl.flags ?? []) {
      options[flag.name] = { type: flag.metavar === undefined ? 'boolean' : 'string' };
    }
  }
  return options as OptionsOf<T>;
}

/** parseArgs option table for the scenario flags and --scenario. */
export const SCENARIO_OPTIONS = {
  ...scenarioOptions(SCENARIO_FIELDS),
  scenario: { type: 'string' },
} as const;

// ---------------------------------------------------------------------------------------------------
// --help

const WIDTH = 100;
const TEXT_COLUMN = 28;

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60]/;

/** How many columns a string takes on a terminal: CJK and full-width characters take two. */
function columns(text: string): number {
  if (!WIDE.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/** A string padded with spaces to `width` columns. */
function padTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - columns(text)));
}

/** Words wrapped to `width` columns: at spaces, and inside a run longer than a line (Chinese). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(' ')) {
    const w = columns(word);
    if (line !== '' && used + 1 + w <= width) {
      line += ` ${word}`;
      used += 1 + w;
      continue;
    }
    if (line === '' && w <= width) {
      line = word;
      used = w;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    used = 0;
    for (const ch of word) {
      const c = WIDE.test(ch) ? 2 : 1;
      if (used + c > width) {
        lines.push(line);
        line = '';
        used = 0;
      }
      line += ch;
      used += c;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** One help entry: the flag, its text wrapped under the text column, and the default at the end. */
function helpEntry(label: string, text: string, dflt: string | undefined): string {
  const indent = ' '.repeat(TEXT_COLUMN);
  const head = `  ${label}`;
  const first = columns(head) < TEXT_COLUMN ? padTo(head, TEXT_COLUMN) : `${head} `;
  const body = wrap(text, WIDTH - TEXT_COLUMN);
  const lines =
    body.length === 0 ? [first.trimEnd()] : [first + body[0], ...body.slice(1).map((l) => indent + l)];
  if (dflt !== undefined) {
    const tag = `[${dflt}]`;
    const last = lines[lines.length - 1]!;
    if (columns(last) + 2 + columns(tag) <= WIDTH) {
      lines[lines.length - 1] = columns(last) < 76 ? `${padTo(last, 76)}  ${tag}` : `${last}  ${tag}`;
    } else lines.push(indent + tag);
  }
  return lines.join('\n');
}

/** The default as help shows it: the words' own, else the table's (none for flags and empty lists). */
function helpDefault(decl: FieldDecl<View>, words: { readonly default?: string }): string | undefined {
  if (words.default !== undefined) return words.default;
  const value = decl.default;
  if (value === undefined || typeof value === 'boolean') return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(',');
  return String(value);
}

/**
 * The scenario section of a command's --help in a language: one entry per flag of the table, in its
 * order: the flag and its placeholder, a choice's values, the words (src/words/fields.ts) and the
 * default. `--scenario FILE` follows the model.
 */
export function scenarioFlagsHelp(
  lang: Lang,
  table: AnyTable = loose(SCENARIO_TABLE),
  words: FieldWordsTable = FIELD_WORDS[lang],
): string {
  const head = SCENARIO_HELP_WORDS[lang];
  const sep = COLON[lang];
  const entries: string[] = [head.title];
  for (const [path, decl] of Object.entries(table.fields)) {
    const said = words[path] ?? { label: path, help: '' };
    const values = decl.kind.values?.join(' | ');
    const text = [values, said.help].filter(Boolean).join(sep);
    for (const flag of decl.flags ?? []) {
      const name = `--${flag.name}${flag.metavar === undefined ? '' : ` ${flag.metavar}`}`;
      const label = flag.positional === undefined ? name : `${flag.positional} | ${name}`;
      if (flag.sets === false) entries.push(helpEntry(label, said.helpNo ?? said.help, undefined));
      else
        entries.push(
          helpEntry(label, text, flag.metavar === undefined ? undefined : helpDefault(decl, said)),
        );
      if (flag.positional !== undefined)
        entries.push(helpEntry('--scenario FILE', head.scenarioFile, undefined));
    }
  }
  return entries.join('\n');
}

/** One help line per scenario flag, in English (commands' help texts embed it; main swaps in Chinese). */
export const SCENARIO_FLAGS_HELP = scenarioFlagsHelp('en');

// ---------------------------------------------------------------------------------------------------
// Where each field came from

/** Where each field of a merged scenario was set, by dotted path. */
export class ScenarioSources implements SourceLookup {
  private readonly byPath = new Map<string, FieldSource>();

  set(path: string, source: FieldSource): void {
    this.byPath.set(path, source);
  }

  get(path: string): FieldSource | undefined {
    return this.byPath.get(path);
  }

  /** Whether a flag set the field at `path` or one inside it. */
  flagWithin(path: string): boolean {
    for (const [key, source] of this.byPath) {
      if (source.kind === 'flag' && (key === path || key.startsWith(`${path}.`))) return true;
    }
    return false;
  }

  /**
   * Where the field an error is about was set: its own source, else its group's (a file's `lora`),
   * else the first flag that set a field inside it (`--lora-rank` for `lora`).
   */
  of(path: readonly string[]): FieldSource | undefined {
    for (let n = path.length; n > 0; n--) {
      const source = this.byPath.get(path.slice(0, n).join('.'));
      if (source !== undefined) return source;
    }
    if (path.length === 0) return undefined;
    const prefix = `${path.join('.')}.`;
    for (const [key, source] of this.byPath)
      if (source.kind === 'flag' && key.startsWith(prefix)) return source;
    return undefined;
  }
}

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** Where a field of the base (a file, an imported config) came from, by path; undefined: unnamed. */
export type BaseSource = (path: string) => FieldSource | undefined;

/**
 * A user error about a field, named the way the user set that field (`--micro-batch -2 …`,
 * `run.json: microBatchSize: …`); any other error comes back as it is. `command` names the help that
 * explains a flag's values.
 */
export function named(
  error: unknown,
  sources: SourceLookup | null,
  command: string,
  table: AnyTable = loose(SCENARIO_TABLE),
): unknown {
  if (!isUserError(error) || error.source !== undefined || sources === null) return error;
  // An error raised outside the table names its field in `where` and opens its message with it.
  const where = error.where;
  const legacy = where !== undefined && where in table.fields && error.message.startsWith(`${where}: `);
  const path = error.path ?? (legacy ? where.split('.') : undefined);
  if (path === undefined) return error;
  const source = sources.of(path);
  return source === undefined ? error : withSource(error, source, { command });
}

function recordBase(
  table: AnyTable,
  base: Readonly<Record<string, unknown>>,
  sources: ScenarioSources,
  baseSource: BaseSource,
): void {
  const note = (path: string) => {
    const source = baseSource(path);
    if (source !== undefined) sources.set(path, source);
  };
  for (const [key, value] of Object.entries(base)) {
    note(key);
    if (key in table.groups && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) note(`${key}.${inner}`);
    }
  }
}

/**
 * Drops what a flag made meaningless in the base: a field a file or config set whose "applies" rule
 * held there and fails once the flags are merged (`--method full` drops the file's LoRA settings and
 * its quantization; `--strategy zero3` its FSDP options). What a flag itself set is never dropped:
 * asked for on the same line, a contradiction is an error.
 */
function dropMeaningless(
  table: AnyTable,
  base: Readonly<Record<string, unknown>>,
  raw: Record<string, unknown>,
  sources: ScenarioSources,
): void {
  const baseView = viewOf(table, base);
  const entries = [
    ...Object.entries(table.groups).map(([path, g]) => [path, g.rules, null] as const),
    ...Object.entries(table.fields).map(([path, d]) => [path, d.rules, d] as const),
  ];
  for (let pass = 0; pass < entries.length; pass++) {
    const view = viewOf(table, raw);
    const drop = entries.find(([path, rules, decl]) => {
      const value = getPath(raw, path);
      if (!given(value) || sources.flagWithin(path)) return false;
      return (rules ?? []).some(
        (rule) =>
          rule.kind === 'applies' &&
          (decl === null || ruleConcerns(rule, decl, value)) &&
          rule.ok(baseView) &&
          !rule.ok(view),
      );
    });
    if (drop === undefined) return;
    deletePath(raw, drop[0]);
  }
}

/**
 * Merges scenario flags over a base scenario object (from a file, or empty) and says where each field
 * came from. Validation happens later in the parser; here only numbers and lists are read (a bad
 * number is the flag's error), implied values filled (`--gpus 4` alone means ddp) and what the flags
 * made meaningless in the base dropped.
 */
export function mergeScenarioFlags(
  base: Readonly<Record<string, unknown>>,
  values: Values,
  positionalModel?: string,
  options: { readonly table?: AnyTable; readonly baseSource?: BaseSource } = {},
): { raw: Record<string, unknown>; sources: ScenarioSources } {
  const table = options.table ?? loose(SCENARIO_TABLE);
  const raw: Record<string, unknown> = { ...base };
  const sources = new ScenarioSources();
  recordBase(table, base, sources, options.baseSource ?? (() => undefined));
  for (const [path, decl] of Object.entries(table.fields)) {
    for (const flag of decl.flags ?? []) {
      const fromPositional = flag.positional !== undefined && positionalModel !== undefined;
      const given = fromPositional ? positionalModel : values[flag.name];
      if (flag.metavar === undefined) {
        if (given !== true) continue;
        setPath(raw, path, flag.sets ?? true);
        sources.set(path, {
          kind: 'flag',
          flag: flag.name,
          ...(flag.example ? { example: flag.example } : {}),
        });
        continue;
      }
      if (given === undefined || typeof given !== 'string') continue;
      const source: FieldSource = {
        kind: 'flag',
        flag: flag.name,
        typed: given,
        ...(flag.example ? { example: flag.example } : {}),
      };
      let value: unknown;
      try {
        value = decl.kind.fromText(given, flag, path.split('.'));
      } catch (error) {
        throw isUserError(error) ? withSource(error, source) : error;
      }
      const before = getPath(raw, path);
      if (flag.merge && before !== null && typeof before === 'object' && !Array.isArray(before))
        value = { ...before, ...(value as object) };
      setPath(raw, path, value);
      if (!fromPositional) sources.set(path, source);
    }
  }
  for (const [path, decl] of Object.entries(table.fields)) {
    if (decl.implied === undefined || given(getPath(raw, path))) continue;
    const by = sources.get(decl.implied.by);
    if (by?.kind !== 'flag') continue;
    const value = decl.implied.value(viewOf(table, raw));
    if (value === undefined) continue;
    setPath(raw, path, value);
    sources.set(path, by);
  }
  dropMeaningless(table, base, raw, sources);
  rememberSources(sources);
  return { raw, sources };
}

/**
 * Merges scenario flags over a base scenario object (from a file, or empty); `baseSource` says where
 * the base's fields came from, so errors name them. Validation happens later in parseScenario.
 */
export function applyScenarioFlags(
  base: Readonly<Record<string, unknown>>,
  values: Values,
  positionalModel?: string,
  baseSource?: BaseSource,
): Record<string, unknown> {
  return mergeScenarioFlags(base, values, positionalModel, baseSource ? { baseSource } : {}).raw;
}

/**
 * What differs between two recorded runs: the configuration (scenario fields when both runs have a
 * scenario, else the command line's options) and the peaks at each layer. More than one changed
 * variable gets a warning: the change in memory cannot then be put down to any one of them.
 */
import type { MessageOf } from './message.js';
import type { RunRecord } from './run-record.js';

export interface VariableChange {
  /** A scenario field path (`lora.rank`, `microBatchSize`), a command option (`--batch-size`), `gpu` or `program`. */
  readonly name: string;
  /** The values as text; null where a run does not have the variable. */
  readonly a: string | null;
  readonly b: string | null;
}

export type PeakLayer = 'allocated' | 'reserved' | 'device';

export interface PeakChange {
  readonly layer: PeakLayer;
  readonly aBytes: number | null;
  readonly bBytes: number | null;
  /** b − a; null unless both were recorded. */
  readonly deltaBytes: number | null;
  /** (b − a) / a × 100; null unless both were recorded and a > 0. */
  readonly deltaPercent: number | null;
}

/** Why a difference in memory cannot be put down to one variable. */
export interface RunDiffWarningParams {
  /** More than one variable changed (their names, in order). */
  readonly 'several-changed': { readonly names: readonly string[] };
  /** Nothing recorded differs between the runs. */
  readonly 'nothing-changed': { readonly a: number; readonly b: number };
}
export type RunDiffWarning = MessageOf<RunDiffWarningParams>;

export interface RunDiff {
  readonly a: number;
  readonly b: number;
  /** `scenario` when both runs carry one and it differs; `command` otherwise. */
  readonly comparedBy: 'scenario' | 'command';
  readonly changes: readonly VariableChange[];
  readonly peaks: readonly PeakChange[];
  /** Set when more than one variable changed, or none did (words: src/words/runs.ts). */
  readonly warning: RunDiffWarning | null;
}

type Flat = Map<string, string>;

function flatten(value: unknown, prefix: string, out: Flat): Flat {
  if (Array.isArray(value)) {
    out.set(prefix, value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(','));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined) {
    out.set(prefix, String(value));
  }
  return out;
}

/**
 * The options of a command line: `--key value`, `--key=value`, `--flag` (value "true"); other
 * words are numbered positionals (`arg1`, ...); argv[0] is the `program`.
 */
export function commandOptions(argv: readonly string[]): Flat {
  const out: Flat = new Map();
  if (argv.length === 0) return out;
  out.set('program', argv[0]!);
  let positional = 0;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (/^--?[A-Za-z]/.test(word)) {
      const eq = word.indexOf('=');
      if (eq > 0) {
        out.set(word.slice(0, eq), word.slice(eq + 1));
        continue;
      }
      const next = argv[i + 1];
      if (next !== undefined && !/^--?[A-Za-z]/.test(next)) {
        out.set(word, next);
        i++;
      } else {
        out.set(word, 'true');
      }
      continue;
    }
    positional++;
    out.set(`arg${positional}`, word);
  }
  return out;
}

function gpuNames(run: RunRecord): string | null {
  const gpus = run.env.gpus;
  if (!Array.isArray(gpus) || gpus.length === 0) return null;
  return gpus.map((g) => String((g as { name?: unknown }).name ?? '?')).join(', ');
}

function compare(a: Flat, b: Flat): VariableChange[] {
  const names = [...new Set([...a.keys(), ...b.keys()])];
  return names
    .filter((n) => a.get(n) !== b.get(n))
    .map((n) => ({ name: n, a: a.get(n) ?? null, b: b.get(n) ?? null }));
}

function peak(layer: PeakLayer, a: number | null, b: number | null): PeakChange {
  const both = a !== null && b !== null;
  return {
    layer,
    aBytes: a,
    bBytes: b,
    deltaBytes: both ? b - a : null,
    deltaPercent: both && a > 0 ? ((b - a) / a) * 100 : null,
  };
}

/** Compares run `b` against run `a`. */
export function diffRuns(a: RunRecord, b: RunRecord): RunDiff {
  // The scenario names the variables best; when it is missing on one side, or identical while the
  // commands differ (the same --scenario with a changed script flag), the command line says what changed.
  const scenarioChanges =
    a.scenario && b.scenario
      ? compare(flatten(a.scenario, '', new Map()), flatten(b.scenario, '', new Map()))
      : null;
  const comparedBy = scenarioChanges && scenarioChanges.length > 0 ? 'scenario' : 'command';
  const changes =
    comparedBy === 'scenario'
      ? scenarioChanges!
      : compare(commandOptions(a.command), commandOptions(b.command));
  const ga = gpuNames(a);
  const gb = gpuNames(b);
  if (ga !== null && gb !== null && ga !== gb && !changes.some((c) => c.name === 'gpu')) {
    changes.push({ name: 'gpu', a: ga, b: gb });
  }
  const warning: RunDiffWarning | null =
    changes.length > 1
      ? { code: 'several-changed', params: { names: changes.map((c) => c.name) } }
      : changes.length === 0
        ? { code: 'nothing-changed', params: { a: a.id, b: b.id } }
        : null;
  return {
    a: a.id,
    b: b.id,
    comparedBy,
    changes,
    peaks: [
      peak('allocated', a.peakAllocated?.bytes ?? null, b.peakAllocated?.bytes ?? null),
      peak('reserved', a.peakReserved?.bytes ?? null, b.peakReserved?.bytes ?? null),
      peak('device', a.peakDevice?.bytes ?? null, b.peakDevice?.bytes ?? null),
    ],
    warning,
  };
}

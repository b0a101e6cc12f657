/**
 * Package versions as `pip show` prints them, compared the way PEP 440 orders them (the order pip itself
 * uses): release numbers first, missing ones as 0 ("2.0" = "2.0.0"); then the pre-release tail, where
 * dev < a < b < rc < the release < post ("4.46.0.dev0" comes before "4.46.0"); a local tail ("+cu121")
 * does not change the order. Written for Headroom; the ordering follows PEP 440 "Summary of permitted
 * suffixes and relative ordering".
 */

/** A version parsed into what orders it. */
export interface ParsedVersion {
  /** Release numbers, "2.5.1" → [2, 5, 1]. */
  readonly release: readonly number[];
  /** Where the tail sorts against the bare release: dev −4, a −3, b −2, rc −1, none 0, post 1. */
  readonly phase: number;
  /** The tail's own number ("rc2" → 2, "dev0" → 0). */
  readonly phaseNumber: number;
}

const PHASES: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:dev)$/, -4],
  [/^(?:a|alpha)$/, -3],
  [/^(?:b|beta)$/, -2],
  [/^(?:rc|c|pre|preview)$/, -1],
  [/^(?:post|rev|r)$/, 1],
];

/** A leading "v" (git tags), release numbers, then an optional pre/post/dev tail and a local "+…" tail. */
const SHAPE = /^v?(\d+(?:\.\d+)*)(?:[._-]?([a-z]+)[._-]?(\d*))?(?:\+[0-9a-z.]*)?$/i;

/** Parses a version string, or undefined when it is not one ("latest", "main", ""). */
export function parseVersion(version: string): ParsedVersion | undefined {
  const match = SHAPE.exec(version.trim());
  if (!match) return undefined;
  const release = match[1]!.split('.').map(Number);
  const tail = match[2]?.toLowerCase();
  if (tail === undefined) return { release, phase: 0, phaseNumber: 0 };
  const phase = PHASES.find(([pattern]) => pattern.test(tail))?.[1];
  if (phase === undefined) return undefined;
  return { release, phase, phaseNumber: match[3] ? Number(match[3]) : 0 };
}

/** −1, 0 or 1 as `a` orders before, with or after `b`. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): -1 | 0 | 1 {
  const length = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < length; i++) {
    const x = a.release[i] ?? 0;
    const y = b.release[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  if (a.phase !== b.phase) return a.phase < b.phase ? -1 : 1;
  if (a.phaseNumber !== b.phaseNumber) return a.phaseNumber < b.phaseNumber ? -1 : 1;
  return 0;
}

/**
 * Compares two version strings; undefined when either does not parse.
 * @example compareVersions('2.5.1+cu121', '2.5.1') // 0
 */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  return pa && pb ? compareParsed(pa, pb) : undefined;
}

/**
 * Whether `version` is `minimum` or later; undefined when either does not parse.
 * @example versionAtLeast('0.43.2', '0.41.1') // false
 */
export function versionAtLeast(minimum: string, version: string): boolean | undefined {
  const order = compareVersions(version, minimum);
  return order === undefined ? undefined : order >= 0;
}

/** A half-open version range: `atLeast` included, `below` excluded; either end may be open. */
export interface VersionRange {
  readonly atLeast?: string;
  readonly below?: string;
}

/** Whether `version` lies in the range; undefined when it (or a bound) does not parse. */
export function inRange(range: VersionRange, version: string): boolean | undefined {
  const low = range.atLeast === undefined ? true : versionAtLeast(range.atLeast, version);
  const high = range.below === undefined ? true : versionAtLeast(range.below, version);
  if (low === undefined || high === undefined) return undefined;
  return low && (range.below === undefined || !high);
}

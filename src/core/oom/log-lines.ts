/**
 * Log text as people paste it, cleaned to what the program printed: CRLF and progress-bar carriage
 * returns, ANSI colours, HTML entities from scraped issues, e-mail quoting (`> `), and the rank tags
 * launchers put in front of every line — torchrun `[rank3]:` / `[default3]:`, srun --label `3: `,
 * Open MPI --tag-output `[1,3]<stderr>:`, Ray `(pid=123)`. The rank is kept per line.
 */

export interface LogLine {
  /** The line without prefixes, colours or carriage returns. */
  readonly text: string;
  /** The launcher's rank tag, null when the line has none. */
  readonly rank: number | null;
}

/** Lines kept per message; longer logs keep their last lines (an OOM ends a log). */
export const MAX_LOG_LINES = 2_000_000;

// ECMA-48 CSI and OSC sequences (colours, cursor moves, hyperlinks).
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escape sequences
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: other C0 controls carry no text
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const ENTITIES: Readonly<Record<string, string>> = {
  '&quot;': '"',
  '&#39;': "'",
  '&#x27;': "'",
  '&apos;': "'",
  '&gt;': '>',
  '&lt;': '<',
  '&amp;': '&',
};

interface Prefix {
  readonly pattern: RegExp;
  /** Capture group holding the rank, if the prefix carries one. */
  readonly rankGroup?: number;
}

/** Prefixes stripped from the start of a line, repeatedly and in any order. */
const PREFIXES: readonly Prefix[] = [
  // e-mail quoting, possibly nested ("> > ", ">> ")
  { pattern: /^[ \t]*>(?:[ \t]?>)*[ \t]?/ },
  // torchrun / torch.distributed.elastic: "[rank3]:", "[default3]:"
  { pattern: /^\[(?:rank|default)(\d+)\]:[ \t]?/, rankGroup: 1 },
  // Open MPI --tag-output: "[1,3]<stderr>:"
  { pattern: /^\[\d+,(\d+)\]<(?:stdout|stderr|stddiag)>:[ \t]?/, rankGroup: 1 },
  // srun --label / mpirun -l: "3: " (a number, a colon and a space; timestamps have no space after the colon)
  { pattern: /^[ \t]*(\d{1,5}): /, rankGroup: 1 },
  // Ray workers: "(RayTrainWorker pid=1234, ip=10.0.0.1) "
  { pattern: /^\((?:[\w.:-]+ )?pid=\d+(?:, ip=[\d.]+)?\)[ \t]?/ },
];

function stripPrefixes(line: string): LogLine {
  let text = line;
  let rank: number | null = null;
  for (let guard = 0; guard < 6; guard++) {
    let changed = false;
    for (const prefix of PREFIXES) {
      const m = prefix.pattern.exec(text);
      if (!m || m[0].length === 0) continue;
      if (prefix.rankGroup !== undefined && rank === null) rank = Number(m[prefix.rankGroup]);
      text = text.slice(m[0].length);
      changed = true;
    }
    if (!changed) break;
  }
  return { text, rank };
}

/** Splits pasted log text into clean lines, each with its rank tag. */
export function normalizeLog(text: string): LogLine[] {
  const cleaned = text
    .replace(ANSI, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, '')
    .replace(/&(?:quot|#39|#x27|apos|gt|lt|amp);/g, (e) => ENTITIES[e] ?? e);
  let lines = cleaned.split('\n');
  if (lines.length > MAX_LOG_LINES) lines = lines.slice(lines.length - MAX_LOG_LINES);
  return lines.map(stripPrefixes);
}

/** A run of lines read as one text: all lines, or one rank's lines when ranks interleave. */
export interface LogStream {
  readonly text: string;
  /** Index in the full line list of each of this stream's lines. */
  readonly lineIndex: readonly number[];
  /** Offset in `text` where each of this stream's lines starts. */
  readonly lineStart: readonly number[];
  readonly rank: number | null;
}

function streamOf(lines: readonly LogLine[], indices: readonly number[], rank: number | null): LogStream {
  const lineStart: number[] = [];
  let offset = 0;
  const parts: string[] = [];
  for (const i of indices) {
    lineStart.push(offset);
    const t = lines[i]!.text;
    parts.push(t);
    offset += t.length + 1;
  }
  return { text: parts.join('\n'), lineIndex: indices, lineStart, rank };
}

/**
 * The texts to parse: the whole log, or — when two or more ranks tag their lines — one text per rank
 * (so interleaved ranks cannot split a message) and one for untagged lines.
 */
export function logStreams(lines: readonly LogLine[]): LogStream[] {
  const ranks = new Set<number>();
  for (const line of lines) if (line.rank !== null) ranks.add(line.rank);
  if (ranks.size < 2) {
    return [
      streamOf(
        lines,
        lines.map((_, i) => i),
        ranks.size === 1 ? [...ranks][0]! : null,
      ),
    ];
  }
  const byRank = new Map<number | null, number[]>();
  lines.forEach((line, i) => {
    const list = byRank.get(line.rank) ?? [];
    list.push(i);
    byRank.set(line.rank, list);
  });
  return [...byRank.entries()]
    .sort(([a], [b]) => (a ?? -1) - (b ?? -1))
    .map(([rank, indices]) => streamOf(lines, indices, rank));
}

/** The full-log line number of an offset in a stream's text. */
export function lineAt(stream: LogStream, offset: number): number {
  let lo = 0;
  let hi = stream.lineStart.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (stream.lineStart[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return stream.lineIndex[lo] ?? 0;
}

/** What each family's grammar reports for one message it recognised in a stream of log text. */
import type { OomBackend, OomLayout, OomMessage } from './oom-message.js';

export interface GrammarHit {
  /** Offset in the stream's text where the message starts. */
  readonly start: number;
  readonly oom: OomMessage;
  readonly backend: OomBackend | null;
  readonly layout: OomLayout;
  readonly requestUnbounded: boolean;
  readonly signature: string;
  /** The message, whitespace collapsed, cut to its informative part. */
  readonly quote: string;
}

/**
 * Matches sorted by offset and grouped into failures: a match within `gapChars` of its group's first
 * belongs to that failure. `skipSameOffset` drops a second match at an offset already in the group
 * (two patterns that hit the same line).
 */
export function groupNearby<T extends { readonly at: number }>(
  found: readonly T[],
  gapChars: number,
  skipSameOffset: boolean,
): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  for (const f of [...found].sort((a, b) => a.at - b.at)) {
    if (group.length > 0 && f.at - group[0]!.at > gapChars) {
      groups.push(group);
      group = [];
    }
    if (skipSameOffset && group.some((g) => g.at === f.at)) continue;
    group.push(f);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Longest quote kept as evidence. */
export const MAX_QUOTE_CHARS = 600;

/** Collapses whitespace and trims a piece of text for quoting. */
export function quoteOf(text: string, maxChars = MAX_QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/** Line boundaries of a text, found once, so grammars with many hits on one line stay linear. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  private index(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Offset where the line holding `offset` starts. */
  start(offset: number): number {
    return this.starts[this.index(offset)]!;
  }

  /** Offset where the line holding `offset` ends (its newline, or the end of the text). */
  end(offset: number): number {
    const next = this.starts[this.index(offset) + 1];
    return next === undefined ? this.text.length : next - 1;
  }

  /** The line holding `offset`. */
  line(offset: number): string {
    return this.text.slice(this.start(offset), this.end(offset));
  }
}

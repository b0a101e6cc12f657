/**
 * A result as data: what it is (`code`) and its raw figures (`params`: bytes, ratios, counts, ids —
 * never a formatted figure or a sentence). The core returns these; src/words turns them into words in
 * the language asked for, at the edge (CLI, server, dashboard).
 */
export interface Message<C extends string = string, P = unknown> {
  readonly code: C;
  readonly params: P;
}

/** The messages of a params map: `{ code: 'a', params: A } | { code: 'b', params: B }`. */
export type MessageOf<P> = { readonly [C in keyof P & string]: Message<C, P[C]> }[keyof P & string];

/** Params of a code that has no figures. */
export type NoParams = Readonly<Record<string, never>>;

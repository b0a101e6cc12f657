/**
 * The shape of every catalog of words. Results are data all the way out: a finding, a note, a plan
 * rung, a fit limit, a migrate check is a `Message` — a code and raw params (bytes, ratios, counts) —
 * and its words come from one domain of the catalog, in the language asked for, only when it is shown.
 * A domain holds the words of one family of codes in both languages plus one example of each code's
 * params; TypeScript holds each language to every code, and catalog.test.ts renders every example in
 * both, so a code without words cannot pass.
 */
import type { MessageOf } from '../core/message.js';
import type { Format } from './format.js';
import { FORMATS } from './format.js';
import type { Lang } from './lang.js';

/** The words of each code of a params map, in one language. */
export type Words<P> = { readonly [C in keyof P]: (params: P[C], f: Format) => string };

/** A domain of the catalog: the words in every language, and an example of each code's params. */
export interface Domain<P> {
  readonly name: string;
  readonly words: Readonly<Record<Lang, Words<P>>>;
  readonly examples: { readonly [C in keyof P]: P[C] };
}

/** Declares a domain; the type parameter is the params map the core exports beside its codes. */
export function defineDomain<P>(domain: Domain<P>): Domain<P> {
  return domain;
}

/**
 * The words of one message in a language.
 * @example say(ESTIMATE_NOTES, 'zh', { code: 'eager-attention', params: {} })
 */
export function say<P>(domain: Domain<P>, lang: Lang, message: MessageOf<P>): string {
  const words = domain.words[lang][message.code as keyof P] as (params: unknown, f: Format) => string;
  return words(message.params, FORMATS[lang]);
}

/** Any domain, for lists of domains (the catalog's test renders each code of each). */
export interface AnyDomain {
  readonly name: string;
  readonly words: Readonly<Record<Lang, Readonly<Record<string, (params: never, f: Format) => string>>>>;
  readonly examples: Readonly<Record<string, unknown>>;
}

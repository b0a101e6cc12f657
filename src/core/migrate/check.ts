/**
 * The shape of a migrate check: an id, the status each of its codes means, and a function of the
 * move's context (context.ts) that returns one checklist item — a code with raw params for why, and an
 * action code with raw params for what to do — or nothing, plus what it could not check. The words
 * of every code live in src/words/migrate-checks.ts.
 */
import type { Message, MessageOf } from '../message.js';
import type { MigrateContext } from './context.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'unknown';

/** One item of the checklist: which check, its status, why (`code`, `params`) and what to do (`action`). */
export type CheckOutcome<Id extends string, P, A> = {
  readonly id: Id;
  readonly status: CheckStatus;
  /** What the user can do; null when there is nothing to do (a pass, or an unknown with no remedy). */
  readonly action: MessageOf<A> | null;
} & MessageOf<P>;

/** What one check gives the report: its item (none when it does not apply) and what it could not check. */
export interface CheckRun<Id extends string, P, A, N> {
  readonly item: CheckOutcome<Id, P, A> | null;
  /** A part the check could not see on a side (no environment file, no topology): code = the check's id. */
  readonly notChecked: ([N] extends [never] ? never : Message<Id, N>) | null;
}

/**
 * A check: `P` maps its reason codes to their params, `A` its action codes, `N` the params of its
 * not-checked line (never when it has none). `statuses` says what each reason code means.
 */
export interface Check<Id extends string, P, A, N = never> {
  readonly id: Id;
  readonly statuses: { readonly [C in keyof P]: CheckStatus };
  readonly run: (ctx: MigrateContext) => CheckRun<Id, P, A, N>;
}

/** The item for `code` with its params, its status from the check's table, and the action (or null). */
export function outcome<Id extends string, P, A, N, C extends keyof P & string>(
  check: Check<Id, P, A, N>,
  code: C,
  params: P[C],
  action: MessageOf<A> | null = null,
): CheckOutcome<Id, P, A> {
  return { id: check.id, status: check.statuses[code], code, params, action } as unknown as CheckOutcome<
    Id,
    P,
    A
  >;
}

/** A check's run with only an item. */
export function only<Id extends string, P, A, N>(
  item: CheckOutcome<Id, P, A> | null,
  notChecked: CheckRun<Id, P, A, N>['notChecked'] = null,
): CheckRun<Id, P, A, N> {
  return { item, notChecked };
}

/**
 * The checklist, in the order it is shown: one declaration. The check ids, the items' type and the
 * params maps of their codes (which src/words/migrate-checks.ts words) are all derived from it. To add
 * a check: write its file beside these (check.ts says the shape), add it here, and give its codes words.
 */
import { BF16 } from './bf16.js';
import { CHECKPOINT_DISK } from './checkpoint-disk.js';
import { CHECKPOINT_FREQUENCY } from './checkpoint-frequency.js';
import { GPU_COUNT } from './gpu-count.js';
import { HOST_MEMORY } from './host-memory.js';
import { INTERCONNECT } from './interconnect.js';
import { MEMORY_FIT } from './memory-fit.js';
import { VERSIONS } from './versions.js';

export const CHECKS = [
  MEMORY_FIT,
  HOST_MEMORY,
  GPU_COUNT,
  BF16,
  INTERCONNECT,
  CHECKPOINT_DISK,
  VERSIONS,
  CHECKPOINT_FREQUENCY,
] as const;

type AnyRun = ReturnType<(typeof CHECKS)[number]['run']>;

/** One item of the checklist, of any check. */
export type CheckItem = NonNullable<AnyRun['item']>;
export type CheckId = CheckItem['id'];
/** A part a check could not see (its code is the check's id). */
export type NotChecked = NonNullable<AnyRun['notChecked']>;
/** What the user can do about an item. */
export type CheckAction = NonNullable<CheckItem['action']>;

/** Params by code, from a union of messages. */
type ParamsByCode<M extends { readonly code: string; readonly params: unknown }> = {
  readonly [C in M['code']]: Extract<M, { readonly code: C }>['params'];
};

/** The params of every reason code of every check. */
export type MigrateCheckParams = ParamsByCode<CheckItem>;
/** The params of every action code. */
export type MigrateActionParams = ParamsByCode<CheckAction>;
/** The params of every not-checked line, by check id. */
export type NotCheckedParams = ParamsByCode<NotChecked>;

/** The check ids, in checklist order. */
export const CHECK_IDS: readonly CheckId[] = CHECKS.map((c) => c.id);

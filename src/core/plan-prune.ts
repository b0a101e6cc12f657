/**
 * The climb applies rungs cheapest first until one fits, so a rung climbed early can be made pointless
 * by a later one: an 8-bit optimizer saves 15 GiB of a full fine-tune's states, a few hundred MiB once
 * LoRA trains only the adapters. Pruning walks back over the climbed rungs and drops each one the ladder
 * still fits without, so that every rung left is needed: taking any one of them away (and the rungs
 * that only apply on top of it) no longer fits, or fits only slower or with shorter sequences.
 */
import type { MessageOf } from './message.js';
import type { DroppedRung, Plan, Rung, RungChange, RungId } from './plan-types.js';
import type { Scenario } from './scenario.js';

export interface PruneInput {
  readonly base: Scenario;
  /** The rungs climbed, in order; the last one fits. */
  readonly climbed: readonly Rung[];
  /**
   * The climb again with only these rungs: each step the cheapest that saves memory there (one that
   * does not apply or saves nothing waits for a later step), until one fits.
   */
  readonly climbOnly: (ids: ReadonlySet<RungId>) => Rung[];
  /** The rung `id` applied to `from`, or null where it does not apply there or saves nothing. */
  readonly build: (id: RungId, from: Scenario) => Rung | null;
}

export interface Pruned {
  /** The ladder shown: the climbed rungs that are needed, in the order climbed, each built on the ones before. */
  readonly rungs: readonly Rung[];
  /** The climbed rungs left out, in the order climbed. */
  readonly dropped: readonly DroppedRung[];
}

const idOf = (r: Rung) => r.change.id as RungId;

/**
 * A rung is needless when the ladder without it still fits, trains no slower per token and keeps
 * sequences as long. Two rungs choose how far to go where they stand (the largest micro-batch that fits,
 * the longest sequence that fits), and with fewer rungs before them they go further; the time catches
 * the micro-batch, the length a shorter sequence. The time also matters where a slow rung could stand
 * in for a fast one: ZeRO-3 parameter offload with checkpointing alone fits a 70B full fine-tune on a
 * 24 GB card, at 6.15× the time per token of the run as given, against 1.30× with the LoRA and QLoRA
 * the climb applied before it.
 */
function needless(without: readonly Rung[], ladder: readonly Rung[]): boolean {
  const last = without.at(-1);
  if (!last?.fits) return false;
  const now = ladder.at(-1)!;
  // No slower: the same time, to the rounding of the time model's sums.
  const noSlower = last.relativeStepTime <= now.relativeStepTime * (1 + 1e-9);
  return noSlower && last.scenario.seqLen >= now.scenario.seqLen;
}

/**
 * Drops, latest first, each climbed rung the ladder does without (see needless), and repeats until
 * every rung left is needed. The latest rungs go first because the ladder is cheapest first: where
 * either of two rungs would do, the cheaper, earlier one stays. At most n + 1 passes of n climbs over
 * at most n rungs (n ≤ the 23 rungs of the ladder), each rung built on each scenario once: for an 8B
 * full fine-tune on a 24 GB card, 50 estimates where the climb alone made 23. The same answer for the
 * same input.
 */
export function pruneLadder(input: PruneInput): Pruned {
  let ladder: readonly Rung[] = input.climbed;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = ladder.length - 1; i >= 0; i--) {
      const candidate = input.climbOnly(new Set(ladder.filter((_, j) => j !== i).map(idOf)));
      if (needless(candidate, ladder)) {
        // The steps before i climb the same without it, so the walk goes on from i − 1.
        ladder = candidate;
        changed = true;
      }
    }
  }
  const kept = new Set(ladder.map(idOf));
  const order = new Map(input.climbed.map((r, i) => [idOf(r), i]));
  const dropped = input.climbed.flatMap((rung, p): DroppedRung[] => {
    if (kept.has(idOf(rung))) return [];
    const from = p === 0 ? input.base : input.climbed[p - 1]!.scenario;
    return [{ rung, from, ...afterWhich(input, ladder, order, idOf(rung), p) }];
  });
  return { rungs: ladder, dropped };
}

/**
 * What a dropped rung (climbed at position p) saves applied on top of the shown ladder as it grows past
 * p: on the shown rungs the climb had applied before it, then after each further shown rung in turn.
 * The rung across which the saving falls most, when it falls by more than half, made it pointless.
 */
function afterWhich(
  input: PruneInput,
  ladder: readonly Rung[],
  order: ReadonlyMap<RungId, number>,
  id: RungId,
  p: number,
): Pick<DroppedRung, 'savingBytes' | 'after'> {
  // From the end of the ladder's first run of rungs the climb had applied before this one.
  const before = ladder.findIndex((r) => order.get(idOf(r))! > p);
  const k = before < 0 ? ladder.length : before;
  const savingOn = (s: Scenario) => input.build(id, s)?.savedBytes ?? 0;
  const start = savingOn(k === 0 ? input.base : ladder[k - 1]!.scenario);
  let saving = start;
  let after: RungId | null = null;
  let largestFall = 0;
  for (const r of ladder.slice(k)) {
    const next = savingOn(r.scenario);
    if (saving - next > largestFall) {
      largestFall = saving - next;
      after = idOf(r);
    }
    saving = next;
  }
  return { savingBytes: saving, after: largestFall > start / 2 ? after : null };
}

/**
 * Why a dropped rung is left out, as data (src/words/plan-dropped.ts words it): its change as climbed,
 * what it saved there (`savedBytes`), what it would save on top of the ladder shown (`savingBytes`, 0
 * for nothing), and the rung of that ladder after which it is not needed, with its 1-based position —
 * or, for `not-needed`, that the ladder fits without it.
 */
export interface DroppedNoteParams {
  'not-needed-after': {
    readonly change: RungChange;
    readonly savedBytes: number;
    readonly savingBytes: number;
    readonly after: RungChange;
    readonly position: number;
  };
  'not-needed': { readonly change: RungChange; readonly savedBytes: number; readonly savingBytes: number };
}
export type DroppedNote = MessageOf<DroppedNoteParams>;

/**
 * The note of a rung the plan dropped.
 * @example droppedNote(plan, plan.dropped[0]!).code // 'not-needed-after'
 */
export function droppedNote(plan: Pick<Plan, 'rungs'>, dropped: DroppedRung): DroppedNote {
  const figures = {
    change: dropped.rung.change,
    savedBytes: dropped.rung.savedBytes,
    savingBytes: dropped.savingBytes,
  };
  const n = dropped.after === null ? -1 : plan.rungs.findIndex((r) => r.change.id === dropped.after);
  return n >= 0
    ? { code: 'not-needed-after', params: { ...figures, after: plan.rungs[n]!.change, position: n + 1 } }
    : { code: 'not-needed', params: figures };
}

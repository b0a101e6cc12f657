/**
 * The largest and smallest of a list without spreading it into arguments: `Math.max(...rows)` throws a
 * RangeError past about 125 k values (V8's argument limit), and a 100 k-step run has more rows than that.
 */

/** The largest value, or `empty` when there is none. NaN values are skipped. */
export function maxOf(values: Iterable<number>, empty = Number.NEGATIVE_INFINITY): number {
  let best = Number.NEGATIVE_INFINITY;
  let any = false;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    any = true;
    if (v > best) best = v;
  }
  return any ? best : empty;
}

/** The smallest value, or `empty` when there is none. NaN values are skipped. */
export function minOf(values: Iterable<number>, empty = Number.POSITIVE_INFINITY): number {
  let best = Number.POSITIVE_INFINITY;
  let any = false;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    any = true;
    if (v < best) best = v;
  }
  return any ? best : empty;
}

/** The largest `pick(item)` over a list, or `empty` when the list is empty. */
export function maxBy<T>(
  items: readonly T[],
  pick: (item: T) => number,
  empty = Number.NEGATIVE_INFINITY,
): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    const v = pick(item);
    if (v > best) best = v;
  }
  return items.length === 0 ? empty : best;
}

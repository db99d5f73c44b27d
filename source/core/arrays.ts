/**
 * Array helpers that stay safe at any size. `a.push(...b)` and `Math.max(...b)` pass every
 * element as a call argument and overflow the stack past ~100,000 elements (a 130,000-line
 * observation did); these loop instead.
 */

/** Appends every item of `items` to `to`; returns `to`. */
export function append<T>(to: T[], items: Iterable<T>): T[] {
  for (const item of items) to.push(item);
  return to;
}

/** The largest of `values`, or `empty` when there are none. */
export function maxOf(values: Iterable<number>, empty = -Infinity): number {
  let best = empty;
  let any = false;
  for (const v of values) {
    if (!any || v > best) best = v;
    any = true;
  }
  return any ? best : empty;
}

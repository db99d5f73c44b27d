/**
 * The delta for two stored traces — one owner for `delta`, `trace` and anything else that
 * recomputes it: the pair that links them (its line mapping and re-runs), the nondeterminism
 * the re-runs show, Algorithm 1, and saving the result.
 */
import {
  collectNondeterminism,
  emptyNondeterminism,
  extractDelta,
  mergeNondeterminism,
  valueNondeterminism,
  type DeltaOption,
  type DeltaResult,
  type Nondeterminism,
} from '../core/trace/delta.js';
import {LineMap} from '../core/trace/line-map.js';
import {findPairByTraces, getTrace, saveDelta, StoredTrace, type PairRow, type TraceRow} from '../store/traces.js';
import type {Db} from '../store/db.js';

/** Two traces that cannot be compared (not found, or of different programs): one line. */
export class DeltaInputError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-found' | 'mismatch',
  ) {
    super(message);
  }
}

/**
 * What varies between two runs of one side, from each side's first run and re-run: along the
 * walk, and function by function (runs cut short by a limit count for what they recorded;
 * crashed or missing runs add nothing).
 */
export function rerunNondeterminism(db: Db, runs: {first: number | null; second: number | null}[]): Nondeterminism {
  let nondet = emptyNondeterminism();
  const identity = new LineMap(null);
  for (const {first, second} of runs) {
    const usable = (id: number) => ['complete', 'truncated', 'timeout'].includes(getTrace(db, id)?.status ?? 'missing');
    if (!first || !second || !usable(first) || !usable(second)) continue;
    const [a, b] = [new StoredTrace(db, first), new StoredTrace(db, second)];
    nondet = mergeNondeterminism(nondet, collectNondeterminism(a, b, identity));
    nondet = mergeNondeterminism(nondet, valueNondeterminism(a.frameValues(), b.frameValues()));
  }
  return nondet;
}

interface DeltaOfTraces {
  result: DeltaResult & {id?: number};
  buggy: TraceRow;
  patched: TraceRow;
  pair: PairRow | null;
  /** said when the traces were not traced as a pair */
  note: string | null;
}

/**
 * Algorithm 1 on two stored traces. Traced as a pair: the patch's line mapping and the pair's
 * re-runs; otherwise lines map one to one — and the two must be runs of the same test of the
 * same instance, or the comparison means nothing and is refused.
 */
export function deltaOfTraces(
  db: Db,
  a: number,
  b: number,
  o: {options?: DeltaOption[]; save?: boolean} = {},
): DeltaOfTraces {
  const buggy = getTrace(db, a);
  const patched = getTrace(db, b);
  if (!buggy) throw new DeltaInputError(`no trace with id ${a}`, 'not-found');
  if (!patched) throw new DeltaInputError(`no trace with id ${b}`, 'not-found');
  const pair = findPairByTraces(db, a, b);
  if (!pair) {
    if (buggy.instance !== patched.instance)
      throw new DeltaInputError(
        `traces ${a} and ${b} are of different instances (${buggy.instance}, ${patched.instance}): their delta would mean nothing`,
        'mismatch',
      );
    if (buggy.test !== patched.test)
      throw new DeltaInputError(
        `traces ${a} and ${b} ran different tests (${buggy.test}, ${patched.test}): their delta would mean nothing`,
        'mismatch',
      );
  }
  const nondet = pair
    ? rerunNondeterminism(db, [
        {first: pair.buggyTrace, second: pair.buggyRerun},
        {first: pair.patchedTrace, second: pair.patchedRerun},
      ])
    : emptyNondeterminism();
  const result: DeltaResult & {id?: number} = extractDelta({
    buggy: new StoredTrace(db, a),
    patched: new StoredTrace(db, b),
    map: new LineMap(pair?.changes ?? null),
    options: o.options ?? [],
    nondeterminism: nondet,
  });
  if (o.save) result.id = saveDelta(db, a, b, pair?.id ?? null, result);
  return {
    result,
    buggy,
    patched,
    pair,
    note: pair ? null : 'these traces were not traced as a pair: lines map one to one and no re-runs are known',
  };
}

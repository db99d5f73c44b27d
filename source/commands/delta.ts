import {say} from './output.js';
import {collectNondeterminism, emptyNondeterminism, extractDelta, mergeNondeterminism} from '../core/trace/delta.js';
import {LineMap} from '../core/trace/line-map.js';
import {findPairByTraces, getTrace, saveDelta, StoredTrace} from '../store/traces.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';
import {NotFound} from './show.js';
import {parseDeltaOptions} from './trace.js';
import {deltaJson, describeDelta} from './trace-json.js';

export const DELTA_HELP = `Usage: deltalens delta BUGGY_TRACE PATCHED_TRACE [--option NAME …] [--save] [--json]

Recompute the delta behaviour (ExplainBench Algorithm 1) from two stored traces. When the
two were traced together (deltalens trace), the patch's line mapping and the re-runs'
nondeterministic values are used; otherwise lines map one to one, and the output says so.
--option takes the same names as deltalens trace. --save stores the result.`;

export function runDelta(argv: string[]): Promise<number> {
  return Promise.resolve(deltaCommand(argv));
}

async function deltaCommand(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {...COMMON_OPTIONS, option: {type: 'string', multiple: true}, save: {type: 'boolean'}});
  if (values.help) {
    say(DELTA_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 2 || !positionals.every(p => /^\d+$/.test(p))) throw new UsageError('delta takes two numeric trace ids: BUGGY PATCHED');
  const [a, b] = positionals.map(Number) as [number, number];
  const options = parseDeltaOptions(values.option);
  const {db} = await openStore(values.db, values.save ? 'write' : 'read');
  try {
    const buggy = getTrace(db, a);
    const patched = getTrace(db, b);
    if (!buggy) throw new NotFound(`no trace with id ${a}`);
    if (!patched) throw new NotFound(`no trace with id ${b}`);
    const pair = findPairByTraces(db, a, b);
    const map = new LineMap(pair?.changes ?? null);
    let nondet = emptyNondeterminism();
    for (const [first, second] of [
      [pair?.buggyTrace, pair?.buggyRerun],
      [pair?.patchedTrace, pair?.patchedRerun],
    ]) {
      if (first && second && getTrace(db, first)?.status === 'complete' && getTrace(db, second)?.status === 'complete') {
        const n = collectNondeterminism(new StoredTrace(db, first), new StoredTrace(db, second), new LineMap(null));
        nondet = mergeNondeterminism(nondet, n);
      }
    }
    const result = extractDelta({buggy: new StoredTrace(db, a), patched: new StoredTrace(db, b), map, options, nondeterminism: nondet});
    const id = values.save ? saveDelta(db, a, b, pair?.id ?? null, result) : undefined;
    const note = pair ? null : 'these traces were not traced as a pair: lines map one to one and no re-runs are known';
    if (values.json) printJson(deltaJson({...result, id}, buggy, patched, {pair: pair?.id ?? null, line_mapping: pair ? 'patch' : 'identity', note}));
    else {
      say(describeDelta(result, buggy, patched));
      if (note) say(`note: ${note}`);
    }
    return result.status === 'incomplete' ? EXIT.failed : EXIT.ok;
  } finally {
    db.close();
  }
}

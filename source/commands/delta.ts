import {say} from './output.js';
import {deltaOfTraces, DeltaInputError} from '../services/delta.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';
import {NotFound} from './show.js';
import {parseDeltaOptions} from './trace.js';
import {deltaJson, describeDelta} from './trace-json.js';

export const DELTA_HELP = `Usage: deltalens delta BUGGY_TRACE PATCHED_TRACE [--option NAME …] [--save] [--json]

Recompute the delta behaviour (ExplainBench Algorithm 1) from two stored traces. When the
two were traced together (deltalens trace), the patch's line mapping and the re-runs'
nondeterministic values are used; otherwise lines map one to one, and the output says so —
and the two must be runs of the same test of the same instance (else a usage error).
--option takes the same names as deltalens trace. --save stores the result.`;

export function runDelta(argv: string[]): Promise<number> {
  return Promise.resolve(deltaCommand(argv));
}

async function deltaCommand(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    option: {type: 'string', multiple: true},
    save: {type: 'boolean'},
  });
  if (values.help) {
    say(DELTA_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 2 || !positionals.every(p => /^\d+$/.test(p)))
    throw new UsageError('delta takes two numeric trace ids: BUGGY PATCHED');
  const [a, b] = positionals.map(Number) as [number, number];
  const options = parseDeltaOptions(values.option);
  const {db} = await openStore(values.db, values.save ? 'write' : 'read');
  try {
    let d;
    try {
      d = deltaOfTraces(db, a, b, {options, save: values.save});
    } catch (error) {
      if (error instanceof DeltaInputError)
        throw error.kind === 'not-found' ? new NotFound(error.message) : new UsageError(error.message);
      throw error;
    }
    const {result, buggy, patched, pair, note} = d;
    if (values.json)
      printJson(
        deltaJson(result, buggy, patched, {pair: pair?.id ?? null, line_mapping: pair ? 'patch' : 'identity', note}),
      );
    else {
      say(describeDelta(result, buggy, patched));
      if (note) say(`note: ${note}`);
    }
    return result.status === 'incomplete' ? EXIT.failed : EXIT.ok;
  } finally {
    db.close();
  }
}

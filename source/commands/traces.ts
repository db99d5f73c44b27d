import {openDb} from '../store/db.js';
import {getTrace, latestDelta, listPairs} from '../store/traces.js';
import {chooseDb} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson} from './args.js';
import {ensureDemo} from './demo.js';
import {testOutcomeJson} from './trace-json.js';

export const TRACES_HELP = `Usage: deltalens traces [--instance I] [--json] [--db FILE]

List traced patch pairs (one test on a buggy and a patched tree) with their delta.
With --json: {"pairs": [{"pair", "instance", "label", "test", "traces": {"buggy", "patched",
"buggy_rerun", "patched_rerun"}, "status": {"buggy", "patched"}, "outcomes": {"buggy",
"patched"}, "events": {…}, "changed_functions", "delta": {"status", "kind", "function",
"file", "line", "timing", "variables"}}]}.`;

export async function runTraces(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS, instance: {type: 'string'}}, false);
  if (values.help) {
    console.log(TRACES_HELP);
    return EXIT.ok;
  }
  const db = openDb((await ensureDemo(chooseDb(values.db))).path);
  try {
    const rows = listPairs(db, values.instance).map(pair => {
      const b = pair.buggyTrace ? getTrace(db, pair.buggyTrace) : null;
      const p = pair.patchedTrace ? getTrace(db, pair.patchedTrace) : null;
      const d = latestDelta(db, pair.id);
      return {
        pair: pair.id,
        instance: pair.instance,
        label: pair.label,
        test: pair.test,
        traces: {buggy: pair.buggyTrace, patched: pair.patchedTrace, buggy_rerun: pair.buggyRerun, patched_rerun: pair.patchedRerun},
        status: {buggy: b?.status ?? 'missing', patched: p?.status ?? 'missing'},
        outcomes: {buggy: testOutcomeJson(b?.outcome ?? null), patched: testOutcomeJson(p?.outcome ?? null)},
        events: {buggy: b?.events ?? 0, patched: p?.events ?? 0},
        changed_functions: (pair.changes?.functions ?? []).map(f => `${f.file}:${f.qualname}`),
        delta: d && {
          id: d.id,
          status: d.status,
          kind: d.status === 'none' ? 'none' : d.kind,
          function: d.function,
          file: d.file,
          line: d.line,
          timing: d.timing,
          variables: d.variables.map(v => v.name),
          reason: d.reason ?? null,
        },
      };
    });
    if (values.json) printJson({pairs: rows});
    else {
      for (const r of rows) {
        const d = r.delta;
        const what = !d ? 'no delta' : d.status === 'none' ? '∅ no effect' : d.status === 'incomplete' ? `incomplete: ${d.reason}` : `${d.kind} in ${d.function} ${d.file ?? ''}${d.line ? `:${d.line}` : ''}`;
        console.log(`#${String(r.pair).padEnd(4)} ${r.instance.padEnd(22)} ${(r.label ?? '').padEnd(18)} ${r.outcomes.buggy?.status ?? '?'} → ${r.outcomes.patched?.status ?? '?'}  ${what}`);
      }
      console.log(`${rows.length} traced pairs`);
    }
  } finally {
    db.close();
  }
  return EXIT.ok;
}

// Child process for the delta benchmark, so /usr/bin/time measures its peak memory alone.
import {performance} from 'node:perf_hooks';
import {extractDelta} from '../../source/core/trace/delta.js';
import {LineMap} from '../../source/core/trace/line-map.js';
import {openDb} from '../../source/store/db.js';
import {createTrace, StoredTrace} from '../../source/store/traces.js';
import {ingestTraceFile} from '../../source/services/trace-ingest.js';

const [mode, dbPath, a, b] = process.argv.slice(2) as [string, string, string, string];
const db = openDb(dbPath);
if (mode === 'ingest') {
  const t = performance.now();
  let events = 0;
  for (const [file, side] of [
    [a, 'buggy'],
    [b, 'patched'],
  ] as const) {
    const id = createTrace(db, {
      instance: 'bench/synthetic',
      versionKind: side === 'buggy' ? 'buggy' : 'agent',
      patch: null,
      trajectory: null,
      test: 'tests/test_big.py::test_big',
      side,
      run: 1,
      label: 'bench',
    });
    events += ingestTraceFile(db, file, id).events;
  }
  console.error(JSON.stringify({seconds: (performance.now() - t) / 1000, events}));
} else {
  const t = performance.now();
  const d = extractDelta({buggy: new StoredTrace(db, 1), patched: new StoredTrace(db, 2), map: new LineMap(null)});
  console.error(
    JSON.stringify({seconds: (performance.now() - t) / 1000, steps: d.stepsCompared, status: d.status, line: d.line}),
  );
}
db.close();
console.error('');

import Database from 'better-sqlite3';
import {StoredTrace} from '../source/store/stored-trace.ts';
const db = new Database('/tmp/ho-copy.db');
for (const id of [21, 23, 22, 24]) {
  const t = new StoredTrace(db, id);
  const vals = new Map(); let n = 0, valued = 0;
  for (const f of t.frameValues()) { if (f.fn === 'MonomialOrder.__hash__') { n++; const v = f.outcome?.value; if (v !== undefined && !f.outcome.unrecorded) { valued++; vals.set(v, (vals.get(v) ?? 0) + 1); } } }
  console.log(id, t.status, 'frames', n, 'valued', valued, [...vals.entries()].slice(0, 5));
}

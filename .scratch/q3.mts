import Database from 'better-sqlite3';
import {StoredTrace} from '../source/store/stored-trace.ts';
const db = new Database('/tmp/eb-copy.db');
const [b, p] = db.prepare('select buggy_trace, patched_trace from trace_pair where id=12').raw().get() as number[];
for (const id of [b, p]) {
  const t = new StoredTrace(db as any, id);
  const fids = db.prepare("select fid from frame where trace=? and function='evalf' order by fid").pluck().all(id) as number[];
  for (const f of fids.slice(-4)) { const fr = t.frame(f)!; console.log(id, f, fr.parent, t.frame(fr.parent!)?.fn, JSON.stringify(fr.outcome), fr.endSeq); }
}

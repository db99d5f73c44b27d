import {openDb} from '../source/store/db.ts';
import {StoredTrace} from '../source/store/traces.ts';
const db = openDb('/work/bench-wt/test/bench/out/explainbench/traces.db', {readonly: true});
for (const inst of ['sympy__sympy-12489', 'sympy__sympy-15875', 'sympy__sympy-17630', 'sympy__sympy-21596']) {
  const row = db.prepare(`SELECT d.seq_b AS seq, p.buggy_trace AS trace, d.kind FROM delta d JOIN trace_pair p ON p.id = d.pair WHERE p.instance = ? AND d.options = '[]' AND d.status = 'found' ORDER BY d.id DESC LIMIT 1`).get(inst) as any;
  const t = new StoredTrace(db, row.trace);
  const at = t.itemAt(row.seq);
  const out: string[] = [];
  for (let fid: number | null = at?.callee ?? at?.fid ?? null; fid !== null && fid !== 0; ) { const f = t.frame(fid); if (!f) break; out.push(f.fn); fid = f.parent; }
  console.log(inst, row.kind, JSON.stringify(at), out.join(' <- '));
}

import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {resolveScopes} from '../../source/services/lens.js';
import {loadLensRuns} from '../../source/store/lens.js';
import {freshDb, importInto} from '../helpers/db.js';
import {ROOT, SAMPLES} from '../helpers/files.js';

describe('scopes from the real tracer on a real checkout', () => {
  it('places the demo runs\' first edits of graphs/topo.py in topo_sort.<locals>.visit (deltatrace scopes, ast only)', async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'demo-runs')]);
    const {runs} = loadLensRuns(db, 'demo__graphs-1');
    const r = await resolveScopes(db, runs, new Map([['demo__graphs-1', join(ROOT, 'sample-data', 'projects', 'graphs', 'repo')]]));
    expect(r.problems).toEqual([]);
    const methodical = runs.find(x => x.agent === 'demo-methodical')!;
    const edit = methodical.steps.find(s => s.stage === 'I')!;
    expect(edit.state.files).toEqual([{path: 'graphs/topo.py', scope: 'topo_sort.<locals>.visit'}]);
    const offtarget = runs.find(x => x.agent === 'demo-offtarget')!;
    // its edit rewrites graph.py whole (no text to locate): no scope
    expect(offtarget.steps.find(s => s.state.kind === 'edit')!.state.files[0]!.scope).toBeUndefined();
    expect(r.states).toBeGreaterThanOrEqual(7);
  });
});

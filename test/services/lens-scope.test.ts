import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {resolveScopes} from '../../source/services/lens.js';
import {loadLensRuns} from '../../source/store/lens.js';
import {freshDb, importInto} from '../helpers/db.js';
import {ROOT, SAMPLES} from '../helpers/files.js';

describe('scopes from the real tracer on a real checkout', () => {
  it("places the demo runs' first edits of graphs/topo.py in topo_sort.<locals>.visit (deltatrace scopes, ast only)", async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'demo-runs')]);
    const {runs} = loadLensRuns(db, 'demo__graphs-1');
    const r = await resolveScopes(
      db,
      runs,
      new Map([['demo__graphs-1', join(ROOT, 'sample-data', 'projects', 'graphs', 'repo')]]),
    );
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

describe('the explorer shows the reference the run was scored against', () => {
  it('keeps the scopes lens build found and puts them back on the reference tree', async () => {
    const {runLensBuildWithSources} = await import('../../source/services/lens.js');
    const {storeData} = await import('../../source/ui/data/index.js');
    const {ptaLines} = await import('../../source/ui/pta-lines.js');
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'demo-runs')]);
    const built = await runLensBuildWithSources(
      db,
      {instance: 'demo__graphs-1'},
      new Map([['demo__graphs-1', join(ROOT, 'sample-data', 'projects', 'graphs', 'repo')]]),
    );
    expect(built.scopes.states).toBeGreaterThanOrEqual(7);
    const hasty = built.runs.find(r => r.agent === 'demo-hasty')!;
    const view = storeData(db, 'test.db').runs.pta(hasty.trajectory)!;
    const text = ptaLines(view, 200)
      .map(l => l.text)
      .join('\n');
    expect(text).toContain('edit graphs/topo.py:topo_sort.<locals>.visit');
  });
});

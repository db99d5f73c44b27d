import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {diffTouches, functionsTouched, prf} from '../../source/core/reasoning/localization.js';
import {demoCheckouts, demoProjects, PROJECTS_DIR} from '../../source/services/demo.js';
import {localizationReport} from '../../source/services/localization.js';
import {upsertInstance} from '../../source/store/instances.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';

const patch = (name: string) => readFileSync(join(PROJECTS_DIR, 'durations', 'patches', `${name}.diff`), 'utf8');
// deltatrace scopes on the durations checkout: _tokens 8–10, parse_duration 13–24 (parse.py);
// format_duration 4–13 (format.py)
const SCOPES = new Map([
  [
    'durations/parse.py',
    [
      {qualname: '_tokens', kind: 'function' as const, start: 8, end: 10},
      {qualname: 'parse_duration', kind: 'function' as const, start: 13, end: 24},
    ],
  ],
  ['durations/format.py', [{qualname: 'format_duration', kind: 'function' as const, start: 4, end: 13}]],
]);

describe('localization against the gold patch', () => {
  it('the lines of the original a diff touches: removed lines, and where an insertion goes', () => {
    expect(diffTouches(patch('gold'))).toEqual(new Map([['durations/parse.py', [21]]]));
    // format.py: line 13 removed, the three added lines follow line 12 / 13
    expect(diffTouches(patch('agent-ineffective'))).toEqual(new Map([['durations/format.py', [13]]]));
    const created =
      'diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n';
    expect(diffTouches(created)).toEqual(new Map([['new.py', [1]]]));
  });

  it('files and functions against the gold patch, computed by hand', () => {
    const gold = functionsTouched(diffTouches(patch('gold')), SCOPES).functions;
    expect([...gold]).toEqual(['durations/parse.py::parse_duration']);
    const off = functionsTouched(diffTouches(patch('agent-ineffective')), SCOPES).functions;
    expect(prf(off, gold)).toEqual({precision: 0, recall: 0, f1: 0, agent: 1, gold: 1, both: 0});
    // two functions edited, one of them the gold one: P 1/2, R 1/1, F1 2·½·1/(½+1) = 2/3
    const two = new Set(['durations/parse.py::parse_duration', 'durations/parse.py::_tokens']);
    expect(prf(two, gold)).toMatchObject({precision: 0.5, recall: 1});
    expect(prf(two, gold).f1).toBeCloseTo(2 / 3, 10);
    // nothing edited: precision has nothing to be right about; no gold: no score
    expect(prf(new Set(), gold)).toMatchObject({precision: null, recall: 0, f1: 0});
    expect(prf(two, new Set())).toMatchObject({precision: null, recall: null, f1: null});
    // a line outside every function is the file's module level; a file without scopes is reported
    expect([
      ...functionsTouched(
        new Map([
          ['durations/parse.py', [2]],
          ['README.md', [1]],
        ]),
        SCOPES,
      ).functions,
    ]).toEqual(['durations/parse.py::<module>']);
    expect(functionsTouched(new Map([['README.md', [1]]]), SCOPES).unknownFiles).toEqual(['README.md']);
  });
});

describe('localization of the demo runs (real checkouts, deltatrace scopes)', () => {
  it('per run and per agent, function level from the checkout; the off-target agent edits none of the gold functions', async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'demo-runs')]);
    for (const p of demoProjects()) {
      upsertInstance(db, {
        id: p.instance,
        repo: null,
        baseCommit: null,
        problemStatement: null,
        goldPatch: readFileSync(join(p.dir, 'patches', 'gold.diff'), 'utf8'),
        testPatch: null,
        failToPass: null,
        passToPass: null,
        difficulty: null,
        sourcePath: null,
      });
    }
    const r = await localizationReport(db, new Map(demoCheckouts().map(c => [c.instance, c.dir] as const)));
    expect(r.runs).toHaveLength(24);
    expect(r.runs.every(x => x.function !== null)).toBe(true);
    const agent = (name: string) => r.agents.find(a => a.agent === name)!;
    expect(agent('demo-offtarget')).toMatchObject({runs: 3, file_f1: 0, function_f1: 0, function_runs: 3});
    expect(agent('demo-fixer')).toMatchObject({runs: 3, file_f1: 1, function_f1: 1});
    const durations = r.runs.find(x => x.agent === 'demo-offtarget' && x.instance === 'demo__durations-1')!;
    expect(durations.function).toMatchObject({agent: 1, gold: 1, both: 0});
    // without a checkout: file level only, and said so
    const plain = await localizationReport(db, new Map());
    expect(plain.runs.every(x => x.function === null && x.note?.includes('file level only'))).toBe(true);
  }, 60_000);
});

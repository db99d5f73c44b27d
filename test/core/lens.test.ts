import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {labelSteps} from '../../source/core/lens/labeller.js';
import {extractStates, shellState} from '../../source/core/lens/state.js';
import {toolKind} from '../../source/core/trajectory/formats.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {getSteps, listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';

function labelled(path: string) {
  const {db} = freshDb();
  importInto(db, [path]);
  const [t] = listTrajectories(db, {});
  return getSteps(db, t!.id).map(s => ({
    stage: s.intentStage,
    rule: s.labellerRule ? (JSON.parse(s.labellerRule) as {rule: string}).rule : null,
    action: s.actionText ?? '',
  }));
}

describe('AgentLens intent labels on real runs', () => {
  it('mini-SWE-agent (django-11099): explore, the sed -i source edit, then tests and scripts are verification', () => {
    const steps = labelled(join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json'));
    expect(steps.every(s => s.stage && s.rule)).toBe(true);
    const first = steps.findIndex(s => s.rule === 'source-edit');
    expect(first).toBeGreaterThan(0);
    expect(steps.slice(0, first).every(s => s.stage === 'E' || s.stage === 'O')).toBe(true);
    expect(steps[first]!.action).toMatch(/sed -i|write_text|open\(/);
    expect(
      steps
        .slice(first + 1)
        .filter(s => s.rule === 'run')
        .every(s => s.stage === 'V'),
    ).toBe(true);
    expect(steps.at(-1)).toMatchObject({stage: 'O', rule: 'submit'});
  });

  it('SWE-agent (pydicom-1458): the same script run is exploration before the first source edit and verification after', () => {
    const steps = labelled(join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj'));
    const summary = steps.map(s => `${s.stage}:${s.rule}:${s.action.split('\n')[0]}`);
    expect(summary).toEqual([
      'E:test-write:create reproduce_bug.py',
      'E:test-write:edit 1:1',
      'E:run:python reproduce_bug.py',
      'E:explore:find_file "numpy_handler.py"',
      'E:explore:open pydicom/pixel_data_handlers/numpy_handler.py 293',
      'I:source-edit:edit 287:295',
      'I:source-edit:edit 287:295',
      'I:source-edit:edit 287:295',
      'I:source-edit:edit 287:296',
      'V:run:python reproduce_bug.py',
      'O:other-shell:rm reproduce_bug.py',
      'O:submit:submit',
    ]);
  });

  it('OpenHands: a str_replace_editor edit is implementation, finish is orchestration', () => {
    const steps = labelled(join(SAMPLES, 'openhands', 'basic.json'));
    expect(steps.map(s => `${s.stage}:${s.rule}`)).toEqual(['I:source-edit', 'O:submit']);
  });
});

describe('AgentLens labels on the real multi-run set (mini-SWE-agent, context agents)', () => {
  function run(config: string, instance: string) {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'mini-swe-agent-multi')]);
    const t = listTrajectories(db, {agent: config, instance})[0]!;
    return getSteps(db, t.id).map(s => {
      const r = JSON.parse(s.labellerRule!) as {
        rule: string;
        state: {kind: string; files: {path: string}[]; alsoRuns?: string};
      };
      return {stage: s.intentStage, rule: r.rule, state: r.state, action: s.actionText ?? ''};
    });
  }

  it('an awk rewrite into /tmp then mv onto the source file is the source edit; the scratch file is not', () => {
    const steps = run('results-context-truncated-8k', 'django__django-11239');
    const edit = steps.find(s => s.action.includes('awk') && s.action.includes('mv /tmp/client.py.new'))!;
    expect(edit).toMatchObject({
      stage: 'I',
      rule: 'source-edit',
      state: {kind: 'edit', files: [{path: 'django/db/backends/postgresql/client.py'}]},
    });
    // context_* progress tools are orchestration, never exploration
    const notes = steps.filter(s => /^context_(log|todos|summary)/.test(s.action));
    expect(notes.length).toBeGreaterThan(3);
    expect(notes.every(s => s.stage === 'O' && s.rule === 'think')).toBe(true);
  });

  it('a Python heredoc that runs the code (no file written) is a script run: V after the edit, not an edit', () => {
    const steps = run('results-context-untruncated', 'django__django-11206');
    const first = steps.findIndex(s => s.rule === 'source-edit');
    const check = steps
      .slice(first + 1)
      .find(s => s.action.startsWith('python3 - <<') && s.action.includes('from django.utils.numberformat import'))!;
    expect(check).toMatchObject({stage: 'V', rule: 'run', state: {kind: 'run-script'}});
  });

  it('an edit whose command also runs the project (patch, then python repro.py) verifies itself', () => {
    const steps = run('results-context-truncated-4k', 'astropy__astropy-7336');
    const patch = steps.find(s => s.rule === 'source-edit' && s.action.includes('python3 repro.py'))!;
    expect(patch.state).toMatchObject({
      kind: 'edit',
      alsoRuns: 'script',
      files: [{path: 'astropy/units/decorators.py'}],
    });
  });
});

describe('action states from shell commands', () => {
  it('finds the files a command writes', () => {
    expect(shellState("sed -i 's/a/b/' pkg/mod.py && nl -ba pkg/mod.py")).toMatchObject({
      kind: 'edit',
      files: [{path: 'pkg/mod.py'}],
    });
    expect(shellState("cat > repro.py <<'EOF'\nprint(1)\nEOF")).toMatchObject({
      kind: 'edit',
      files: [{path: 'repro.py'}],
    });
    expect(shellState('echo x | tee -a notes.txt')).toMatchObject({kind: 'edit', files: [{path: 'notes.txt'}]});
    expect(
      shellState("python - <<'PY'\nfrom pathlib import Path\np = Path('a/b.py')\np.write_text(s)\nPY"),
    ).toMatchObject({kind: 'edit', files: [{path: 'a/b.py'}]});
    expect(shellState("perl -0777 -pe 's/x/y/' -i src/m.py && nl src/m.py")).toMatchObject({
      kind: 'edit',
      files: [{path: 'src/m.py'}],
    });
    expect(shellState("awk '{print}' a.py > /tmp/a.new && mv /tmp/a.new pkg/a.py")).toMatchObject({
      kind: 'edit',
      files: [{path: 'pkg/a.py'}],
    });
    // a '>' inside a quoted string or a heredoc body is not a redirection
    expect(shellState("python - <<'PY'\nprint('a -> b')\nPY")).toMatchObject({kind: 'run-script'});
    expect(shellState('echo "x > y"')).toMatchObject({kind: 'other-shell'});
  });
  it('knows when an edit also runs code', () => {
    expect(shellState("cat > t.py <<'EOF'\nprint(1)\nEOF\npython t.py").alsoRuns).toBe('script');
    expect(shellState("sed -i 's/a/b/' m.py && python -m pytest -q").alsoRuns).toBe('test');
    expect(
      shellState("python - <<'PY'\nfrom pathlib import Path\nPath('m.py').write_text('x')\nimport mypkg\nPY").alsoRuns,
    ).toBe('script');
    expect(
      shellState("python - <<'PY'\nfrom pathlib import Path\nPath('m.py').write_text('x')\nPY").alsoRuns,
    ).toBeUndefined();
  });
  it('classifies reads, searches, tests, scripts and other shell by group', () => {
    expect(shellState("nl -ba a.py | sed -n '10,20p'")).toMatchObject({
      kind: 'read',
      files: [{path: 'a.py', lines: [10, 20]}],
    });
    expect(shellState('grep -rn foo .')).toMatchObject({kind: 'search', group: 'search'});
    expect(shellState('find . -name "*.py"')).toMatchObject({kind: 'search'});
    expect(shellState('ls -la')).toMatchObject({kind: 'list'});
    expect(shellState('python -m pytest -q tests/test_x.py')).toMatchObject({kind: 'run-test', group: 'test'});
    expect(shellState('cd /testbed && ./tests/runtests.py auth_tests')).toMatchObject({kind: 'run-test'});
    expect(shellState('python repro.py')).toMatchObject({kind: 'run-script', files: [{path: 'repro.py'}]});
    expect(shellState('pip install -e .')).toMatchObject({kind: 'other-shell', group: 'install'});
    expect(shellState('git diff')).toMatchObject({kind: 'other-shell', group: 'vcs'});
    expect(shellState('rm -f repro.py')).toMatchObject({kind: 'other-shell', group: 'cleanup'});
    expect(shellState('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A')).toMatchObject({kind: 'submit'});
  });
  it('git diff is verification after a source edit and exploration before; writing a test file is E before, V after', () => {
    const steps = [
      'git diff',
      "sed -i 's/a/b/' lib/core.py",
      'git diff',
      "cat > tests/test_new.py <<'EOF'\nEOF",
      'pip install x',
    ].map(actionText => ({kind: 'shell' as const, args: null, actionText}));
    const labels = labelSteps(
      extractStates([{kind: 'shell', args: null, actionText: "cat > test_repro.py <<'EOF'\nEOF"}, ...steps]),
    );
    expect(labels.map(l => `${l.stage}:${l.rule}`)).toEqual([
      'E:test-write',
      'E:other-shell',
      'I:source-edit',
      'V:other-shell',
      'V:test-write',
      'E:other-shell',
    ]);
    expect(labels[3]!.inputs).toEqual({first_source_edit: 2, group: 'vcs'});
  });
});

describe('writes the labeller follows through indirections (real steps)', () => {
  const run = (file: string) => {
    const t = parseMiniSweAgent(JSON.parse(readFileSync(join(SAMPLES, 'mini-swe-agent-multi', file), 'utf8')), 'x');
    const states = extractStates(
      t.steps.map(s => ({kind: toolKind('mini-swe-agent', s.tool), args: s.args, actionText: s.actionText})),
    );
    return {
      states,
      stages: labelSteps(states)
        .map(l => l.stage)
        .join(''),
    };
  };

  it('a patch applied by git apply from a heredoc is an edit of the files it names', () => {
    const {states, stages} = run('results-context-untruncated/django__django-11095.traj.json');
    expect(states[5]).toMatchObject({kind: 'edit', files: [{path: 'django/contrib/admin/options.py'}]});
    expect(stages[5]).toBe('I');
    expect(
      shellState(
        "cd /repo && patch -p1 <<'EOF'\ndiff --git a/pkg/a.py b/pkg/a.py\n--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1 +1 @@\n-x\n+y\nEOF",
      ),
    ).toMatchObject({kind: 'edit', files: [{path: 'pkg/a.py'}]});
    // applying a patch from a file names no file: not an edit we can place
    expect(shellState('git apply /tmp/fix.patch')).toMatchObject({kind: 'other-shell', group: 'vcs'});
  });

  it('a proof-of-concept script written after the fix is verification, not implementation', () => {
    // astropy-7336: the fix by sed (step 3), then poc.py written and run twice
    const {states, stages} = run('results-baseline-untruncated/astropy__astropy-7336.traj.json');
    expect(states[4]).toMatchObject({kind: 'edit', files: [{path: 'poc.py'}]});
    expect(stages).toBe('EEIVVO');
  });

  it('a Python program that writes a path held in a name is an edit of that path', () => {
    const astropy =
      "python - <<'PY'\np = 'astropy/io/fits/connect.py'\ntxt = open(p, 'r', encoding='utf-8').read()\ntxt = txt.replace(old, new)\nopen(p, 'w', encoding='utf-8').write(txt)\nprint('Patched connect.py')\nPY";
    expect(shellState(astropy)).toMatchObject({kind: 'edit', files: [{path: 'astropy/io/fits/connect.py'}]});
    expect(
      shellState(
        "python3 - <<'PY'\nimport io\nfrom pathlib import Path\np = Path('astropy/utils/misc.py')\ns = p.read_text()\nio.open(p, 'w', encoding='utf-8').write(s2)\nPY",
      ),
    ).toMatchObject({kind: 'edit', files: [{path: 'astropy/utils/misc.py'}]});
    expect(
      shellState(
        'python3 - <<\'PY\'\nfrom pathlib import Path\ntarget = Path("pkg/mod.py")\ntarget.write_text(new)\nPY',
      ),
    ).toMatchObject({kind: 'edit', files: [{path: 'pkg/mod.py'}]});
    expect(shellState("python3 - <<'PY'\nwith open(name, mode='w') as f:\n    f.write(x)\nPY")).toMatchObject({
      kind: 'run-script',
    });
    // reading a path held in a name is not writing it
    expect(shellState("python3 - <<'PY'\np = 'pkg/mod.py'\nprint(open(p).read())\nPY")).toMatchObject({
      kind: 'run-script',
    });
  });

  it('data written to run the program with makes the command a run, not an edit', () => {
    const cmd =
      "printf '<p>{{ x }}</p>' > templates/x.html && python3 - <<'PY'\nfrom app import render\nprint(render('x.html'))\nPY";
    expect(shellState(cmd)).toMatchObject({kind: 'run-script', files: [{path: 'templates/x.html'}]});
    const stages = labelSteps([shellState("sed -i 's/a/b/' app/render.py"), shellState(cmd)]).map(l => l.stage);
    expect(stages).toEqual(['I', 'V']);
    // code written and run stays an edit
    expect(shellState("cat > app/x.py <<'EOF'\nprint(1)\nEOF\npython app/x.py")).toMatchObject({
      kind: 'edit',
      alsoRuns: 'script',
    });
  });
});

describe('state equivalence and the PTA reference', () => {
  const read = (path: string, a?: number, b?: number) => ({
    kind: 'read' as const,
    files: [{path, ...(a !== undefined ? {lines: [a, b!] as [number, number]} : {})}],
  });
  const edit = (path: string) => ({kind: 'edit' as const, files: [{path}]});
  const test = (cmd: string) => ({kind: 'run-test' as const, files: [], command: cmd, group: 'test' as const});

  it('matches by line overlap ≥ 30 %, by file, or by command group with Jaccard > 0.5', async () => {
    const {equivalent} = await import('../../source/core/lens/pta.js');
    expect(equivalent(read('a.py', 1, 100), read('a.py', 71, 120))).toMatchObject({match: true, rule: 'line-overlap'});
    expect(equivalent(read('a.py', 1, 100), read('a.py', 90, 200))).toMatchObject({match: false}); // 11 of 100 lines
    expect(equivalent(edit('a.py'), edit('a.py'))).toMatchObject({match: true, rule: 'file'});
    expect(equivalent(edit('a.py'), read('a.py'))).toMatchObject({match: false});
    expect(
      equivalent(test('python -m pytest tests/test_x.py -q'), test('python -m pytest tests/test_x.py')),
    ).toMatchObject({match: true, rule: 'command'});
    expect(equivalent(test('python -m pytest tests/test_x.py'), test('tox -e py311'))).toMatchObject({match: false});
  });

  it('merges passing runs into a prefix tree with support counts; leave-one-out excludes the run', async () => {
    const {buildPta, referenceFor, bestPath, divergence} = await import('../../source/core/lens/pta.js');
    const runs = [
      {id: 'r1', states: [read('a.py'), edit('a.py'), test('pytest tests')]},
      {id: 'r2', states: [read('a.py'), edit('a.py'), test('pytest tests -q')]},
      {id: 'r3', states: [read('b.py'), edit('a.py')]},
    ];
    const root = buildPta(runs);
    expect(root.support).toBe(3);
    expect(root.children.map(c => [c.state!.files[0]!.path, c.support])).toEqual([
      ['a.py', 2],
      ['b.py', 1],
    ]);
    const path = bestPath(root);
    expect(path.map(n => `${n.state!.kind}:${n.support}`)).toEqual(['read:2', 'edit:2', 'run-test:2']);
    const without = referenceFor('r1', runs);
    expect(without.support).toBe(2);
    expect(without.children[0]!.runs).toEqual(['r2']);
    expect(divergence(without, runs[2]!.states)).toBe(null);
    expect(divergence(without, [read('a.py'), edit('z.py')])).toBe(1);
  });
});

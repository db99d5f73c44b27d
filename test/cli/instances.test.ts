/**
 * SWE-bench instances end to end: dataset rows and predictions imported (every field kept, a bad
 * row refused with nothing written), listed and shown; then traced from the record alone — the
 * trees from a git clone at the base commit with the test patch, the test from FAIL_TO_PASS,
 * run the way the harness runs that repository (a bare sympy-style name called as bin/test
 * calls it, a pytest id, Django's runtests.py with "test_x (module.Class)").
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {ROOT, SHARED, tempDir} from '../helpers/files.js';
import {hasBwrap} from '../helpers/hostile.js';
import {SHAPES_GOLD} from '../helpers/shapes.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const BWRAP = hasBwrap();

function run(args: string[], cwd: string) {
  if (args[0] === 'trace' && !BWRAP) args = [...args, '--no-sandbox'];
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

/** A git repository of a tree, one commit; returns its path and the commit. */
function repoOf(tree: string, dir: string): {repo: string; base: string} {
  cpSync(tree, dir, {recursive: true});
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    }).trim();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return {repo: dir, base: git('rev-parse', 'HEAD')};
}

const DJANGO_RECORD = join(SHARED, 'swe-bench-instances', 'django__django-11099.json');

/** The fix's new test, as a diff against the base (made with git, as a test patch is). */
function testPatch(repo: string): string {
  const file = join(repo, 'tests', 'test_parse.py');
  const before = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    `${before}\n\ndef test_hours_and_minutes_add_up():\n    assert parse_duration("2h15m") == 8100\n`,
  );
  const diff = execFileSync('git', ['diff'], {cwd: repo, encoding: 'utf8'});
  writeFileSync(file, before);
  return diff;
}

function durationsRecord(base: string, extra: Record<string, unknown> = {}, test_patch = '') {
  return {
    repo: 'demo/durations',
    instance_id: 'demo__durations-7',
    base_commit: base,
    patch: readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'gold.diff'), 'utf8'),
    test_patch,
    problem_statement: 'parse_duration("1h30m") gives 1800: the units do not add up',
    hints_text: '',
    created_at: '2026-01-02T03:04:05Z',
    version: '1.0',
    FAIL_TO_PASS: JSON.stringify(['test_hours_and_minutes_add_up', 'tests/test_parse.py::test_compound_duration']),
    PASS_TO_PASS: JSON.stringify(['tests/test_parse.py::test_single_unit']),
    environment_setup_commit: base,
    ...extra,
  };
}

describe('deltalens instances', () => {
  it('imports dataset rows whole (every field kept) and predictions as runs; lists and shows them', () => {
    const cwd = tempDir();
    const rows = [
      JSON.parse(readFileSync(DJANGO_RECORD, 'utf8')),
      durationsRecord('0123456789abcdef0123456789abcdef01234567', {our_own_field: {kept: true}}),
    ];
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify(rows));
    const imported = run(['instances', 'import', 'rows.json', '--json'], cwd);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).instances).toEqual([
      {id: 'django__django-11099', status: 'added'},
      {id: 'demo__durations-7', status: 'added'},
    ]);
    expect(
      JSON.parse(run(['instances', 'import', 'rows.json', '--json'], cwd).stdout).instances.map(
        (i: {status: string}) => i.status,
      ),
    ).toEqual(['unchanged', 'unchanged']);
    // predictions: JSON lines, one per model
    writeFileSync(
      join(cwd, 'preds.jsonl'),
      `${JSON.stringify({instance_id: 'demo__durations-7', model_name_or_path: 'agent-x', model_patch: readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'agent-wrong.diff'), 'utf8')})}\n${JSON.stringify({instance_id: 'nowhere__x-1', model_name_or_path: 'agent-x', model_patch: ''})}\n`,
    );
    const preds = run(['instances', 'import', 'preds.jsonl'], cwd);
    expect(preds.code, preds.stderr).toBe(0);
    expect(preds.stdout).toContain('2 predictions of agent-x: 2 added as runs without steps');
    expect(preds.stdout).toContain('no instance record for 1 of the predicted instances (nowhere__x-1)');
    const list = JSON.parse(run(['instances', '--json'], cwd).stdout).instances;
    expect(list.map((i: {id: string; runs: number}) => [i.id, i.runs])).toEqual([
      ['demo__durations-7', 1],
      ['django__django-11099', 0],
    ]);
    const shown = JSON.parse(run(['show', 'instance', 'django__django-11099', '--json'], cwd).stdout);
    const original = JSON.parse(readFileSync(DJANGO_RECORD, 'utf8'));
    expect(shown).toMatchObject({
      repo: 'django/django',
      base_commit: original.base_commit,
      version: '3.0',
      environment_setup_commit: original.environment_setup_commit,
      created_at: original.created_at,
      hints_text: original.hints_text,
    });
    expect(shown.fail_to_pass).toEqual(JSON.parse(original.FAIL_TO_PASS));
    expect(shown.record).toEqual(original);
    expect(
      JSON.parse(run(['show', 'instance', 'demo__durations-7', '--json'], cwd).stdout).record.our_own_field,
    ).toEqual({kept: true});
    const text = run(['show', 'instance', 'django__django-11099'], cwd).stdout;
    expect(text).toContain(
      'FAIL_TO_PASS (3):\n  test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)',
    );
    const missing = run(['show', 'instance', 'nope__nope-1'], cwd);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      1,
      'deltalens: no instance nope__nope-1 in the store (deltalens instances lists them)',
    ]);
  });

  it('a bad row is named by its number and field, and nothing of the file is kept', () => {
    const cwd = tempDir();
    const good = durationsRecord('0123456789abcdef0123456789abcdef01234567');
    for (const [rows, message] of [
      [
        [good, {...good, instance_id: 'demo__durations-8', FAIL_TO_PASS: '["unterminated'}],
        'row 2 (demo__durations-8): FAIL_TO_PASS: expected a JSON-encoded list of test ids, found text that is not JSON',
      ],
      [
        [good, {...good, instance_id: 'demo__durations-9', base_commit: 'main'}],
        'row 2 (demo__durations-9): base_commit: "main" is not a commit (7–40 hex digits)',
      ],
      [[good, good], 'row 2 (demo__durations-7): instance_id: the file has it twice (row 1 too)'],
      [[good, {hello: 'world'}], 'row 2: neither a SWE-bench instance'],
    ] as const) {
      writeFileSync(join(cwd, 'bad.json'), JSON.stringify(rows));
      const r = run(['instances', 'import', 'bad.json', '--db', 'store.db'], cwd);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('nothing of the file was imported');
      expect(run(['instances', '--db', 'store.db'], cwd).stdout).toContain('no instance records');
    }
  });

  it('traces the gold fix from the record alone: each FAIL_TO_PASS test, a bare name as bin/test runs it and a pytest id', () => {
    const cwd = tempDir();
    const {repo, base} = repoOf(join(PROJECTS_DIR, 'durations', 'repo'), join(cwd, 'clone'));
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify([durationsRecord(base, {}, testPatch(repo))]));
    expect(run(['instances', 'import', 'rows.json'], cwd).code).toBe(0);
    const r = run(
      ['trace', '--instance', 'demo__durations-7', '--repo', repo, '--gold', '--all-tests', '--no-plugins', '--json'],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(
      out.tests.map((t: Record<string, unknown>) => [
        t.test,
        t.runner,
        t.status,
        t.function,
        (t.landing as {kind: string}).kind,
        (t.buggy_outcome as {status: string}).status,
        (t.patched_outcome as {status: string}).status,
      ]),
    ).toEqual([
      ['test_hours_and_minutes_add_up', 'function', 'found', 'parse_duration', 'changed function', 'failed', 'passed'],
      [
        'tests/test_parse.py::test_compound_duration',
        'pytest',
        'found',
        'parse_duration',
        'changed function',
        'failed',
        'passed',
      ],
    ]);
    // the test came with the test patch: the buggy tree has it too, and the trees came from the clone
    expect(out.tests[0].trace_status).toEqual({buggy: 'complete', patched: 'complete'});
    expect(run(['traces', '--instance', 'demo__durations-7'], cwd).stdout).toContain('2 traced pairs');
  }, 120_000);

  it('traces a prediction and a stored run on the instance; says what is missing in one line', () => {
    const cwd = tempDir();
    const {repo, base} = repoOf(join(PROJECTS_DIR, 'durations', 'repo'), join(cwd, 'clone'));
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify([durationsRecord(base, {}, testPatch(repo))]));
    writeFileSync(
      join(cwd, 'preds.json'),
      JSON.stringify([
        {
          instance_id: 'demo__durations-7',
          model_name_or_path: 'agent-x',
          model_patch: readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'agent-wrong.diff'), 'utf8'),
        },
      ]),
    );
    for (const f of ['rows.json', 'preds.json']) expect(run(['instances', 'import', f], cwd).code).toBe(0);
    const r = run(
      ['trace', '--instance', 'demo__durations-7', '--repo', repo, '--prediction', 'agent-x', '--no-plugins', '--json'],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d).toMatchObject({
      test: 'test_hours_and_minutes_add_up',
      patch_label: 'prediction of agent-x',
      status: 'found',
    });
    expect(d.patched_outcome.status).toBe('failed');
    const run1 = JSON.parse(run(['trajectories', '--instance', 'demo__durations-7', '--json'], cwd).stdout)
      .trajectories[0];
    const byRun = run(
      [
        'trace',
        '--instance',
        'demo__durations-7',
        '--repo',
        repo,
        '--trajectory',
        String(run1.id),
        '--test',
        'tests/test_parse.py::test_single_unit',
        '--no-plugins',
      ],
      cwd,
    );
    expect(byRun.code, byRun.stderr).toBe(0);
    expect(byRun.stdout).toContain(
      `demo__durations-7 · tests/test_parse.py::test_single_unit · trajectory #${run1.id} (agent-x)`,
    );
    for (const [args, message] of [
      [['--prediction', 'nobody'], 'no prediction of nobody for demo__durations-7'],
      [['--gold', '--prediction', 'agent-x'], 'say which patch to trace on demo__durations-7: one of --gold'],
      [['--gold', '--test', 'test_not_there'], 'no file the test patch touches defines test_not_there'],
    ] as const) {
      const bad = run(['trace', '--instance', 'demo__durations-7', '--repo', repo, ...args], cwd);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toContain(message);
    }
    const noClone = run(['trace', '--instance', 'demo__durations-7', '--repo', cwd, '--gold'], cwd);
    expect(noClone.stderr).toMatch(/is not a git repository|base commit .* is not in/);
  }, 120_000);

  it('builds questions from the record: its base with its test patch, its gold fix, its first FAIL_TO_PASS test, and the predictions', () => {
    const cwd = tempDir();
    const {repo, base} = repoOf(join(PROJECTS_DIR, 'durations', 'repo'), join(cwd, 'clone'));
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify([durationsRecord(base, {}, testPatch(repo))]));
    writeFileSync(
      join(cwd, 'preds.json'),
      JSON.stringify([
        {
          instance_id: 'demo__durations-7',
          model_name_or_path: 'agent-x',
          model_patch: readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'agent-wrong.diff'), 'utf8'),
        },
      ]),
    );
    for (const f of ['rows.json', 'preds.json']) expect(run(['instances', 'import', f], cwd).code).toBe(0);
    const env = {XDG_CACHE_HOME: join(cwd, 'cache')};
    const build = (extra: string[]) => {
      const r = spawnSync(
        process.execPath,
        [
          BIN,
          'questions',
          'build',
          '--instance',
          'demo__durations-7',
          '--repo',
          repo,
          '--stored-patches',
          '--type',
          'e2e_effect',
          '--no-checks',
          ...extra,
        ],
        {cwd, encoding: 'utf8', env: {...process.env, ...env, NO_COLOR: '1'}},
      );
      return {code: r.status, stdout: r.stdout, stderr: r.stderr};
    };
    const r = build(BWRAP ? [] : ['--no-sandbox']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/e2e_effect +demo__durations-7\/built\/e2e_effect\/agent-x/);
    expect(r.stderr).toContain('made the buggy tree from its record');
    expect(r.stderr).toContain('the test tests/test_parse.py::test_hours_and_minutes_add_up');
    // a second build reuses the tree
    expect(build(BWRAP ? ['--force'] : ['--force', '--no-sandbox']).stderr).toContain(
      `${'demo__durations-7'}: the buggy tree from its record`,
    );
  }, 180_000);

  it('a Django repository: "test_x (module.Class)" runs through the tree\'s tests/runtests.py, traced test by test', () => {
    const cwd = tempDir();
    const {repo, base} = repoOf(join(ROOT, 'tracer', 'tests', 'fixtures', 'runners'), join(cwd, 'clone'));
    const record = {
      ...durationsRecord(base),
      repo: 'django/django',
      instance_id: 'django__django-90001',
      patch: SHAPES_GOLD,
      test_patch: '',
      FAIL_TO_PASS: JSON.stringify(['test_wrong (shape_tests.test_area.AreaTests)']),
      PASS_TO_PASS: JSON.stringify(['test_square (shape_tests.test_area.AreaTests)']),
    };
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify([record]));
    expect(run(['instances', 'import', 'rows.json'], cwd).code).toBe(0);
    const r = run(['trace', '--instance', 'django__django-90001', '--repo', repo, '--gold', '--json'], cwd);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d).toMatchObject({runner: 'django', status: 'found', function: 'area', landing: {kind: 'changed function'}});
    expect([d.buggy_outcome.status, d.buggy_outcome.exception, d.patched_outcome.status]).toEqual([
      'failed',
      'AssertionError',
      'passed',
    ]);
    const pass = run(
      [
        'trace',
        '--instance',
        'django__django-90001',
        '--repo',
        repo,
        '--gold',
        '--test',
        'test_square (shape_tests.test_area.AreaTests)',
      ],
      cwd,
    );
    expect(pass.stdout).toContain('delta: ∅');
  }, 120_000);
});

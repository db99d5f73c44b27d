import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {openDb} from '../../source/store/db.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {hasBwrap} from '../helpers/hostile.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

// These trace our own demo projects. Without bwrap they run unconfined (said once here); the
// sandbox itself is tested in test/services/sandbox.test.ts.
const BWRAP = hasBwrap();
if (!BWRAP)
  console.warn('trace CLI tests: bwrap is not installed, so they run with --no-sandbox (our own demo projects)');

function run(args: string[], cwd = tempDir()) {
  if (args[0] === 'trace' && !BWRAP) args = [...args, '--no-sandbox'];
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
  });
  return {code: result.status, stdout: result.stdout, stderr: result.stderr};
}

describe('deltalens trace / delta / traces', () => {
  it('traces a patch file against a project, prints the delta as JSON, and recomputes it from the store', () => {
    const cwd = tempDir();
    const repo = join(PROJECTS_DIR, 'ledger', 'repo');
    const patch = join(PROJECTS_DIR, 'ledger', 'patches', 'agent-wrong.diff');
    const traced = run(
      [
        'trace',
        '--repo',
        repo,
        '--patch',
        patch,
        '--test',
        'tests/test_account.py::test_small_deposits_keep_every_cent',
        '--no-plugins',
        '--label',
        'agent-wrong',
        '--json',
      ],
      cwd,
    );
    expect(traced.code, traced.stderr).toBe(0);
    const d = JSON.parse(traced.stdout);
    expect(d).toMatchObject({
      status: 'found',
      kind: 'outcome',
      function: 'to_cents',
      file: 'ledger/money.py',
      timing: 'before',
      buggy_outcome: {status: 'failed', exception: 'AssertionError'},
      patched_outcome: {status: 'failed'},
      frame_outcomes: {buggy: {value: '28'}, patched: {value: '29'}},
      trace_status: {buggy: 'complete', patched: 'complete'},
      pair: 1,
      changed_functions: ['ledger/money.py:to_cents'],
    });
    expect(d.events.buggy).toBeGreaterThan(0);

    const again = run(['delta', String(d.traces.buggy), String(d.traces.patched), '--json'], cwd);
    expect(again.code).toBe(0);
    const re = JSON.parse(again.stdout);
    expect(re).toMatchObject({
      status: 'found',
      kind: 'outcome',
      function: 'to_cents',
      line: d.line,
      line_mapping: 'patch',
      pair: 1,
    });

    const list = run(['traces', '--json'], cwd);
    expect(JSON.parse(list.stdout).pairs).toEqual([
      expect.objectContaining({
        pair: 1,
        label: 'agent-wrong',
        status: {buggy: 'complete', patched: 'complete'},
        delta: expect.objectContaining({kind: 'outcome', function: 'to_cents'}),
      }),
    ]);
    const human = run(['traces'], cwd);
    expect(human.stdout).toContain('outcome in to_cents ledger/money.py:3');

    // a named option is stored with the delta and shown
    const opt = run(
      ['delta', String(d.traces.buggy), String(d.traces.patched), '--option', 'round-floats', '--save'],
      cwd,
    );
    expect(opt.stdout).toContain('options: round-floats');

    // the stepper's rows as JSON: the delta row is where the two sides part, in to_cents
    const steps = run(['steps', '1', '--delta', '--limit', '2', '--json'], cwd);
    expect(steps.code, steps.stderr).toBe(0);
    const s = JSON.parse(steps.stdout);
    expect(s.delta_row).toBeGreaterThan(0);
    expect(s.from).toBe(s.delta_row);
    expect(s.steps[0]).toMatchObject({
      row: s.delta_row,
      delta: true,
      what: expect.stringMatching(/^control flow split/),
    });
    const side = s.steps[0].buggy ?? s.steps[0].patched;
    expect(side).toMatchObject({fn: 'to_cents', file: 'ledger/money.py', recorded: true});
    expect(side.stack.at(-1).fn).toMatch(/^test_/);
    expect(Object.keys(side.locals)).toContain('amount');
    const all = JSON.parse(run(['steps', '1', '--limit', '0', '--json'], cwd).stdout);
    expect(all.steps).toHaveLength(all.rows);
    expect(all.steps.filter((r: {delta: boolean}) => r.delta)).toHaveLength(1);
    expect(run(['steps', '1', '--delta'], cwd).stdout).toMatch(/^◆ /m);
    // watches, from the recorded values, on both sides at every row printed
    const watched = JSON.parse(
      run(['steps', '1', '--delta', '--limit', '1', '--watch', 'amount', '--watch', 'amount * 100', '--json'], cwd)
        .stdout,
    );
    expect(watched.steps[0].watches[0]).toMatchObject({
      expr: 'amount',
      source: 'recorded',
      buggy: {value: 0.29},
      patched: {value: 0.29},
    });
    expect(watched.steps[0].watches[1]).toMatchObject({expr: 'amount * 100', source: 'unavailable'});
    expect(run(['steps', '7'], cwd)).toMatchObject({code: 1, stderr: expect.stringContaining('no traced pair #7')});
  }, 120_000);

  it('traces the patch an agent submitted in a stored trajectory, linked to it', () => {
    const cwd = tempDir();
    const patch = readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'agent-correct.diff'), 'utf8');
    const file = join(cwd, 'run.jsonl');
    writeFileSync(
      file,
      `${[
        {type: 'trajectory', instance: 'demo__durations-1', agent: 'test-agent', model: 'm'},
        {type: 'step', thought: 'Sum the parts.', tool: 'bash', action: 'edit durations/parse.py', observation: 'ok'},
        {type: 'end', patch, explanation: 'parse_duration kept only the last unit; now it sums them.', resolved: true},
      ]
        .map(x => JSON.stringify(x))
        .join('\n')}\n`,
    );
    expect(run(['import', file], cwd).code).toBe(0);
    const r = run(
      [
        'trace',
        '--trajectory',
        '1',
        '--repo',
        join(PROJECTS_DIR, 'durations', 'repo'),
        '--test',
        'tests/test_parse.py::test_compound_duration',
        '--no-plugins',
        '--no-rerun',
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'found',
      function: 'parse_duration',
      patched_outcome: {status: 'passed'},
    });
    const pairs = JSON.parse(run(['traces', '--json'], cwd).stdout).pairs;
    expect(pairs[0]).toMatchObject({instance: 'demo__durations-1', label: 'trajectory #1 (test-agent)'});
    expect(run(['trace', '--trajectory', '7', '--repo', '.', '--test', 't'], cwd)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no trajectory with id 7'),
    });
    expect(run(['trace', '--trajectory', '1', '--patch', 'x', '--repo', '.', '--test', 't'], cwd)).toMatchObject({
      code: 2,
    });
  }, 60_000);

  it('two ready directories: the patch is their difference', () => {
    const cwd = tempDir();
    const r = run(
      [
        'trace',
        '--buggy-dir',
        join(PROJECTS_DIR, 'durations', 'repo'),
        '--patched-dir',
        join(PROJECTS_DIR, 'durations', 'repo'),
        '--test',
        'tests/test_parse.py::test_single_unit',
        '--no-plugins',
        '--no-rerun',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('delta: ∅ — the patch has no effect on this test');
    expect(r.stderr).toContain('the two trees are identical');
  }, 60_000);

  it('a test the buggy side does not have (the fix adds it): incomplete, the reason said, exit 1', () => {
    const cwd = tempDir();
    const buggy = join(cwd, 'buggy');
    const patched = join(cwd, 'patched');
    for (const [dir, test] of [
      [buggy, ''],
      [patched, '\n\ndef test_added():\n    assert f() == 2\n'],
    ] as const) {
      spawnSync('mkdir', ['-p', join(dir, 'tests')]);
      writeFileSync(join(dir, 'm.py'), `def f():\n    return ${dir === buggy ? 1 : 2}\n`);
      writeFileSync(join(dir, 'tests', 'test_m.py'), `from m import f${test}\n`);
    }
    const r = run(
      [
        'trace',
        '--buggy-dir',
        buggy,
        '--patched-dir',
        patched,
        '--test',
        'tests/test_m.py::test_added',
        '--no-plugins',
        '--no-rerun',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/delta: not computed — the test did not run on the buggy side: .*no test ran/);
  }, 60_000);

  it("imports a pair of trace files (ExplainBench's swe-bench-tracer-py format) and computes their delta; a bad file changes nothing", () => {
    const cwd = tempDir();
    const dir = join(ROOT, 'sample-data', 'traces', 'sympy__sympy-20801');
    const r = run(
      [
        'traces',
        'import',
        join(dir, 'buggy.jsonl'),
        join(dir, 'fixed.jsonl'),
        '--instance',
        'sympy__sympy-20801',
        '--option',
        'match-by-text',
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'found',
      function: 'Float.__eq__',
      file: 'sympy/core/numbers.py',
      buggy_outcome: {status: 'failed', exception: 'AssertionError'},
      patched_outcome: {status: 'passed'},
      options: ['match-by-text'],
      line_mapping: 'text',
    });
    const bad = join(cwd, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"event_id": 0, "event_type": "Function", "line_number": 1, "filepath": "/testbed/t.py", "function_name": "t:test", "parameters": {}}\n{"event_id": 1, "event_type": "Return"\n{"event_id": 2, "event_type": "Line"}\n',
    );
    const failed = run(['traces', 'import', join(dir, 'buggy.jsonl'), bad, '--json'], cwd);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/line 2/);
    const list = JSON.parse(run(['traces', '--json'], cwd).stdout);
    expect(list.pairs).toHaveLength(1); // the failed import left no trace and no pair
    const traces = spawnSync('sqlite3', [join(cwd, 'deltalens.db'), 'SELECT count(*) FROM trace'], {encoding: 'utf8'});
    if (traces.status === 0) expect(traces.stdout.trim()).toBe('2');
  });

  it('delta refuses two traces of different programs; traces import of a missing file creates no database', () => {
    const cwd = tempDir();
    const dir = join(ROOT, 'sample-data', 'traces', 'sympy__sympy-20801');
    const first = JSON.parse(
      run(['traces', 'import', join(dir, 'buggy.jsonl'), join(dir, 'fixed.jsonl'), '--instance', 'one', '--json'], cwd)
        .stdout,
    );
    const second = JSON.parse(
      run(['traces', 'import', join(dir, 'buggy.jsonl'), join(dir, 'fixed.jsonl'), '--instance', 'two', '--json'], cwd)
        .stdout,
    );
    const third = JSON.parse(
      run(
        [
          'traces',
          'import',
          join(dir, 'buggy.jsonl'),
          join(dir, 'fixed.jsonl'),
          '--instance',
          'one',
          '--test',
          'tests/other.py::test_x',
          '--json',
        ],
        cwd,
      ).stdout,
    );
    const mixed = run(['delta', String(first.traces.buggy), String(second.traces.patched)], cwd);
    expect(mixed).toMatchObject({code: 2, stderr: expect.stringContaining('different instances (one, two)')});
    expect(mixed.stderr.trim().split('\n')).toHaveLength(1);
    expect(run(['delta', String(first.traces.buggy), String(third.traces.patched)], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ran different tests'),
    });
    // the same test of the same instance, not traced together: computed, and said so
    const fourth = JSON.parse(
      run(['traces', 'import', join(dir, 'buggy.jsonl'), join(dir, 'fixed.jsonl'), '--instance', 'one', '--json'], cwd)
        .stdout,
    );
    const loose = run(['delta', String(first.traces.buggy), String(fourth.traces.patched)], cwd);
    expect(loose.code, loose.stderr).toBe(0);
    expect(loose.stdout).toContain('not traced as a pair');

    const empty = tempDir();
    const missing = run(['traces', 'import', join(empty, 'nope.jsonl'), join(dir, 'fixed.jsonl')], empty);
    expect(missing).toMatchObject({code: 1, stderr: expect.stringContaining('no such file')});
    expect(existsSync(join(empty, 'deltalens.db'))).toBe(false);
  });

  it('says what is wrong: usage errors exit 2, a missing Python or patch exits 1', () => {
    expect(run(['trace'])).toMatchObject({code: 2, stderr: expect.stringContaining('--test NODEID')});
    expect(run(['trace', '--test', 't', '--repo', '.'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--buggy REV and --patched REV, or --patch FILE'),
    });
    expect(run(['trace', '--test', 't', '--buggy-dir', '.'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('go together'),
    });
    expect(
      run(['trace', '--test', 't', '--buggy-dir', '.', '--patched-dir', '.', '--option', 'random-ties']),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--option must be one of start-at-patched-function, no-step-into, match-by-text, round-floats',
      ),
    });
    expect(
      run(['trace', '--test', 't', '--buggy-dir', '.', '--patched-dir', '.', '--value-budget', 'many']),
    ).toMatchObject({code: 2, stderr: expect.stringContaining('--value-budget takes a whole number (got "many")')});
    const dir = tempDir();
    expect(
      run(['trace', '--test', 't', '--buggy-dir', dir, '--patched-dir', dir, '--python', '/nonexistent/py']),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('cannot run /nonexistent/py'),
    });
    expect(run(['trace', '--test', 't', '--repo', dir, '--patch', join(dir, 'nope.diff')])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('nope.diff: no such file'),
    });
    expect(run(['delta', '1'])).toMatchObject({code: 2});
    // a mistyped --db is an error, not a new empty store
    expect(run(['delta', '998', '999', '--db', join(dir, 'x.db')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no database at'),
    });
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
    openDb(join(dir, 'made.db')).close();
    expect(run(['delta', '998', '999', '--db', join(dir, 'made.db')])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no trace with id 998'),
    });
  });
});

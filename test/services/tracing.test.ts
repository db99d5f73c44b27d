/**
 * The real tracer on real Python code (the demo projects, a copy of the installed click
 * library with a regression put back, crafted projects), stored in a real SQLite file.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {tracePair, type TracePairOptions} from '../../source/services/tracing.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {getTrace, listPairs} from '../../source/store/traces.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {CLICK_TEST, clickTrees, findClick} from '../helpers/click.js';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';
// our own fixtures: confined when bwrap is here (always in CI), else run as they are
const fast: Partial<TracePairOptions> = {python: PY, pytestPlugins: false, sandbox: 'prefer'};
const project = (name: string) => join(PROJECTS_DIR, name);

describe('tracePair on the demo projects', () => {
  it('gold patch: a delta inside the fixed function, test failing before and passing after', async () => {
    const {db} = freshDb();
    const r = await tracePair(
      db,
      {
        kind: 'patch',
        repo: join(project('durations'), 'repo'),
        patch: join(project('durations'), 'patches', 'gold.diff'),
        copy: true,
      },
      {
        ...fast,
        python: PY,
        test: 'tests/test_parse.py::test_compound_duration',
        instance: 'demo__durations-1',
        label: 'gold',
      },
    );
    expect(r.changes.functions.map(f => `${f.file}:${f.qualname}`)).toEqual(['durations/parse.py:parse_duration']);
    expect(r.delta).toMatchObject({status: 'found', function: 'parse_duration', file: 'durations/parse.py', line: 21});
    expect(r.delta.buggyOutcome).toMatchObject({kind: 'return', value: '1800'});
    expect(r.delta.patchedOutcome).toMatchObject({kind: 'return', value: '5400'});
    expect(r.buggy.summary).toMatchObject({status: 'complete', outcome: {status: 'failed'}});
    expect(r.patched.summary).toMatchObject({status: 'complete', outcome: {status: 'passed'}});
    expect(r.buggy.rerun).not.toBeNull();
    expect(r.nondeterministic).toEqual([]);
    // stored: the pair, four traces, frames and steps in SQLite; the trees are gone
    expect(listPairs(db)).toHaveLength(1);
    expect(db.prepare('SELECT count(*) FROM trace').pluck().get()).toBe(4);
    expect(db.prepare('SELECT sum(n) FROM trace_chunk WHERE trace = ?').pluck().get(r.buggy.trace)).toBe(
      r.buggy.summary.events,
    );
    expect(existsSync(r.workspace.buggy)).toBe(false);
  });

  it('a tree where pytest already ran (its rewritten bytecode names the old path) still has its test traced', async () => {
    const tree = join(tempDir(), 'repo');
    cpSync(join(project('durations'), 'repo'), tree, {recursive: true});
    const env: NodeJS.ProcessEnv = {...process.env};
    delete env.PYTHONDONTWRITEBYTECODE;
    spawnSync(PY, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_parse.py'], {cwd: tree, env});
    const cached = execFileSync('find', [tree, '-name', '*-pytest-*.pyc'], {encoding: 'utf8'});
    expect(cached).toContain('test_parse');
    const {db} = freshDb();
    const r = await tracePair(
      db,
      {kind: 'patch', repo: tree, patch: join(project('durations'), 'patches', 'gold.diff'), copy: true},
      {
        ...fast,
        python: PY,
        test: 'tests/test_parse.py::test_compound_duration',
        instance: 'demo__durations-1',
        label: 'gold',
      },
    );
    const frames = db.prepare('SELECT function FROM frame WHERE trace = ?').pluck().all(r.buggy.trace);
    expect(frames).toContain('test_compound_duration');
    expect(r.delta).toMatchObject({status: 'found', function: 'parse_duration', line: 21});
  });

  it('an ineffective patch (a function the test never calls) gives ∅ with equal outcomes, with and without focus', async () => {
    const {db} = freshDb();
    const spec = {
      kind: 'patch' as const,
      repo: join(project('ledger'), 'repo'),
      patch: join(project('ledger'), 'patches', 'agent-ineffective.diff'),
      copy: true,
    };
    const test = 'tests/test_account.py::test_small_deposits_keep_every_cent';
    const focused = await tracePair(db, spec, {...fast, python: PY, test, reruns: false});
    expect(focused.delta).toMatchObject({status: 'none', kind: null});
    expect(focused.delta.reason).toMatch(/no patch-modified function ran/);
    expect(focused.buggy.summary.outcome?.status).toBe('failed');
    expect(focused.patched.summary.outcome?.status).toBe('failed');
    const everything = await tracePair(db, spec, {...fast, python: PY, test, reruns: false, focus: false});
    expect(everything.delta.status).toBe('none');
    expect(everything.delta.stepsCompared).toBeGreaterThan(10);
    expect(everything.delta.reason).toMatch(/both runs identical over \d+ aligned steps/);
  });

  it('a wrong patch: a delta, and the test still fails on the patched side', async () => {
    const {db} = freshDb();
    const r = await tracePair(
      db,
      {
        kind: 'patch',
        repo: join(project('graphs'), 'repo'),
        patch: join(project('graphs'), 'patches', 'agent-wrong.diff'),
        copy: true,
      },
      {
        ...fast,
        python: PY,
        test: 'tests/test_topo.py::test_cycle_is_reported',
        reruns: false,
      },
    );
    expect(r.delta).toMatchObject({status: 'found', kind: 'outcome', function: 'topo_sort.<locals>.visit'});
    expect(r.delta.patchedOutcome).toMatchObject({kind: 'exception', exception: {type: 'ValueError'}});
    expect(r.patched.summary.outcome?.status).toBe('failed');
  });
});

describe('a real library under pytest', () => {
  const click = findClick();
  it.skipIf(!click)(
    'click with its option-prefix fix undone: the delta is inside the function the fix touches',
    async () => {
      const {buggy, fixed: patched, parser} = clickTrees(click!, tempDir(), ['buggy', 'patched']);
      const {db} = freshDb();
      const r = await tracePair(
        db,
        {kind: 'dirs', buggyDir: buggy, patchedDir: patched},
        {...fast, python: PY, test: CLICK_TEST},
      );
      expect(r.changes.functions.map(f => f.qualname)).toEqual(['_split_opt']);
      expect(r.buggy.summary.outcome?.status).toBe('failed');
      expect(r.patched.summary.outcome?.status).toBe('passed');
      expect(r.delta).toMatchObject({status: 'found', function: '_split_opt', file: 'click/parser.py'});
      expect(r.buggy.summary.frames).toBeGreaterThan(5);
      // ready directories are left alone
      expect(existsSync(parser)).toBe(true);
    },
    120_000,
  );

  it.skipIf(!click)(
    'a small run is traced with every value in one run per side; past the budget, values are planned from it; the same delta either way',
    async () => {
      const {buggy, fixed: patched} = clickTrees(click!, tempDir(), ['buggy', 'patched']);
      const trace = async (valueBudget: number) => {
        const {db} = freshDb();
        const progress: string[] = [];
        const r = await tracePair(
          db,
          {kind: 'dirs', buggyDir: buggy, patchedDir: patched},
          {...fast, python: PY, test: CLICK_TEST, valueBudget, onProgress: m => progress.push(m)},
        );
        const runs = progress.filter(m => /^tracing (buggy|patched) \(run/.test(m));
        const kept = db.prepare('SELECT count(*) FROM trace').pluck().get();
        return {r, runs, kept};
      };
      const small = await trace(5000);
      const spent = await trace(20);
      const planned = await trace(0);
      // within the budget: the first run is the trace, then the confirming run (2 a side)
      expect(small.runs).toHaveLength(4);
      expect(small.r.values).toMatchObject({mode: 'all', reason: expect.stringMatching(/budget of 5,000 events/)});
      // past it (or without one): a planned run from the first run's control flow (3 a side)
      for (const t of [spent, planned]) {
        expect(t.runs).toHaveLength(6);
        expect(t.r.values).toMatchObject({mode: 'planned'});
      }
      const where = (t: typeof small) => {
        const d = t.r.delta;
        return [d.status, d.kind, d.function, d.line, d.seqB, d.seqP, JSON.stringify(d.variables)];
      };
      expect(where(small)).toEqual(where(planned));
      expect(where(spent)).toEqual(where(planned));
      expect(small.r.delta).toMatchObject({status: 'found', function: '_split_opt'});
      for (const t of [small, spent, planned]) expect(t.kept).toBe(4);
    },
    240_000,
  );
});

describe('how a trace is stored', () => {
  it('long arguments and results are kept deflated and read back whole: the delta shows the full value', async () => {
    const dir = tempDir();
    for (const side of ['buggy', 'patched']) {
      mkdirSync(join(dir, side, 'tests'), {recursive: true});
      // 30 parts in, 30 words out: well over the 256 characters from which a value is deflated
      writeFileSync(
        join(dir, side, 'lib.py'),
        `def words(parts):\n    return [p + "-word-%05d" % i for i, p in enumerate(parts)]${side === 'buggy' ? '[:-1]' : ''}\n`,
      );
      writeFileSync(
        join(dir, side, 'tests', 'test_it.py'),
        'from lib import words\n\n\ndef test_it():\n    assert len(words(["part%03d" % i for i in range(30)])) == 30\n',
      );
    }
    const {db} = freshDb();
    const r = await tracePair(
      db,
      {kind: 'dirs', buggyDir: join(dir, 'buggy'), patchedDir: join(dir, 'patched')},
      {...fast, python: PY, test: 'tests/test_it.py::test_it', reruns: false},
    );
    expect(r.delta).toMatchObject({status: 'found', kind: 'outcome', function: 'words'});
    const blobs = (column: string) =>
      db
        .prepare(`SELECT count(*) FROM frame WHERE trace = ? AND typeof(${column}) = 'blob'`)
        .pluck()
        .get(r.buggy.trace) as number;
    expect(blobs('args')).toBeGreaterThan(0);
    expect(blobs('outcome')).toBeGreaterThan(0);
    // read back whole: the patched result holds all 30 items, the buggy one 29
    expect(r.delta.patchedOutcome?.value).toContain('part029-word-00029');
    expect(r.delta.buggyOutcome?.value).toContain('part028-word-00028');
    expect(r.delta.buggyOutcome?.value).not.toContain('-word-00029');
  });
});

describe('what can go wrong', () => {
  const tiny = (body: string) => {
    const dir = tempDir();
    for (const side of ['buggy', 'patched']) {
      mkdirSync(join(dir, side, 'tests'), {recursive: true});
      writeFileSync(join(dir, side, 'lib.py'), `def f():\n    return ${side === 'buggy' ? 1 : 2}\n`);
      writeFileSync(join(dir, side, 'tests', 'test_it.py'), `from lib import f\n\ndef test_it():\n${body}\n`);
    }
    return {kind: 'dirs' as const, buggyDir: join(dir, 'buggy'), patchedDir: join(dir, 'patched')};
  };

  it("a test id that does not exist: incomplete, with pytest's reason; never ∅", async () => {
    const {db} = freshDb();
    const r = await tracePair(db, tiny('    assert f() == 2'), {
      ...fast,
      python: PY,
      test: 'tests/test_it.py::test_missing',
      reruns: false,
    });
    expect(r.delta.status).toBe('incomplete');
    expect(r.delta.reason).toMatch(/no test ran/);
    expect(getTrace(db, r.buggy.trace)?.status).toBe('error');
  });

  it('a test that never ends is stopped at the timeout and stored as timed out: incomplete, or a difference found before the cut', async () => {
    const {db} = freshDb();
    const started = Date.now();
    const r = await tracePair(db, tiny('    while True:\n        pass'), {
      ...fast,
      python: PY,
      test: 'tests/test_it.py::test_it',
      reruns: false,
      limits: {timeoutS: 4},
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.buggy.summary.status).toBe('timeout');
    expect(r.delta.status).toBe('incomplete');
    expect(r.delta.reason).toMatch(/timeout/);
    // the changed function ran (and returned differently) before the loop: that is the delta
    const early = await tracePair(db, tiny('    f()\n    while True:\n        pass'), {
      ...fast,
      python: PY,
      test: 'tests/test_it.py::test_it',
      reruns: false,
      limits: {timeoutS: 4},
    });
    expect(early.buggy.summary.status).toBe('timeout');
    expect(early.delta).toMatchObject({
      status: 'found',
      kind: 'outcome',
      function: 'f',
      buggyOutcome: {value: '1'},
      patchedOutcome: {value: '2'},
    });
  });

  it('a missing Python is a clear error', async () => {
    const {db} = freshDb();
    await expect(
      tracePair(db, tiny('    pass'), {python: '/nonexistent/python3', test: 'tests/test_it.py::test_it'}),
    ).rejects.toThrow(/cannot run \/nonexistent\/python3/);
  });

  it('the traced program gets an allowlisted environment: no keys, tokens, database URLs or proxies; --pass-env lets one through', async () => {
    const secrets = {
      OPENAI_API_KEY: 'sk-secret',
      MY_SERVICE_TOKEN: 'tok',
      DATABASE_URL: 'postgres://u:p@h/db',
      MYSQL_PWD: 'pw',
      GITHUB_PAT: 'ghp_x',
      HTTPS_PROXY: 'http://u:p@proxy:8080',
      PROJECT_SETTING: 'wanted',
    };
    Object.assign(process.env, secrets);
    try {
      const {db} = freshDb();
      const body = [
        '    import os',
        `    leaked = [k for k in ${JSON.stringify(Object.keys(secrets).filter(k => k !== 'PROJECT_SETTING'))} if k in os.environ]`,
        '    assert not leaked, leaked',
        '    assert os.environ.get("PROJECT_SETTING") == "wanted"',
        '    assert f() == 2',
      ].join('\n');
      const r = await tracePair(db, tiny(body), {
        ...fast,
        python: PY,
        test: 'tests/test_it.py::test_it',
        reruns: false,
        passEnv: ['PROJECT_SETTING'],
      });
      expect(r.patched.summary.outcome).toMatchObject({status: 'passed'});
      expect(r.buggy.summary.outcome?.tests[0]?.message ?? '').not.toMatch(/leaked/);
    } finally {
      for (const k of Object.keys(secrets)) delete process.env[k];
    }
  });

  it('two git revisions become plain exported trees: no worktree registered, no .git pointing back, removed afterwards', async () => {
    const repo = tempDir();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {cwd: repo, encoding: 'utf8'});
    mkdirSync(join(repo, 'tests'));
    writeFileSync(join(repo, 'lib.py'), 'def f(x):\n    y = x * 2\n    return y\n');
    writeFileSync(join(repo, 'tests', 'test_it.py'), 'from lib import f\n\ndef test_it():\n    assert f(3) == 7\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'buggy');
    writeFileSync(join(repo, 'lib.py'), 'def f(x):\n    y = x * 2 + 1\n    return y\n');
    git('commit', '-qam', 'fixed');
    const {db} = freshDb();
    const r = await tracePair(
      db,
      {kind: 'revs', repo, buggy: 'HEAD~1', patched: 'HEAD'},
      {...fast, python: PY, test: 'tests/test_it.py::test_it'},
    );
    expect(r.delta).toMatchObject({status: 'found', function: 'f'});
    expect(r.buggy.summary.outcome?.status).toBe('failed');
    expect(r.patched.summary.outcome?.status).toBe('passed');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git('status', '--porcelain')).toBe('');
    expect(existsSync(r.workspace.buggy)).toBe(false);
  });
});

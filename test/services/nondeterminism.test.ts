/**
 * Nondeterminism: a program that shuffles internally — through the random module and through a
 * private random.Random() it makes for itself without a seed, as sympy's assumption system does —
 * gets its delta in the function the fix changed; a dict whose keys were inserted in another
 * order is no delta. The real tracer on real code, stored in a real SQLite file.
 */
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {tracePair, type TracePairOptions} from '../../source/services/tracing.js';
import {getPair, getTrace} from '../../source/store/traces.js';
import {StoredTrace} from '../../source/store/stored-trace.js';
import {collectNondeterminism, extractDelta, mergeNondeterminism} from '../../source/core/trace/delta.js';
import {LineMap} from '../../source/core/trace/line-map.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';
const base = {python: PY, pytestPlugins: false, sandbox: 'prefer', focus: false} satisfies Partial<TracePairOptions>;

function project(lib: (side: 'buggy' | 'patched') => string, test: string) {
  const dir = tempDir();
  for (const side of ['buggy', 'patched'] as const) {
    mkdirSync(join(dir, side, 'tests'), {recursive: true});
    writeFileSync(join(dir, side, 'lib.py'), lib(side));
    writeFileSync(join(dir, side, 'tests', 'test_it.py'), test);
  }
  return {kind: 'dirs' as const, buggyDir: join(dir, 'buggy'), patchedDir: join(dir, 'patched')};
}

const SHUFFLING = (side: 'buggy' | 'patched') => `import random

# made at import without a seed, like sympy's _assumptions_rng: seeding the module misses it
_rng = random.Random()


def check(name, x):
    return (x > 0) if name.startswith("p") else (x < 0)


def facts(x):
    order = ["p%d" % i for i in range(12)] + ["n%d" % i for i in range(12)]
    _rng.shuffle(order)
    seen = {}
    for name in order:
        seen[name] = check(name, x)
    return sum(seen.values())


def pick():
    items = list(range(24))
    random.shuffle(items)
    return items[0] >= 0


def scale(x):
    return x * ${side === 'buggy' ? 2 : 3}
`;

const TEST = `import lib


def test_it():
    f = lib.facts(3)
    p = lib.pick()
    s = lib.scale(2)
    assert f == 12 and p and s in (4, 6)
`;

describe('nondeterminism', () => {
  it('a program that shuffles internally gets its delta in the function the fix changed (seed 0 by default, stored)', async () => {
    const {db} = freshDb();
    const r = await tracePair(db, project(SHUFFLING, TEST), {...base, test: 'tests/test_it.py::test_it'});
    expect(r.delta).toMatchObject({status: 'found', function: 'scale'});
    expect(r.nondeterministic).toEqual([]);
    const header = getTrace(db, r.buggy.trace)!.header as {seed?: number};
    expect(header.seed).toBe(0);
    expect(
      db.prepare("SELECT json_extract(workspace, '$.seed') FROM trace_pair WHERE id = ?").pluck().get(r.pair),
    ).toBe(0);
  }, 120_000);

  it('without the seed, the same program parts in the shuffling code instead (the control)', async () => {
    const {db} = freshDb();
    const r = await tracePair(db, project(SHUFFLING, TEST), {
      ...base,
      test: 'tests/test_it.py::test_it',
      seed: null,
      reruns: false,
    });
    expect(r.delta.status).toBe('found');
    expect(r.delta.function).not.toBe('scale');
  }, 120_000);

  it('a dict that holds the same items in another insertion order is no delta', async () => {
    const {db} = freshDb();
    const lib = (side: 'buggy' | 'patched') =>
      side === 'buggy'
        ? `def facts():\n    kb = {}\n    kb["positive"] = True\n    kb["zero"] = False\n    return kb\n`
        : `def facts():\n    kb = {}\n    kb["zero"] = False\n    kb["positive"] = True\n    return kb\n`;
    const r = await tracePair(
      db,
      project(lib, 'import lib\n\n\ndef test_it():\n    kb = lib.facts()\n    assert kb["positive"]\n'),
      {...base, test: 'tests/test_it.py::test_it'},
    );
    expect(r.delta.status).toBe('none');
  }, 120_000);

  it('a found delta is confirmed by a second run per side with values at the delta point; ∅ needs no second run', async () => {
    const {db} = freshDb();
    const r = await tracePair(db, project(SHUFFLING, TEST), {...base, test: 'tests/test_it.py::test_it'});
    expect(r.confirmation).toBe('at the delta point');
    expect(r.delta).toMatchObject({status: 'found', function: 'scale'});
    // the confirming runs record values only on the delta's path: far fewer than run 1
    const recorded = (trace: number) =>
      db.prepare('SELECT count(*) FROM frame WHERE trace = ? AND args IS NOT NULL').pluck().get(trace) as number;
    expect(recorded(r.buggy.rerun!)).toBeLessThan(recorded(r.buggy.trace));

    const same = (side: 'buggy' | 'patched') =>
      `def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x${side === 'buggy' ? '' : ' '}\n`;
    const none = await tracePair(db, project(same, 'import lib\n\n\ndef test_it():\n    assert lib.f(1) == 2\n'), {
      ...base,
      test: 'tests/test_it.py::test_it',
    });
    expect(none.delta.status).toBe('none');
    expect(none.confirmation).toBe('not needed');
    expect(none.buggy.rerun).toBeNull();
  }, 120_000);

  it('a difference at the delta point that varies between runs (os.urandom) is no evidence: the delta moves on to the changed function', async () => {
    const {db} = freshDb();
    const lib = (side: 'buggy' | 'patched') =>
      `import os\n\n\ndef token():\n    return os.urandom(8).hex()\n\n\ndef bump(x):\n    return x + ${side === 'buggy' ? 1 : 2}\n`;
    const test =
      'import lib\n\n\ndef test_it():\n    t = lib.token()\n    n = lib.bump(1)\n    assert len(t) == 16 and n > 0\n';
    const r = await tracePair(db, project(lib, test), {...base, test: 'tests/test_it.py::test_it'});
    // by default one targeted round: the token varies, so the re-runs record values everywhere
    expect(r.confirmation).toBe('everywhere (the difference varied between runs at the delta point)');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
    // with two rounds, round 1 finds the token varying and round 2 confirms bump
    const two = await tracePair(db, project(lib, test), {...base, test: 'tests/test_it.py::test_it', confirmRounds: 2});
    expect(two.confirmation).toBe('at the delta point, after 2 rounds');
    expect(two.delta).toMatchObject({status: 'found', function: 'bump'});
    expect(r.delta.ignoredNondeterministic).toBeGreaterThan(0);
    // without the second runs the random token is taken for the delta (the control)
    const control = await tracePair(db, project(lib, test), {
      ...base,
      test: 'tests/test_it.py::test_it',
      reruns: false,
    });
    expect(control.confirmation).toBe('off');
    expect(control.delta.function).not.toBe('bump');
  }, 120_000);

  it('differences that keep varying past the last targeted round (--confirm-rounds 3): the re-runs record values wherever run 1 did', async () => {
    const {db} = freshDb();
    const names = ['a', 'b', 'c', 'd'];
    const lib = (side: 'buggy' | 'patched') =>
      `import os\n\n\n${names.map(n => `def token_${n}():\n    return os.urandom(8).hex()\n\n\n`).join('')}def bump(x):\n    return x + ${side === 'buggy' ? 1 : 2}\n`;
    const test = `import lib\n\n\ndef test_it():\n${names.map(n => `    t_${n} = lib.token_${n}()\n`).join('')}    n = lib.bump(1)\n    assert len(t_a) == 16 and n > 0\n`;
    const r = await tracePair(db, project(lib, test), {...base, test: 'tests/test_it.py::test_it', confirmRounds: 3});
    expect(r.confirmation).toBe('everywhere (the difference varied between runs at 3 delta points)');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
    // the pair keeps one re-run per side, and recomputing from the store (as `delta` does) agrees
    expect(db.prepare('SELECT count(*) FROM trace').pluck().get()).toBe(4);
    const pair = getPair(db, r.pair)!;
    const t = (id: number | null) => new StoredTrace(db, id!);
    const nondet = mergeNondeterminism(
      collectNondeterminism(t(pair.buggyTrace), t(pair.buggyRerun), new LineMap(null)),
      collectNondeterminism(t(pair.patchedTrace), t(pair.patchedRerun), new LineMap(null)),
    );
    const again = extractDelta({
      buggy: t(pair.buggyTrace),
      patched: t(pair.patchedTrace),
      map: new LineMap(pair.changes),
      nondeterminism: nondet,
    });
    expect([again.function, again.seqB, again.seqP]).toEqual([r.delta.function, r.delta.seqB, r.delta.seqP]);
  }, 180_000);

  // each run of a side counts itself in a file of its tree (the test runs in it); the run `odd`
  // takes the other branch
  const onceOtherWay = (odd: number) => ({
    lib: (side: 'buggy' | 'patched') =>
      `import os\n\n\ndef runs():\n    n = int(open("count.txt").read()) if os.path.exists("count.txt") else 0\n    with open("count.txt", "w") as fh:\n        fh.write(str(n + 1))\n    return n\n\n\ndef even():\n    return 0\n\n\ndef odd():\n    return 1\n\n\ndef bump(x):\n    return x + ${side === 'buggy' ? 1 : 2}\n`,
    test: `import lib\n\n\ndef test_it():\n    k = lib.odd() if lib.runs() == ${odd} else lib.even()\n    n = lib.bump(1)\n    assert n > 0 and k in (0, 1)\n`,
  });

  it('a valued run that went another way once is run again with the same plan (its control flow traced once more says so)', async () => {
    const {db} = freshDb();
    const {lib, test} = onceOtherWay(1);
    const progress: string[] = [];
    const r = await tracePair(db, project(lib, test), {
      ...base,
      test: 'tests/test_it.py::test_it',
      valueBudget: 0, // control flow first: the runs are numbered as the program counts them
      onProgress: m => progress.push(m),
    });
    // run 0 (control flow) and 2 (control flow again) agree; run 1 (values) went another way
    expect(progress.filter(m => /the valued run went another way/.test(m))).toHaveLength(1);
    expect(r.values).toMatchObject({mode: 'planned'});
    expect(r.confirmation).toBe('at the delta point');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
  }, 180_000);

  it('a control-flow run that went another way once is traced again and the values planned from the new one', async () => {
    const {db} = freshDb();
    const {lib, test} = onceOtherWay(0);
    const progress: string[] = [];
    const r = await tracePair(db, project(lib, test), {
      ...base,
      test: 'tests/test_it.py::test_it',
      valueBudget: 0, // control flow first: the runs are numbered as the program counts them
      onProgress: m => progress.push(m),
    });
    expect(progress.filter(m => /values planned in/.test(m))).toHaveLength(2);
    expect(progress.some(m => /the valued run went another way/.test(m))).toBe(false);
    expect(r.values).toMatchObject({mode: 'planned'});
    expect(r.confirmation).toBe('at the delta point');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
  }, 180_000);

  it('a confirming run that went another way once is run again before values everywhere', async () => {
    const {db} = freshDb();
    // runs 0 (control flow) and 1 (values) agree; 2 (confirming) goes another way; 3 agrees
    const {lib, test} = onceOtherWay(2);
    const progress: string[] = [];
    const r = await tracePair(db, project(lib, test), {
      ...base,
      test: 'tests/test_it.py::test_it',
      valueBudget: 0, // control flow first: the runs are numbered as the program counts them
      onProgress: m => progress.push(m),
    });
    // both sides count their own runs: both confirming runs went another way
    expect(progress.filter(m => /running them once more/.test(m))).toHaveLength(1);
    expect(r.confirmation).toBe('at the delta point');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
  }, 180_000);

  it('a program whose control flow changes on every run: planned and confirming runs that never follow run 1 are replaced by runs with values everywhere', async () => {
    const {db} = freshDb();
    // each run of a side counts itself in a file of its tree and makes one call more than the run before
    const lib = (side: 'buggy' | 'patched') =>
      `import os\n\n\ndef runs():\n    n = int(open("count.txt").read()) if os.path.exists("count.txt") else 0\n    with open("count.txt", "w") as fh:\n        fh.write(str(n + 1))\n    return n\n\n\ndef tick():\n    return 0\n\n\ndef bump(x):\n    return x + ${side === 'buggy' ? 1 : 2}\n`;
    const test =
      'import lib\n\n\ndef test_it():\n    for _ in range(lib.runs()):\n        lib.tick()\n    n = lib.bump(1)\n    assert n > 0\n';
    const r = await tracePair(db, project(lib, test), {...base, test: 'tests/test_it.py::test_it', valueBudget: 0});
    expect(r.values).toMatchObject({mode: 'all'});
    expect(r.confirmation).toBe('everywhere (control flow varied between runs)');
    expect(r.delta).toMatchObject({status: 'found', function: 'bump'});
  }, 180_000);
});

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
import {getTrace} from '../../source/store/traces.js';
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
    expect(db.prepare("SELECT json_extract(workspace, '$.seed') FROM trace_pair WHERE id = ?").pluck().get(r.pair)).toBe(0);
  }, 120_000);

  it('without the seed, the same program parts in the shuffling code instead (the control)', async () => {
    const {db} = freshDb();
    const r = await tracePair(db, project(SHUFFLING, TEST), {...base, test: 'tests/test_it.py::test_it', seed: null, reruns: false});
    expect(r.delta.status).toBe('found');
    expect(r.delta.function).not.toBe('scale');
  }, 120_000);

  it('a dict that holds the same items in another insertion order is no delta', async () => {
    const {db} = freshDb();
    const lib = (side: 'buggy' | 'patched') =>
      side === 'buggy'
        ? `def facts():\n    kb = {}\n    kb["positive"] = True\n    kb["zero"] = False\n    return kb\n`
        : `def facts():\n    kb = {}\n    kb["zero"] = False\n    kb["positive"] = True\n    return kb\n`;
    const r = await tracePair(db, project(lib, 'import lib\n\n\ndef test_it():\n    kb = lib.facts()\n    assert kb["positive"]\n'), {...base, test: 'tests/test_it.py::test_it'});
    expect(r.delta.status).toBe('none');
  }, 120_000);
});

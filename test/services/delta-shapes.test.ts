/**
 * The delta on the shapes real library fixes take, traced with the real tracer in the sandbox:
 * a table changed at module level and read by a function (sympy's `encode_morse`), a method the
 * fix adds and a dispatcher finds by name (sympy's `Printer._print`), a docstring edited beside
 * the fix and copied by a dispatch decorator (networkx's `_dispatchable`), a parameter and the
 * closure over it renamed, classes in an order set by memory addresses, a comment, a value that holds the tree's path, a test missing on one
 * side, and a hypothesis property test as ExplainBench writes them.
 */
import {mkdirSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {tracePair, type TracePairOptions} from '../../source/services/tracing.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {hasBwrap, PYTHON} from '../helpers/hostile.js';

const fast = {python: PYTHON, pytestPlugins: false, sandbox: 'prefer'} satisfies Partial<TracePairOptions>;

type Files = Record<string, string>;

/** Two trees: `common` in both, then each side's own files. */
function trees(common: Files, buggy: Files, patched: Files): {kind: 'dirs'; buggyDir: string; patchedDir: string} {
  const root = tempDir();
  for (const [side, own] of [
    ['buggy', buggy],
    ['patched', patched],
  ] as const) {
    for (const [rel, text] of Object.entries({...common, ...own})) {
      const path = join(root, side, rel);
      mkdirSync(dirname(path), {recursive: true});
      writeFileSync(path, text);
    }
  }
  return {kind: 'dirs', buggyDir: join(root, 'buggy'), patchedDir: join(root, 'patched')};
}

const CRYPTO = (one: string) => `"""Morse code, as sympy.crypto.crypto keeps it."""

morse_char = {
    ".-": "A", "-...": "B",
    "${one}": "1", "..---": "2",
}
char_morse = {v: k for k, v in morse_char.items()}


def encode_morse(msg, sep="|"):
    word = []
    for letter in msg.upper():
        word.append(char_morse[letter])
    return sep.join(word)
`;

describe('the delta on real fix shapes', () => {
  it('a table changed at module level: the function that reads it is in the focus, and the delta is in it', async () => {
    const {db} = freshDb();
    const spec = trees(
      {
        'tests/test_crypto.py':
          'from crypto import encode_morse\n\ndef test_one():\n    assert encode_morse("1") == ".----"\n',
      },
      {'crypto.py': CRYPTO('.---')},
      {'crypto.py': CRYPTO('.----')},
    );
    const r = await tracePair(db, spec, {...fast, test: 'tests/test_crypto.py::test_one', reruns: false});
    expect(r.changes.functions).toEqual([]);
    expect(r.focus?.buggy).toContainEqual({
      target: 'crypto.py:encode_morse',
      why: 'reads char_morse, made from morse_char, which the patch changed at module level',
    });
    expect(r.delta).toMatchObject({status: 'found', function: 'encode_morse', file: 'crypto.py'});
  });

  it('a method the fix adds, found by a dispatcher by name: the dispatcher joins the focus on both sides', async () => {
    const printer = (extra: string) => `class Printer:
    def doprint(self, expr):
        return self._print(expr)

    def _print(self, expr):
        for cls in type(expr).__mro__:
            method = getattr(self, "_print_" + cls.__name__, None)
            if method is not None:
                return method(expr)
        return self.emptyPrinter(expr)

    def emptyPrinter(self, expr):
        return str(expr)
${extra}`;
    const {db} = freshDb();
    const spec = trees(
      {
        'rationals.py':
          'class Rational:\n    def __init__(self, p, q):\n        self.p, self.q = p, q\n\n    def __str__(self):\n        return "%d/%d" % (self.p, self.q)\n',
        'tests/test_print.py':
          'from rationals import Rational\nfrom printer import Printer\n\ndef test_rational():\n    assert Printer().doprint(Rational(1, 2)) == "1/2"\n',
      },
      {'printer.py': printer('')},
      {'printer.py': printer('\n    def _print_Rational(self, expr):\n        return "%d/%d" % (expr.p, expr.q)\n')},
    );
    // (the test passes on both sides: the delta is the path the value takes, not the outcome)
    const r = await tracePair(db, spec, {...fast, test: 'tests/test_print.py::test_rational', reruns: false});
    expect(r.changes.functions.map(f => [f.qualname, f.sides])).toEqual([['Printer._print_Rational', ['patched']]]);
    const why = 'calls Printer._print_Rational, which the patch adds (as the patched run shows)';
    expect(r.focus?.buggy).toContainEqual({target: 'printer.py:Printer._print', why});
    expect(r.focus?.patched).toContainEqual({target: 'printer.py:Printer._print', why});
    expect(r.delta).toMatchObject({status: 'found', function: 'Printer._print', file: 'printer.py'});
    expect(r.buggy.summary.events).toBeGreaterThan(0);
  });

  it('a docstring edited beside the fix, copied by a dispatch decorator: no evidence by default; --option docstrings keeps it', async () => {
    const dispatch =
      'class _dispatchable:\n    def __init__(self, func):\n        self.func = func\n        self._orig_doc = func.__doc__\n\n    def __call__(self, *args):\n        return self.func(*args)\n';
    const cover = (doc: string, body: string) => `from dispatch import _dispatchable


@_dispatchable
def min_cover(graph):
    """${doc}"""
    return ${body}
`;
    const common = {
      'dispatch.py': dispatch,
      'tests/test_cover.py':
        'from cover import min_cover\n\ndef test_cover():\n    assert min_cover([1, 2]) == {1, 2}\n',
    };
    const {db} = freshDb();
    const docOnly = trees(
      common,
      {'cover.py': cover('Return a vertex cover.', 'set(graph)')},
      {'cover.py': cover('Return a minimum-weight vertex cover.\n\n    Every node is covered.', 'set(graph)')},
    );
    const quiet = await tracePair(db, docOnly, {...fast, test: 'tests/test_cover.py::test_cover', reruns: false});
    expect(quiet.changes.docs).toEqual([
      {
        file: 'cover.py',
        qualname: 'min_cover',
        buggy: 'Return a vertex cover.',
        patched: 'Return a minimum-weight vertex cover.\n\n    Every node is covered.',
      },
    ]);
    expect(quiet.delta.status).toBe('none');
    const kept = await tracePair(db, docOnly, {
      ...fast,
      test: 'tests/test_cover.py::test_cover',
      reruns: false,
      deltaOptions: ['docstrings'],
    });
    expect(kept.delta.status).toBe('found');
    expect(JSON.stringify(kept.delta.variables)).toContain('"$doc":"cover.py:min_cover"');
    // the docstring and the fix together: the delta is the fix
    const both = trees(
      common,
      {'cover.py': cover('Return a vertex cover.', 'set(graph[:1])')},
      {'cover.py': cover('Return a minimum-weight vertex cover.', 'set(graph)')},
    );
    const fixed = await tracePair(db, both, {...fast, test: 'tests/test_cover.py::test_cover', reruns: false});
    expect(fixed.delta).toMatchObject({status: 'found', function: 'min_cover', file: 'cover.py'});
  });

  it('the same classes in another order (tuple(a set of classes) is ordered by memory address): no delta by default; --option identity-order keeps it', async () => {
    // sympy's Basic._has builds types = tuple(type_set): a comment-only patch moved the
    // addresses and the order with them (Mod, Add vs Add, Mod)
    const has = (order: string) =>
      `class Add:\n    pass\n\n\nclass Mod:\n    pass\n\n\nKINDS = [${order}]\n\n\ndef has(expr):\n    types = tuple(KINDS)\n    return isinstance(expr, types)\n`;
    const common = {'tests/test_has.py': 'from kinds import Mod, has\n\ndef test_has():\n    assert has(Mod())\n'};
    const {db} = freshDb();
    const spec = trees(common, {'kinds.py': has('Mod, Add')}, {'kinds.py': has('Add, Mod')});
    const quiet = await tracePair(db, spec, {...fast, test: 'tests/test_has.py::test_has', reruns: false});
    expect(quiet.delta.status).toBe('none');
    const kept = await tracePair(db, spec, {
      ...fast,
      test: 'tests/test_has.py::test_has',
      reruns: false,
      deltaOptions: ['identity-order'],
    });
    expect(kept.delta).toMatchObject({status: 'found', kind: 'state', function: 'has'});
    expect(kept.delta.variables.map(v => v.name)).toEqual(['types']);
    // other classes are a change
    const other = await tracePair(db, trees(common, {'kinds.py': has('Mod, Add')}, {'kinds.py': has('Add, int')}), {
      ...fast,
      test: 'tests/test_has.py::test_has',
      reruns: false,
    });
    expect(other.delta).toMatchObject({status: 'found', function: 'has'});
  });

  it('a parameter renamed, and the closure that captures it: no delta; a real change beside it is still found', async () => {
    const cover = (name: string, extra = '') => `def cover(graph, ${name}):
    result = set()
    for v in ${name}:
        result.add(v)${extra}

    def remaining():
        return len(${name}) - len(result)

    return result, remaining()
`;
    const common = {
      'tests/test_cover.py':
        'from cover import cover\n\ndef test_cover():\n    assert cover(None, [1, 2, 2]) == ({1, 2}, 1)\n',
    };
    const {db} = freshDb();
    const renamed = await tracePair(
      db,
      trees(common, {'cover.py': cover('vertices')}, {'cover.py': cover('uncovered_nodes')}),
      {...fast, test: 'tests/test_cover.py::test_cover', reruns: false},
    );
    expect(renamed.changes.renames).toEqual([
      {file: 'cover.py', qualname: 'cover', names: {vertices: 'uncovered_nodes'}},
    ]);
    expect(renamed.delta.status).toBe('none');
    const changed = await tracePair(
      db,
      trees(common, {'cover.py': cover('vertices')}, {'cover.py': cover('uncovered_nodes', '\n    result.add(0)')}),
      {...fast, test: 'tests/test_cover.py::test_cover', reruns: false},
    );
    expect(changed.delta).toMatchObject({status: 'found', function: 'cover'});
  });

  it("a comment, and a value that holds the tree's path: ∅ in the sandbox (both sides at /testbed) and without it", async () => {
    const where = (comment: string) => `import os

HERE = os.path.dirname(os.path.abspath(__file__))


def locate(name):
${comment}    return os.path.join(HERE, name)
`;
    const spec = trees(
      {'tests/test_where.py': 'from where import locate\n\ndef test_locate():\n    assert locate("x").endswith("x")\n'},
      {'where.py': where('')},
      {'where.py': where('    # a comment the fix added\n')},
    );
    const {db} = freshDb();
    if (hasBwrap()) {
      const confined = await tracePair(db, spec, {
        ...fast,
        sandbox: 'require',
        test: 'tests/test_where.py::test_locate',
        reruns: false,
        values: 'all',
      });
      expect(confined.delta.status).toBe('none');
      const ret = db
        .prepare("SELECT outcome FROM frame WHERE trace = ? AND function = 'locate'")
        .pluck()
        .get(confined.buggy.trace) as string;
      expect(ret).toContain('/testbed/x');
    }
    const open = await tracePair(db, spec, {
      ...fast,
      sandbox: 'off',
      onWarning: () => {},
      test: 'tests/test_where.py::test_locate',
      reruns: false,
      values: 'all',
    });
    expect(open.delta.status).toBe('none');
  });

  it("a patch whose diff is larger than a run's captured output (64 KiB): what it changed still comes back whole", async () => {
    const table = (n: number) =>
      `CODES = {\n${Array.from({length: 4000}, (_, i) => `    "key${i}": ${i * n},\n`).join('')}}\n\n\ndef code(k):\n    return CODES[k]\n`;
    const {db} = freshDb();
    const spec = trees(
      {'tests/test_codes.py': 'from codes import code\n\ndef test_code():\n    assert code("key7") == 14\n'},
      {'codes.py': table(1)},
      {'codes.py': table(2)},
    );
    const r = await tracePair(db, spec, {...fast, test: 'tests/test_codes.py::test_code', reruns: false});
    expect(r.patch.length).toBeGreaterThan(100_000);
    expect(r.focus?.buggy.map(e => e.target)).toContain('codes.py:code');
    expect(r.delta).toMatchObject({status: 'found', function: 'code'});
  });

  it('a test that exists on one side only: incomplete with the reason, never a delta', async () => {
    const {db} = freshDb();
    const spec = trees(
      {'m.py': 'def f():\n    return 1\n'},
      {'tests/test_m.py': 'from m import f\n'},
      {'tests/test_m.py': 'from m import f\n\ndef test_new():\n    assert f() == 1\n'},
    );
    const r = await tracePair(db, spec, {...fast, test: 'tests/test_m.py::test_new', reruns: false});
    expect(r.delta.status).toBe('incomplete');
    expect(r.delta.reason).toMatch(/the test did not run on the buggy side.*no test ran/s);
  });

  it('a hypothesis property test (a script, its exit code the verdict): both sides replay the failing example the buggy side found', async () => {
    const pbt = `import sys
from hypothesis import given, settings, strategies as st
from units import parse


@settings(max_examples=200)
@given(st.integers(min_value=0, max_value=10_000))
def test_parse(n):
    assert parse("%dms" % n) == n


if __name__ == "__main__":
    try:
        test_parse()
    except AssertionError:
        sys.exit(1)
`;
    const units = (bound: string) =>
      `def parse(text):\n    value = int(text[:-2])\n    if value ${bound}:\n        value = value // 10 * 10\n    return value\n`;
    const {db} = freshDb();
    const spec = trees({'pbt_explainbench.py': pbt}, {'units.py': units('>= 1000')}, {'units.py': units('> 10_000')});
    const r = await tracePair(db, spec, {...fast, test: 'pbt_explainbench.py'});
    expect(r.hypothesis.mode).toBe('replay');
    expect(r.buggy.summary.outcome?.status).toBe('failed');
    expect(r.patched.summary.outcome?.status).toBe('passed');
    expect(r.delta).toMatchObject({status: 'found', function: 'parse', file: 'units.py'});
    // one example on each side, not the search and its shrinking
    const calls = db.prepare("SELECT count(*) FROM frame WHERE trace = ? AND function = 'parse'").pluck();
    expect(calls.get(r.buggy.trace)).toBeLessThanOrEqual(3);
    expect(calls.get(r.patched.trace)).toBeLessThanOrEqual(3);
  });
});

/**
 * End to end, for every value type with its own encoding: a fix that changes only such a value
 * (the test passes on both sides, so only the value can tell them apart) gets a delta, never ∅.
 * The real tracer on a real project, stored in a real SQLite file.
 */
import {spawnSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {tracePair} from '../../source/services/tracing.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';
const HAS_NUMPY = spawnSync(PY, ['-c', 'import numpy'], {encoding: 'utf8'}).status === 0;

/** [name, imports, buggy expression, fixed expression] */
const CASES: [string, string, string, string][] = [
  ['decimal', 'import decimal', 'decimal.Decimal("1.5")', 'decimal.Decimal("2.5")'],
  ['fraction', 'import fractions', 'fractions.Fraction(1, 3)', 'fractions.Fraction(2, 3)'],
  ['complex', '', 'complex(1, 2)', 'complex(1, -2)'],
  ['datetime', 'import datetime', 'datetime.datetime(2024, 1, 2, 3, 4, 5)', 'datetime.datetime(2024, 1, 2, 3, 4, 6)'],
  ['date', 'import datetime', 'datetime.date(2024, 1, 2)', 'datetime.date(2024, 1, 3)'],
  ['time', 'import datetime', 'datetime.time(3, 4, 5)', 'datetime.time(3, 4, 6)'],
  ['timedelta', 'import datetime', 'datetime.timedelta(seconds=90)', 'datetime.timedelta(seconds=91)'],
  ['timezone', 'import datetime', 'datetime.timezone.utc', 'datetime.timezone(datetime.timedelta(hours=1))'],
  ['uuid', 'import uuid', 'uuid.UUID(int=1)', 'uuid.UUID(int=2)'],
  ['path', 'import pathlib', 'pathlib.PurePosixPath("a/b")', 'pathlib.PurePosixPath("a/c")'],
  ['enum', 'import enum\nclass Color(enum.Enum):\n    RED = 1\n    GREEN = 2', 'Color.RED', 'Color.GREEN'],
  ['deque', 'import collections', 'collections.deque([1, 2])', 'collections.deque([2, 1])'],
  [
    'ordereddict',
    'import collections',
    'collections.OrderedDict([("a", 1), ("b", 2)])',
    'collections.OrderedDict([("b", 2), ("a", 1)])',
  ],
  ['defaultdict', 'import collections', 'collections.defaultdict(list, a=[1])', 'collections.defaultdict(list, a=[2])'],
  ['counter', 'import collections', 'collections.Counter("aab")', 'collections.Counter("abb")'],
  ['range', '', 'range(3)', 'range(4)'],
  ['slice', '', 'slice(1, 2)', 'slice(1, 3)'],
  ['array', 'import array', 'array.array("i", [1, 2])', 'array.array("i", [1, 3])'],
  ['bytearray', '', 'bytearray(b"ab")', 'bytearray(b"ac")'],
  ['memoryview', '', 'memoryview(b"ab")', 'memoryview(b"ac")'],
  ['pattern', 'import re', 're.compile("a+")', 're.compile("a*")'],
  ['str_subclass', 'class SafeString(str):\n    pass', 'SafeString("<b>")', 'SafeString("<i>")'],
  ['int_subclass', 'class Meters(int):\n    pass', 'Meters(3)', 'Meters(4)'],
  ['float_subclass', 'class Ratio(float):\n    pass', 'Ratio(0.5)', 'Ratio(0.25)'],
  ['bytes_subclass', 'class Blob(bytes):\n    pass', 'Blob(b"x")', 'Blob(b"y")'],
  ['tuple_subclass', 'class Point(tuple):\n    pass', 'Point((1, 2))', 'Point((2, 1))'],
  ['list_subclass', 'class Stack(list):\n    pass', 'Stack([1])', 'Stack([2])'],
  ['dict_subclass', 'class KB(dict):\n    pass', 'KB(a=1)', 'KB(a=2)'],
  ['long_str', '', '"x" * 300 + "a"', '"x" * 300 + "b"'],
  ...(HAS_NUMPY
    ? ([
        ['ndarray', 'import numpy', 'numpy.array([1.0, 2.0])', 'numpy.array([1.0, 2.5])'],
        ['numpy_scalar', 'import numpy', 'numpy.float64(1.5)', 'numpy.float64(2.5)'],
      ] as [string, string, string, string][])
    : []),
];

function project(): {buggy: string; patched: string} {
  const dir = tempDir();
  for (const side of ['buggy', 'patched'] as const) {
    mkdirSync(join(dir, side, 'tests'), {recursive: true});
    const lib = CASES.map(
      ([name, imports, b, p]) => `${imports}\n\n\ndef make_${name}():\n    return ${side === 'buggy' ? b : p}\n`,
    ).join('\n\n');
    writeFileSync(join(dir, side, 'lib.py'), lib);
    // each test passes on both sides: only the value tells them apart
    const tests = CASES.map(
      ([name]) => `def test_${name}():\n    value = lib.make_${name}()\n    assert value is not None\n`,
    ).join('\n\n');
    writeFileSync(join(dir, side, 'tests', 'test_values.py'), `import lib\n\n\n${tests}`);
  }
  return {buggy: join(dir, 'buggy'), patched: join(dir, 'patched')};
}

describe('a fix that changes only a value', () => {
  it(`is found for each of ${CASES.length} value types (never ∅)${HAS_NUMPY ? '' : ' (numpy is not installed: its types are left out)'}`, async () => {
    const {buggy, patched} = project();
    const {db} = freshDb();
    const results: {name: string; status: string; kind: string | null; fn: string | null}[] = [];
    const queue = [...CASES];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const [name] = c;
        const r = await tracePair(
          db,
          {kind: 'dirs', buggyDir: buggy, patchedDir: patched},
          {
            python: PY,
            test: `tests/test_values.py::test_${name}`,
            pytestPlugins: false,
            reruns: false,
            sandbox: 'prefer',
          },
        );
        expect(r.buggy.summary.outcome?.status, name).toBe('passed');
        expect(r.patched.summary.outcome?.status, name).toBe('passed');
        results.push({name, status: r.delta.status, kind: r.delta.kind, fn: r.delta.function});
      }
    };
    await Promise.all([worker(), worker()]);
    const wrong = results.filter(
      r => r.status !== 'found' || !(r.fn === `make_${r.name}` || r.fn === `test_${r.name}`),
    );
    expect(wrong).toEqual([]);
    expect(results).toHaveLength(CASES.length);
  }, 600_000);
});

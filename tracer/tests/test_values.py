"""Values keep their identity: for every value type with its own encoding, two different
values encode differently, equal values encode equally, and no user code runs (subclasses
whose methods would lie or raise are read through the builtin type's own methods)."""

import array
import collections
import datetime
import decimal
import enum
import fractions
import json
import pathlib
import re
import unittest
import uuid

from deltatrace.serialize import Limits, serialize

try:
    import numpy
except ImportError:  # pragma: no cover - numpy is optional
    numpy = None

try:
    import zoneinfo
except ImportError:  # pragma: no cover - 3.8
    zoneinfo = None


def enc(value, limits=None):
    return json.dumps(serialize(value, limits), sort_keys=True)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Perm(enum.Flag):
    R = 4
    W = 2


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


class SafeString(str):
    """Like Django's: a str subclass whose value is what matters."""

    def __str__(self):
        raise RuntimeError("__str__ of a str subclass must not run")

    def __repr__(self):
        raise RuntimeError("__repr__ must not run")


class Meters(int):
    def __int__(self):
        raise RuntimeError("__int__ of an int subclass must not run")

    def __index__(self):
        raise RuntimeError("__index__ must not run")


class Ratio(float):
    def __float__(self):
        raise RuntimeError("__float__ of a float subclass must not run")


class Blob(bytes):
    def __bytes__(self):
        raise RuntimeError("__bytes__ must not run")


class Point(tuple):
    pass


class Stamp(datetime.datetime):
    def isoformat(self, *a, **k):
        raise RuntimeError("isoformat of a datetime subclass must not run")


class Money(decimal.Decimal):
    def __str__(self):
        raise RuntimeError("__str__ of a Decimal subclass must not run")


class ShadowedDict:
    """A class-level __dict__ property: reading the instance dict must not call it."""

    ran = []

    def __init__(self):
        self.x = 1

    @property
    def __dict__(self):
        ShadowedDict.ran.append("property")
        return {"x": "forged"}


class Meta(type):
    @property
    def __module__(cls):
        raise RuntimeError("a metaclass property must not run")

    def __hash__(cls):
        raise RuntimeError("a metaclass __hash__ must not run")


class Guarded(metaclass=Meta):
    def __init__(self):
        self.v = 3


PAIRS = [
    # (name, value a, value b different from a, value equal to a)
    ("Decimal", decimal.Decimal("1.5"), decimal.Decimal("2.5"), decimal.Decimal("1.5")),
    ("Decimal precision", decimal.Decimal("1.5"), decimal.Decimal("1.50"), decimal.Decimal("1.5")),
    ("Fraction", fractions.Fraction(1, 3), fractions.Fraction(2, 3), fractions.Fraction(2, 6)),
    ("complex", 1 + 2j, 1 - 2j, complex(1, 2)),
    ("datetime", datetime.datetime(2024, 1, 2, 3, 4, 5, 6), datetime.datetime(2024, 1, 2, 3, 4, 5, 7),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 6)),
    ("aware datetime", datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc),
     datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
     datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)),
    ("date", datetime.date(2024, 1, 2), datetime.date(2024, 1, 3), datetime.date(2024, 1, 2)),
    ("time", datetime.time(3, 4, 5), datetime.time(3, 4, 6), datetime.time(3, 4, 5)),
    ("timedelta", datetime.timedelta(seconds=90), datetime.timedelta(seconds=91), datetime.timedelta(minutes=1.5)),
    ("timezone", datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=2)), datetime.timezone.utc),
    ("UUID", uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=1)),
    ("path", pathlib.PurePosixPath("a/b"), pathlib.PurePosixPath("a/c"), pathlib.PurePosixPath("a//b")),
    ("Enum", Color.RED, Color.GREEN, Color(1)),
    ("Flag", Perm.R | Perm.W, Perm.R, Perm.W | Perm.R),
    ("IntEnum", Size.SMALL, Size.LARGE, Size(1)),
    ("deque", collections.deque([1, 2]), collections.deque([2, 1]), collections.deque([1, 2])),
    ("deque maxlen", collections.deque([1], maxlen=3), collections.deque([1], maxlen=4), collections.deque([1], maxlen=3)),
    ("OrderedDict", collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=2, a=1), collections.OrderedDict(a=1, b=2)),
    ("defaultdict", collections.defaultdict(list, a=[1]), collections.defaultdict(list, a=[2]), collections.defaultdict(list, a=[1])),
    ("Counter", collections.Counter("aab"), collections.Counter("abb"), collections.Counter("aba")),
    ("range", range(3), range(4), range(0, 3, 1)),
    ("slice", slice(1, 2), slice(1, 3), slice(1, 2, None)),
    ("array", array.array("i", [1, 2]), array.array("i", [1, 3]), array.array("i", [1, 2])),
    ("array typecode", array.array("i", [1]), array.array("l", [1]), array.array("i", [1])),
    ("bytearray", bytearray(b"ab"), bytearray(b"ac"), bytearray(b"ab")),
    ("memoryview", memoryview(b"ab"), memoryview(b"ac"), memoryview(b"ab")),
    ("Pattern", re.compile("a+"), re.compile("a*"), re.compile("a+")),
    ("Pattern flags", re.compile("a", re.I), re.compile("a"), re.compile("a", re.I)),
    ("str subclass", SafeString("<b>"), SafeString("<i>"), SafeString("<b>")),
    ("int subclass", Meters(3), Meters(4), Meters(3)),
    ("float subclass", Ratio(0.5), Ratio(0.25), Ratio(0.5)),
    ("bytes subclass", Blob(b"x"), Blob(b"y"), Blob(b"x")),
    ("tuple subclass", Point((1, 2)), Point((2, 1)), Point((1, 2))),
    ("list subclass", type("Stack", (list,), {})([1]), type("Stack", (list,), {})([2]), type("Stack", (list,), {})([1])),
    ("dict subclass", type("KB", (dict,), {})(a=1), type("KB", (dict,), {})(a=2), type("KB", (dict,), {})(a=1)),
    ("datetime subclass", Stamp(2024, 1, 2), Stamp(2024, 1, 3), Stamp(2024, 1, 2)),
    ("Decimal subclass", Money("1"), Money("2"), Money("1")),
    ("long str", "x" * 300 + "a", "x" * 300 + "b", "x" * 300 + "a"),
    ("long bytes", b"x" * 300 + b"a", b"x" * 300 + b"b", b"x" * 300 + b"a"),
    ("big int", 10 ** 250 + 1, 10 ** 250 + 2, 10 ** 250 + 1),
]

if zoneinfo is not None:
    try:
        PAIRS.append(("ZoneInfo", zoneinfo.ZoneInfo("UTC"), zoneinfo.ZoneInfo("Europe/Paris"), zoneinfo.ZoneInfo("UTC")))
    except Exception:  # pragma: no cover - no tz database here
        pass

if numpy is not None:
    PAIRS += [
        ("ndarray", numpy.array([1.0, 2.0]), numpy.array([1.0, 2.5]), numpy.array([1.0, 2.0])),
        ("ndarray dtype", numpy.array([1, 2], dtype="i4"), numpy.array([1, 2], dtype="i8"), numpy.array([1, 2], dtype="i4")),
        ("ndarray shape", numpy.zeros((2, 3)), numpy.zeros((3, 2)), numpy.zeros((2, 3))),
        ("large ndarray", numpy.arange(1000.0), numpy.arange(1000.0) * (numpy.arange(1000) != 999), numpy.arange(1000.0)),
        ("numpy scalar", numpy.float64(1.5), numpy.float64(2.5), numpy.float64(1.5)),
        ("numpy scalar type", numpy.int32(1), numpy.int64(1), numpy.int32(1)),
    ]


class ValuesKeepTheirIdentity(unittest.TestCase):
    def test_different_values_encode_differently_and_equal_ones_equally(self):
        for name, a, b, same in PAIRS:
            with self.subTest(name):
                self.assertNotEqual(enc(a), enc(b), name)
                self.assertEqual(enc(a), enc(same), name)

    def test_the_encodings(self):
        self.assertEqual(serialize(decimal.Decimal("1.50")), {"$decimal": "1.50"})
        self.assertEqual(serialize(fractions.Fraction(1, 3)), {"$fraction": [1, 3]})
        self.assertEqual(serialize(datetime.datetime(2024, 1, 2, 3, 4, 5)), {"$datetime": "2024-01-02T03:04:05", "tz": None})
        self.assertEqual(serialize(datetime.timedelta(days=1, seconds=2)), {"$timedelta": [1, 2, 0]})
        self.assertEqual(serialize(uuid.UUID(int=255)), {"$uuid": "00000000-0000-0000-0000-0000000000ff"})
        self.assertEqual(serialize(pathlib.PurePosixPath("a/b")), {"$path": "a/b", "type": "PurePosixPath"})
        self.assertEqual(serialize(Color.RED), {"$enum": "test_values.Color", "name": "RED"})
        self.assertEqual(serialize(collections.deque([1], maxlen=2)), {"$deque": [1], "maxlen": 2})
        self.assertEqual(serialize(range(1, 9, 2)), {"$range": [1, 9, 2]})
        self.assertEqual(serialize(re.compile("a+", re.I)), {"$pattern": "a+", "flags": int(re.I | re.U)})
        self.assertEqual(serialize(SafeString("<b>")), {"$obj": "test_values.SafeString", "value": "<b>"})
        self.assertEqual(serialize(Meters(3)), {"$obj": "test_values.Meters", "value": 3})
        self.assertEqual(serialize(Money("1")), {"$decimal": "1", "type": "test_values.Money"})
        self.assertEqual(serialize(collections.OrderedDict(b=1, a=2)),
                         {"$obj": "collections.OrderedDict", "items": [["b", 1], ["a", 2]]})
        if numpy is not None:
            self.assertEqual(serialize(numpy.array([[1, 2], [3, 4]], dtype="<i8")),
                             {"$ndarray": "<i8", "shape": [2, 2], "items": [1, 2, 3, 4]})
            self.assertEqual(serialize(numpy.float64(1.5)), {"$numpy": "<f8", "value": 1.5})

    def test_dicts_compare_as_python_does(self):
        # insertion order does not matter for dict and dict subclasses (e.g. sympy's FactKB)...
        kb = type("FactKB", (dict,), {})
        self.assertEqual(enc({"a": 1, "b": 2}), enc({"b": 2, "a": 1}))
        self.assertEqual(enc(kb(a=True, b=False)), enc(kb(b=False, a=True)))
        self.assertEqual(enc(collections.Counter(a=1, b=2)), enc(collections.Counter(b=2, a=1)))
        # ...but does for OrderedDict, whose equality is order-sensitive
        self.assertNotEqual(enc(collections.OrderedDict(a=1, b=2)), enc(collections.OrderedDict(b=2, a=1)))
        # shared values keep canonical reference numbers whatever the insertion order
        shared = [1]
        self.assertEqual(enc({"x": shared, "y": shared}), enc({"y": shared, "x": shared}))
        # sets too
        self.assertEqual(enc({(1, 2), (3, 4)}), enc({(3, 4), (1, 2)}))

    def test_no_user_code_runs(self):
        for value in (SafeString("s"), Meters(1), Ratio(1.0), Blob(b"b"), Stamp(2024, 1, 1), Money("3")):
            serialize(value)  # each of their overridden methods raises
        ShadowedDict.ran.clear()
        out = serialize(ShadowedDict())
        self.assertEqual(ShadowedDict.ran, [])
        self.assertNotIn("forged", json.dumps(out))
        out = serialize(Guarded())
        self.assertEqual(out["attrs"], {"v": 3})
        self.assertIn("Guarded", out["$obj"])

    def test_big_and_released_buffers_are_bounded(self):
        view = memoryview(bytearray(b"x" * 10_000_000))
        out = serialize(view, Limits(max_str=8))
        self.assertEqual(out["$memoryview"]["len"], 10_000_000)
        self.assertEqual(len(out["$memoryview"]["$bytes"]), 8)
        released = memoryview(b"ab")
        released.release()
        self.assertEqual(serialize(released), {"$memoryview": "released"})


if __name__ == "__main__":
    unittest.main()

import math
import sys
import unittest

from deltatrace.serialize import Limits, serialize


class Hostile:
    calls = []

    def __init__(self):
        self.a = 1

    def __repr__(self):
        Hostile.calls.append("repr")
        raise RuntimeError("repr called")

    def __str__(self):
        Hostile.calls.append("str")
        self.a = 99
        return "x"

    def __eq__(self, other):
        Hostile.calls.append("eq")
        raise RuntimeError("eq called")

    def __hash__(self):
        Hostile.calls.append("hash")
        return 1

    def __getattr__(self, name):
        Hostile.calls.append("getattr " + name)
        raise AttributeError(name)

    @property
    def prop(self):
        Hostile.calls.append("prop")
        return 5


class Slotted:
    __slots__ = ("x", "y", "unset")

    def __init__(self):
        self.x = 1
        self.y = [1, 2]


class SneakyList(list):
    def __iter__(self):
        raise RuntimeError("__iter__ of a list subclass must not be called")

    def __len__(self):
        raise RuntimeError("__len__ of a list subclass must not be called")


class SneakyDict(dict):
    def items(self):
        raise RuntimeError("items of a dict subclass must not be called")


class SerializeTest(unittest.TestCase):
    def setUp(self):
        Hostile.calls.clear()

    def test_never_runs_user_code(self):
        h = Hostile()
        value = {"h": h, "s": {h}, "l": [h, h]}
        Hostile.calls.clear()  # building the set hashed h; serializing must not
        out = serialize(value)
        self.assertEqual(Hostile.calls, [])
        self.assertEqual(h.a, 1)
        pairs = dict((k, v) for k, v in out["$dict"])
        self.assertEqual(pairs["h"], {"$obj": "test_serialize.Hostile", "attrs": {"a": 1}})
        # the second occurrence within one value is a reference, not a copy
        self.assertEqual(pairs["l"], [{"$ref": 2}, {"$ref": 2}])

    def test_container_subclasses_read_through_builtin_methods(self):
        out = serialize(SneakyList([1, 2]))
        self.assertEqual(out, {"$obj": "test_serialize.SneakyList", "items": [1, 2]})
        out = serialize(SneakyDict(a=1))
        self.assertEqual(out, {"$obj": "test_serialize.SneakyDict", "items": [["a", 1]]})

    def test_slots_read_through_member_descriptors(self):
        self.assertEqual(serialize(Slotted()),
                         {"$obj": "test_serialize.Slotted", "attrs": {"x": 1, "y": [1, 2]}})

    def test_cycles_are_references(self):
        a = [1]
        a.append(a)
        self.assertEqual(serialize(a), [1, {"$ref": 1}])
        d = {}
        d["self"] = d
        self.assertEqual(serialize(d), {"$dict": [["self", {"$ref": 1}]]})

    def test_limits_are_marked(self):
        lim = Limits(max_depth=2, max_items=3, max_str=5)
        self.assertEqual(serialize(list(range(10)), lim), [0, 1, 2, {"$more": 7}])
        self.assertEqual(serialize([[[1]]], lim), [[{"$depth": "list"}]])
        cut = serialize("abcdefgh", lim)
        self.assertEqual((cut["$str"], cut["len"]), ("abcde", 8))
        # what is past the cut still tells values apart
        self.assertNotEqual(serialize("abcdefgX", lim), cut)
        self.assertEqual(serialize({i: i for i in range(5)}, lim),
                         {"$dict": [[0, 0], [1, 1], [2, 2], {"$more": 2}]})
        # dicts are written in key order, whatever the insertion order
        self.assertEqual(serialize({4: 4, 3: 3, 2: 2, 1: 1, 0: 0}, lim), serialize({i: i for i in range(5)}, lim))

    def test_huge_container_is_cheap(self):
        big = list(range(1_000_000))
        out = serialize(big)
        self.assertEqual(len(out), 33)
        self.assertEqual(out[-1], {"$more": 1_000_000 - 32})

    def test_deep_recursion_is_bounded(self):
        deep = []
        cur = deep
        for _ in range(10_000):
            nxt = []
            cur.append(nxt)
            cur = nxt
        out = serialize(deep)
        depth = 0
        while isinstance(out, list):
            out = out[0]
            depth += 1
        self.assertEqual(out, {"$depth": "list"})
        self.assertEqual(depth, 4)

    def test_numbers_bytes_and_sets(self):
        self.assertEqual(serialize(float("nan")), {"$float": "nan"})
        self.assertEqual(serialize(float("-inf")), {"$float": "-inf"})
        self.assertEqual(serialize(2 ** 70), {"$int": str(2 ** 70)})
        self.assertEqual(serialize(10 ** 300)["digits"], 301)
        # past the interpreter's int->str limit (3.11+): the size, never a conversion error
        if hasattr(sys, "set_int_max_str_digits"):
            self.assertEqual(serialize(10 ** 5000)["$int"], "<16610 bits>")
        else:
            self.assertEqual(serialize(10 ** 5000)["digits"], 5001)
        self.assertNotEqual(serialize(10 ** 5000), serialize(10 ** 5000 + 1))
        self.assertEqual(serialize(b"\x00\xffab"), {"$bytes": "\x00\xffab", "len": 4})
        # sets are sorted by encoding: same output whatever the hash seed
        self.assertEqual(serialize({"b", "a", 3}), {"$set": [3, "a", "b"]})
        self.assertEqual(serialize((1, 2.5)), {"$tuple": [1, 2.5]})
        self.assertTrue(math.isnan(float("nan")))

    def test_functions_types_modules(self):
        self.assertEqual(serialize(len), {"$fn": "len"})
        self.assertEqual(serialize(Slotted), {"$type": "test_serialize.Slotted"})
        self.assertEqual(serialize(math), {"$module": "math"})

    def test_exceptions_keep_args(self):
        out = serialize(ValueError("bad", 3))
        self.assertEqual(out["$obj"], "ValueError")
        self.assertEqual(out["args"], {"$tuple": ["bad", 3]})


if __name__ == "__main__":
    unittest.main()

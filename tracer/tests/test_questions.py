"""Question construction's parsing side: the expected expression of a test, its offsets in the
file's text, and the offline mutations. Nothing here runs the code it reads."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from deltatrace.questions import NotFound, expected, guard_script, mutants, subexpressions  # noqa: E402

TEST = '''import pytest
from pkg import parse, Unit


def helper():
    return 1


def test_total():
    result = parse("1h30m")
    assert result > 0
    assert parse("1h30m") == 5400


def test_marked():
    expected = {"h": 3600}  # [[EXPECTED]]
    assert parse.units() == expected


class TestUnits:
    def test_name(self):
        assert Unit("h").name == "hour"


def test_nothing():
    parse("x")


def test_unicode():
    assert label("Δt") == "Δt → ∞"
'''


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class ExpectedTest(unittest.TestCase):
    def test_the_expected_side_of_the_last_asserted_comparison(self):
        e = expected(TEST, "test_total")
        self.assertEqual(e["expr"], "5400")
        self.assertEqual(e["line"], 12)
        self.assertFalse(e["marked"])
        self.assertEqual(TEST[e["start"]:e["end"]], "5400")
        self.assertIn("assert parse(\"1h30m\") == [[MASKED]]", e["masked"])
        self.assertTrue(e["masked"].startswith("def test_total():"))
        self.assertIn("parse", e["names"])
        self.assertIn("pytest", e["names"])

    def test_a_membership_or_an_ordering_is_expected_whole(self):
        # as in ExplainBench's property-based tests: "assert 0 in roots" masks the condition
        src = ("def test_roots():\n    roots = nthroot_mod(0, 3, 2, all_roots=True)\n    assert 0 in roots\n\n\n"
               "def test_order():\n    assert len(parse('1h')) > 0\n\n\n"
               "def test_none():\n    assert parse('') is None\n")
        self.assertEqual(expected(src, "test_roots")["expr"], "0 in roots")
        self.assertEqual(expected(src, "test_roots")["form"], "the assert's condition")
        self.assertEqual(expected(src, "test_order")["expr"], "len(parse('1h')) > 0")
        self.assertEqual(expected(src, "test_none")["expr"], "None")

    def test_an_if_that_raises_assertion_error_in_a_helper_the_test_calls(self):
        # ExplainBench's PBTs: the test leaves its check to a helper of the file
        src = ("import re\n\n"
               "def check(src, name):\n"
               "    m = re.search(name, src)\n"
               "    if not m:\n"
               "        raise AssertionError('no signature')\n"
               "    if not m.group(0).startswith('double'):\n"
               "        raise AssertionError('not a pointer')\n\n"
               "def test_sig():\n"
               "    src = make()\n"
               "    check(src, 'f')\n")
        e = expected(src, "test_sig")
        self.assertEqual(e["expr"], "not m.group(0).startswith('double')")
        self.assertEqual(e["form"], "the condition of an if that raises AssertionError in check, which the test calls")
        self.assertEqual(e["line"], 7)
        # the context holds the helper and the test, the expression masked
        self.assertTrue(e["masked"].startswith("def check(src, name):"))
        self.assertIn("    if [[MASKED]]:\n        raise AssertionError('not a pointer')", e["masked"])
        self.assertTrue(e["masked"].rstrip().endswith("check(src, 'f')"))
        self.assertEqual(e["first_line"], 3)

    def test_an_if_whose_body_makes_a_message_then_raises(self):
        src = ("def test_k():\n    result = simplify(expr)\n    if not result.equals(expected):\n"
               "        msg = 'changed the order'\n        raise AssertionError(msg)\n")
        self.assertEqual(expected(src, "test_k")["expr"], "not result.equals(expected)")

    def test_a_name_that_holds_the_expected_value_is_read_through(self):
        # ExplainBench's sympy-13031 masks "exp = (0, sum(widths))", not the assert
        src = ("def test_w(widths):\n    got = hstack(widths).shape\n    exp = (0, sum(widths))\n"
               "    assert got == exp, 'mismatch'\n")
        e = expected(src, "test_w")
        self.assertEqual((e["expr"], e["line"]), ("(0, sum(widths))", 3))
        self.assertEqual(e["form"], "the value assigned to exp, which the assertion uses (the expected side of the assert's comparison)")
        # assigned twice: which value is meant is not clear, the assert's side stays
        twice = src.replace("    got =", "    exp = 1\n    got =")
        self.assertEqual(expected(twice, "test_w")["expr"], "exp")

    def test_the_context_starts_at_the_first_decorator_and_says_which_line_that_is(self):
        src = "from hypothesis import given\n\n@given(st.integers())\n@settings(max_examples=5)\ndef test_n(n):\n    assert f(n) == 1\n"
        e = expected(src, "test_n")
        self.assertTrue(e["masked"].startswith("@given(st.integers())"))
        self.assertEqual((e["first_line"], e["function_line"]), (3, 5))

    def test_a_marked_line_wins_even_over_a_later_assert(self):
        e = expected(TEST, "test_marked")
        self.assertEqual(e["expr"], '{"h": 3600}')
        self.assertTrue(e["marked"])

    def test_a_method_of_a_test_class_and_a_parametrized_id(self):
        self.assertEqual(expected(TEST, "TestUnits::test_name")["expr"], '"hour"')
        self.assertEqual(expected(TEST, "TestUnits::test_name[case-1]")["expr"], '"hour"')

    def test_offsets_count_code_points_not_bytes(self):
        e = expected(TEST, "test_unicode")
        self.assertEqual(e["expr"], '"Δt → ∞"')
        self.assertEqual(TEST[e["start"]:e["end"]], '"Δt → ∞"')

    def test_what_cannot_be_found_says_why(self):
        with self.assertRaisesRegex(NotFound, "asserts nothing"):
            expected(TEST, "test_nothing")
        with self.assertRaisesRegex(NotFound, "no function test_missing"):
            expected(TEST, "test_missing")
        with self.assertRaisesRegex(NotFound, "not a test function"):
            expected(TEST, "TestUnits")


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class MutantsTest(unittest.TestCase):
    def texts(self, expr, names=()):
        return {m["text"]: m["how"] for m in mutants(expr, names)}

    def test_constants_change_and_an_equal_value_is_offered_on_purpose(self):
        t = self.texts("5400")
        for text in ("5401", "5399", "0", "-5400", "10800", "2700"):
            self.assertIn(text, t)
        # equal in value: validation by running the test must drop it
        self.assertIn("5400.0", t)
        self.assertNotIn("5400", t)

    def test_operators_comparisons_negation_and_names(self):
        t = self.texts("len(items) - 1 > limit and ok", ["item", "items", "limits", "limit"])
        self.assertIn("len(items) + 1 > limit and ok", t)
        self.assertIn("len(items) - 1 >= limit and ok", t)
        self.assertIn("len(items) - 1 > limit or ok", t)
        self.assertIn("1 - len(items) > limit and ok", t)
        self.assertIn("not (len(items) - 1 > limit and ok)", t)
        self.assertIn("len(items) - 1 > limits and ok", t)
        self.assertEqual(t["len(item) - 1 > limit and ok"], "name items → neighbouring name item")

    def test_strings_and_booleans(self):
        self.assertIn("'hou'", self.texts("'hour'"))
        self.assertIn("''", self.texts("'hour'"))
        self.assertIn("False", self.texts("True"))

    def test_every_mutant_is_distinct_and_parses(self):
        import ast
        ms = mutants("a[0] * 2 + b.c // 3", ["a", "b"])
        self.assertEqual(len({m["text"] for m in ms}), len(ms))
        for m in ms:
            ast.parse(m["text"], mode="eval")

    def test_not_an_expression(self):
        with self.assertRaisesRegex(NotFound, "not a Python expression"):
            mutants("def f(:")


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class CommandTest(unittest.TestCase):
    """``python -m deltatrace expected/mutants`` print one JSON line; errors are JSON too (exit 3)."""

    def run_cli(self, *args):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(HERE), os.environ.get("DELTATRACE_TEST_PATH")])))
        return subprocess.run([sys.executable, "-m", "deltatrace", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=60)

    def test_expected_and_mutants_on_the_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "test_x.py")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(TEST)
            r = self.run_cli("expected", "--file", path, "--function", "test_total")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn('"expr": "5400"', r.stdout)
            r = self.run_cli("expected", "--file", path, "--function", "test_nothing")
            self.assertEqual(r.returncode, 3)
            self.assertIn("asserts nothing", r.stdout)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("def test_x(:\n")
            r = self.run_cli("expected", "--file", path, "--function", "test_x")
            self.assertIn("does not parse", r.stdout)
        r = self.run_cli("mutants", "--expr", "x + 1", "--name", "y")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"x - 1"', r.stdout)


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class RaisesTest(unittest.TestCase):
    SRC = '''import pytest

def test_cycle():
    g = make()
    with pytest.raises(CycleError):
        sort(g)

def test_except():
    try:
        sort(make())
    except errors.CycleError:
        return
    raise RuntimeError()
'''

    def test_the_expected_exception_of_pytest_raises_or_an_except(self):
        self.assertEqual(expected(self.SRC, "test_cycle")["expr"], "CycleError")
        self.assertEqual(expected(self.SRC, "test_except")["expr"], "errors.CycleError")

    def test_real_projects_own_helpers_by_their_name_and_shape(self):
        src = '''from sympy.testing.pytest import raises
import unittest
import numpy as np


def test_nP():
    raises(ValueError, lambda: nP(3, -1))


def test_numpy():
    np.testing.assert_array_equal(g(1), [0.5, 1])


def test_nose_style():
    assert_equal(f(2), 5)
    assert_true(ready())


class TestThing(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(self.compute(), [1, 2])
        self.assertTrue(self.ready())

    def test_raises(self):
        with self.assertRaisesMessage(ValueError, "bad"):
            self.compute(-1)

    def test_nothing(self):
        self.compute()
'''
        cases = {
            "test_nP": ("ValueError", "the exception of raises(...)"),
            "test_numpy": ("[0.5, 1]", "the expected side of assert_array_equal(...)"),
            "test_nose_style": ("5", "the expected side of assert_equal(...)"),
            "TestThing::test_equal": ("[1, 2]", "the expected side of assertEqual(...)"),
            "TestThing::test_raises": ("ValueError", "the exception of assertRaisesMessage(...)"),
        }
        for function, (expr, form) in cases.items():
            with self.subTest(function=function):
                got = expected(src, function)
                self.assertEqual((got["expr"], got["form"]), (expr, form))
        with self.assertRaises(NotFound):
            expected(src, "TestThing::test_nothing")
        # a call named like a raise whose first argument is no exception class is not one
        self.assertEqual(expected("def test_x():\n    raise_alarm(level)\n    assert level == 3\n", "test_x")["expr"], "3")

    def test_exception_classes_get_other_exceptions_not_arithmetic(self):
        texts = {m["text"] for m in mutants("CycleError")}
        self.assertIn("ValueError", texts)
        self.assertIn("Exception", texts)  # a base: validation by running drops it when it also passes
        self.assertNotIn("-CycleError", texts)


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class SubexpressionsTest(unittest.TestCase):
    """Local candidates from the parts of a line: what a fix that adds an early return or raise changes."""

    SRC = (
        "def nP(n, k=None):\n"
        "    if k is not None and k < 0:\n"
        "        raise ValueError('k must be nonnegative')\n"
        "    total = self.count(n) + len(items[k:])\n"
        "    return total\n"
    )

    def test_the_parts_of_the_lines_asked_for(self):
        got = [c["text"] for c in subexpressions(self.SRC, [2, 4])]
        for want in ("k is not None and k < 0", "k is not None", "k < 0",
                     "self.count(n) + len(items[k:])", "self.count(n)", "self.count", "items[k:]", "len(items)"):
            self.assertIn(want, got)
        # nothing from other lines, and no duplicates
        self.assertNotIn("ValueError('k must be nonnegative')", got)
        self.assertEqual(len(got), len(set(got)))

    def test_a_def_line_gives_nothing_and_the_limit_holds(self):
        self.assertEqual(subexpressions(self.SRC, [1]), [])
        self.assertEqual(len(subexpressions(self.SRC, [2, 3, 4, 5], limit=3)), 3)

    def test_lambdas_and_walrus_are_left_out(self):
        got = [c["text"] for c in subexpressions("x = sorted(a, key=lambda v: v.n)\n", [1])]
        self.assertNotIn("sorted(a, key=lambda v: v.n)", got)
        self.assertNotIn("v.n", got)
        self.assertIn("len(a)", got)


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(sys.version_info < (3, 9), "the question helpers (ast only) run on Python 3.9+; deltalens runs them with a newer interpreter for older projects")
class GuardScriptTest(unittest.TestCase):
    SCRIPT = (
        "import sys\n"
        "from hypothesis import given, strategies as st\n"
        "\n"
        "@given(st.integers())\n"
        "def test_abs(n):\n"
        "    assert abs(n) >= 0\n"
        "\n"
        "sys.setrecursionlimit(5000)\n"
        "try:\n"
        "    test_abs()\n"
        "except AssertionError:\n"
        "    sys.exit(1)\n"
        "if __name__ == '__main__':\n"
        "    test_abs()\n"
    )

    def test_module_level_calls_of_a_test_move_under_main_and_lines_keep_their_numbers(self):
        text, moved = guard_script(self.SCRIPT)
        self.assertEqual(moved, [9])
        before, after = self.SCRIPT.split("\n"), text.split("\n")
        # every line outside the moved statement is where it was
        for i in range(8):
            self.assertEqual(after[i], before[i])
        self.assertEqual(after[8:12], ["", "", "", ""])
        self.assertIn("if __name__ == \"__main__\":\n    try:\n        test_abs()\n    except AssertionError:\n        sys.exit(1)\n", text)
        # importing it runs nothing; as a script it still runs the test
        import ast
        tree = ast.parse(text)
        top = [type(n).__name__ for n in tree.body]
        self.assertEqual(top, ["Import", "ImportFrom", "FunctionDef", "Expr", "If", "If"])

    def test_a_script_without_such_calls_is_left_as_it_is(self):
        text = "def test_x():\n    assert 1\n\nif __name__ == '__main__':\n    test_x()\n"
        self.assertEqual(guard_script(text), (text, []))

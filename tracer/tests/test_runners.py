"""The tracer under the test runners SWE-bench's repositories use, with no pytest needed (so on
every interpreter from 3.6): Django's tests/runtests.py (a Django-style runner: its command line
and its labels), plain unittest, and a test function called as sympy's bin/test calls it. For
each: the chosen test alone is traced (its setUp, body and tearDown), and its outcome is
reported per test in SWE-bench's id form."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER = os.path.dirname(HERE)
ROOT = os.path.join(HERE, "fixtures", "runners")


def trace(mode, test, focus="shapes/__init__.py:area"):
    out = tempfile.mktemp(suffix=".jsonl")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [TRACER, os.environ.get("DELTATRACE_TEST_PATH")])))
    env.pop("PYTHONHASHSEED", None)
    proc = subprocess.run([sys.executable, "-m", "deltatrace", "run", "--root", ROOT, "--out", out, "--mode", mode,
                           "--focus", focus, "--", test],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=120)
    try:
        with open(out, encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh]
    finally:
        if os.path.exists(out):
            os.remove(out)
    return proc, records


def outcome(records):
    return next(r for r in records if r["t"] == "outcome")


class Runners(unittest.TestCase):
    def test_django_runtests_with_a_swe_bench_id(self):
        proc, records = trace("django", "test_wrong (shape_tests.test_area.AreaTests)")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        o = outcome(records)
        self.assertEqual(o["status"], "failed")
        self.assertEqual(o["tests"], [{"nodeid": "test_wrong (shape_tests.test_area.AreaTests)", "phase": "call",
                                       "file": "tests/shape_tests/test_area.py", "outcome": "failed",
                                       "exc_type": "AssertionError", "message": "4 != 5", "line": 19}])
        calls = [(r["fn"], r.get("locals")) for r in records if r["t"] == "call"]
        self.assertEqual(calls[-1], ("area", {"w": 2, "h": 2}))
        # only the chosen test ran traced: no frame of another test
        self.assertEqual({fn for fn, _ in calls}, {"AreaTests.test_wrong", "area"})

    def test_a_setup_that_fails_is_an_error_before_the_body(self):
        proc, records = trace("django", "shape_tests.test_area.NoSetup.test_anything")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        o = outcome(records)
        self.assertEqual(o["status"], "error")
        self.assertEqual((o["tests"][0]["phase"], o["tests"][0]["outcome"], o["tests"][0]["exc_type"]), ("setup", "error", "RuntimeError"))

    def test_plain_unittest_and_a_label_that_does_not_load(self):
        proc, records = trace("unittest", "test_negative (tests.shape_tests.test_area.AreaTests)")
        self.assertEqual(outcome(records)["tests"][0]["outcome"], "passed", proc.stderr)
        self.assertIn("area", [r["fn"] for r in records if r["t"] == "call"])
        proc, records = trace("unittest", "tests.shape_tests.test_area.AreaTests.test_nope")
        o = outcome(records)
        self.assertEqual(o["status"], "error")
        self.assertIn("could not load tests.shape_tests.test_area.AreaTests.test_nope", o["error"])

    def test_a_test_function_called_as_sympy_bin_test_calls_it(self):
        proc, records = trace("function", "tests/shape_tests/test_area.py::test_rectangle")
        o = outcome(records)
        self.assertEqual((o["status"], o["tests"][0]["nodeid"]), ("passed", "tests/shape_tests/test_area.py::test_rectangle"), proc.stderr)
        self.assertEqual([r["fn"] for r in records if r["t"] == "call"], ["test_rectangle", "area"])
        proc, records = trace("function", "tests/shape_tests/test_area.py::test_missing")
        self.assertIn("could not import", outcome(records)["error"])


if __name__ == "__main__":
    unittest.main()

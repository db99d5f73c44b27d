"""--seed: the random module and the generators a program makes for itself without a seed
draw the same numbers in every run; --no-seed leaves them alone."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER = os.path.dirname(HERE)

PROGRAM = """import random

_private = random.Random()   # made at import without a seed, like sympy's


def draw():
    a = random.random()
    b = _private.random()
    return a, b


draw()
"""


def draws(tmp, *flags):
    out = os.path.join(tmp, "t.jsonl")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [TRACER, os.environ.get("DELTATRACE_TEST_PATH")])))
    env.pop("PYTHONHASHSEED", None)
    proc = subprocess.run([sys.executable, "-m", "deltatrace", "run", "--root", tmp, "--out", out]
                          + list(flags) + ["--", os.path.join(tmp, "prog.py")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    with open(out, encoding="utf-8") as fh:
        recs = [json.loads(line) for line in fh]
    ret = [r for r in recs if r["t"] == "return" and r.get("kind") == "return"]
    return ret[0]["value"], recs[0], recs[-1]


class Seeding(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="deltatrace-seed-")
        with open(os.path.join(self.tmp, "prog.py"), "w") as fh:
            fh.write(PROGRAM)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_every_run_draws_the_same_numbers(self):
        first, header, end = draws(self.tmp)
        second, _, _ = draws(self.tmp)
        self.assertEqual(first, second)
        self.assertEqual(header["seed"], 0)
        self.assertEqual(end["seed"]["private_generators"], 1)
        other, _, _ = draws(self.tmp, "--seed", "7")
        self.assertNotEqual(first, other)

    def test_no_seed_leaves_randomness_alone(self):
        first, header, _ = draws(self.tmp, "--no-seed")
        second, _, _ = draws(self.tmp, "--no-seed")
        self.assertNotEqual(first, second)
        self.assertIsNone(header["seed"])


if __name__ == "__main__":
    unittest.main()

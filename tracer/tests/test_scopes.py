import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER = os.path.dirname(HERE)


class ScopesTest(unittest.TestCase):
    """deltatrace scopes: functions and classes with line ranges, from ast only."""

    def run_scopes(self, root, *files):
        out = subprocess.run([sys.executable, "-m", "deltatrace", "scopes", "--root", root] + list(files),
                             cwd=TRACER, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=True)
        return json.loads(out.stdout)

    def test_nested_decorated_and_broken(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "pkg"))
            with open(os.path.join(root, "pkg", "m.py"), "w") as f:
                f.write("import functools\n\n"
                        "class A:\n"
                        "    @functools.lru_cache\n"
                        "    def f(self, x):\n"
                        "        def g():\n"
                        "            return x\n"
                        "        return g()\n\n"
                        "def h():\n"
                        "    raise SystemExit('never runs')\n")
            with open(os.path.join(root, "bad.py"), "w") as f:
                f.write("def (:\n")
            r = self.run_scopes(root, "pkg/m.py", "bad.py", "missing.py", "../outside.py")
        self.assertEqual(r["pkg/m.py"]["scopes"], [
            {"qualname": "A", "kind": "class", "start": 3, "end": 8},
            {"qualname": "A.f", "kind": "function", "start": 4, "end": 8},
            {"qualname": "A.f.<locals>.g", "kind": "function", "start": 6, "end": 7},
            {"qualname": "h", "kind": "function", "start": 10, "end": 11},
        ])
        self.assertTrue(r["bad.py"]["error"].startswith("SyntaxError"))
        self.assertTrue(r["missing.py"]["error"].startswith("FileNotFoundError"))
        self.assertEqual(r["../outside.py"], {"error": "outside --root"})


if __name__ == "__main__":
    unittest.main()

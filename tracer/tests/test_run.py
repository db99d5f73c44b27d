"""The tracer run as users run it: ``python -m deltatrace`` in a child process, on a small
multi-module library under pytest (imports, classes, slots, generators, exceptions,
recursion, comprehensions, closures, a hostile __repr__)."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER = os.path.dirname(HERE)
FIXTURE = os.path.join(HERE, "fixtures", "inventory")


def find_python(minor):
    """An interpreter for 3.<minor> (pyenv installs or PATH), or None."""
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.%d.*/bin/python" % minor)))
    which = shutil.which("python3.%d" % minor)
    if which:
        candidates.append(which)
    for exe in candidates:
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[1])"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and out.stdout.strip() == str(minor):
            return exe
    return None


def _has_pytest():
    try:
        import importlib.util
        return importlib.util.find_spec("pytest") is not None
    except Exception:
        return False


HAS_PYTEST = _has_pytest()
NO_PYTEST = "pytest is not installed for this Python (%s): the tests that run pytest are left out" % sys.version.split()[0]


def deltatrace(*args, python=None, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [TRACER, os.environ.get("DELTATRACE_TEST_PATH")])))
    env.pop("PYTHONHASHSEED", None)
    return subprocess.run([python or sys.executable, "-m", "deltatrace"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, cwd=cwd, timeout=120)


def records(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def line_of(rel, text):
    with open(os.path.join(FIXTURE, rel), encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if text in line:
                return i
    raise AssertionError("%r not in %s" % (text, rel))


@unittest.skipUnless(HAS_PYTEST, NO_PYTEST)
class TracerRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="deltatrace-test-")
        cls.out = os.path.join(cls.tmp, "all.jsonl")
        cls.proc = deltatrace("run", "--root", FIXTURE, "--out", cls.out, "--", "tests")
        cls.recs = records(cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def frames(self, recs=None):
        return {r["fid"]: r for r in (recs or self.recs) if r["t"] == "call"}

    def test_header_outcome_and_end(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        head = self.recs[0]
        self.assertEqual(head["t"], "header")
        self.assertEqual(head["root"], os.path.realpath(FIXTURE))
        self.assertEqual(head["hash_seed"], "0")
        outcome = next(r for r in self.recs if r["t"] == "outcome")
        self.assertEqual(outcome["status"], "failed")
        by_test = {t["nodeid"].split("::")[1]: t for t in outcome["tests"]}
        self.assertEqual(by_test["test_price"]["outcome"], "passed")
        failed = by_test["test_fails"]
        self.assertEqual(failed["outcome"], "failed")
        self.assertEqual(failed["exc_type"], "AssertionError")
        self.assertEqual(failed["line"], line_of("tests/test_inventory.py", "== 31"))
        self.assertNotRegex(failed["message"], "0x[0-9a-f]{6}")
        self.assertEqual(self.recs[-1]["t"], "end")
        self.assertIsNone(self.recs[-1]["truncated"])

    def test_only_code_under_root_is_traced(self):
        files = {r["file"] for r in self.frames().values()}
        self.assertEqual(files, {"tests/test_inventory.py", "inventory/items.py",
                                 "inventory/pricing.py"})
        sources = [r["file"] for r in self.recs if r["t"] == "source"]
        self.assertEqual(sorted(sources), sorted(files))

    def test_generators_recursion_closures_exceptions(self):
        frames = self.frames()
        names = [f["fn"] for f in frames.values()]
        self.assertIn("make_rate.<locals>.apply", names)
        # a generator: one frame per resume, each ending in a yield or the final return
        gen = [f for f in frames.values() if f["fn"] == "Stock.available"]
        self.assertEqual(len(gen), 3)
        self.assertEqual([bool(f.get("resume")) for f in gen], [False, True, True])
        ends = {r["fid"]: r for r in self.recs if r["t"] in ("return", "exception")}
        self.assertEqual([ends[f["fid"]].get("kind") for f in gen], ["yield", "yield", "return"])
        self.assertEqual([ends[f["fid"]]["value"] for f in gen], ["apple", "plum", None])
        # recursion: depth(3) -> depth(2) -> depth(1) -> depth(0), each the parent of the next
        depth = [f for f in frames.values() if f["fn"] == "Stock.depth"]
        self.assertEqual(len(depth), 4)
        for parent, child in zip(depth, depth[1:]):
            self.assertEqual(child["parent"], parent["fid"])
        self.assertEqual(ends[depth[0]["fid"]]["value"], 3)
        # an exception leaves Stock.take and is caught in price_of
        exc = [r for r in self.recs if r["t"] == "exception" and frames[r["fid"]]["fn"] == "Stock.take"]
        self.assertEqual(len(exc), 1)
        self.assertEqual(exc[0]["exc"]["type"], "inventory.items.OutOfStock")
        self.assertEqual(exc[0]["exc"]["message"], "plum")
        # comprehension frames are not recorded (Python 3.12 inlines them); their result is
        disc = next(f for f in frames.values() if f["fn"] == "discounted")
        prices = [r for r in self.recs if r["t"] == "line" and r["fid"] == disc["fid"] and "prices" in r["ch"]]
        self.assertEqual(prices[0]["ch"]["prices"], [27, 18])

    def test_steps_record_changed_locals_only(self):
        frames = self.frames()
        take = next(f for f in frames.values() if f["fn"] == "Stock.take")
        steps = [r for r in self.recs if r["t"] == "line" and r["fid"] == take["fid"]]
        qty_line = line_of("inventory/items.py", "item.qty -= qty")
        step = next(s for s in steps if s["line"] == qty_line)
        # the slotted Item is read through its member descriptors
        self.assertEqual(step["ch"], {"item": {"$obj": "inventory.items.Item",
                                               "attrs": {"name": "apple", "price": 30, "qty": 3}}})
        self.assertEqual(take["locals"]["qty"], 2)

    def test_hostile_repr_does_not_change_the_outcome(self):
        outcome = next(r for r in self.recs if r["t"] == "outcome")
        hostile = next(t for t in outcome["tests"] if t["nodeid"].endswith("test_hostile"))
        self.assertEqual(hostile["outcome"], "passed")
        frames = self.frames()
        fid = next(f["fid"] for f in frames.values() if f["fn"] == "test_hostile")
        noisy = next(r["ch"]["noisy"] for r in self.recs if r["t"] == "line" and r["fid"] == fid
                     and "noisy" in r["ch"])
        self.assertEqual(noisy, {"$obj": "inventory.items.Noisy",
                                 "attrs": {"reads": 0, "mutated": False}})

    def test_deterministic(self):
        again = os.path.join(self.tmp, "again.jsonl")
        deltatrace("run", "--root", FIXTURE, "--out", again, "--", "tests")
        strip = lambda rs: [r for r in rs if r["t"] != "end"]  # noqa: E731 (end has timings)
        self.assertEqual(strip(records(again)), strip(self.recs))

    def test_truncation_record(self):
        out = os.path.join(self.tmp, "short.jsonl")
        proc = deltatrace("run", "--root", FIXTURE, "--out", out, "--max-events", "20", "--",
                          "tests/test_inventory.py::test_price")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = records(out)
        trunc = [r for r in recs if r["t"] == "truncated"]
        self.assertEqual(len(trunc), 1)
        self.assertEqual(trunc[0]["reason"], "max-events")
        self.assertEqual(sum(1 for r in recs if r["t"] in ("call", "line", "return", "exception")), 20)
        # the test still ran to its end: the outcome is known
        self.assertEqual(next(r for r in recs if r["t"] == "outcome")["status"], "passed")
        self.assertEqual(recs[-1]["truncated"], "max-events")

    def test_focus_records_call_paths_and_below(self):
        out = os.path.join(self.tmp, "focus.jsonl")
        proc = deltatrace("run", "--root", FIXTURE, "--out", out, "--focus",
                          "inventory/pricing.py:make_rate.<locals>.apply", "--", "tests")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = records(out)
        calls = [r for r in recs if r["t"] == "call"]
        names = sorted({r["fn"] for r in calls})
        # the focus function, and the frames that really called it (one run, no pre-pass)
        self.assertEqual(names, ["discounted", "make_rate.<locals>.apply", "test_discount"])
        lazy = sorted({r["fn"] for r in calls if r.get("lazy")})
        self.assertEqual(lazy, ["discounted", "test_discount"])
        self.assertNotIn("prepass", recs[0])
        # a path frame is attached while its line runs: the call into the focus is its item
        apply = next(r for r in calls if r["fn"] == "make_rate.<locals>.apply")
        parent = next(r for r in calls if r["fid"] == apply["parent"])
        self.assertEqual(parent["fn"], "discounted")
        self.assertIn("call_line", apply)

    def test_skeleton_and_plan_record_values_only_where_asked(self):
        out = os.path.join(self.tmp, "skeleton.jsonl")
        proc = deltatrace("run", "--root", FIXTURE, "--out", out, "--record", "skeleton", "--",
                          "tests/test_inventory.py::test_price")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        skel = records(out)
        full = [r for r in self.recs if r.get("fid") is not None]
        lines = [r for r in skel if r["t"] == "line"]
        self.assertTrue(lines)
        self.assertTrue(all("ch" not in r for r in lines))
        self.assertTrue(all("locals" not in r for r in skel if r["t"] == "call"))
        self.assertTrue(all("value" not in r for r in skel if r["t"] == "return"))
        # the plan: frame 1 all valued, frame 2 its first item, others none
        frames = sorted({r["fid"] for r in skel if r["t"] == "call"})
        plan = os.path.join(self.tmp, "plan.json")
        with open(plan, "w") as fh:
            json.dump({"cuts": [0, -1, 1] + [0] * len(frames)}, fh)
        planned = os.path.join(self.tmp, "planned.jsonl")
        proc = deltatrace("run", "--root", FIXTURE, "--out", planned, "--record", "plan", "--plan", plan,
                          "--", "tests/test_inventory.py::test_price")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = records(planned)
        by_fid = {}
        for r in recs:
            if r["t"] in ("line", "return", "exception"):
                by_fid.setdefault(r["fid"], []).append(r)
        self.assertTrue(all("ch" in r for r in by_fid[1] if r["t"] == "line"))
        two = [r for r in recs if r.get("fid") == 2 and r["t"] in ("line", "call")]
        calls2 = [r for r in recs if r["t"] == "call" and r.get("parent") == 2]
        items2 = sorted(two + calls2, key=lambda r: r["seq"])
        first_line = next((r for r in items2 if r["t"] == "line"), None)
        if items2 and items2[0]["t"] == "line":
            self.assertIn("ch", first_line)
        self.assertTrue(all("ch" not in r for r in by_fid.get(3, []) if r["t"] == "line"))
        # the same control flow as the skeleton run: same records apart from the values
        shape = lambda rs: [(r["t"], r.get("fid"), r.get("line")) for r in rs if r["t"] in ("call", "line", "return", "exception")]  # noqa: E731
        self.assertEqual(shape(recs), shape(skel))
        del full

    def test_a_budget_run_is_a_full_trace_when_small_and_control_flow_after_the_budget(self):
        def run(budget):
            out = os.path.join(self.tmp, "budget-%d.jsonl" % budget)
            proc = deltatrace("run", "--root", FIXTURE, "--out", out, "--record", "budget",
                              "--value-budget", str(budget), "--", "tests/test_inventory.py::test_price")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return records(out)
        full_out = os.path.join(self.tmp, "full-price.jsonl")
        deltatrace("run", "--root", FIXTURE, "--out", full_out, "--", "tests/test_inventory.py::test_price")
        full = records(full_out)
        body = lambda rs: [r for r in rs if r["t"] not in ("header", "end")]  # noqa: E731
        # within the budget: every record as a full run writes it, and the end says so
        within = run(100000)
        self.assertEqual(body(within), body(full))
        self.assertEqual(within[-1]["budget"], {"events": 100000, "within": True})
        # past it: values in the first frames, none after; the same control flow
        spent = run(5)
        self.assertEqual(spent[-1]["budget"], {"events": 5, "within": False})
        shape = lambda rs: [(r["t"], r.get("fid"), r.get("line")) for r in rs if r["t"] in ("call", "line", "return", "exception")]  # noqa: E731
        self.assertEqual(shape(spent), shape(full))
        lines = [r for r in spent if r["t"] == "line"]
        self.assertIn("ch", lines[0])
        self.assertNotIn("ch", lines[-1])
        # a frame keeps its values as a prefix of its items (as a plan's cut would)
        by_fid = {}
        for r in lines:
            by_fid.setdefault(r["fid"], []).append("ch" in r)
        for valued in by_fid.values():
            self.assertEqual(valued, sorted(valued, reverse=True))
        later = [r for r in spent if r["t"] == "call"][-1]
        self.assertNotIn("locals", later)

    def test_pod_traces_both_sides_twice_in_place_and_says_when_a_patch_does_not_apply(self):
        import shutil
        testbed = os.path.join(self.tmp, "testbed")
        shutil.copytree(FIXTURE, testbed, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        import difflib
        with open(os.path.join(testbed, "inventory", "pricing.py")) as fh:
            before = fh.read()
        after = before.replace("return item.price * qty\n", "return item.price * qty + 0\n")
        patch = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                             "a/inventory/pricing.py", "b/inventory/pricing.py"))
        job = {"instance": "demo__inventory-1", "label": "gold", "test": "tests/test_inventory.py::test_price",
               "mode": "pytest", "test_patch": "", "patch": patch, "seed": 0, "timeout": 60,
               "focus": {"buggy": ["inventory/pricing.py:price_of"], "patched": ["inventory/pricing.py:price_of"]}}
        job_file = os.path.join(self.tmp, "job.json")
        with open(job_file, "w") as fh:
            json.dump(job, fh)
        out = os.path.join(self.tmp, "pod-out")
        proc = deltatrace("pod", "--job", job_file, "--testbed", testbed, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["buggy-1.jsonl", "buggy-2.jsonl", "job.json", "patched-1.jsonl",
                                                   "patched-2.jsonl", "result.json"])
        with open(os.path.join(out, "result.json")) as fh:
            result = json.load(fh)
        self.assertIsNone(result["error"])
        self.assertEqual([(r["side"], r["run"], r["exit_code"]) for r in result["runs"]],
                         [("buggy", 1, 0), ("buggy", 2, 0), ("patched", 1, 0), ("patched", 2, 0)])
        # the patched side ran the patched file, in the same place; values everywhere
        patched = records(os.path.join(out, "patched-1.jsonl"))
        source = next(r for r in patched if r["t"] == "source" and r["file"] == "inventory/pricing.py")
        self.assertIn("item.price * qty + 0", source["text"])
        self.assertTrue(all("ch" in r for r in patched if r["t"] == "line"))
        # the same patch again does not apply: said, and nothing traced on the patched side
        again = os.path.join(self.tmp, "pod-again")
        proc = deltatrace("pod", "--job", job_file, "--testbed", testbed, "--out", again)
        self.assertEqual(proc.returncode, 1)
        with open(os.path.join(again, "result.json")) as fh:
            self.assertIn("git apply of the patch (gold) failed", json.load(fh)["error"])
        self.assertNotIn("patched-1.jsonl", os.listdir(again))

    def test_out_fd_streams_the_same_trace_without_a_file(self):
        read, write = os.pipe()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [TRACER, os.environ.get("DELTATRACE_TEST_PATH")])))
        env.pop("PYTHONHASHSEED", None)
        proc = subprocess.Popen([sys.executable, "-m", "deltatrace", "run", "--root", FIXTURE,
                                 "--out-fd", str(write), "--", "tests"],
                                pass_fds=(write,), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        os.close(write)
        with os.fdopen(read, encoding="utf-8") as fh:
            streamed = [json.loads(line) for line in fh]
        proc.wait(timeout=120)
        body = lambda rs: [r for r in rs if r["t"] not in ("header", "end")]  # noqa: E731
        self.assertEqual(body(streamed), body(self.recs))
        self.assertEqual(streamed[-1]["t"], "end")

    def test_a_test_that_never_ends_is_stopped_after_the_timeout(self):
        tmp = tempfile.mkdtemp(prefix="deltatrace-loop-")
        try:
            os.makedirs(os.path.join(tmp, "tests"))
            with open(os.path.join(tmp, "lib.py"), "w") as fh:
                fh.write("def f():\n    return 1\n")
            with open(os.path.join(tmp, "tests", "test_loop.py"), "w") as fh:
                fh.write("from lib import f\n\ndef test_loop():\n    while True:\n        f()\n")
            out = os.path.join(tmp, "t.jsonl")
            proc = deltatrace("run", "--root", tmp, "--out", out, "--timeout", "2", "--focus", "lib.py:f",
                              "--", "tests/test_loop.py::test_loop")
            self.assertEqual(proc.returncode, 124, proc.stderr)
            self.assertIn("did not end within --timeout", proc.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_missing_test_is_an_error_outcome(self):
        out = os.path.join(self.tmp, "missing.jsonl")
        proc = deltatrace("run", "--root", FIXTURE, "--out", out, "--",
                          "tests/test_inventory.py::test_nope")
        self.assertEqual(proc.returncode, 3)
        outcome = next(r for r in records(out) if r["t"] == "outcome")
        self.assertEqual(outcome["status"], "error")
        self.assertIn("no test ran", outcome["error"])


@unittest.skipUnless(HAS_PYTEST, NO_PYTEST)
class Eval(unittest.TestCase):
    def run_eval(self, *args):
        proc = deltatrace("eval", "--root", FIXTURE, *args)
        self.assertIn(proc.returncode, (0, 4), proc.stderr)
        return json.loads(proc.stdout)

    def test_before_and_after_a_line(self):
        at = "inventory/items.py:%d" % line_of("inventory/items.py", "item.qty -= qty")
        common = ["--at", at, "--hit", "1", "--expr", "item.qty", "--expr", "qty", "--",
                  "tests/test_inventory.py::test_price"]
        before = self.run_eval("--timing", "before", *common)
        after = self.run_eval("--timing", "after", *common)
        self.assertEqual(before["function"], "Stock.take")
        self.assertEqual([r["value"] for r in before["results"]], [5, 2])
        self.assertEqual([r["value"] for r in after["results"]], [3, 2])
        self.assertEqual(before["outcome"]["status"], "passed")

    def test_expressions_are_isolated(self):
        at = "inventory/items.py:%d" % line_of("inventory/items.py", "item.qty -= qty")
        res = self.run_eval("--at", at, "--expr", "self.log.append('x')", "--expr", "len(self.log)",
                            "--expr", "1/0", "--", "tests/test_inventory.py::test_price")
        self.assertEqual(res["results"][0]["value"], None)
        self.assertEqual(res["results"][1]["value"], 0)  # the append did not leak
        self.assertEqual(res["results"][2]["error"]["type"], "ZeroDivisionError")
        # nor did it reach the program: the test still passes
        self.assertEqual(res["outcome"]["status"], "passed")

    def test_return_value_after_the_last_line_and_nth_hit(self):
        at = "inventory/items.py:%d" % line_of("inventory/items.py", "return 0 if n == 0")
        res = self.run_eval("--at", at, "--hit", "2", "--timing", "after", "--expr", "__return__",
                            "--expr", "n", "--", "tests/test_inventory.py::test_available_and_depth")
        self.assertEqual([r["value"] for r in res["results"]], [2, 2])

    def test_timing_return_waits_for_the_end_of_the_call(self):
        # the first line of take: "after" is the next line; "return" is the end of the call,
        # with the locals the call ends with and what it returns
        at = "inventory/items.py:%d" % line_of("inventory/items.py", "item = self.items[name]")
        common = ["--at", at, "--expr", "__return__.qty", "--expr", "len(self.log)", "--expr", "item.qty",
                  "--", "tests/test_inventory.py::test_price"]
        after = self.run_eval("--timing", "after", *common)
        end = self.run_eval("--timing", "return", *common)
        self.assertEqual(after["results"][0]["error"]["type"], "NameError")
        self.assertEqual([r.get("value") for r in after["results"][1:]], [0, 5])
        self.assertEqual([r["value"] for r in end["results"]], [3, 1, 3])

    def test_return_of_a_frame_that_raised_raises_it(self):
        tmp = tempfile.mkdtemp(prefix="deltatrace-raising-")
        try:
            root = os.path.join(tmp, "inv")
            shutil.copytree(FIXTURE, root)
            with open(os.path.join(root, "tests", "test_sold_out.py"), "w", encoding="utf-8") as fh:
                fh.write("from inventory.items import Item, OutOfStock, Stock\n\n\n"
                         "def test_sold_out():\n"
                         "    stock = Stock([Item('pen', 2, 1)])\n"
                         "    try:\n"
                         "        stock.take('pen', 5)\n"
                         "    except OutOfStock:\n"
                         "        pass\n")
            at = "inventory/items.py:%d" % line_of("inventory/items.py", "raise OutOfStock(name)")
            proc = deltatrace("eval", "--root", root, "--at", at, "--timing", "after",
                              "--expr", "__return__", "--expr", "type(__exception__).__name__", "--expr", "qty",
                              "--", "tests/test_sold_out.py::test_sold_out")
            self.assertIn(proc.returncode, (0, 4), proc.stderr)
            res = json.loads(proc.stdout)
            ret, kind, qty = res["results"]
            # the call has no return value: it raises, and says which exception
            self.assertEqual(ret["error"]["type"], "inventory.items.OutOfStock")
            self.assertEqual(kind["value"], "OutOfStock")
            self.assertEqual(qty["value"], 5)
            self.assertEqual(res["outcome"]["status"], "passed")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_line_never_reached(self):
        res = self.run_eval("--at", "inventory/items.py:1", "--hit", "5", "--expr", "1", "--",
                            "tests/test_inventory.py::test_price")
        self.assertFalse(res["reached"])


class Changes(unittest.TestCase):
    def test_functions_and_line_blocks(self):
        tmp = tempfile.mkdtemp(prefix="deltatrace-changes-")
        try:
            buggy = os.path.join(tmp, "buggy")
            patched = os.path.join(tmp, "patched")
            shutil.copytree(FIXTURE, buggy)
            shutil.copytree(FIXTURE, patched)
            path = os.path.join(patched, "inventory", "pricing.py")
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            text = text.replace("        return None\n", "        # sold out\n        return 0\n")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.makedirs(os.path.join(patched, "__pycache__"))
            proc = deltatrace("changes", "--buggy", buggy, "--patched", patched)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            res = json.loads(proc.stdout)
            self.assertEqual([f["file"] for f in res["files"]], ["inventory/pricing.py"])
            self.assertEqual([(f["qualname"], f["sides"]) for f in res["functions"]],
                             [("price_of", ["buggy", "patched"])])
            entry = res["files"][0]
            ret = line_of("inventory/pricing.py", "return None")
            self.assertEqual(entry["touched_buggy"], [ret])
            self.assertEqual(entry["touched_patched"], [ret, ret + 1])
            # lines after the edit shift by one
            self.assertIn([ret + 1, ret + 2, len(text.splitlines()) - ret - 1], entry["blocks"])
            self.assertIn("+        return 0", res["diff"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Backends(unittest.TestCase):
    """sys.monitoring (3.12+) and sys.settrace (3.11, 3.9) write the same trace content.

    (sys.settrace on 3.12+ is not compared: there an inlined comprehension reports one
    line event per iteration; the default backend on 3.12+ is sys.monitoring.)"""

    SCRIPT = ("from inventory import Stock, Item, discounted\n"
              "s = Stock([Item('a', 10, 1), Item('b', 20, 0)])\n"
              "print(list(s.available()), s.depth(2), discounted(s, ['a', 'b'], 50))\n")

    def content(self, python, backend):
        tmp = tempfile.mkdtemp(prefix="deltatrace-backend-")
        try:
            root = os.path.join(tmp, "root")
            shutil.copytree(FIXTURE, root)
            with open(os.path.join(root, "main.py"), "w", encoding="utf-8") as fh:
                fh.write(self.SCRIPT)
            out = os.path.join(tmp, "t.jsonl")
            proc = deltatrace("run", "--root", root, "--out", out, "--backend", backend, "--",
                              "main.py", python=python)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            recs = records(out)
            self.assertEqual(recs[0]["backend"], backend)
            return [r for r in recs if r["t"] not in ("header", "end")]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_an_exception_that_passes_an_except_clause_ends_the_frame_as_an_exception(self):
        # the handler's `except AttributeError:` line runs (a line event) while the
        # UnboundLocalError goes on out of the frame: still an exception, not `return None`
        script = ("def f(x):\n    try:\n        if x == 0:\n            re = 1\n        r = re, x\n"
                  "    except AttributeError:\n        raise NotImplementedError\n    return r\n\n"
                  "def g(x):\n    try:\n        return f(x)\n    except Exception as e:\n"
                  "        return type(e).__name__\n\n"
                  "def h():\n    try:\n        return 1 // 0\n    except ZeroDivisionError:\n        pass\n\n"
                  "print(g(5), g(0), h())\n")
        runs = [(sys.executable, "settrace")]
        for minor, backend in ((9, "settrace"), (12, "monitoring"), (13, "monitoring")):
            exe = find_python(minor)
            if exe is not None:
                runs.append((exe, backend))
        for python, backend in runs:
            with self.subTest(python=python, backend=backend):
                tmp = tempfile.mkdtemp(prefix="deltatrace-exc-")
                try:
                    with open(os.path.join(tmp, "main.py"), "w", encoding="utf-8") as fh:
                        fh.write(script)
                    out = os.path.join(tmp, "t.jsonl")
                    proc = deltatrace("run", "--root", tmp, "--out", out, "--backend", backend, "--", "main.py", python=python)
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    recs = records(out)
                    names = {r["fid"]: r["fn"] for r in recs if r["t"] == "call"}
                    ends = [(names[r["fid"]], r["t"], r.get("exc", {}).get("type"), r.get("value"))
                            for r in recs if r["t"] in ("return", "exception") and names[r["fid"]] in ("f", "h")]
                    self.assertEqual(ends, [("f", "exception", "UnboundLocalError", None),
                                            ("f", "return", None, {"$tuple": [1, 0]}), ("h", "return", None, None)])
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)

    def test_same_content_across_backends(self):
        # the reference: sys.settrace before 3.12 (there an inlined comprehension would differ)
        reference = sys.executable if sys.version_info < (3, 12) else (find_python(11) or find_python(10) or find_python(9))
        if reference is None:
            self.skipTest("no Python before 3.12 on this machine to take the sys.settrace reference from")
        base = self.content(reference, "settrace")
        self.assertGreater(len(base), 40)
        compared = 0
        for minor, backend in ((12, "monitoring"), (13, "monitoring"), (9, "settrace")):
            exe = find_python(minor)
            if exe is None:
                continue
            with self.subTest(python="3.%d" % minor, backend=backend):
                self.maxDiff = 4000
                self.assertEqual(self.content(exe, backend), base)
                compared += 1
        if compared == 0:
            self.skipTest("no Python 3.12/3.13/3.9 on this machine to compare with")


class ColdAndWarmRuns(unittest.TestCase):
    """The first run in a fresh tree compiles its modules and writes their .pyc files; the runs
    after load them. A constant set read back from a .pyc can iterate in another order (its
    items are inserted again in the order it iterated in), so without care the first run took
    another path than every later one (a real sympy test: 52,181 events, then 52,277)."""

    LIB = ("def count_until_eleven():\n"
           "    n = 0\n"
           "    for k in {0, 3, 11}:\n"
           "        n += 1\n"
           "        if k == 11:\n"
           "            break\n"
           "    return n\n")

    def test_the_first_run_takes_the_path_of_the_runs_after_it(self):
        tmp = tempfile.mkdtemp(prefix="deltatrace-cold-")
        try:
            with open(os.path.join(tmp, "lib.py"), "w", encoding="utf-8") as fh:
                fh.write(self.LIB)
            with open(os.path.join(tmp, "main.py"), "w", encoding="utf-8") as fh:
                fh.write("from lib import count_until_eleven\nprint(count_until_eleven())\n")
            env = dict(os.environ, PYTHONPATH=TRACER)
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # the .pyc files are the point
            env.pop("PYTHONHASHSEED", None)
            runs = []
            for i in range(3):
                out = os.path.join(tmp, "run-%d.jsonl" % i)
                proc = subprocess.run([sys.executable, "-m", "deltatrace", "run", "--root", tmp, "--out", out,
                                       "--", "main.py"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      universal_newlines=True, env=env, cwd=tmp, timeout=120)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                recs = records(out)
                names = {r["fid"]: r["fn"] for r in recs if r["t"] == "call"}
                runs.append({
                    "lines": [r["line"] for r in recs if r["t"] == "line" and names[r["fid"]] == "count_until_eleven"],
                    "returns": [r.get("value") for r in recs
                                if r["t"] == "return" and names[r["fid"]] == "count_until_eleven"],
                })
                if i == 0:
                    # the first run wrote lib's .pyc: the runs after load it
                    self.assertTrue(glob.glob(os.path.join(tmp, "__pycache__", "lib.*.pyc")))
            self.assertEqual(runs[1], runs[0])
            self.assertEqual(runs[2], runs[0])
            # and that is what loading the .pyc gives: the set as marshal gives it back
            import marshal
            code = compile(self.LIB, "lib.py", "exec")
            ns = {}
            exec(marshal.loads(marshal.dumps(code)), ns)
            self.assertEqual(runs[0]["returns"], [ns["count_until_eleven"]()])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

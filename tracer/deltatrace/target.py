"""Run the traced target in this process: a pytest run or a script.

Tracing is switched on only around each test's setup/call/teardown (pytest) or around the
whole script, so importing and collecting a large library costs nothing extra.
"""

import os
import re
import runpy
import sys
import traceback

from .serialize import aliased, type_name


def looks_like_script(args):
    if not args:
        return False
    first = args[0]
    if first in ("pytest", "py.test"):
        return False
    if "::" in first or not first.endswith(".py"):
        return False
    base = os.path.basename(first)
    return not (base.startswith("test_") or base.endswith("_test.py"))


class Outcome:
    def __init__(self):
        self.tests = []
        self.exit_code = None
        self.error = None

    def status(self):
        if self.error is not None:
            return "error"
        if not self.tests:
            return "error"
        if any(t["outcome"] == "error" for t in self.tests):
            return "error"
        if any(t["outcome"] == "failed" for t in self.tests):
            return "failed"
        if all(t["outcome"] == "skipped" for t in self.tests):
            return "skipped"
        return "passed"

    def record(self):
        out = {"t": "outcome", "status": self.status(), "tests": self.tests}
        if self.exit_code is not None:
            out["exit_code"] = self.exit_code
        if self.error is not None:
            out["error"] = self.error
        return out


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def _safe_message(exc):
    try:
        args = BaseException.__getattribute__(exc, "args")
    except Exception:
        return None
    if type(args) is tuple and args and type(args[0]) is str:
        # addresses differ from run to run: they are written as 0x? so runs compare
        return _ADDRESS.sub("0x?", aliased(args[0])[:2000])
    return None


def _failing_line(tb, filename):
    """The last traceback entry in ``filename`` (the test file): its line number."""
    line = None
    real = os.path.realpath(filename) if filename else None
    while tb is not None:
        if real and os.path.realpath(tb.tb_frame.f_code.co_filename) == real:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _item_path(item):
    """A test item's file: ``item.path`` from pytest 7, ``item.fspath`` before (the pytest of
    the Python 3.6 images)."""
    for attr in ("path", "fspath"):
        value = getattr(item, attr, None)
        if value is not None:
            return str(value)
    return None


def run_pytest(args, start, stop, outcome, stdout_to_stderr=True):
    try:
        import pytest
    except ImportError:
        outcome.error = "pytest is not installed for %s" % sys.executable
        return

    class Plugin:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            start()
            try:
                yield
            finally:
                stop()

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            rep = yield
            report = rep.get_result()
            # the body's result; a setup or teardown that failed; a setup that skipped the test
            if call.when == "call" or (call.excinfo is not None and (
                    report.failed or (report.skipped and call.when == "setup"))):
                where = _item_path(item)
                entry = {"nodeid": item.nodeid, "phase": call.when,
                         "file": os.path.relpath(where, os.getcwd()) if where else None}
                if report.passed:
                    entry["outcome"] = "passed"
                elif report.skipped:
                    entry["outcome"] = "skipped"
                elif call.when == "call":
                    entry["outcome"] = "failed"
                else:
                    entry["outcome"] = "error"
                if report.skipped and call.excinfo is not None:
                    msg = _safe_message(call.excinfo.value)
                    if msg is not None:
                        entry["message"] = msg
                elif call.excinfo is not None:
                    exc = call.excinfo.value
                    entry["exc_type"] = type_name(exc)
                    msg = _safe_message(exc)
                    if msg is not None:
                        entry["message"] = msg
                    entry["line"] = _failing_line(call.excinfo.tb, where)
                outcome.tests.append(entry)

    argv = list(args)
    if argv and argv[0] in ("pytest", "py.test"):
        argv = argv[1:]
    argv = ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"] + argv
    saved = sys.stdout
    if stdout_to_stderr:
        sys.stdout = sys.stderr
    try:
        code = pytest.main(argv, plugins=[Plugin()])
    finally:
        sys.stdout = saved
        stop()
    outcome.exit_code = int(code)
    if not outcome.tests:
        outcome.error = "no test ran (pytest exit code %d): check the test id" % int(code)


def run_script(args, start, stop, outcome):
    path = args[0]
    if not os.path.isfile(path):
        outcome.error = "script not found: %s" % path
        return
    saved_argv = sys.argv
    sys.argv = list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    entry = {"nodeid": path, "phase": "call", "file": path}
    start()
    try:
        runpy.run_path(path, run_name="__main__")
        entry["outcome"] = "passed"
    except SystemExit as e:
        code = e.code
        entry["outcome"] = "passed" if code in (None, 0) else "failed"
        if entry["outcome"] == "failed":
            entry["exc_type"] = "SystemExit"
            entry["message"] = str(code) if isinstance(code, (int, str)) else None
    except BaseException as e:  # noqa: B902 - the target's failure is data
        stop()
        entry["outcome"] = "failed"
        entry["exc_type"] = type_name(e)
        msg = _safe_message(e)
        if msg is not None:
            entry["message"] = msg
        entry["line"] = _failing_line(e.__traceback__, path)
    finally:
        stop()
        sys.argv = saved_argv
    outcome.tests.append(entry)
    outcome.exit_code = 0 if entry["outcome"] == "passed" else 1


# -- unittest, Django's runtests.py, and a test function called as sympy's bin/test does -------


class _Recorder(object):
    """Wraps a unittest result: every test's outcome is also recorded (setup, body or teardown)."""

    def __init__(self, result, test, outcome, started):
        self._result = result
        self._test = test
        self._outcome = outcome
        self._started = started  # [bool]: whether the test method's body began

    def __getattr__(self, name):
        return getattr(self._result, name)

    def _entry(self, test, outcome, err=None, message=None):
        entry = {"nodeid": _unittest_id(test), "phase": "call" if self._started[0] else "setup",
                 "file": _test_file(test), "outcome": outcome}
        if err is not None:
            exc = err[1]
            entry["exc_type"] = type_name(exc) if exc is not None else getattr(err[0], "__name__", "?")
            msg = _safe_message(exc) if exc is not None else None
            if msg is not None:
                entry["message"] = msg
            entry["line"] = _failing_line(err[2], entry["file"])
        elif message is not None:
            entry["message"] = _ADDRESS.sub("0x?", aliased(str(message))[:2000])
        self._outcome.tests.append(entry)

    def addSuccess(self, test):
        self._entry(test, "passed")
        return self._result.addSuccess(test)

    def addFailure(self, test, err):
        self._entry(test, "failed", err)
        return self._result.addFailure(test, err)

    def addError(self, test, err):
        self._entry(test, "failed" if self._started[0] else "error", err)
        return self._result.addError(test, err)

    def addSkip(self, test, reason):
        self._entry(test, "skipped", message=reason)
        return self._result.addSkip(test, reason)

    def addExpectedFailure(self, test, err):
        self._entry(test, "passed", message="expected failure")
        return self._result.addExpectedFailure(test, err)

    def addUnexpectedSuccess(self, test):
        self._entry(test, "failed", message="unexpected success")
        return self._result.addUnexpectedSuccess(test)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._entry(test, "failed", err)
        return self._result.addSubTest(test, subtest, err)


def _unittest_id(test):
    """A test's id in SWE-bench's unittest form: ``test_x (module.Class)``."""
    cls = type(test)
    return "%s (%s.%s)" % (getattr(test, "_testMethodName", "?"), cls.__module__, cls.__qualname__)


def _test_file(test):
    module = sys.modules.get(type(test).__module__)
    path = getattr(module, "__file__", None)
    return os.path.relpath(path, os.getcwd()) if isinstance(path, str) else None


def _traced_unittest(start, stop, outcome, wanted):
    """Patches unittest.TestCase.run: tracing on around each wanted test's setUp, body and
    tearDown, its result recorded; other tests run as they are. Returns the undo."""
    import unittest
    original = unittest.TestCase.run

    def run(self, result=None):
        # the loader's stand-in for a label it could not load is not a test
        if result is None or type(self).__name__ == "_FailedTest" or (wanted is not None and not wanted(self)):
            return original(self, result)
        started = [False]
        name = getattr(self, "_testMethodName", None)
        method = getattr(self, name, None) if name else None
        if method is not None:
            def body(*a, **kw):
                started[0] = True
                return method(*a, **kw)
            try:
                setattr(self, name, body)
            except Exception:
                pass
        start()
        try:
            return original(self, _Recorder(result, self, outcome, started))
        finally:
            stop()
            if method is not None:
                try:
                    delattr(self, name)
                except Exception:
                    pass

    unittest.TestCase.run = run
    return lambda: setattr(unittest.TestCase, "run", original)


_UNITTEST_ID = re.compile(r"^(\w+) \(([\w.]+)\)$")


def unittest_label(test_id):
    """``test_x (module.Class)`` (SWE-bench's form) to ``module.Class.test_x``; a dotted label
    is taken as it is."""
    m = _UNITTEST_ID.match(test_id.strip())
    return "%s.%s" % (m.group(2), m.group(1)) if m else test_id.strip()


def run_unittest(args, start, stop, outcome):
    """Plain unittest: ``module.Class.test`` (or ``test (module.Class)``) loaded and run."""
    import unittest
    labels = [unittest_label(a) for a in args]
    undo = _traced_unittest(start, stop, outcome, None)
    try:
        suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite)
        outcome.exit_code = 0 if result.wasSuccessful() else 1
        for test, err in getattr(result, "errors", []):
            if type(test).__name__ == "_FailedTest":  # the loader could not import the label
                outcome.error = "could not load %s: %s" % (", ".join(labels), err.strip().splitlines()[-1])
    finally:
        undo()
    if not outcome.tests and outcome.error is None:
        outcome.error = "no test ran: check the test id (%s)" % ", ".join(labels)


def run_django(args, start, stop, outcome):
    """Django's own test runner, as SWE-bench runs it: ``tests/runtests.py --settings=test_sqlite
    --parallel 1 <label>`` in the tree (the label from ``test_x (module.Class)``), in this
    process; tracing on around the chosen test's setUp, body and tearDown only."""
    runner = os.path.join("tests", "runtests.py")
    if not os.path.isfile(runner):
        outcome.error = "no tests/runtests.py in the tree: not a Django checkout"
        return
    labels = [unittest_label(a) for a in args if not a.startswith("-")]
    options = [a for a in args if a.startswith("-")]
    if not any(o.startswith("--settings") for o in options):
        options.append("--settings=test_sqlite")
    if not any(o.startswith("--parallel") for o in options):
        options += ["--parallel", "1"]
    wanted = set(labels)

    def chosen(test):
        cls = type(test)
        return "%s.%s.%s" % (cls.__module__, cls.__qualname__, getattr(test, "_testMethodName", "")) in wanted

    undo = _traced_unittest(start, stop, outcome, chosen)
    saved = sys.argv, list(sys.path), os.getcwd()
    tests_dir = os.path.abspath("tests")
    sys.argv = [runner] + options + ["-v", "0"] + labels
    sys.path.insert(0, tests_dir)
    saved_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        runpy.run_path(runner, run_name="__main__")
        outcome.exit_code = 0
    except SystemExit as e:
        outcome.exit_code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdout = saved_stdout
        undo()
        sys.argv, sys.path[:] = saved[0], saved[1]
        os.chdir(saved[2])
    if not outcome.tests:
        outcome.error = "no test ran (runtests.py exit code %s): check the test id (%s)" % (outcome.exit_code, ", ".join(labels))


def run_function(args, start, stop, outcome):
    """A test function called as sympy's ``bin/test`` calls it: ``FILE::test_name`` — the file
    imported as its module (``sympy/core/tests/test_x.py`` as ``sympy.core.tests.test_x``),
    the function called with no arguments; it passes when it returns."""
    target = args[0]
    path, _, name = target.partition("::")
    if not name or not os.path.isfile(path):
        outcome.error = "not FILE::FUNCTION, or no such file: %s" % target
        return
    rel = os.path.relpath(os.path.abspath(path), os.getcwd())
    module_name = rel[:-3].replace(os.sep, ".") if rel.endswith(".py") else rel.replace(os.sep, ".")
    entry = {"nodeid": target, "phase": "setup", "file": rel}
    try:
        import importlib
        module = importlib.import_module(module_name)
        fn = getattr(module, name)
    except BaseException as e:  # noqa: B902 - the target's failure is data
        outcome.error = "could not import %s: %s: %s" % (module_name, type_name(e), _safe_message(e) or "")
        return
    entry["phase"] = "call"
    start()
    try:
        fn()
        entry["outcome"] = "passed"
    except BaseException as e:  # noqa: B902
        stop()
        kind = type_name(e)
        # sympy's XFAIL and skip mark the outcome the way its runner reads it
        entry["outcome"] = "skipped" if kind.endswith(("Skipped", "XFail")) else "failed"
        entry["exc_type"] = kind
        msg = _safe_message(e)
        if msg is not None:
            entry["message"] = msg
        entry["line"] = _failing_line(e.__traceback__, rel)
    finally:
        stop()
    outcome.tests.append(entry)
    outcome.exit_code = 0 if entry["outcome"] == "passed" else 1


def _call(fn, *args):
    return fn(*args)


def _with_room(fn):
    """Run fn in a frame that reserves about a megabyte of the interpreter's
    frame stack (CPython 3.11+). Frames live in 16 KB chunks there, and a chunk
    is unmapped as soon as its first frame returns: a trace function called at
    a chunk's edge maps and unmaps one per event (measured: 189,000 pairs in
    one sympy test, a third of the run's time, and far worse with two runs in
    parallel). Inside this frame, the test's and the tracer's frames share one
    large chunk. A frame of N slots gets a chunk of the next power of two above
    N + 1000 slots, so N just over 128K slots leaves about 128K (1 MB) free."""
    if sys.version_info < (3, 11) or sys.implementation.name != "cpython":
        return fn()
    try:
        code = _call.__code__.replace(co_stacksize=(1 << 17) + 1000)
    except (TypeError, ValueError):
        return fn()
    roomy = type(_call)(code, _call.__globals__, "_with_room_frame")
    return roomy(fn)


def run_target(args, start, stop, mode="auto"):
    return _with_room(lambda: _run_target(args, start, stop, mode))


RUNNERS = ("auto", "pytest", "script", "unittest", "django", "function")


def _run_target(args, start, stop, mode):
    outcome = Outcome()
    script = mode == "script" or (mode == "auto" and looks_like_script(args))
    try:
        if mode == "unittest":
            run_unittest(args, start, stop, outcome)
        elif mode == "django":
            run_django(args, start, stop, outcome)
        elif mode == "function":
            run_function(args, start, stop, outcome)
        elif script:
            run_script(args, start, stop, outcome)
        else:
            run_pytest(args, start, stop, outcome)
    except Exception:  # a crash of the harness itself, not of the target
        stop()
        outcome.error = traceback.format_exc(limit=5)
    return outcome

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
                entry = {"nodeid": item.nodeid, "phase": call.when,
                         "file": os.path.relpath(str(item.path), os.getcwd())
                         if hasattr(item, "path") else None}
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
                    path = str(item.path) if hasattr(item, "path") else None
                    entry["line"] = _failing_line(call.excinfo.tb, path)
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


def _run_target(args, start, stop, mode):
    outcome = Outcome()
    script = mode == "script" or (mode == "auto" and looks_like_script(args))
    try:
        if script:
            run_script(args, start, stop, outcome)
        else:
            run_pytest(args, start, stop, outcome)
    except Exception:  # a crash of the harness itself, not of the target
        stop()
        outcome.error = traceback.format_exc(limit=5)
    return outcome

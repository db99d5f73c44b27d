"""``deltatrace eval``: stop at the N-th execution of FILE:LINE and evaluate expressions.

Timing ``before``: when the line is about to run. Timing ``after``: when it finished —
at the frame's next line, or at its return/exception, where ``__return__`` /
``__exception__`` are bound. Timing ``return``: when the call in which the line ran ends
(its return or exception, whatever lines run in between). A frame that ends with an exception has no return value:
evaluating ``__return__`` there raises that exception (the call "raises E"). Each expression is evaluated in a forked child process, so
its side effects cannot reach the next expression or the traced program (POSIX only).
"""

import json
import os
import select
import signal
import sys
import time

from .recorder import _exit_kind
from .serialize import Serializer, type_name
from .target import _safe_message

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def isolated_eval(expr, globals_, locals_, limits, timeout=10.0):
    if not hasattr(os, "fork"):
        return {"expr": expr, "error": {"type": "Unsupported",
                                        "message": "eval needs os.fork (POSIX)"}}
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(r)
            sys.settrace(None)
            try:
                value = eval(compile(expr, "<expr>", "eval"), globals_, locals_)
                res = {"expr": expr, "value": Serializer(limits).value(value)}
            except BaseException as e:  # the expression's failure is the answer
                err = {"type": type_name(e)}
                msg = _safe_message(e)
                if msg is not None:
                    err["message"] = msg
                res = {"expr": expr, "error": err}
            data = _dumps(res).encode("utf-8", "backslashreplace")
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    if timed_out:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.waitpid(pid, 0)
    if timed_out:
        return {"expr": expr, "error": {"type": "Timeout",
                                        "message": "did not finish in %gs" % timeout}}
    try:
        return json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        return {"expr": expr, "error": {"type": "Crashed", "message": "no result from the child"}}


class _Locals(dict):
    """A frame's locals for eval; ``__return__`` of a frame that raised raises that exception."""

    def __init__(self, values, raising):
        dict.__init__(self, values)
        self.raising = raising

    def __missing__(self, key):
        if key == "__return__" and self.raising is not None:
            raise self.raising
        raise KeyError(key)


class Evaluator:
    def __init__(self, registry, file, line, hit, timing, exprs, limits, expr_timeout=10.0):
        self.reg = registry
        self.file = file
        self.line = line
        self.hit = hit
        self.timing = timing
        self.exprs = exprs
        self.limits = limits
        self.expr_timeout = expr_timeout
        self.hits = 0
        self.armed = None  # frame waiting for its line to finish (timing after)
        self.exc = {}
        self.result = None
        self.function = None

    def evaluate(self, frame, extra, raising=None):
        local_ns = _Locals(frame.f_locals, raising)
        local_ns.update(extra)
        self.result = [isolated_eval(e, frame.f_globals, local_ns, self.limits, self.expr_timeout)
                       for e in self.exprs]
        self.armed = None
        sys.settrace(None)

    def global_trace(self, frame, event, arg):
        if self.result is not None:
            return None
        info = self.reg.info(frame.f_code)
        if info is None or info.rel != self.file:
            return None
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if self.result is not None:
            return None
        if self.armed is frame:
            if event == "line" and self.timing == "after":
                self.evaluate(frame, {})
                return None
            if event == "return":
                exc = self.exc.get(id(frame))
                if _exit_kind(frame, exc is not None, arg) == "exception":
                    self.evaluate(frame, {"__exception__": exc}, raising=exc)
                else:
                    self.evaluate(frame, {"__return__": arg})
                return None
        if event == "exception":
            self.exc[id(frame)] = arg[1]
        elif event == "line":
            # (an exception seen stays: a handler's line runs while it may still leave the frame)
            if frame.f_lineno == self.line:
                self.hits += 1
                if self.hits == self.hit:
                    info = self.reg.info(frame.f_code)
                    self.function = info.qualname if info else frame.f_code.co_name
                    if self.timing == "before":
                        self.evaluate(frame, {})
                        return None
                    self.armed = frame
        return self.local_trace

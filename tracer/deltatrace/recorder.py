"""The recorder: turns interpreter events into trace records.

Two backends feed one Recorder: ``sys.settrace`` (every version) and ``sys.monitoring``
(Python >= 3.12). Both decide once per code object whether it can ever be traced (the
CodeRegistry); with a focus, a frame is recorded only when its function is on a call path
to a focus function (found by the pre-pass) or it runs below a recorded focus frame.

Record kinds (one JSON object per line, ``t`` is the kind):
``call`` a frame starts or a generator resumes; ``line`` a line of a frame finished and
the listed locals changed; ``return`` (``kind`` return|yield) and ``exception`` a frame
ends; ``source`` a traced file's text (once per file); ``truncated`` a limit was hit.
"""

import dis
import json
import os
import re
import sys
import time

from .serialize import Serializer, type_name

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_YIELD_OPS = frozenset(op for op in ("YIELD_VALUE", "YIELD_FROM") if op in dis.opmap)
_YIELD_CODES = frozenset(dis.opmap[op] for op in _YIELD_OPS)
_MAX_SOURCE = 2 * 1024 * 1024
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


class Writer:
    """Line-oriented output with event and byte limits; never raises into the program."""

    def __init__(self, path, max_events, max_bytes, timeout):
        # a path, or an open file descriptor (int) the caller reads from as we write
        if isinstance(path, int):
            self.fh = os.fdopen(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n",
                                closefd=True)
        else:
            self.fh = open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n")
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.deadline = (time.monotonic() + timeout) if timeout else None
        self.events = 0
        self.bytes = 0
        self.truncated = None

    def raw(self, text):
        self.fh.write(text)
        self.fh.write("\n")
        self.bytes += len(text) + 1

    def record(self, obj):
        self.raw(_dumps(obj))

    def event(self, text):
        """Write one event line; returns False once a limit is hit (and records why)."""
        if self.truncated is not None:
            return False
        reason = None
        if self.max_events and self.events >= self.max_events:
            reason, limit = "max-events", self.max_events
        elif self.max_bytes and self.bytes + len(text) > self.max_bytes:
            reason, limit = "max-bytes", self.max_bytes
        elif self.deadline is not None and (self.events & 255) == 0 \
                and time.monotonic() > self.deadline:
            reason, limit = "timeout", None
        if reason is not None:
            self.truncated = reason
            self.record({"t": "truncated", "reason": reason, "limit": limit,
                         "events": self.events, "bytes": self.bytes})
            return False
        self.events += 1
        self.raw(text)
        return True

    def close(self):
        self.fh.close()


class FrameState:
    __slots__ = ("frame", "fid", "info", "line", "cache", "steps", "exc", "inside")

    def __init__(self, frame, fid, info, inside):
        self.frame = frame
        self.fid = fid
        self.info = info
        self.line = None  # line started but not finished
        self.cache = {}  # name -> encoded value last written
        self.steps = 0
        self.exc = None  # exception seen in this frame, not yet handled
        self.inside = inside


def exception_record(exc, limits):
    """Type, message and args of an exception; addresses in strings become 0x?."""
    out = {"type": type_name(exc)}
    try:
        args = BaseException.__getattribute__(exc, "args")
    except Exception:
        args = ()
    if type(args) is tuple:
        args = tuple(_ADDRESS.sub("0x?", a) if type(a) is str else a for a in args)
        if len(args) >= 1 and type(args[0]) is str:
            out["message"] = args[0][:2000]
    out["args"] = Serializer(limits).value(args)
    return out


class Recorder:
    def __init__(self, writer, registry, limits, snapshot_every=50, focus=None, on_path=None):
        self.w = writer
        self.reg = registry
        self.limits = limits
        self.k = snapshot_every
        self.focus = focus  # set of (file, qualname) or None
        self.on_path = on_path or set()
        self.frames = {}  # id(frame) -> FrameState
        self.next_fid = 1
        self.seq = 0
        self.sources = set()
        self.generators = {}  # id(frame) -> frame, for resume detection under settrace
        self.stopped = False

    # -- encoding -------------------------------------------------------------------
    def enc(self, value):
        return _dumps(Serializer(self.limits).value(value))

    def enc_locals(self, st, f_locals, only_changed):
        """Encode every local; update the cache; return 'name:value' JSON members."""
        parts = []
        cache = st.cache
        namespace = st.info.namespace
        for name, value in list(f_locals.items()):
            if type(name) is not str or name.startswith("@py_") or name == "__builtins__" or (
                    namespace and name.startswith("__") and name.endswith("__")):
                continue
            e = self.enc(value)
            if only_changed and cache.get(name) == e:
                continue
            cache[name] = e
            parts.append(_dumps(name) + ":" + e)
        return parts

    def emit(self, text):
        if not self.w.event(text):
            self.stop()
            return False
        return True

    def stop(self):
        self.stopped = True

    # -- frames -----------------------------------------------------------------------
    def parent_of(self, frame):
        f = frame.f_back
        frames = self.frames
        while f is not None:
            st = frames.get(id(f))
            if st is not None and st.frame is f:
                return st
            f = f.f_back
        return None

    def enter(self, frame, info, resume):
        if self.stopped:
            return None
        parent = self.parent_of(frame)
        inside = False
        if self.focus is not None:
            key = (info.rel, info.qualname)
            inside = key in self.focus or (parent is not None and parent.inside)
            if not inside and key not in self.on_path:
                return None
        fid = self.next_fid
        self.next_fid += 1
        st = FrameState(frame, fid, info, inside)
        self.frames[id(frame)] = st
        if info.rel not in self.sources:
            self.sources.add(info.rel)
            finfo = self.reg.file_info(frame.f_code.co_filename, info.rel)
            text = finfo.text
            rec = {"t": "source", "file": info.rel}
            if text is None:
                rec["missing"] = True
            elif len(text) > _MAX_SOURCE:
                rec["text"] = text[:_MAX_SOURCE]
                rec["truncated"] = True
            else:
                rec["text"] = text
            self.w.record(rec)
        self.seq += 1
        head = '{"t":"call","seq":%d,"fid":%d,"parent":%s,"fn":%s,"file":%s,"def":%d' % (
            self.seq, fid, parent.fid if parent is not None else "null", _dumps(info.qualname),
            _dumps(info.rel), info.def_line)
        if parent is not None and parent.line is not None:
            head += ',"call_line":%d' % parent.line
        if resume:
            head += ',"resume":true'
        body = self.enc_locals(st, frame.f_locals, False)
        if not self.emit(head + ',"locals":{' + ",".join(body) + "}}"):
            return None
        return st

    def finish_line(self, st, frame):
        line = st.line
        if line is None:
            return
        st.line = None
        st.steps += 1
        f_locals = frame.f_locals
        cache = st.cache
        parts = []
        deleted = []
        for name in st.info.line_names.get(line, ()):
            if name.startswith("@py_") or (
                    st.info.namespace and name.startswith("__") and name.endswith("__")):
                continue
            if name in f_locals:
                e = self.enc(f_locals[name])
                if cache.get(name) != e:
                    cache[name] = e
                    parts.append(_dumps(name) + ":" + e)
            elif name in cache:
                del cache[name]
                deleted.append(name)
        full = None
        if self.k and st.steps % self.k == 0:
            # Every K steps: catch changes made through aliases, and write a snapshot.
            parts.extend(self.enc_locals(st, f_locals, True))
            full = ",".join(_dumps(n) + ":" + e for n, e in cache.items())
        self.seq += 1
        text = '{"t":"line","seq":%d,"fid":%d,"line":%d,"ch":{%s}' % (
            self.seq, st.fid, line, ",".join(parts))
        if deleted:
            text += ',"del":' + _dumps(deleted)
        if full is not None:
            text += ',"full":{' + full + "}"
        self.emit(text + "}")

    def start_line(self, st, frame, line):
        st.exc = None
        self.finish_line(st, frame)
        st.line = line

    def leave(self, st, frame, kind, value):
        """kind: return | yield | exception. value: return value or exception."""
        self.finish_line(st, frame)
        self.frames.pop(id(frame), None)
        line = frame.f_lineno
        self.seq += 1
        locals_part = ",".join(self.enc_locals(st, frame.f_locals, False))
        if kind == "exception":
            text = '{"t":"exception","seq":%d,"fid":%d,"line":%s,"exc":%s,"locals":{%s}}' % (
                self.seq, st.fid, line if line is not None else "null",
                _dumps(exception_record(value, self.limits)), locals_part)
        else:
            text = '{"t":"return","seq":%d,"fid":%d,"line":%s,"kind":"%s","value":%s,"locals":{%s}}' % (
                self.seq, st.fid, line if line is not None else "null", kind,
                self.enc(value), locals_part)
        self.emit(text)

    # -- settrace backend ----------------------------------------------------------------
    def settrace_global(self, frame, event, arg):
        if self.stopped:
            return None
        info = self.reg.info(frame.f_code)
        if info is None:
            return None
        resume = False
        if info.kind == "generator":
            seen = self.generators.get(id(frame))
            resume = seen is not None and seen is frame
            self.generators[id(frame)] = frame
        st = self.enter(frame, info, resume)
        if st is None:
            return None
        return self.settrace_local

    def settrace_local(self, frame, event, arg):
        st = self.frames.get(id(frame))
        if st is None or st.frame is not frame or self.stopped:
            return None
        if event == "line":
            self.start_line(st, frame, frame.f_lineno)
        elif event == "return":
            if st.exc is not None:
                self.generators.pop(id(frame), None)
                self.leave(st, frame, "exception", st.exc)
            elif st.info.kind == "generator" and _is_yielding(frame):
                self.leave(st, frame, "yield", arg)
            else:
                self.generators.pop(id(frame), None)
                self.leave(st, frame, "return", arg)
        elif event == "exception":
            st.exc = arg[1] if arg[1] is not None else arg[0]
        return self.settrace_local

    def install_settrace(self):
        sys.settrace(self.settrace_global)

    def uninstall_settrace(self):
        sys.settrace(None)

    # -- sys.monitoring backend (3.12+) --------------------------------------------------------
    def install_monitoring(self):
        mon = sys.monitoring
        E = mon.events
        tool = mon.DEBUGGER_ID
        if mon.get_tool(tool) is not None:
            tool = mon.PROFILER_ID
        mon.use_tool_id(tool, "deltatrace")
        self.tool = tool
        self.local_enabled = set()
        DISABLE = mon.DISABLE
        frames = self.frames
        reg = self.reg
        getframe = sys._getframe

        def started(code, offset, resume):
            if self.stopped:
                return None
            info = reg.info(code)
            if info is None:
                return DISABLE
            frame = getframe(2)
            st = self.enter(frame, info, resume)
            if st is not None and id(code) not in self.local_enabled:
                self.local_enabled.add(id(code))
                mon.set_local_events(tool, code, E.LINE | E.PY_RETURN | E.PY_YIELD)
            return None

        def on_start(code, offset):
            return started(code, offset, False)

        def on_resume(code, offset):
            return started(code, offset, True)

        def on_throw(code, offset, exc):
            started(code, offset, True)

        def current(code):
            frame = getframe(2)
            st = frames.get(id(frame))
            if st is None or st.frame is not frame or frame.f_code is not code:
                return None, frame
            return st, frame

        def on_line(code, line):
            if self.stopped:
                return None
            st, frame = current(code)
            if st is not None:
                self.start_line(st, frame, line)
            return None

        def on_return(code, offset, value):
            st, frame = current(code)
            if st is not None:
                self.leave(st, frame, "return", value)

        def on_yield(code, offset, value):
            st, frame = current(code)
            if st is not None:
                self.leave(st, frame, "yield", value)

        def on_unwind(code, offset, exc):
            st, frame = current(code)
            if st is not None:
                self.leave(st, frame, "exception", exc)

        mon.register_callback(tool, E.PY_START, on_start)
        mon.register_callback(tool, E.PY_RESUME, on_resume)
        mon.register_callback(tool, E.PY_THROW, on_throw)
        mon.register_callback(tool, E.LINE, on_line)
        mon.register_callback(tool, E.PY_RETURN, on_return)
        mon.register_callback(tool, E.PY_YIELD, on_yield)
        mon.register_callback(tool, E.PY_UNWIND, on_unwind)
        # events are switched on by start_monitoring, around each test only

    def start_monitoring(self):
        E = sys.monitoring.events
        sys.monitoring.set_events(self.tool, E.PY_START | E.PY_RESUME | E.PY_THROW | E.PY_UNWIND)

    def stop_monitoring(self):
        sys.monitoring.set_events(self.tool, 0)

    def uninstall_monitoring(self):
        mon = sys.monitoring
        mon.set_events(self.tool, 0)
        for ev in (mon.events.PY_START, mon.events.PY_RESUME, mon.events.PY_THROW, mon.events.LINE,
                   mon.events.PY_RETURN, mon.events.PY_YIELD, mon.events.PY_UNWIND):
            mon.register_callback(self.tool, ev, None)
        mon.free_tool_id(self.tool)


def _is_yielding(frame):
    code = frame.f_code.co_code
    i = frame.f_lasti
    return 0 <= i < len(code) and code[i] in _YIELD_CODES

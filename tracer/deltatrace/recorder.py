"""The recorder: turns interpreter events into trace records.

Two backends feed one Recorder: ``sys.settrace`` (every version) and ``sys.monitoring``
(Python >= 3.12). Both decide once per code object whether it can ever be traced (the
CodeRegistry).

With a focus (the patch-modified functions), a frame is recorded when it runs a focus
function or runs below one, and the frames that called it — its path — are recorded from
the moment the focus function starts: when a focus function starts outside every focus
frame, its callers up the stack are attached (their line tracing switched on) right then.
Only the paths a run really takes are recorded, in one run, without a pre-pass.

What is recorded of each frame (``mode``):
``full`` every item with the values (the locals a line changed, a frame's locals at its
start, its result); ``skeleton`` control flow only: which lines ran in which frames and
which calls they made, no values (cheap: a few microseconds an event); ``plan`` values
where a plan says Algorithm 1 will compare them — per frame, the first k items (lines,
calls, its end) — and control flow elsewhere. The plan comes from walking two skeleton
runs (deltalens computes it), so the valued run serializes only what can decide the delta.
``budget`` values everywhere until the run has written a number of events, control flow
only from then on: a small run is traced with every value in one run, and a large one still
gives the control flow its plan is made from (the end record says which it was).

Record kinds (one JSON object per line, ``t`` is the kind):
``call`` a frame starts or a generator resumes (``locals`` when valued; ``lazy`` for a path
frame attached late); ``line`` a line of a frame finished (``ch`` the locals it changed, when
valued); ``return`` (``kind`` return|yield; ``value`` when valued) and ``exception`` a frame
ends; ``source`` a traced file's text (once per file); ``truncated`` a limit was hit.
"""

import dis
import json
import os
import re
import sys
import time

from .serialize import Serializer, aliased, type_name

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
        self.buf = []
        # the common case in one comparison each (0 means no limit)
        self.event_room = max_events or float("inf")
        self.byte_room = max_bytes or float("inf")

    def raw(self, text):
        buf = self.buf
        buf.append(text)
        self.bytes += len(text) + 1
        if len(buf) >= 512:
            self.flush()

    def flush(self):
        if self.buf:
            self.buf.append("")
            self.fh.write("\n".join(self.buf))
            self.buf = []

    def record(self, obj):
        self.raw(_dumps(obj))

    def line_event(self, text):
        """event() for the hot path (a control-flow line): the common case checked in place,
        the rest (a limit, the deadline every 256 events) through event()."""
        if self.truncated is None and self.events < self.event_room and \
                self.bytes + len(text) <= self.byte_room and (self.events & 255 or self.deadline is None):
            self.events += 1
            buf = self.buf
            buf.append(text)
            self.bytes += len(text) + 1
            if len(buf) >= 512:
                self.flush()
            return True
        return self.event(text)

    def event(self, text):
        """Write one event line; returns False once a limit is hit (and records why)."""
        if self.truncated is not None:
            return False
        events = self.events
        if events < self.event_room and self.bytes + len(text) <= self.byte_room and (
                events & 255 or self.deadline is None or time.monotonic() <= self.deadline):
            self.events = events + 1
            self.raw(text)
            return True
        return self.limit_hit(text)

    def limit_hit(self, text):
        reason = None
        if self.max_events and self.events >= self.max_events:
            reason, limit = "max-events", self.max_events
        elif self.max_bytes and self.bytes + len(text) > self.max_bytes:
            reason, limit = "max-bytes", self.max_bytes
        elif self.deadline is not None and time.monotonic() > self.deadline:
            reason, limit = "timeout", None
        if reason is None:  # pragma: no cover - event() only calls this past a limit
            self.events += 1
            self.raw(text)
            return True
        self.truncated = reason
        self.record({"t": "truncated", "reason": reason, "limit": limit,
                     "events": self.events, "bytes": self.bytes})
        return False

    def close(self):
        self.flush()
        self.fh.close()


class FrameState:
    __slots__ = ("frame", "fid", "info", "line", "cache", "steps", "exc", "inside", "items", "cut")

    def __init__(self, frame, fid, info, inside, cut):
        self.frame = frame
        self.fid = fid
        self.info = info
        self.line = None  # line started but not finished
        self.cache = {}  # name -> encoded value last written
        self.steps = 0
        self.exc = None  # exception seen in this frame, not yet handled
        self.inside = inside  # a focus frame or below one (not a path frame)
        self.items = 0  # items written so far (calls it made, lines it finished)
        self.cut = cut  # -1: every item valued; k > 0: the first k; 0: none

    def valued(self, index):
        c = self.cut
        return c == -1 or index < c


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
            out["message"] = aliased(args[0])[:2000]
    out["args"] = Serializer(limits).value(args)
    return out


class Recorder:
    def __init__(self, writer, registry, limits, snapshot_every=50, focus=None, mode="full", plan=None,
                 budget=0):
        self.w = writer
        self.reg = registry
        self.limits = limits
        self.k = snapshot_every
        self.focus = focus  # set of (file, qualname) or None
        self.focus_files = {f for f, _ in focus} if focus else set()
        self.mode = mode  # full | skeleton | plan | budget
        self.plan = plan or []  # plan mode: cut per fid (index = fid)
        self.budget = budget if mode == "budget" else 0  # budget mode: events written with values
        self.over_budget = False
        self.frames = {}  # id(frame) -> FrameState
        self.inside = 0  # focus frames (and frames below them) now on the stack
        self.next_fid = 1
        self.seq = 0
        self.sources = set()
        self.generators = {}  # id(frame) -> frame, for resume detection under settrace
        self.stopped = False
        self.attach = None  # backend: switch line events on for a frame attached late

    def cut_of(self, fid):
        if self.mode == "full":
            return -1
        if self.mode == "skeleton":
            return 0
        if self.mode == "budget":
            if self.w.events >= self.budget:
                self.spent()
                return 0
            return -1
        return self.plan[fid] if fid < len(self.plan) else 0

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

    def spent(self):
        """The budget is used up: control flow only from now on. A frame running now keeps the
        values of the items it wrote (its cut becomes their number, as a plan would say); a frame
        starting later gets none."""
        self.over_budget = True
        self.mode = "skeleton"
        for st in self.frames.values():
            if st.cut == -1:
                st.cut = st.items

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

    def wants(self, info):
        """Whether a frame starting now is recorded (and attaches its path when it is the first
        focus frame on the stack)."""
        if self.focus is None or self.inside:
            return True
        flag = info.focus
        if flag is None:
            flag = info.focus = self.is_focus(info)
        return flag

    def is_focus(self, info):
        """Decided once per code object; the qualified name is looked up only in focus files.
        ``FILE:*`` takes every function of the file."""
        return info.rel in self.focus_files and ((info.rel, "*") in self.focus or info.key in self.focus)

    def attach_path(self, frame):
        """A focus function starts outside every focus frame: its callers under the root, up to
        the nearest recorded one, are recorded from now on (outermost first)."""
        chain = []
        f = frame.f_back
        frames = self.frames
        while f is not None:
            st = frames.get(id(f))
            if st is not None and st.frame is f:
                break
            info = self.reg.info(f.f_code)
            if info is not None:
                chain.append((f, info))
            f = f.f_back
        for f, info in reversed(chain):
            st = self.enter(f, info, False, lazy=True)
            if st is None:
                return
            st.line = f.f_lineno  # the line now running: it made the call
            if self.attach is not None:
                self.attach(f)

    def enter(self, frame, info, resume, lazy=False):
        if self.stopped:
            return None
        parent = self.parent_of(frame)
        inside = self.focus is not None and not lazy
        fid = self.next_fid
        self.next_fid += 1
        st = FrameState(frame, fid, info, inside, self.cut_of(fid))
        self.frames[id(frame)] = st
        if inside:
            self.inside += 1
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
        if parent is not None:
            parent.items += 1  # the call is an item of its caller
        self.seq += 1
        head = '{"t":"call","seq":%d,"fid":%d,"parent":%s%s' % (
            self.seq, fid, parent.fid if parent is not None else "null", info.head)
        if parent is not None and parent.line is not None:
            head += ',"call_line":%d' % parent.line
        if resume:
            head += ',"resume":true'
        if lazy:
            head += ',"lazy":true'
        if st.cut != 0:
            body = self.enc_locals(st, frame.f_locals, False)
            ok = self.emit(head + ',"locals":{' + ",".join(body) + "}}")
        else:
            ok = self.emit(head + "}")
        if not ok:
            return None
        return st

    def finish_line(self, st, frame):
        line = st.line
        if line is None:
            return
        st.line = None
        index = st.items
        st.items += 1
        self.seq += 1
        if not st.valued(index):
            self.emit('{"t":"line","seq":%d,"fid":%d,"line":%d}' % (self.seq, st.fid, line))
            return
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
        text = '{"t":"line","seq":%d,"fid":%d,"line":%d,"ch":{%s}' % (
            self.seq, st.fid, line, ",".join(parts))
        if deleted:
            text += ',"del":' + _dumps(deleted)
        if full is not None:
            text += ',"full":{' + full + "}"
        self.emit(text + "}")
        if self.budget and not self.over_budget and self.w.events >= self.budget:
            self.spent()

    def start_line(self, st, frame, line):
        st.exc = None
        self.finish_line(st, frame)
        st.line = line

    def leave(self, st, frame, kind, value):
        """kind: return | yield | exception. value: return value or exception."""
        self.finish_line(st, frame)
        self.frames.pop(id(frame), None)
        if st.inside:
            self.inside -= 1
        line = frame.f_lineno
        self.seq += 1
        st.items += 1
        if st.cut == 0:
            # control flow only: how the frame ended, not with what
            if kind == "exception":
                text = '{"t":"exception","seq":%d,"fid":%d,"line":%s,"exc":{"type":%s}}' % (
                    self.seq, st.fid, line if line is not None else "null", _dumps(type_name(value)))
            else:
                text = '{"t":"return","seq":%d,"fid":%d,"line":%s,"kind":"%s"}' % (
                    self.seq, st.fid, line if line is not None else "null", kind)
            self.emit(text)
            return
        locals_part = ",".join(self.enc_locals(st, frame.f_locals, False)) if st.cut == -1 else ""
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
    # The hot path (every Python call, and every line of a recorded frame) is inlined into two
    # closures: fewer Python frames per event is faster, and on 3.11 each extra frame can cross
    # a data-stack chunk boundary (an mmap and munmap per event when the program sits there).
    def install_settrace(self):
        rec = self
        frames = self.frames
        frames_get = frames.get
        codes_get = self.reg.codes.get
        reg_info = self.reg.info
        generators = self.generators
        line_event = self.w.line_event
        focus = self.focus
        is_focus = self.is_focus

        def local(frame, event, arg):
            st = frames_get(id(frame))
            if st is None or st.frame is not frame or rec.stopped:
                return None
            if event == "line":
                line = st.line
                if line is not None:
                    index = st.items
                    cut = st.cut
                    if cut != -1 and index >= cut:
                        # control flow only (the writer inlined: the common case)
                        st.items = index + 1
                        seq = rec.seq + 1
                        rec.seq = seq
                        if not line_event('{"t":"line","seq":%d,"fid":%d,"line":%d}' % (seq, st.fid, line)):
                            rec.stopped = True
                    else:
                        rec.finish_line(st, frame)
                st.line = frame.f_lineno
            elif event == "return":
                how = _exit_kind(frame, st.exc is not None, arg)
                if how == "yield" and st.info.kind == "generator":
                    rec.leave(st, frame, "yield", arg)
                elif how == "exception":
                    generators.pop(id(frame), None)
                    rec.leave(st, frame, "exception", st.exc)
                else:
                    generators.pop(id(frame), None)
                    rec.leave(st, frame, "return", arg)
            elif event == "exception":
                st.exc = arg[1] if arg[1] is not None else arg[0]
            return local

        def call(frame, event, arg):
            # called for every Python call while tracing: the common answer (not recorded) is cheap
            code = frame.f_code
            hit = codes_get(id(code))
            info = hit[1] if hit is not None and hit[0] is code else reg_info(code)
            if info is None or rec.stopped:
                return None
            if focus is not None and not rec.inside:
                flag = info.focus
                if flag is None:
                    flag = info.focus = is_focus(info)
                if not flag:
                    return None
                rec.attach_path(frame)
            resume = False
            if info.kind == "generator":
                seen = generators.get(id(frame))
                resume = seen is not None and seen is frame
                generators[id(frame)] = frame
            st = rec.enter(frame, info, resume)
            if st is None:
                return None
            return local

        def attach(frame):
            if hasattr(frame, "f_trace_lines"):  # 3.7+; before, a frame's f_trace gets its lines
                frame.f_trace_lines = True
            frame.f_trace = local

        self.attach = attach
        sys.settrace(call)

    def uninstall_settrace(self):
        sys.settrace(None)

    # -- sys.monitoring backend (3.12+) --------------------------------------------------------
    # As in the settrace backend, the hot paths are inlined into the callbacks themselves: each
    # callback is called by the interpreter with the monitored frame one level up (no helper
    # between them), and a control-flow line is written without a method call. A code object
    # that is never traced (outside the project, a class body) is switched off where it starts
    # (DISABLE); so is one outside the focus while no focus frame runs, until the next focus
    # frame starts outside every other (restart_events switches every location on again). Line
    # events are switched on only for code objects with a recorded frame.
    def install_monitoring(self):
        mon = sys.monitoring
        E = mon.events
        tool = mon.DEBUGGER_ID
        if mon.get_tool(tool) is not None:
            tool = mon.PROFILER_ID
        mon.use_tool_id(tool, "deltatrace")
        self.tool = tool
        rec = self
        local_enabled = self.local_enabled = set()
        DISABLE = mon.DISABLE
        set_local_events = mon.set_local_events
        LOCAL = E.LINE | E.PY_RETURN | E.PY_YIELD
        frames_get = self.frames.get
        codes_get = self.reg.codes.get
        reg_info = self.reg.info
        focus = self.focus
        is_focus = self.is_focus
        getframe = sys._getframe
        line_event = self.w.line_event

        def enable(code):
            if id(code) not in local_enabled:
                local_enabled.add(id(code))
                set_local_events(tool, code, LOCAL)

        self.attach = lambda frame: enable(frame.f_code)

        def started(code, frame, resume):
            """A frame of `code` starts or resumes: recorded if the focus says so."""
            if rec.stopped:
                return None
            hit = codes_get(id(code))
            info = hit[1] if hit is not None and hit[0] is code else reg_info(code)
            if info is None:
                return DISABLE
            if focus is not None and not rec.inside:
                flag = info.focus
                if flag is None:
                    flag = info.focus = is_focus(info)
                if not flag:
                    # not now: switched off where it starts until a focus frame starts, which
                    # switches every location on again (it may then run inside that frame)
                    return DISABLE
                rec.attach_path(frame)
                mon.restart_events()
            if rec.enter(frame, info, resume) is not None:
                enable(code)
            return None

        def on_start(code, offset):
            # the common answers first, in this frame: a code object never traced, or one that
            # is not recorded now (outside every focus frame)
            hit = codes_get(id(code))
            if hit is not None and hit[0] is code:
                info = hit[1]
                if info is None:
                    return DISABLE
                if focus is not None and not rec.inside and info.focus is False:
                    return DISABLE  # until a focus frame starts (restart_events below)
            return started(code, getframe(1), False)

        def on_resume(code, offset):
            return started(code, getframe(1), True)

        def on_throw(code, offset, exc):
            started(code, getframe(1), True)

        def on_line(code, line):
            frame = getframe(1)
            st = frames_get(id(frame))
            if st is None or st.frame is not frame or rec.stopped:
                return None
            st.exc = None
            prev = st.line
            if prev is not None:
                index = st.items
                cut = st.cut
                if cut != -1 and index >= cut:
                    # control flow only (the writer inlined: the common case)
                    st.line = None
                    st.items = index + 1
                    seq = rec.seq + 1
                    rec.seq = seq
                    if not line_event('{"t":"line","seq":%d,"fid":%d,"line":%d}' % (seq, st.fid, prev)):
                        rec.stopped = True
                else:
                    rec.finish_line(st, frame)
            st.line = line
            return None

        def on_return(code, offset, value):
            frame = getframe(1)
            st = frames_get(id(frame))
            if st is not None and st.frame is frame:
                rec.leave(st, frame, "return", value)

        def on_yield(code, offset, value):
            frame = getframe(1)
            st = frames_get(id(frame))
            if st is not None and st.frame is frame:
                rec.leave(st, frame, "yield", value)

        def on_unwind(code, offset, exc):
            frame = getframe(1)
            st = frames_get(id(frame))
            if st is not None and st.frame is frame:
                rec.leave(st, frame, "exception", exc)

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


_RETURN_CODES = frozenset(dis.opmap[op] for op in ("RETURN_VALUE", "RETURN_CONST") if op in dis.opmap)
_RESUME = dis.opmap.get("RESUME")


def _exit_kind(frame, exception_seen, arg):
    """How a frame leaves under sys.settrace, whose 'return' event does not say: "return",
    "yield" or "exception". An exception that passed through the frame (its 'exception' event)
    may have been handled, or may be leaving it: the frame returns only from a return
    instruction (a handler's line events, `except AttributeError:` testing an UnboundLocalError,
    say, do not mean it was handled), and never with a value while unwinding."""
    code = frame.f_code.co_code
    i = frame.f_lasti
    op = code[i] if 0 <= i < len(code) else None
    if op in _YIELD_CODES or (op == _RESUME and i >= 2 and code[i - 2] in _YIELD_CODES):
        return "yield"
    if not exception_seen or op in _RETURN_CODES or arg is not None:
        return "return"
    return "exception"

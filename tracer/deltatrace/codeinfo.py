"""Facts about code objects, computed once per code object and cached.

- which files are traced (under the root, outside site-packages and deltatrace itself);
- a code object's qualified name (``Outer.method.<locals>.inner``): ``co_qualname`` from 3.11,
  the file's ``ast`` before (the same names), and its ``def`` line;
- per line, the local names the line's bytecode loads, stores or deletes — the only
  names a finished line can have rebound or (through a method call) mutated.
"""

import ast
import dis
import json
import os
import sys

COMPREHENSIONS = frozenset(("<listcomp>", "<dictcomp>", "<setcomp>"))
_NAME_OPS = ("FAST", "DEREF", "CLOSURE", "NAME")
_HERE = os.path.dirname(os.path.abspath(__file__))


def _excluded_dirs():
    dirs = {_HERE}
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        dirs.add(os.path.realpath(p))
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


class FileInfo:
    __slots__ = ("rel", "qualnames", "def_lines", "text", "raw", "lines")

    def __init__(self, rel, qualnames, def_lines, text):
        self.rel = rel
        self.qualnames = qualnames  # first line (decorator or def) -> qualname; None until asked
        self.def_lines = def_lines  # first line -> def line
        self.text = text
        self.raw = None
        self.lines = None


class CodeInfo:
    """What the recorder needs of a traced code object. Only `rel`, `kind` and `namespace` are
    known at once; the qualified name (from the file's ast) and the names each line touches
    (from dis) are worked out the first time a frame of the code is recorded — most code under
    the root runs in frames no focus ever reaches, and parsing it all cost more than tracing."""

    __slots__ = ("rel", "kind", "namespace", "focus", "_code", "_registry", "_qualname", "_def_line",
                 "_line_names", "_head")

    def __init__(self, rel, code, registry, kind, namespace):
        self.rel = rel
        self.kind = kind  # "function", "generator", "module"
        # module and class bodies: their dunder names are interpreter noise that differs
        # between Python versions, so they are not recorded
        self.namespace = namespace
        self.focus = None  # set by the recorder: whether it is a focus function
        self._code = code
        self._registry = registry
        self._qualname = None
        self._def_line = None
        self._line_names = None
        self._head = None

    def _names(self):
        code = self._code
        qual = getattr(code, "co_qualname", None)
        if qual is not None:
            # 3.11+: the interpreter's own qualified name (the ast's, without parsing the file);
            # the def line is the first line from co_firstlineno (a decorator) that starts a def
            self._qualname = qual
            self._def_line = self._registry.def_line(code, self.rel)
            return
        finfo = self._registry.file_info(code.co_filename, self.rel, names=True)
        key = (code.co_firstlineno, code.co_name)
        self._qualname = finfo.qualnames.get(key, code.co_name)
        self._def_line = finfo.def_lines.get(key, code.co_firstlineno)

    @property
    def qualname(self):
        if self._qualname is None:
            self._names()
        return self._qualname

    @property
    def def_line(self):
        if self._def_line is None:
            self._names()
        return self._def_line

    @property
    def key(self):
        return (self.rel, self.qualname)

    @property
    def line_names(self):
        if self._line_names is None:
            self._line_names = line_names(self._code)
        return self._line_names

    @property
    def head(self):
        """The constant part of its call records, JSON-encoded once."""
        if self._head is None:
            self._head = ',"fn":%s,"file":%s,"def":%d' % (
                json.dumps(self.qualname, ensure_ascii=False), json.dumps(self.rel, ensure_ascii=False),
                self.def_line)
        return self._head


def qualname_map(source):
    """Map each function/lambda's first line (def or first decorator) to its qualname."""
    tree = ast.parse(source)
    names = {}
    defs = {}

    def visit(node, prefix, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + child.name
                is_fn = not isinstance(child, ast.ClassDef)
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                for line in {first, child.lineno}:
                    names.setdefault((line, child.name), qual)
                    defs.setdefault((line, child.name), child.lineno)
                visit(child, qual + (".<locals>." if is_fn else "."), is_fn)
            elif isinstance(child, ast.Lambda):
                names.setdefault((child.lineno, "<lambda>"), prefix + "<lambda>")
                defs.setdefault((child.lineno, "<lambda>"), child.lineno)
                visit(child, prefix + "<lambda>.<locals>.", True)
            elif isinstance(child, ast.GeneratorExp):
                names.setdefault((child.lineno, "<genexpr>"), prefix + "<genexpr>")
                defs.setdefault((child.lineno, "<genexpr>"), child.lineno)
                visit(child, prefix, in_function)
            else:
                visit(child, prefix, in_function)

    visit(tree, "", False)
    return names, defs


def end_line(node):
    """A node's last line: ``end_lineno`` from 3.8, else the last line any node inside it is on."""
    end = getattr(node, "end_lineno", None)
    if end is not None:
        return end
    return max((getattr(n, "lineno", 0) or 0) for n in ast.walk(node))


def definitions(source):
    """Every def and class: (qualname, kind, first line incl. decorators, last line, def line),
    outermost first; qualnames as Python builds them (nested functions under `<locals>`).
    Raises SyntaxError / ValueError for a source that does not parse."""
    tree = ast.parse(source)
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + child.name
                is_class = isinstance(child, ast.ClassDef)
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                last = end_line(child)
                out.append((qual, "class" if is_class else "function", first, last, child.lineno))
                visit(child, qual + ("." if is_class else ".<locals>."))
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def scopes_of(source):
    """Every function and class with its qualname and line range (decorators included), outermost first."""
    return [{"qualname": q, "kind": k, "start": first, "end": last} for q, k, first, last, _ in definitions(source)]


def line_names(code):
    """{line: (names,)} for the local names each line's instructions touch."""
    out = {}
    line = None
    for ins in dis.get_instructions(code):
        ln = getattr(ins, "line_number", None)  # 3.13
        if ln is None:
            positions = getattr(ins, "positions", None)
            ln = positions.lineno if positions is not None and positions.lineno else None
        if ln is None and isinstance(ins.starts_line, int) and not isinstance(ins.starts_line, bool):
            ln = ins.starts_line
        if ln is not None:
            line = ln
        if line is None:
            continue
        op = ins.opname
        if not any(tag in op for tag in _NAME_OPS) or "GLOBAL" in op:
            continue
        val = ins.argval
        vals = val if isinstance(val, tuple) else (val,)
        bucket = out.setdefault(line, [])
        for v in vals:
            if isinstance(v, str) and v not in bucket:
                bucket.append(v)
    return {k: tuple(v) for k, v in out.items()}


class CodeRegistry:
    """Decides once per code object whether it is traced, and describes it."""

    def __init__(self, root, main_file=None):
        self.root = os.path.realpath(root)
        self.root_prefix = self.root.rstrip(os.sep) + os.sep
        self.excluded = _excluded_dirs()
        self.main_file = os.path.realpath(main_file) if main_file else None
        self.codes = {}
        self.files = {}
        self.path_cache = {}

    def rel_path(self, filename):
        cached = self.path_cache.get(filename)
        if cached is not None:
            return cached or None
        rel = ""
        if filename and not filename.startswith("<"):
            real = os.path.realpath(filename)
            if real.startswith(self.root_prefix) and not real.startswith(self.excluded) \
                    and "site-packages" not in real[len(self.root_prefix):].split(os.sep) \
                    and os.path.isfile(real):
                rel = real[len(self.root_prefix):].replace(os.sep, "/")
        self.path_cache[filename] = rel
        return rel or None

    def file_info(self, filename, rel, names=False):
        """The file's text; with `names`, also its qualified names from the ast (Python < 3.11,
        whose code objects have no co_qualname: parsing is the costly part, done only then)."""
        info = self.files.get(filename)
        if info is None:
            try:
                with open(filename, "rb") as fh:
                    raw = fh.read()
                text = raw.decode("utf-8", errors="replace")
            except OSError:
                raw, text = None, None
            info = FileInfo(rel, None, None, text)
            info.raw = raw
            self.files[filename] = info
        if names and info.qualnames is None:
            try:
                info.qualnames, info.def_lines = qualname_map(info.raw) if info.raw is not None else ({}, {})
            except (SyntaxError, ValueError):
                info.qualnames, info.def_lines = {}, {}
        return info

    def def_line(self, code, rel):
        first = code.co_firstlineno
        if code.co_name.startswith("<"):
            return first
        info = self.file_info(code.co_filename, rel)
        if info.lines is None:
            info.lines = info.text.split("\n") if info.text is not None else []
        lines = info.lines
        # a decorated function's code starts at its first decorator; the def follows them
        for n in range(first, min(first + 100, len(lines)) + 1):
            if lines[n - 1].lstrip().startswith(("def ", "async def ")):
                return n
        return first

    def info(self, code):
        """CodeInfo, or None when the code object is not traced."""
        hit = self.codes.get(id(code))
        if hit is not None and hit[0] is code:
            return hit[1]
        result = None
        name = code.co_name
        rel = self.rel_path(code.co_filename)
        if rel is not None and name not in COMPREHENSIONS:
            if name == "<module>" and os.path.realpath(code.co_filename) != self.main_file:
                rel = None
        if rel is not None and name != "<module>" and not code.co_flags & 0x1:
            rel = None  # a class body: definition-time code, not behaviour
        if rel is not None and name not in COMPREHENSIONS:
            flags = code.co_flags
            kind = "module" if name == "<module>" else (
                "generator" if flags & (0x20 | 0x80 | 0x200) else "function")
            result = CodeInfo(rel, code, self, kind,
                              not (flags & 0x1))  # CO_OPTIMIZED is unset for module/class bodies
        # Keyed by id (code objects compare by content, not file); the entry keeps the
        # code object alive so its id is never reused for another one.
        self.codes[id(code)] = (code, result)
        return result

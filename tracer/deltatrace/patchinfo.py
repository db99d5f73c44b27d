"""What a patch changed beyond which functions it touched (ast and tokenize only; no code runs).

- ``docstrings``: the docstrings the patch edited (module, class, function), with both texts.
  A value that differs only because a docstring was edited (a ``__doc__`` and the copies a
  decorator or a dispatcher keeps of it) is not behaviour: the tracer tags such strings so the
  delta can pass over them.
- ``renames``: locals a patch renamed in a function it changed on both sides (``vertices`` to
  ``uncovered_nodes``), found by aligning the two versions' tokens with every bound name
  abstracted; a rename alone is then no delta.
- ``module_names``: names bound at module or class level on lines the patch touched (a constant,
  a table, a class attribute, an import), and ``readers``: the functions that read them, so
  that they join the tracer's focus.

Everything here must run on Python 3.6 as well (no ``end_lineno`` before 3.8).
"""

import ast
import difflib
import io
import keyword
import re
import tokenize

from .codeinfo import end_line

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _scopes(tree):
    """(qualname, node) for the module ('<module>'), every class and every function."""
    out = [("<module>", tree)]

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                qual = prefix + child.name
                out.append((qual, child))
                visit(child, qual + ("." if isinstance(child, ast.ClassDef) else ".<locals>."))
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def docstrings(tree):
    """{qualname: the docstring as written (not cleaned)} for every scope that has one."""
    out = {}
    for qual, node in _scopes(tree):
        try:
            doc = ast.get_docstring(node, clean=False)
        except TypeError:
            doc = None
        if isinstance(doc, str):
            out[qual] = doc
    return out


def changed_docstrings(tree_b, tree_p):
    """[{qualname, buggy, patched}] for scopes on both sides whose docstrings differ (a side
    without a docstring has None)."""
    if tree_b is None or tree_p is None:
        return []
    db, dp = docstrings(tree_b), docstrings(tree_p)
    scopes_b = {q for q, _ in _scopes(tree_b)}
    scopes_p = {q for q, _ in _scopes(tree_p)}
    out = []
    for qual in sorted((set(db) | set(dp)) & scopes_b & scopes_p):
        if db.get(qual) != dp.get(qual):
            out.append({"qualname": qual, "buggy": db.get(qual), "patched": dp.get(qual)})
    return out


# -- renames -------------------------------------------------------------------------------


def bound_names(node):
    """Names a function binds (its arguments, assignments, loop and with targets, nested defs,
    imports, except names) in itself and the functions nested in it."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, _DEFS) and n is not node:
            names.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and isinstance(n.name, str):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                names.add((a.asname or a.name).split(".")[0])
    for n in ast.walk(node):  # declared global or nonlocal: not the function's own
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            names.difference_update(n.names)
    return names


def _tokens(lines, first, last):
    """The significant tokens of lines first..last (1-based): (type, text), comments and
    blank-line tokens left out."""
    text = "".join(lines[first - 1:last])
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok[0] in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER):
                continue
            out.append((tok[0], tok[1]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def renames(lines_b, lines_p, node_b, node_p):
    """{buggy name: patched name} for the locals of one function that the patch only renamed:
    with every bound name abstracted the two token streams align, and at every aligned place
    the buggy name stands against the same patched name (and neither name is a local of the
    other version)."""
    locals_b, locals_p = bound_names(node_b), bound_names(node_p)
    tb = _tokens(lines_b, first_line(node_b), end_line(node_b))
    tp = _tokens(lines_p, first_line(node_p), end_line(node_p))
    if not tb or not tp:
        return {}

    def shape(toks, bound):
        return [("NAME", "") if t == tokenize.NAME and s in bound and not keyword.iskeyword(s) else (t, s)
                for t, s in toks]

    sm = difflib.SequenceMatcher(None, shape(tb, locals_b), shape(tp, locals_p), autojunk=False)
    pairs = {}
    for i, j, n in sm.get_matching_blocks():
        for k in range(n):
            (kb, nb), (kp, np_) = tb[i + k], tp[j + k]
            if kb != tokenize.NAME or nb not in locals_b or np_ not in locals_p:
                continue
            pairs.setdefault(nb, set()).add(np_)
    out = {}
    taken = {}
    for b, ps in pairs.items():
        if len(ps) != 1:
            continue
        p = next(iter(ps))
        if b == p or b in locals_p or p in locals_b:
            continue
        if p in taken:  # two buggy names onto one patched name: not a rename
            out.pop(taken[p], None)
            continue
        taken[p] = b
        out[b] = p
    return out


# -- module-level changes and their readers --------------------------------------------------


def _target_names(node):
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.append(n.id)
    return out


def _statement_names(stmt):
    """Names a module- or class-level statement binds."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Delete)) or type(stmt).__name__ == "AnnAssign":
        targets = stmt.targets if isinstance(stmt, (ast.Assign, ast.Delete)) else [stmt.target]
        names = []
        for t in targets:
            names.extend(_target_names(t))
        return names
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    if isinstance(stmt, _DEFS):
        return [stmt.name]
    if isinstance(stmt, (ast.For, ast.With, ast.If, ast.Try, ast.While)) or type(stmt).__name__ in ("AsyncFor", "AsyncWith"):
        names = []
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.append(n.id)
            elif isinstance(n, _DEFS):
                names.append(n.name)
        return names
    return []


def module_names(tree, touched):
    """[(scope, name)] bound by module- or class-level statements that cover a touched line,
    outside every function: scope '' for the module, the class qualname for a class body."""
    touched = set(touched)
    if not touched or tree is None:
        return []
    out = []

    def visit(body, scope):
        for stmt in body:
            first, last = first_line(stmt) if isinstance(stmt, _DEFS) else stmt.lineno, end_line(stmt)
            if isinstance(stmt, _FUNCS):
                # a decorator or the def line itself: the function is in the focus already
                continue
            if isinstance(stmt, ast.ClassDef):
                visit(stmt.body, (scope + "." if scope else "") + stmt.name)
                if any(first <= line < stmt.body[0].lineno for line in touched):
                    out.append((scope, stmt.name))  # its bases or decorators
                continue
            if any(first <= line <= last for line in touched):
                for name in _statement_names(stmt):
                    out.append((scope, name))

    visit(tree.body, "")
    seen = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def derived_names(tree, names):
    """[(name, from)] module-level names whose statements read a changed module-level name
    (``char_morse = {v: k for k, v in morse_char.items()}``), to a fixed point."""
    if tree is None:
        return []
    changed = {n for scope, n in names if scope == ""}
    out = []
    grew = True
    while grew:
        grew = False
        for stmt in tree.body:
            if isinstance(stmt, _DEFS):
                continue
            bound = [n for n in _statement_names(stmt) if n not in changed]
            if not bound:
                continue
            read = next((n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Load) and n.id in changed), None)
            if read is None:
                continue
            for name in bound:
                changed.add(name)
                out.append((name, read))
                grew = True
    return out


def _copied_to_attributes(node, names):
    """Attributes a function sets from an expression that reads one of ``names``
    (``self.known_functions = dict(known_functions)``): {attribute: the name it copies}."""
    out = {}
    for n in ast.walk(node):
        if not isinstance(n, ast.Assign):
            continue
        read = next((x.id for x in ast.walk(n.value) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load)
                     and x.id in names), None)
        if read is None:
            continue
        for t in n.targets:
            if isinstance(t, ast.Attribute):
                out[t.attr] = read
    return out


def readers(tree, names):
    """(qualname, what it reads) for the functions of a module that read any of ``names``: a
    module-level name as a name (not shadowed by a local of the function), a class-level one as
    an attribute (``self.x``, ``cls.x``, ``C.x``); and, one step on, the functions that read an
    attribute a reader set from a changed name (``self.known_functions``)."""
    module_level = {n for scope, n in names if scope == ""}
    attrs = {n: n for scope, n in names if scope != ""}
    functions = [(q, node) for q, node in _scopes(tree) if isinstance(node, _FUNCS)]
    out = []

    def scan(attrs):
        found = []
        for qual, node in functions:
            own = bound_names(node)
            hit = None
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in module_level and n.id not in own:
                    hit = n.id
                    break
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr in attrs:
                    hit = attrs[n.attr] if attrs[n.attr] == n.attr else "%s (through .%s)" % (attrs[n.attr], n.attr)
                    break
            if hit is not None:
                found.append((qual, hit, node))
        return found

    first = scan(attrs)
    out.extend((q, h) for q, h, _ in first)
    copied = {}
    for _, _, node in first:
        for attr, name in _copied_to_attributes(node, module_level | set(attrs)).items():
            if attr not in attrs:
                copied[attr] = name
    if copied:
        module_level_saved = set(module_level)
        module_level.clear()  # the second pass looks for the attributes only
        seen = {q for q, _ in out}
        for q, h, _ in scan(copied):
            if q not in seen:
                out.append((q, h))
        module_level.update(module_level_saved)
    return out


def _imports(tree, rel):
    """{local name: dotted module or module.attribute} from a module's imports; relative
    imports resolved against the module's own package (``rel`` is its path)."""
    package = rel.replace("\\", "/").rsplit("/", 1)[0].replace("/", ".") if "/" in rel else ""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(p for p in parts + ([node.module] if node.module else []) if p)
            for a in node.names:
                out[a.asname or a.name] = "%s.%s" % (base, a.name) if base else a.name
    return out


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return inner + "." + node.attr if inner else None
    return None


def base_classes(tree, rel, class_qualname):
    """The bases of a class as dotted names resolved through the module's imports
    (``validators.RegexValidator`` with ``from django.core import validators`` is
    ``django.core.validators.RegexValidator``); a base defined in the same module stays
    unqualified."""
    node = dict(_scopes(tree)).get(class_qualname)
    if not isinstance(node, ast.ClassDef):
        return []
    imports = _imports(tree, rel)
    local = {q for q, n in _scopes(tree) if isinstance(n, ast.ClassDef)}
    out = []
    for b in node.bases:
        name = _dotted(b)
        if not name:
            continue
        head, _, rest = name.partition(".")
        if name in local:
            out.append(("", name))
        elif head in imports:
            full = imports[head] + ("." + rest if rest else "")
            module, _, cls = full.rpartition(".")
            out.append((module, cls))
    return out


def module_file(module, exists):
    """The file of a dotted module in the tree (``exists(rel)`` says whether a file is there)."""
    path = module.replace(".", "/")
    for rel in (path + ".py", path + "/__init__.py"):
        if exists(rel):
            return rel
    return None


def class_readers(tree, class_qualname, attr):
    """Methods of a class (in this module) that read ``attr`` through an attribute."""
    out = []
    prefix = class_qualname + "."
    for qual, node in _scopes(tree):
        if not isinstance(node, _FUNCS) or not qual.startswith(prefix):
            continue
        if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr == attr for n in ast.walk(node)):
            out.append(qual)
    return out


def word_in(text, name):
    return re.search(r"(?<![\w.])%s\b" % re.escape(name), text) is not None

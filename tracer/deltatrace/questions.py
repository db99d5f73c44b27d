"""Pieces of question construction that need Python's own parser (ExplainBench §5.2).

Nothing here runs the code it reads: the test file is parsed with ``ast``, expressions are
rewritten with ``ast`` and printed with ``ast.unparse`` (Python 3.9+).

``expected``: the expected-behaviour expression of a test function — the expression on a line
marked ``# [[EXPECTED]]`` (the value of an assignment, or the expected side of an assert),
else the expected side of the function's last asserted comparison (the side that calls
nothing; the right side when both or neither do). Its place is given as code-point offsets
into the file's text, with the function's source and the source masked as ``[[MASKED]]``.

``mutants``: offline distractor candidates for an expression — operators swapped, constants
changed, comparisons flipped, negation added or removed, operands swapped, names replaced by
neighbouring names in scope — each with how it was made. Some are equal in value to the
original on purpose (``5400`` → ``5400.0``): validation by running the test must drop them.
"""

import ast
import re
import copy
import difflib
import io
import tokenize

MARK = "[[EXPECTED]]"
MASK = "[[MASKED]]"


class NotFound(Exception):
    pass


def _find_function(tree, path):
    """``path`` is the pytest node id's part after the file: ``test_x`` or ``TestC::test_x``
    (a parametrization ``[...]`` is dropped)."""
    names = [p.split("[", 1)[0] for p in path.split("::") if p]
    body = tree.body
    node = None
    for name in names:
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name), None)
        if node is None:
            raise NotFound("no function %s in the test file" % "::".join(names))
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise NotFound("%s is not a test function" % "::".join(names))
    return node


def _marked_lines(text):
    lines = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and MARK in tok.string:
                lines.add(tok.start[0])
    except (tokenize.TokenError, IndentationError):
        pass
    return lines


def _calls(node):
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


# comparisons with an expected side (``x == 5``, ``y is None``); a membership or an ordering
# (``0 in roots``, ``n > 2``) is expected as a whole, as ExplainBench masks it
_SIDED = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)


def _sided(test):
    return isinstance(test, ast.Compare) and len(test.comparators) == 1 and isinstance(test.ops[0], _SIDED)


def _expected_side(test):
    """The expected side of an assert's test: an equality's side that calls nothing; else the
    whole condition."""
    if _sided(test):
        left, right = test.left, test.comparators[0]
        if _calls(right) and not _calls(left):
            return left
        return right
    return test


_EXCEPTION_NAME = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Failure", "Invalid", "Exc")


def _name_of(func):
    """The called name: ``raises`` for ``raises(...)``, ``pytest.raises(...)``, ``self.raises``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _looks_like_exception(node):
    """An exception class as a test names it: ``ValueError``, ``errors.BadInput``, a tuple of them."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_looks_like_exception(e) for e in node.elts)
    name = _name_of(node)
    return bool(name) and name[:1].isupper() and name.endswith(_EXCEPTION_NAME)


def _raises_call(node):
    """A raises-like call, by its name and shape: a name that says so (``raises``,
    ``assertRaises``, ``assertRaisesMessage``, ``assert_raises``, ``pytest.raises``) whose first
    argument is an exception class, taking a callable or used as a ``with`` block."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    name = _name_of(node.func) or ""
    return "raise" in name.lower() and _looks_like_exception(node.args[0])


# a two-argument assertion call whose name says equality (assertEqual, assert_equal,
# numpy.testing's assert_array_equal, assert_allclose, assertAlmostEqual, assertListEqual, ...)
_EQUALITY_WORDS = ("equal", "allclose", "close", "same", "almost")


def _assertion_call(node):
    """(name, expected node) of an assertion call, found by its name and arguments: an equality
    (``assertEqual(a, b)``, ``assert_equal``, ``np.testing.assert_allclose``) gives the side that
    calls nothing; a truth assertion (``assertTrue(x)``, ``assertIsNone``) its argument."""
    if not isinstance(node, ast.Call):
        return None
    name = _name_of(node.func) or ""
    low = name.lower()
    if not low.startswith("assert") or "raise" in low or "warn" in low:
        return None
    if any(w in low for w in _EQUALITY_WORDS) and len(node.args) >= 2:
        first, second = node.args[0], node.args[1]
        return name, (first if _calls(second) and not _calls(first) else second)
    if node.args:
        return name, node.args[0]
    return None


def _raised(fn):
    """The exception a test expects: a raises-like call (``pytest.raises(E)``,
    ``self.assertRaises(E, f)``, sympy's ``raises(E, lambda: ...)``, a with statement or a call),
    or the type of an ``except E:`` that ends the test well. (node, how it was read)."""
    for node in ast.walk(fn):
        if _raises_call(node):
            return node.args[0], "the exception of %s(...)" % _name_of(node.func)
    for node in ast.walk(fn):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            return node.type, "the exception of an except clause"
    return None, None


def _raises_assertion(stmt):
    """``if COND: raise AssertionError(...)`` (the if's body ends with that raise; a message may
    be made before it)."""
    if not isinstance(stmt, ast.If) or not stmt.body or not isinstance(stmt.body[-1], ast.Raise) or stmt.body[-1].exc is None:
        return False
    exc = stmt.body[-1].exc
    name = _name_of(exc.func if isinstance(exc, ast.Call) else exc) or ""
    return name == "AssertionError"


def _helpers_called(tree, fn):
    """The module-level functions (not tests) a test calls by name, in the order it calls them."""
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("test")}
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defs and defs[node.func.id] not in out:
            out.append(defs[node.func.id])
    return sorted(out, key=lambda d: d.lineno)


def _statements(fn):
    for node in ast.walk(fn):
        if isinstance(node, ast.stmt) and node is not fn:
            yield node


def _expected_node(fn, marked):
    """(node, marked, how it was read)."""
    if marked:
        for stmt in _statements(fn):
            if stmt.lineno in marked or getattr(stmt, "end_lineno", stmt.lineno) in marked:
                if isinstance(stmt, ast.Assert):
                    return _expected_side(stmt.test), True, "the line marked %s" % MARK
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                    return stmt.value, True, "the line marked %s" % MARK
                if isinstance(stmt, ast.Expr):
                    call = _assertion_call(stmt.value)
                    if call is not None:
                        return call[1], True, "the line marked %s (%s)" % (MARK, call[0])
                    return stmt.value, True, "the line marked %s" % MARK
        raise NotFound("a line is marked %s but holds no assert, assignment or expression" % MARK)
    # every assertion of the test, in source order: assert statements and assertion calls
    found = []
    for stmt in _statements(fn):
        if isinstance(stmt, ast.Assert):
            compare = _sided(stmt.test)
            found.append((stmt.lineno, compare, _expected_side(stmt.test),
                          "the expected side of the assert's comparison" if compare else "the assert's condition"))
        elif _raises_assertion(stmt):
            # if COND: raise AssertionError(...) — an assert written out, as generated tests do
            found.append((stmt.lineno, False, stmt.test, "the condition of an if that raises AssertionError"))
        elif isinstance(stmt, ast.Expr):
            call = _assertion_call(stmt.value)
            if call is not None:
                equality = any(w in call[0].lower() for w in _EQUALITY_WORDS)
                found.append((stmt.lineno, equality, call[1],
                              "the expected side of %s(...)" % call[0] if equality else "the argument of %s(...)" % call[0]))
    found.sort(key=lambda f: f[0])
    raised, how = _raised(fn)
    if not found and raised is not None:
        return raised, False, how
    comparisons = [f for f in found if f[1]]
    chosen = comparisons[-1] if comparisons else (found[-1] if found else None)
    if chosen is None:
        raise NotFound("the test function asserts nothing and expects no exception (no assert, no assertion "
                       "call such as assertEqual or assert_equal, no raises-like call): mark the expected "
                       "expression with # %s" % MARK)
    return _through_expected_name(fn, chosen[2], chosen[3])


_EXPECTED_NAME = re.compile(r"^(expected|expect|exp|want|wanted|truth|correct|reference|ref)(_\w+)?$", re.IGNORECASE)


def _through_expected_name(fn, node, how):
    """Where the assertion compares with a name that says it holds the expected value
    (``expected = 4 * A`` … ``result.equals(expected)``), assigned once in the test: the value
    assigned is the expected expression, as ExplainBench masks it."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and _EXPECTED_NAME.match(n.id)}
    if len(names) != 1:
        return node, False, how
    name = names.pop()
    assigns = [s for s in _statements(fn) if isinstance(s, ast.Assign) and len(s.targets) == 1
               and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    if len(assigns) != 1:
        return node, False, how
    return assigns[0].value, False, "the value assigned to %s, which the assertion uses (%s)" % (name, how)


def _offsets(text):
    """Code-point offset of each line's start (1-based line numbers)."""
    starts = [0, 0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _char_col(line_text, byte_col):
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def expected(text, function):
    tree = ast.parse(text)
    fn = _find_function(tree, function)
    owner = fn
    try:
        node, marked, how = _expected_node(fn, {l for l in _marked_lines(text) if fn.lineno <= l <= fn.end_lineno})
    except NotFound as nothing:
        # a test that leaves its checks to a helper of the file (check_signature(src, ...)): the
        # helper's last assertion; the context is then the helper and the test together
        for helper in _helpers_called(tree, fn):
            try:
                node, marked, how = _expected_node(helper, set())
            except NotFound:
                continue
            owner = helper
            how = "%s in %s, which the test calls" % (how, helper.name)
            break
        else:
            raise nothing
    lines = text.splitlines(keepends=True)
    starts = _offsets(text)
    start = starts[node.lineno] + _char_col(lines[node.lineno - 1], node.col_offset)
    end = starts[node.end_lineno] + _char_col(lines[node.end_lineno - 1], node.end_col_offset)
    first = min(fn, owner, key=lambda d: d.lineno)
    last = max(fn, owner, key=lambda d: d.end_lineno)
    first_line = first.lineno if not first.decorator_list else first.decorator_list[0].lineno
    fstart = starts[first_line]
    fend = starts[last.end_lineno + 1] if last.end_lineno + 1 < len(starts) else len(text)
    source = text[fstart:fend]
    masked = text[fstart:start] + MASK + text[end:fend]
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names})
    return {"expr": text[start:end], "start": start, "end": end, "line": node.lineno, "marked": marked, "form": how,
            "function_line": fn.lineno, "first_line": first_line, "source": source, "masked": masked, "names": names}


# -- mutations ---------------------------------------------------------------------------

_SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
             ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
_FLIP_CMP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
             ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _constant_variants(value):
    if isinstance(value, bool):
        return [(not value, "negated constant")]
    if isinstance(value, int):
        out = [(value + 1, "constant + 1"), (value - 1, "constant - 1"), (-value, "negated constant"), (value * 2, "constant × 2")]
        if value != 0:
            out.append((0, "constant → 0"))
        if abs(value) > 1:
            out.append((value // 2, "constant ÷ 2"))
        out.append((float(value), "same value as a float (validation must drop it)"))
        return out
    if isinstance(value, float):
        return [(value * 2, "constant × 2"), (value / 2, "constant ÷ 2"), (-value, "negated constant"), (float(round(value) + 1), "rounded + 1")]
    if isinstance(value, str):
        out = [("", "empty string")] if value else [(" ", "a space")]
        if value:
            out += [(value[:-1], "last character dropped"), (value + value[-1], "last character doubled"), (value.upper() if value != value.upper() else value.lower(), "case changed")]
        return out
    if value is None:
        return [(0, "None → 0"), (False, "None → False")]
    return []


def _mutations(tree, names):
    """(new tree, how) for each single change of the expression ``tree`` (an ast.Expression)."""
    nodes = list(ast.walk(tree))
    for i, node in enumerate(nodes):
        def variant(change, how):
            new = copy.deepcopy(tree)
            target = list(ast.walk(new))[i]
            change(target)
            return new, how

        if isinstance(node, ast.Constant):
            for value, how in _constant_variants(node.value):
                yield variant(lambda t, v=value: setattr(t, "value", v), how)
        elif isinstance(node, ast.BinOp):
            swap = _SWAP_BIN.get(type(node.op))
            if swap:
                yield variant(lambda t, s=swap: setattr(t, "op", s()), "operator %s → %s" % (type(node.op).__name__, swap.__name__))
            if not isinstance(node.op, (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr)):
                yield variant(_swap, "operands swapped")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            flip = _FLIP_CMP.get(type(node.ops[0]))
            if flip:
                yield variant(lambda t, f=flip: setattr(t, "ops", [f()]), "comparison %s → %s" % (type(node.ops[0]).__name__, flip.__name__))
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            yield variant(lambda t, o=other: setattr(t, "op", o()), "and ↔ or")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            # the names in scope most like it (difflib's ratio), the same first letter first
            pool = [o for o in names if o != node.id and o not in ("True", "False", "None")]
            near = sorted(pool, key=lambda o: (o[:1] != node.id[:1], -difflib.SequenceMatcher(None, o, node.id).ratio(), o))[:4]
            for other in near:
                yield variant(lambda t, o=other: setattr(t, "id", o), "name %s → neighbouring name %s" % (node.id, other))
    body = tree.body
    if isinstance(body, ast.UnaryOp) and isinstance(body.op, (ast.Not, ast.USub)):
        yield ast.Expression(body=copy.deepcopy(body.operand)), "negation removed"
    elif isinstance(body, (ast.Compare, ast.BoolOp)) or (isinstance(body, ast.Constant) and isinstance(body.value, bool)):
        yield ast.Expression(body=ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(body))), "negated"
    elif isinstance(body, (ast.Constant, ast.Name, ast.Attribute, ast.Call, ast.BinOp)) and not isinstance(getattr(body, "value", None), str):
        yield ast.Expression(body=ast.UnaryOp(op=ast.USub(), operand=copy.deepcopy(body))), "negated"


_EXCEPTIONS = ("ValueError", "TypeError", "KeyError", "RuntimeError", "IndexError", "AttributeError", "RecursionError", "Exception")


def _swap(t):
    t.left, t.right = t.right, t.left


def mutants(expr, names=(), limit=24):
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise NotFound("not a Python expression: %s" % e.msg)
    original = ast.unparse(tree)
    seen = {original}
    out = []
    last = original.rsplit(".", 1)[-1]
    exception = isinstance(tree.body, (ast.Name, ast.Attribute)) and last.endswith(("Error", "Exception", "Warning"))
    if exception:
        # an exception class (pytest.raises(E)): other exceptions, and their common bases —
        # a base the expected one derives from is also correct, and validation drops it
        for other in _EXCEPTIONS:
            if other != last and other not in seen:
                seen.add(other)
                out.append({"text": other, "how": "another exception class" if other not in ("Exception", "BaseException") else "a base class of most exceptions (validation decides)"})
    for new, how in _mutations(tree, sorted(set(names))):
        if exception and how == "negated":
            continue  # -SomeError is no exception class
        try:
            text = ast.unparse(ast.fix_missing_locations(new))
        except Exception:  # an impossible tree: skip it
            continue
        if text in seen:
            continue
        seen.add(text)
        out.append({"text": text, "how": how})
        if len(out) >= limit:
            break
    return out


_SUB_KINDS = (
    (ast.Call, "a call on the line"),
    (ast.Compare, "a comparison on the line"),
    (ast.Attribute, "an attribute read on the line"),
    (ast.BinOp, "an arithmetic expression on the line"),
    (ast.BoolOp, "a boolean expression on the line"),
    (ast.Subscript, "a subscript on the line"),
)


def subexpressions(text, lines, limit=24):
    """Candidate expressions from the statements on ``lines`` of a file (the delta's line, the
    lines a fix changed): their calls, comparisons, attribute chains, arithmetic and subscripts,
    and ``len`` of the plain names they read — each as written (unparsed), outermost first;
    nothing inside a lambda or a comprehension (its names are not in the line's scope), nothing
    with a starred, yield, await or walrus part, no assignment targets."""
    tree = ast.parse(text)
    wanted = set(lines)
    out = []
    seen = set()
    opaque = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    effects = tuple(getattr(ast, n) for n in ("Starred", "Yield", "YieldFrom", "Await", "NamedExpr") if hasattr(ast, n))

    def clean(node):
        return not any(isinstance(n, opaque + effects) for n in ast.walk(node))

    def add(node, how):
        try:
            src = ast.unparse(node)
        except Exception:
            return
        if src in seen or len(src) > 120 or len(out) >= limit:
            return
        seen.add(src)
        out.append({"text": src, "how": how})

    def visit(node, called=False):
        if isinstance(node, opaque):
            return
        if clean(node):
            for kind, how in _SUB_KINDS:
                if isinstance(node, kind):
                    add(node, how)
                    break
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not called \
                    and node.id not in ("True", "False", "None", "self", "cls"):
                add(ast.Call(func=ast.Name(id="len", ctx=ast.Load()), args=[node], keywords=[]),
                    "the length of a value the line reads")
        for field, child in ast.iter_fields(node):
            for c in (child if isinstance(child, list) else [child]):
                if isinstance(c, ast.AST):
                    visit(c, called=isinstance(node, ast.Call) and field == "func")

    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.stmt) or stmt.lineno not in wanted:
            continue
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)):
            parts = [stmt.value] if stmt.value is not None else []
        elif isinstance(stmt, (ast.If, ast.While, ast.Assert)):
            parts = [stmt.test]
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            parts = [stmt.iter]
        elif isinstance(stmt, ast.Raise) and stmt.exc is not None:
            parts = [stmt.exc]
        else:
            parts = []
        for part in parts:
            visit(part)
    return out


def _is_main_guard(stmt):
    """``if __name__ == "__main__":``"""
    return isinstance(stmt, ast.If) and any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(stmt.test))


def guard_script(text):
    """A test script that calls its own test functions at module level (as many of ExplainBench's
    property-based tests do: ``test_x()`` after the ``def``), made importable by pytest: each
    module-level statement that calls a test function defined in the file moves under
    ``if __name__ == "__main__":`` at the end; its lines are left blank, so every other line keeps
    its number. Run as a script it does what it did. (new text, [moved statements' first lines])."""
    tree = ast.parse(text)
    tests = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")}
    lines = text.split("\n")
    moved = []
    block = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) or _is_main_guard(stmt):
            continue
        calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in tests]
        if not calls:
            continue
        first = stmt.lineno
        if getattr(stmt, "decorator_list", None):
            first = min(d.lineno for d in stmt.decorator_list)
        last = stmt.end_lineno
        block.extend("    " + line if line.strip() else line for line in lines[first - 1:last])
        for i in range(first - 1, last):
            lines[i] = ""
        moved.append(first)
    if not moved:
        return text, []
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines + ["", "", "if __name__ == \"__main__\":"] + block) + "\n", moved

"""What a patch changed between two trees: files, line mapping and functions.

Used to find the tracer's focus (patch-modified functions) and the statement mapping the
delta extraction needs (unchanged lines map one-to-one; lines the patch touched map to
nothing).
"""

import ast
import difflib
import os

from . import patchinfo
from .codeinfo import definitions

IGNORED_DIRS = frozenset((".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache",
                          ".tox", ".nox", ".venv", "venv", "node_modules", ".eggs", "build",
                          ".ruff_cache", ".hypothesis"))


def walk(root):
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        for name in filenames:
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            out.add(os.path.relpath(full, root).replace(os.sep, "/"))
    return out


def _read(root, rel):
    with open(os.path.join(root, rel), "rb") as fh:
        return fh.read()


def functions(source):
    """[(qualname, first_line, last_line, def_line)] for every def (classes left out), outermost first."""
    try:
        defs = definitions(source)
    except (SyntaxError, ValueError):
        return None
    return [(q, first, last, def_line) for q, kind, first, last, def_line in defs if kind == "function"]


def innermost(funcs, line):
    best = None
    for qual, first, last, def_line in funcs:
        if first <= line <= last and (best is None or first >= best[1]):
            best = (qual, first, last, def_line)
    return best


def _parse(source):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _nodes(tree):
    return dict(patchinfo._scopes(tree)) if tree is not None else {}


# how many other files are parsed at most when looking for the readers of a changed name
MAX_READER_FILES = 200


def _module_path(rel):
    mod = rel[:-3] if rel.endswith(".py") else rel
    if mod.endswith("/__init__"):
        mod = mod[: -len("/__init__")]
    return mod.replace("/", ".")


def _semantics(result, rel, a, b, in_b, in_p, entry, root_p, files_p):
    """Docstrings, renames, module-level names and their readers of one changed Python file."""
    tree_b = _parse(a) if in_b else None
    tree_p = _parse(b) if in_p else None
    for d in patchinfo.changed_docstrings(tree_b, tree_p):
        result["docs"].append(dict(d, file=rel))
    nodes_b, nodes_p = _nodes(tree_b), _nodes(tree_p)
    lines_b = a.decode("utf-8", "replace").splitlines(True)
    lines_p = b.decode("utf-8", "replace").splitlines(True)
    for rec in result["functions"]:
        if rec["file"] != rel or rec["sides"] != ["buggy", "patched"]:
            continue
        nb, np_ = nodes_b.get(rec["qualname"]), nodes_p.get(rec["qualname"])
        if nb is None or np_ is None:
            continue
        found = patchinfo.renames(lines_b, lines_p, nb, np_)
        if found:
            result["renames"].append({"file": rel, "qualname": rec["qualname"], "names": found})
    names = []
    for tree, touched in ((tree_b, entry.get("touched_buggy", [])), (tree_p, entry.get("touched_patched", []))):
        for x in patchinfo.module_names(tree, touched):
            if x not in names:
                names.append(x)
    if not names:
        return
    for scope, name in names:
        result["module_names"].append({"file": rel, "scope": scope, "name": name})
    for tree in (tree_b, tree_p):
        for name, source in patchinfo.derived_names(tree, names):
            if ("", name) not in names:
                names.append(("", name))
                result["module_names"].append({"file": rel, "scope": "", "name": name, "from": source})
    seen = set()
    for side, tree in (("buggy", tree_b), ("patched", tree_p)):
        if tree is None:
            continue
        for qual, name in patchinfo.readers(tree, names):
            key = (rel, qual)
            if key in seen:
                continue
            seen.add(key)
            sides = [s for s, t in (("buggy", nodes_b), ("patched", nodes_p)) if qual in t]
            result["readers"].append({"file": rel, "qualname": qual, "reads": name, "sides": sides})
    # a class attribute the patch changed, read by the methods a base class defines (Django's
    # `regex` on a RegexValidator subclass is read in RegexValidator.__call__)
    for scope, name in names:
        if not scope or any(r["reads"].split(" ")[0] == name for r in result["readers"] if r["file"] == rel):
            continue
        _base_readers(result, seen, rel, tree_p if tree_p is not None else tree_b, scope, name, root_p, files_p, 3)
    # module-level names read from other modules (`from pkg.mod import TABLE`)
    public = [(sc, n) for sc, n in names if sc == "" and not n.startswith("__")]
    if not public or root_p is None:
        return
    mod = _module_path(rel)
    last = mod.rsplit(".", 1)[-1]
    parsed = 0
    for other in sorted(files_p):
        if other == rel or not other.endswith(".py") or parsed >= MAX_READER_FILES:
            continue
        try:
            text = _read(root_p, other).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if last not in text or not any(patchinfo.word_in(text, n) for _, n in public):
            continue
        if mod not in text and ("." + last) not in text:
            continue
        parsed += 1
        tree = _parse(text)
        if tree is None:
            continue
        for qual, name in patchinfo.readers(tree, public):
            key = (other, qual)
            if key not in seen:
                seen.add(key)
                result["readers"].append({"file": other, "qualname": qual, "reads": name, "sides": ["buggy", "patched"], "via": rel})


def _base_readers(result, seen, rel, tree, class_qualname, attr, root, files, depth):
    """The readers of ``attr`` in the base classes of ``class_qualname`` (up to ``depth`` levels),
    looked up through the module's imports in the (patched) tree."""
    if tree is None or root is None or depth <= 0:
        return
    for module, cls in patchinfo.base_classes(tree, rel, class_qualname):
        other = rel if not module else patchinfo.module_file(module, lambda r: r in files)
        if other is None:
            continue
        try:
            other_tree = tree if other == rel else _parse(_read(root, other))
        except OSError:
            continue
        if other_tree is None:
            continue
        for qual in patchinfo.class_readers(other_tree, cls, attr):
            key = (other, qual)
            if key not in seen:
                seen.add(key)
                result["readers"].append({"file": other, "qualname": qual, "reads": "%s (the attribute %s.%s overrides)" % (attr, class_qualname, attr),
                                          "sides": ["buggy", "patched"], "via": rel})
        _base_readers(result, seen, other, other_tree, cls, attr, root, files, depth - 1)


def compare(buggy, patched):
    files_b = walk(buggy)
    files_p = walk(patched)
    result = {"files": [], "functions": [], "diff": "", "docs": [], "renames": [], "module_names": [], "readers": []}
    diff_parts = []
    fn_seen = {}
    for rel in sorted(files_b | files_p):
        in_b, in_p = rel in files_b, rel in files_p
        a = _read(buggy, rel) if in_b else b""
        b = _read(patched, rel) if in_p else b""
        if in_b and in_p and a == b:
            continue
        status = "modified" if in_b and in_p else ("removed" if in_b else "added")
        entry = {"file": rel, "status": status, "python": rel.endswith(".py")}
        try:
            la = a.decode("utf-8").splitlines(True)
            lb = b.decode("utf-8").splitlines(True)
        except UnicodeDecodeError:
            entry["binary"] = True
            result["files"].append(entry)
            continue
        diff_parts.extend(difflib.unified_diff(
            la, lb, "/dev/null" if not in_b else "a/" + rel,
            "/dev/null" if not in_p else "b/" + rel, n=3))
        if diff_parts and not diff_parts[-1].endswith("\n"):
            diff_parts.append("\n\\ No newline at end of file\n")
        sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
        blocks = [[i + 1, j + 1, n] for i, j, n in sm.get_matching_blocks() if n]
        touched_b, touched_p = [], []
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            touched_b.extend(range(i1 + 1, i2 + 1))
            touched_p.extend(range(j1 + 1, j2 + 1))
        entry["blocks"] = blocks
        entry["touched_buggy"] = touched_b
        entry["touched_patched"] = touched_p
        if entry["python"]:
            fb = functions(a) if in_b else []
            fp = functions(b) if in_p else []
            for side, funcs, touched in (("buggy", fb, touched_b), ("patched", fp, touched_p)):
                if funcs is None:
                    entry["syntax_error_" + side] = True
                    continue
                for line in touched:
                    hit = innermost(funcs, line)
                    if hit is None:
                        continue
                    key = (rel, hit[0])
                    rec = fn_seen.get(key)
                    if rec is None:
                        rec = {"file": rel, "qualname": hit[0], "sides": []}
                        fn_seen[key] = rec
                        result["functions"].append(rec)
                    if side not in rec["sides"]:
                        rec["sides"].append(side)
                        rec["def_line_" + side] = hit[3]
            # a function only touched on one side still exists on the other: say so
            for rec in result["functions"]:
                if rec["file"] != rel:
                    continue
                for side, funcs in (("buggy", fb), ("patched", fp)):
                    if funcs and side not in rec["sides"]:
                        for qual, first, last, def_line in funcs:
                            if qual == rec["qualname"]:
                                rec["sides"].append(side)
                                rec["def_line_" + side] = def_line
                                break
            _semantics(result, rel, a, b, in_b, in_p, entry, patched if in_p else None, files_p)
        result["files"].append(entry)
    for rec in result["functions"]:
        rec["sides"].sort()
    result["diff"] = "".join(diff_parts)
    return result

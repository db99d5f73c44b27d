"""What a patch changed between two trees: files, line mapping and functions.

Used to find the tracer's focus (patch-modified functions) and the statement mapping the
delta extraction needs (unchanged lines map one-to-one; lines the patch touched map to
nothing).
"""

import difflib
import os

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


def compare(buggy, patched):
    files_b = walk(buggy)
    files_p = walk(patched)
    result = {"files": [], "functions": [], "diff": ""}
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
        result["files"].append(entry)
    for rec in result["functions"]:
        rec["sides"].sort()
    result["diff"] = "".join(diff_parts)
    return result

"""Command line: ``python -m deltatrace {run,eval,changes,scopes,pod,...} ...``."""

import argparse
import json
import os
import platform
import sys
import time

from . import __version__
from .codeinfo import CodeRegistry
from .serialize import Limits

FORMAT_VERSION = 1


def _focus_key(spec):
    if ":" not in spec:
        raise argparse.ArgumentTypeError("--focus wants FILE:FUNCTION, got %r" % spec)
    file, _, func = spec.rpartition(":")
    return file.replace(os.sep, "/"), func


def _hypothesis_args(p):
    p.add_argument("--hypothesis", choices=("off", "derandomize", "find", "replay"), default="off",
                   help="a profile for property-based tests: derandomize (the same examples every run, "
                        "no database), find (save the failing example in --hypothesis-db), replay "
                        "(run only the examples of --hypothesis-db); deadlines and health checks off")
    p.add_argument("--hypothesis-db", metavar="DIR", help="the example database folder of find and replay")


def _common(p):
    p.add_argument("--root", required=True, help="project root; only code under it is traced")
    p.add_argument("--mode", choices=("auto", "pytest", "script", "unittest", "django", "function"), default="auto",
                   help="how to run the target: pytest (node ids), script (a .py file; exit 0 passes), "
                        "unittest (module.Class.test, or 'test (module.Class)'), django (tests/runtests.py "
                        "with that label, as SWE-bench runs Django), function (FILE::test called as "
                        "sympy's bin/test calls it); auto: a .py path not named test_* is a script, "
                        "else pytest")
    p.add_argument("--max-depth", type=int, default=4, help="serialization depth (default 4)")
    p.add_argument("--max-items", type=int, default=32, help="items per container (default 32)")
    p.add_argument("--max-str", type=int, default=200, help="characters per string (default 200)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed random (and numpy's global generator, and every generator the "
                        "program makes without a seed) before each test (default 0)")
    p.add_argument("--no-seed", action="store_true", help="leave randomness as the program has it")
    _hypothesis_args(p)
    p.add_argument("--docs", metavar="FILE",
                   help='docstrings the patch edited, {"docs": [{"id": "file:qualname", "text": ...}]}: '
                        'strings equal to one are recorded as {"$doc": id, ...}')
    p.add_argument("target", nargs=argparse.REMAINDER, help="-- then pytest arguments or a script")


def parser():
    top = argparse.ArgumentParser(prog="python -m deltatrace",
                                  description="Line-level tracer for buggy vs patched Python programs.")
    top.add_argument("--version", action="version", version="deltatrace " + __version__)
    sub = top.add_subparsers(dest="command")
    sub.required = True  # (add_subparsers takes required= only from 3.7)

    run = sub.add_parser("run", help="trace a pytest run or a script to a JSON-lines file")
    _common(run)
    dest = run.add_mutually_exclusive_group(required=True)
    dest.add_argument("--out", help="trace file to write (JSON lines)")
    dest.add_argument("--out-fd", type=int, metavar="FD",
                      help="write the trace to this open file descriptor (a pipe or socket the "
                           "caller reads as the trace is written; nothing goes to disk)")
    run.add_argument("--focus", action="append", type=_focus_key, default=[],
                     metavar="FILE:FUNC",
                     help="record only frames of FUNC, frames below them and the callers that "
                          "lead to them (from the moment FUNC starts); FILE:* for every "
                          "function of the file, FILE:<module> for its body")
    run.add_argument("--record", choices=("full", "skeleton", "plan", "budget"), default="full",
                     help="full: every value; skeleton: control flow only; plan: values where "
                          "--plan says Algorithm 1 compares them; budget: every value until "
                          "--value-budget events are written, control flow only after that "
                          "(default full)")
    run.add_argument("--value-budget", type=int, default=5000, metavar="N",
                     help="--record budget: events written with values before the run goes on "
                          "with control flow only (default 5000)")
    run.add_argument("--plan", metavar="FILE",
                     help='--record plan: {"cuts": [c per frame id]}: -1 every item of the frame '
                          "valued, k > 0 the first k items, -2 only its arguments and result, "
                          "0 none (its end still says return or which exception); frames past "
                          "the list get 0")
    run.add_argument("--max-events", type=int, default=0, help="stop recording after N events")
    run.add_argument("--max-bytes", type=int, default=0, help="stop recording after B bytes")
    run.add_argument("--timeout", type=float, default=0,
                     help="stop recording after S seconds, and the test %g s later (exit 124)" % 3.0)
    run.add_argument("--snapshot-every", type=int, default=50,
                     help="full locals snapshot every K steps of a frame (default 50; 0: never)")
    run.add_argument("--backend", choices=("auto", "settrace", "monitoring"), default="auto",
                     help="auto: sys.monitoring on Python >= 3.12, else sys.settrace")

    ev = sub.add_parser("eval", help="evaluate expressions at the N-th execution of a line")
    _common(ev)
    ev.add_argument("--at", required=True, metavar="FILE:LINE")
    ev.add_argument("--hit", type=int, default=1, help="which execution of the line (1-based)")
    ev.add_argument("--timing", choices=("before", "after", "return"), default="before")
    ev.add_argument("--expr", action="append", default=[], help="expression (repeatable)")
    ev.add_argument("--exprs-stdin", action="store_true",
                    help="more expressions as a JSON array of strings on stdin (no argument-length limit)")
    ev.add_argument("--expr-timeout", type=float, default=10.0)
    ev.add_argument("--out", help="write the JSON result here instead of stdout")

    ch = sub.add_parser("changes", help="files, line mapping and functions changed between two trees")
    ch.add_argument("--buggy", required=True)
    ch.add_argument("--patched", required=True)
    ch.add_argument("--out", help="write the JSON here instead of stdout (a large patch's diff)")

    ex = sub.add_parser("expected", help="the expected-behaviour expression of a test function (ast; no code runs)")
    ex.add_argument("--file", required=True, help="the test file")
    ex.add_argument("--function", required=True, help="test_x, or TestC::test_x (a node id's part after the file)")
    mu = sub.add_parser("mutants", help="offline distractor candidates for an expression (ast; no code runs)")
    mu.add_argument("--expr", required=True)
    mu.add_argument("--name", action="append", default=[], help="a name in scope, for neighbouring-name mutations (repeatable)")
    mu.add_argument("--limit", type=int, default=24)
    se = sub.add_parser("subexprs", help="candidate expressions from the statements on lines of a file (ast; no code runs)")
    se.add_argument("--file", required=True)
    se.add_argument("--line", type=int, action="append", default=[], help="a line (repeatable)")
    se.add_argument("--limit", type=int, default=24)
    gs = sub.add_parser("guard-script", help="a test script's module-level calls of its test functions moved under if __name__ == '__main__' (ast; no code runs)")
    gs.add_argument("--file", required=True)
    px = sub.add_parser("exprs", help="which texts parse as Python expressions (ast; no code runs)")
    px.add_argument("--expr", action="append", default=[])
    px.add_argument("--exprs-stdin", action="store_true", help="more texts as a JSON array of strings on stdin")
    oc = sub.add_parser("outcome", help="run a test and say how it ended: passed, or failed at line N of the test file with exception E")
    oc.add_argument("--root", required=True, help="project root")
    oc.add_argument("--seed", type=int, default=0)
    oc.add_argument("--no-seed", action="store_true")
    oc.add_argument("--mode", choices=("auto", "pytest", "script", "unittest", "django", "function"), default="auto",
                    help="how to run the target (as for run)")
    _hypothesis_args(oc)
    oc.add_argument("target", nargs=argparse.REMAINDER, help="-- then the pytest node id")

    po = sub.add_parser("pod", help="one instance traced in place (a SWE-bench image's /testbed): both "
                                    "sides, twice each, values everywhere (deltalens batch trace --emit-k8s)")
    po.add_argument("--job", required=True, help="the job file: instance, test, patches, focus")
    po.add_argument("--testbed", default="/testbed", help="the repository at the base commit (default /testbed)")
    po.add_argument("--out", required=True, help="folder for the four trace files, job.json and result.json")
    sc = sub.add_parser("scopes", help="the functions and classes of source files, with their line ranges (ast; no code runs)")
    sc.add_argument("--root", required=True, help="the checkout the paths are relative to")
    sc.add_argument("--out", help="write the JSON here instead of stdout")
    sc.add_argument("files", nargs="*", help="paths relative to --root")
    return top


def _target(args):
    target = list(args.target)
    if target and target[0] == "--":
        target = target[1:]
    if not target:
        sys.exit("deltatrace: nothing to run; give pytest arguments or a script after --")
    return target


def _limits(args):
    if getattr(args, "docs", None):
        from .serialize import set_docs
        try:
            with open(args.docs, encoding="utf-8") as fh:
                docs = json.load(fh)["docs"]
            set_docs([(d["id"], d["text"]) for d in docs])
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit("deltatrace: --docs %s: %s" % (args.docs, e))
    return Limits(max_depth=args.max_depth, max_items=args.max_items, max_str=args.max_str)


def _seeder(args):
    from .seeding import Seeder
    seeder = Seeder(None if args.no_seed else args.seed)
    seeder.install()
    mode = getattr(args, "hypothesis", "off")
    if mode != "off":
        if mode in ("find", "replay") and not args.hypothesis_db:
            sys.exit("deltatrace: --hypothesis %s needs --hypothesis-db DIR" % mode)
        from .hypo import configure
        problem = configure(mode, args.hypothesis_db)
        if problem:
            sys.stderr.write("deltatrace: --hypothesis %s: %s\n" % (mode, problem))
    return seeder


def _seeded(seeder, start):
    """``start`` (switching tracing on before each test), after seeding the randomness."""
    def begin():
        seeder.before_test()
        start()
    return begin


# After --timeout the recording stops (a "truncated" record) and the test may still end on its
# own; a test that does not end within this many seconds more is stopped: exit code 124.
_GRACE = 3.0
EXIT_TIMEOUT = 124


def _watchdog(seconds):
    import threading
    # the real stderr, taken before pytest captures file descriptor 2
    err = os.dup(2)

    def expire():
        os.write(err, b"deltatrace: the test did not end within --timeout (+%g s): stopped\n" % _GRACE)
        os._exit(EXIT_TIMEOUT)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def _enter_root(root):
    root = os.path.realpath(root)
    if not os.path.isdir(root):
        sys.exit("deltatrace: --root %s is not a directory" % root)
    os.chdir(root)
    sys.path.insert(0, root)
    # a module compiled in this run behaves as its .pyc will in the runs after (constant sets)
    from .bytecode import install
    install()
    # outside the sandbox the tree is not at /testbed: its path is recorded as if it were
    from .serialize import set_root_alias
    set_root_alias(root, os.environ.get("DELTATRACE_ROOT_ALIAS"))
    return root


def _ensure_hash_seed():
    """Re-exec with PYTHONHASHSEED=0 so set/dict-of-str orders are the same every run."""
    if os.environ.get("PYTHONHASHSEED") is None:
        env = dict(os.environ, PYTHONHASHSEED="0")
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        os.execve(sys.executable, [sys.executable, "-m", "deltatrace"] + sys.argv[1:], env)


def cmd_run(args):
    from .recorder import Recorder, Writer
    from .target import run_target
    target = _target(args)
    out = os.path.abspath(args.out) if args.out else args.out_fd
    root = _enter_root(args.root)
    limits = _limits(args)
    focus = set(args.focus) if args.focus else None
    plan = None
    if args.record == "plan":
        if not args.plan:
            sys.exit("deltatrace: --record plan needs --plan FILE")
        try:
            with open(args.plan, encoding="utf-8") as fh:
                plan = json.load(fh)["cuts"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit("deltatrace: --plan %s: %s" % (args.plan, e))

    backend = args.backend
    if backend == "auto":
        backend = "monitoring" if hasattr(sys, "monitoring") else "settrace"
    if backend == "monitoring" and not hasattr(sys, "monitoring"):
        sys.exit("deltatrace: --backend monitoring needs Python >= 3.12 (this is %s)"
                 % platform.python_version())
    main_file = os.path.realpath(target[0]) if args.mode == "script" or (
        args.mode == "auto" and target[0].endswith(".py") and "::" not in target[0]
        and os.path.isfile(target[0])) else None
    reg = CodeRegistry(root, main_file=main_file)
    seeder = _seeder(args)
    writer = Writer(out, args.max_events, args.max_bytes, args.timeout)
    header = {"t": "header", "format": FORMAT_VERSION, "tracer": "deltatrace " + __version__,
              "python": platform.python_version(), "implementation": platform.python_implementation(),
              "backend": backend, "root": root, "target": target,
              "focus": sorted("%s:%s" % k for k in focus) if focus else [],
              "record": args.record,
              "limits": dict(limits.as_dict(), max_events=args.max_events,
                             max_bytes=args.max_bytes, timeout=args.timeout),
              "snapshot_every": args.snapshot_every,
              "hash_seed": os.environ.get("PYTHONHASHSEED"),
              "seed": seeder.seed,
              "nondeterministic": ["$ref numbering is per value; no ids or addresses are written"]}
    writer.record(header)
    if args.record == "budget" and args.value_budget < 1:
        sys.exit("deltatrace: --value-budget must be at least 1")
    rec = Recorder(writer, reg, limits, args.snapshot_every, focus, args.record, plan,
                   budget=args.value_budget)
    if backend == "monitoring":
        rec.install_monitoring()
        start, stop = rec.start_monitoring, rec.stop_monitoring
    else:
        start, stop = rec.install_settrace, rec.uninstall_settrace
    t0 = time.monotonic()
    if args.timeout:
        _watchdog(args.timeout + _GRACE)
    try:
        outcome = run_target(target, _seeded(seeder, start), stop, args.mode)
    finally:
        stop()
        if backend == "monitoring":
            rec.uninstall_monitoring()
    writer.record(outcome.record())
    end = {"t": "end", "events": writer.events, "frames": rec.next_fid - 1,
           "bytes": writer.bytes, "truncated": writer.truncated,
           "seconds": round(time.monotonic() - t0, 3), "seed": seeder.record()}
    if args.record == "budget":
        # whether every value is in the trace (a run within the budget is a full trace)
        end["budget"] = {"events": args.value_budget, "within": not rec.over_budget}
    writer.record(end)
    writer.close()
    status = outcome.status()
    sys.stderr.write("deltatrace: %s, %d events, %d frames%s -> %s\n" % (
        status, writer.events, rec.next_fid - 1,
        (", truncated (%s)" % writer.truncated) if writer.truncated else "",
        out if isinstance(out, str) else "fd %d" % out))
    return 0 if outcome.error is None else 3


def _exprs(args):
    """--expr values, then the JSON array on stdin with --exprs-stdin (read before any test runs)."""
    exprs = list(args.expr)
    if args.exprs_stdin:
        try:
            more = json.load(sys.stdin)
        except ValueError as e:
            sys.exit("deltatrace: --exprs-stdin: not JSON: %s" % e)
        if not isinstance(more, list) or not all(isinstance(x, str) for x in more):
            sys.exit("deltatrace: --exprs-stdin: expected a JSON array of strings")
        exprs.extend(more)
    return exprs


def cmd_eval(args):
    from .evaluate import Evaluator
    from .target import run_target
    target = _target(args)
    args.expr = _exprs(args)
    if not args.expr:
        sys.exit("deltatrace: eval needs --expr or --exprs-stdin")
    if ":" not in args.at:
        sys.exit("deltatrace: --at wants FILE:LINE, got %r" % args.at)
    file, _, line = args.at.rpartition(":")
    try:
        line = int(line)
    except ValueError:
        sys.exit("deltatrace: --at wants FILE:LINE, got %r" % args.at)
    out = os.path.abspath(args.out) if args.out else None
    root = _enter_root(args.root)
    seeder = _seeder(args)
    reg = CodeRegistry(root)
    ev = Evaluator(reg, file.replace(os.sep, "/"), line, args.hit, args.timing, args.expr,
                   _limits(args), args.expr_timeout)
    outcome = run_target(target, _seeded(seeder, lambda: sys.settrace(ev.global_trace)),
                         lambda: sys.settrace(None), args.mode)
    result = {"at": {"file": file, "line": line}, "hit": args.hit, "timing": args.timing,
              "reached": ev.result is not None, "hits_seen": ev.hits, "function": ev.function,
              "results": ev.result or [], "outcome": outcome.record()}
    text = json.dumps(result, ensure_ascii=False)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 0 if ev.result is not None else 4


def cmd_changes(args):
    from .changes import compare
    for d in (args.buggy, args.patched):
        if not os.path.isdir(d):
            sys.exit("deltatrace: %s is not a directory" % d)
    _write_json(compare(args.buggy, args.patched), args.out)
    return 0


def _write_json(value, out):
    """To the file ``out`` when given (an answer too large for captured output), else stdout."""
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(value, fh, ensure_ascii=False)
    else:
        json.dump(value, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")


def cmd_scopes(args):
    from .codeinfo import scopes_of
    root = os.path.realpath(args.root)
    if not os.path.isdir(root):
        sys.exit("deltatrace: --root %s is not a directory" % root)
    out = {}
    for rel in args.files:
        path = os.path.realpath(os.path.join(root, rel))
        if not path.startswith(root + os.sep):
            out[rel] = {"error": "outside --root"}
            continue
        try:
            with open(path, "rb") as f:
                out[rel] = {"scopes": scopes_of(f.read())}
        except (OSError, SyntaxError, ValueError) as e:
            out[rel] = {"error": "%s: %s" % (type(e).__name__, e)}
    _write_json(out, args.out)
    return 0


def _answer(out):
    """One JSON line on stdout; exit 3 when it is an error."""
    json.dump(out, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0 if "error" not in out else 3


def _from_source(path, answer):
    """``answer(text)`` of a source file as the command's JSON: a file that cannot be read or
    parsed (or whose answer is not found) is an ``error``, not a crash."""
    from .questions import NotFound
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        out = answer(text)
    except (OSError, UnicodeDecodeError) as e:
        out = {"error": "cannot read %s: %s" % (path, e)}
    except SyntaxError as e:
        out = {"error": "%s does not parse: %s (line %s)" % (path, e.msg, e.lineno)}
    except NotFound as e:
        out = {"error": str(e)}
    return _answer(out)


def cmd_expected(args):
    from .questions import expected
    return _from_source(args.file, lambda text: expected(text, args.function))


def cmd_mutants(args):
    from .questions import NotFound, mutants
    try:
        out = {"mutants": mutants(args.expr, args.name, args.limit)}
    except NotFound as e:
        out = {"error": str(e)}
    return _answer(out)


def cmd_subexprs(args):
    from .questions import subexpressions
    return _from_source(args.file, lambda text: {"candidates": subexpressions(text, args.line, args.limit)})


def cmd_guard_script(args):
    from .questions import guard_script

    def answer(text):
        guarded, moved = guard_script(text)
        return {"text": guarded, "moved": moved}
    return _from_source(args.file, answer)


def cmd_exprs(args):
    import ast
    out = []
    for text in _exprs(args):
        try:
            out.append({"text": text, "ok": True, "normalized": ast.unparse(ast.parse(text.strip(), mode="eval"))})
        except SyntaxError as e:
            out.append({"text": text, "ok": False, "error": "not a Python expression: %s" % e.msg})
        except (ValueError, RecursionError) as e:
            out.append({"text": text, "ok": False, "error": "not a Python expression: %s" % e})
    return _answer({"results": out})


def cmd_outcome(args):
    from .target import run_target
    target = _target(args)
    _enter_root(args.root)
    seeder = _seeder(args)
    failures = None
    if args.hypothesis == "find":
        from .hypo import capture_failures
        failures = capture_failures()
    outcome = run_target(target, _seeded(seeder, lambda: None), lambda: None, args.mode)
    record = outcome.record()
    if failures:
        record["falsifying"] = failures[-1][:2000]
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def main(argv=None):
    args = parser().parse_args(argv)
    if args.command in ("run", "eval", "outcome"):
        _ensure_hash_seed()
    return {"run": cmd_run, "eval": cmd_eval, "changes": cmd_changes, "scopes": cmd_scopes,
            "expected": cmd_expected, "mutants": cmd_mutants, "subexprs": cmd_subexprs, "outcome": cmd_outcome, "exprs": cmd_exprs,
            "guard-script": cmd_guard_script, "pod": _cmd_pod}[args.command](args)


def _cmd_pod(args):
    from .pod import cmd_pod
    return cmd_pod(args)


if __name__ == "__main__":
    sys.exit(main())

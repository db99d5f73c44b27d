"""``python -m deltatrace pod``: one instance traced where its repository already is — a
SWE-bench image's /testbed at the base commit, in a pod of a cluster — with nothing but this
package and the image's own interpreter and git.

The job file (written by ``deltalens batch trace --emit-k8s``) says what to run::

    {"instance", "label", "test", "mode", "test_patch", "patch",
     "focus": {"buggy": [...], "patched": [...]}, "seed", "timeout", "max_events"}

Both sides run at the same path, one after the other: the test patch is applied and the buggy
side traced twice (a second run finds what varies between runs), then the patch is applied and
the patched side traced twice. Values are recorded everywhere (planning where values are needed
happens in deltalens, which is not in the image). What is written to ``--out``: the four trace
files, the job, and ``result.json`` (each run's exit code and seconds, the interpreter, the
tracer's version). ``deltalens traces import --results DIR`` stores them as a pair with its delta.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import time

from . import __version__

RUNS = (("buggy", 1), ("buggy", 2), ("patched", 1), ("patched", 2))


class PodError(Exception):
    pass


def _apply(patch, testbed, what):
    """A unified diff applied in the tree with git apply (argument list, never a shell)."""
    if not patch.strip():
        return
    if shutil.which("git") is None:
        raise PodError("cannot apply %s: git is not in the image" % what)
    proc = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=testbed,
                          input=(patch if patch.endswith("\n") else patch + "\n").encode("utf-8"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise PodError("git apply of %s failed: %s" % (what, proc.stderr.decode("utf-8", "replace").strip()))


def _trace(job, testbed, side, run, out):
    args = [sys.executable, "-m", "deltatrace", "run", "--root", testbed,
            "--record", "full", "--out", os.path.join(out, "%s-%d.jsonl" % (side, run))]
    if job.get("seed") is None:
        args.append("--no-seed")
    else:
        args += ["--seed", str(job["seed"])]
    if job.get("timeout"):
        args += ["--timeout", str(job["timeout"])]
    if job.get("max_events"):
        args += ["--max-events", str(job["max_events"])]
    if job.get("mode"):
        args += ["--mode", job["mode"]]
    for f in (job.get("focus") or {}).get(side, []):
        args += ["--focus", f]
    args += ["--", job["test"]]
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    started = time.time()
    proc = subprocess.run(args, cwd=testbed, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return {"side": side, "run": run, "exit_code": proc.returncode,
            "seconds": round(time.time() - started, 3),
            "stderr": proc.stderr.decode("utf-8", "replace")[-2000:]}


def cmd_pod(args):
    try:
        with open(args.job, encoding="utf-8") as fh:
            job = json.load(fh)
        for key in ("instance", "test"):
            if not isinstance(job.get(key), str) or not job[key]:
                raise PodError("%s: %s is missing" % (args.job, key))
    except (OSError, ValueError) as e:
        sys.exit("deltatrace pod: %s: %s" % (args.job, e))
    except PodError as e:
        sys.exit("deltatrace pod: %s" % e)
    testbed = os.path.abspath(args.testbed)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "job.json"), "w", encoding="utf-8") as fh:
        json.dump(job, fh)
    result = {"instance": job["instance"], "tracer": "deltatrace " + __version__,
              "python": platform.python_version(), "runs": [], "error": None}
    try:
        _apply(job.get("test_patch") or "", testbed, "the test patch")
        for side, run in RUNS:
            if side == "patched" and run == 1:
                _apply(job.get("patch") or "", testbed, "the patch (%s)" % job.get("label", "?"))
            r = _trace(job, testbed, side, run, out)
            result["runs"].append(r)
            sys.stderr.write("deltatrace pod: %s %s run %d: exit %d (%.1f s)\n" % (
                job["instance"], side, run, r["exit_code"], r["seconds"]))
    except PodError as e:
        result["error"] = str(e)
    with open(os.path.join(out, "result.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    if result["error"]:
        sys.stderr.write("deltatrace pod: %s\n" % result["error"])
        return 1
    return 0

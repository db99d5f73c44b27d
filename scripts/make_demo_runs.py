"""Writes the scripted demo runs: sample-data/trajectories/demo-runs/<agent>/<instance>.traj.json
and results.json, in mini-SWE-agent 1 format, for the three demo projects.

These runs are *scripted*, not recorded from a model: each agent follows a fixed process so
the process lens (AgentLens) has real contrasts to show after `npm start` — methodical runs,
a brute-force pass, an unverified pass, an over-explorer, and failing runs. File contents in
the observations are the real demo sources; test output is written to match each patch.

Run from the repository root:  python3 scripts/make_demo_runs.py
"""
import json
import os
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROJECTS = os.path.join(ROOT, "sample-data", "projects")
OUT = os.path.join(ROOT, "sample-data", "trajectories", "demo-runs")

TASKS = {
    "durations": {
        "src": "durations/parse.py",
        "other": "durations/units.py",
        "offtarget": "durations/format.py",
        "test_file": "tests/test_parse.py",
        "symbol": "parse_duration",
        "repro": "from durations import parse_duration\nprint(parse_duration('1h30m'))",
        "repro_bad": "1800.0",
        "repro_good": "5400.0",
        "fix_sed": "sed -i 's/        total = amount \\* UNIT_SECONDS\\[unit\\]/        total += amount * UNIT_SECONDS[unit]/' durations/parse.py",
        "try1_sed": "sed -i 's/        total = amount \\* UNIT_SECONDS\\[unit\\]/        total = max(total, amount * UNIT_SECONDS[unit])/' durations/parse.py",
        "try2_sed": "sed -i 's/max(total, amount \\* UNIT_SECONDS\\[unit\\])/total + amount * UNIT_SECONDS[unit] if seen else 0/' durations/parse.py",
        "fix2_sed": "sed -i 's/total + amount \\* UNIT_SECONDS\\[unit\\] if seen else 0/total + amount * UNIT_SECONDS[unit]/' durations/parse.py",
        "heredoc_old": "        total = amount * UNIT_SECONDS[unit]",
        "heredoc_new": "        total += amount * UNIT_SECONDS[unit]",
        "failure": "E       assert 1800.0 == 5400",
        "explain": "parse_duration assigned each unit's seconds to total instead of adding them, so only the last unit of '1h30m' counted; it now accumulates with +=.",
        "n_tests": 4,
    },
    "ledger": {
        "src": "ledger/money.py",
        "other": "ledger/account.py",
        "offtarget": "ledger/account.py",
        "test_file": "tests/test_account.py",
        "symbol": "to_cents",
        "repro": "from ledger import Account\na = Account('ada'); a.deposit(0.29); print(a.cents)",
        "repro_bad": "28",
        "repro_good": "29",
        "fix_sed": "sed -i 's/    return int(amount \\* 100)/    return round(amount * 100)/' ledger/money.py",
        "try1_sed": "sed -i 's/    return int(amount \\* 100)/    return int(amount * 100) + 1/' ledger/money.py",
        "try2_sed": "sed -i 's/    return int(amount \\* 100) + 1/    return int(amount * 100 + 0.5)/' ledger/money.py",
        "fix2_sed": "sed -i 's/    return int(amount \\* 100 + 0.5)/    return round(amount * 100)/' ledger/money.py",
        "heredoc_old": "    return int(amount * 100)",
        "heredoc_new": "    return round(amount * 100)",
        "failure": "E       assert 78 == 79",
        "explain": "to_cents truncated amount * 100 with int(), so 0.29 (28.999999999999996 cents) lost a cent; it now rounds to the nearest cent.",
        "n_tests": 3,
    },
    "graphs": {
        "src": "graphs/topo.py",
        "other": "graphs/graph.py",
        "offtarget": "graphs/graph.py",
        "test_file": "tests/test_topo.py",
        "symbol": "topo_sort",
        "repro": "from graphs import Graph, topo_sort\nprint(topo_sort(Graph([('a', 'b'), ('b', 'c'), ('c', 'a')])))",
        "repro_bad": "['a', 'b', 'c']",
        "repro_good": "graphs.topo.CycleError: a",
        "fix_sed": "sed -i '/if mark == \"active\":/{n;s/            return/            raise CycleError(node)/}' graphs/topo.py",
        "try1_sed": "sed -i '/if mark == \"active\":/{n;s/            return/            raise ValueError(node)/}' graphs/topo.py",
        "try2_sed": "sed -i 's/            raise ValueError(node)/            raise RuntimeError(node)/' graphs/topo.py",
        "fix2_sed": "sed -i 's/            raise RuntimeError(node)/            raise CycleError(node)/' graphs/topo.py",
        "heredoc_old": "        if mark == \"active\":\n            return",
        "heredoc_new": "        if mark == \"active\":\n            raise CycleError(node)",
        "failure": "E       Failed: DID NOT RAISE <class 'graphs.topo.CycleError'>",
        "explain": "topo_sort returned silently when it met a node that was still active, so a cycle gave an order; it now raises CycleError there.",
        "n_tests": 3,
    },
}


def read(project, path):
    with open(os.path.join(PROJECTS, project, "repo", path)) as f:
        return f.read()


def numbered(text, start=1, end=None):
    lines = text.splitlines()
    end = len(lines) if end is None else min(end, len(lines))
    return "\n".join("%6d\t%s" % (i, lines[i - 1]) for i in range(start, end + 1))


def listing(project):
    out = []
    for d, _, files in sorted(os.walk(os.path.join(PROJECTS, project, "repo"))):
        if "__pycache__" in d:
            continue
        rel = os.path.relpath(d, os.path.join(PROJECTS, project, "repo"))
        out.append("./%s:" % ("" if rel == "." else rel))
        out.extend(sorted(files))
    return "\n".join(out)


def patch(project, name):
    with open(os.path.join(PROJECTS, project, "patches", name + ".diff")) as f:
        return f.read()


def pytest_out(t, passed, scope="tests", failed_name=None):
    n = t["n_tests"]
    if passed:
        return "%s\n%d passed in 0.02s" % ("." * n, n)
    return "%s\n=================================== FAILURES ===================================\n%s\n%s\nFAILED %s - %s\n1 failed, %d passed in 0.04s" % (
        "." * (n - 1) + "F",
        "_" * 20 + " " + (failed_name or "test") + " " + "_" * 20,
        t["failure"],
        t["test_file"],
        t["failure"].lstrip("E ").strip(),
        n - 1,
    )


def heredoc_edit(t):
    return "python - <<'PY'\nfrom pathlib import Path\np = Path(%r)\ns = p.read_text()\nold = %r\nnew = %r\nassert old in s\np.write_text(s.replace(old, new, 1))\nprint('patched')\nPY" % (
        t["src"],
        t["heredoc_old"],
        t["heredoc_new"],
    )


SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"


def script(agent, project, t, resolved):
    """(thought, command, observation) for each step of one agent's run on one task."""
    src = read(project, t["src"])
    repro = "cat > repro_issue.py <<'EOF'\n%s\nEOF\npython repro_issue.py" % t["repro"]
    steps = []
    add = lambda thought, cmd, obs, rc=0: steps.append((thought, cmd, obs, rc))
    if agent == "demo-methodical":
        add("Let me see the layout of the repository first.", "ls -R", listing(project))
        add("Find where %s is defined." % t["symbol"], 'grep -rn "def %s" --include=*.py .' % t["symbol"], "./%s:1:def %s" % (t["src"], t["symbol"]))
        add("Read the implementation.", "nl -ba %s" % t["src"], numbered(src))
        add("Reproduce the issue before changing anything.", repro, t["repro_bad"])
        add("The bug is on the marked line; fix it in place.", t["fix_sed"], "")
        add("Check the reproduction again.", "python repro_issue.py", t["repro_good"], 1 if project == "graphs" else 0)
        add("Run the whole test suite to make sure nothing else broke.", "python -m pytest tests -q", pytest_out(t, True))
        add("Remove the reproduction script.", "rm repro_issue.py", "")
        add(t["explain"] + " The reproduction and the whole test suite confirm it.", SUBMIT, patch(project, "gold"))
    elif agent == "demo-steady":
        add("Search for the function named in the issue.", 'grep -rn "%s" --include=*.py .' % t["symbol"], "./%s:1:def %s\n./%s:3:from %s import %s" % (t["src"], t["symbol"], t["test_file"], project, t["symbol"]))
        add("Look at the source.", "sed -n '1,40p' %s" % t["src"], src)
        add("Run the failing test to see the error.", "python -m pytest %s -q" % t["test_file"], pytest_out(t, False))
        add("Patch the line with a small Python edit.", heredoc_edit(t), "patched")
        add("Run the test file again.", "python -m pytest %s -q" % t["test_file"], pytest_out(t, True))
        add("Review the change.", "git diff", patch(project, "gold"))
        add(t["explain"] + " The failing test passes now and the diff is one line.", SUBMIT, patch(project, "gold"))
    elif agent == "demo-fixer":
        add("List the files.", "ls", "%s\ntests\nsetup.cfg" % project)
        add("Read the module.", "cat %s" % t["src"], src)
        add("And the helper it uses.", "cat %s" % t["other"], read(project, t["other"]))
        add("Apply the fix.", heredoc_edit(t), "patched")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, True))
        add(t["explain"] + " The tests pass.", SUBMIT, patch(project, "gold"))
    elif agent == "demo-brute-force":
        add("Open the module.", "cat %s" % t["src"], src)
        add("Try a change.", t["try1_sed"], "")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, False), 1)
        add("Try something else on the same line.", t["try2_sed"], "")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, False), 1)
        add("Run them again.", "python -m pytest tests -q", pytest_out(t, False), 1)
        add("And again, maybe it was flaky.", "python -m pytest tests -q", pytest_out(t, False), 1)
        add("One more variation.", t["fix2_sed"], "")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, True))
        add("After a few attempts the tests pass. " + t["explain"], SUBMIT, patch(project, "gold"))
    elif agent == "demo-hasty":
        add("Read the module.", "cat %s" % t["src"], src)
        if resolved:
            add("This line is clearly wrong; fix it.", t["fix_sed"], "")
            add(t["explain"] + " That should do it.", SUBMIT, patch(project, "gold"))
        else:
            add("Raise on a cycle.", t["try1_sed"], "")
            add("A cycle now raises an error when a node is met twice on the current path. That should do it.", SUBMIT, patch(project, "agent-wrong"))
    elif agent == "demo-wanderer":
        add("Get an overview.", "ls -R", listing(project))
        add("Read the package init.", "cat %s/__init__.py" % project, read(project, project + "/__init__.py"))
        add("Read the main module.", "cat %s" % t["src"], src)
        add("Read the other module.", "cat %s" % t["other"], read(project, t["other"]))
        add("Read the tests.", "cat %s" % t["test_file"], read(project, t["test_file"]))
        add("Search for other callers.", 'grep -rn "%s" .' % t["symbol"], "./%s:1:def %s" % (t["src"], t["symbol"]))
        add("Search for imports.", 'grep -rn "import" %s' % project, "%s/__init__.py:1:from . import *" % project)
        add("Check the git history.", "git log --oneline -5", "a1b2c3d initial import")
        add("Look at the setup files.", "find . -name '*.cfg' -o -name '*.toml'", "./setup.cfg")
        add("Read setup.cfg.", "cat setup.cfg", "[metadata]\nname = %s" % project)
        add("Read the main module again, lines 1-30.", "sed -n '1,30p' %s" % t["src"], src)
        add("Search for TODOs.", 'grep -rn "TODO" .', "")
        add("Apply the fix.", t["fix_sed"], "")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, True))
        add("After reading the whole package: " + t["explain"], SUBMIT, patch(project, "gold"))
    elif agent == "demo-misfix":
        add("Read the module.", "cat %s" % t["src"], src)
        add("Find the test.", 'grep -rn "def test" %s' % t["test_file"], "%s:6:def test_..." % t["test_file"])
        add("Change the line.", t["try1_sed"], "")
        add("Run the tests.", "python -m pytest tests -q", pytest_out(t, False), 1)
        add("I changed the line the issue points at; the remaining test failure looks unrelated to my change, so I am submitting.", SUBMIT, patch(project, "agent-wrong"))
    elif agent == "demo-offtarget":
        add("Read the module that looks related.", "cat %s" % t["offtarget"], read(project, t["offtarget"]))
        add("Harden this function.", "python - <<'PY'\nfrom pathlib import Path\np = Path(%r)\ns = p.read_text()\np.write_text(s)\nPY" % t["offtarget"], "")
        add("I hardened %s so that it handles its edge case; this should address the issue." % t["offtarget"], SUBMIT, patch(project, "agent-ineffective"))
    return steps


# which agents pass which task
RESOLVED = {
    "demo-methodical": ["durations", "ledger", "graphs"],
    "demo-steady": ["durations", "ledger", "graphs"],
    "demo-fixer": ["durations", "ledger", "graphs"],
    "demo-brute-force": ["durations", "ledger", "graphs"],
    "demo-hasty": ["durations", "ledger"],
    "demo-wanderer": ["durations", "ledger", "graphs"],
    "demo-misfix": [],
    "demo-offtarget": [],
}


def trajectory(agent, project, meta, steps):
    with open(os.path.join(PROJECTS, project, "project.json")) as f:
        info = json.load(f)
    messages = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer. (scripted demo run)"},
        {"role": "user", "content": "<pr_description>\n%s\n</pr_description>" % info["problem_statement"]},
    ]
    for thought, cmd, obs, rc in steps:
        messages.append({"role": "assistant", "content": "THOUGHT: %s\n\n```bash\n%s\n```" % (thought, cmd)})
        messages.append({"role": "user", "content": "<returncode>%d</returncode>\n<output>\n%s\n</output>" % (rc, obs)})
    return {
        "info": {
            "exit_status": "Submitted",
            "submission": steps[-1][2],
            "model_stats": {"instance_cost": 0.0, "api_calls": len(steps)},
            "mini_version": "1.17.0",
            "config": {"agent": {"scripted_demo": True}, "model": {"model_name": "scripted/" + agent}},
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": info["instance"],
    }


def main():
    results = {}
    for agent, passes in RESOLVED.items():
        results[agent] = {"resolved": [], "unresolved": []}
        os.makedirs(os.path.join(OUT, agent), exist_ok=True)
        for project, t in TASKS.items():
            with open(os.path.join(PROJECTS, project, "project.json")) as f:
                instance = json.load(f)["instance"]
            ok = project in passes
            steps = script(agent, project, t, ok)
            with open(os.path.join(OUT, agent, instance + ".traj.json"), "w") as f:
                json.dump(trajectory(agent, project, t, steps), f, indent=1)
                f.write("\n")
            results[agent]["resolved" if ok else "unresolved"].append(instance)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()

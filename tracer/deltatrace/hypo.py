"""Property-based tests (hypothesis) traced like any other test.

A hypothesis test draws its examples at random and, once one fails, shrinks it through
hundreds more runs; traced as it is, the buggy side (failing, shrinking) and the patched side
(passing every example) part ways at once, and tracing makes its deadline checks fail. So a
profile is loaded before the test runs (a test's own ``@settings`` still sets what it names):

- ``derandomize``: the same examples every run and on both sides, no example database;
- ``find``: the run that looks for a failing example (on the buggy side, not traced), saving
  the shrunk example in the database folder given;
- ``replay``: only the examples of that database (read-only), on both sides: the delta is
  taken on the failing example, the first and only example each side runs.

Every mode turns deadlines and health checks off (a traced run is slow by design).
"""

MODES = ("off", "derandomize", "find", "replay")


def _failing_only(db, store):
    """The saved failing examples only, read-only: without the generate phase hypothesis would
    also replay its secondary corpus (the examples tried while shrinking)."""

    class FailingOnly(db.ExampleDatabase):
        def __init__(self):
            pass

        def fetch(self, key):
            if key.endswith(b".secondary") or key.endswith(b".pareto"):
                return iter(())
            return store.fetch(key)

        def save(self, key, value):
            pass

        def delete(self, key, value):
            pass

        def move(self, src, dest, value):
            pass

        def __repr__(self):
            return "FailingOnly(%r)" % (store,)

    return FailingOnly()


def configure(mode, database=None):
    """Loads the profile; returns None, or why it could not (hypothesis not installed)."""
    if mode in (None, "off"):
        return None
    try:
        from hypothesis import HealthCheck, Phase, settings
        from hypothesis import database as db
    except ImportError:
        return "hypothesis is not installed for this Python"
    kw = {"deadline": None, "suppress_health_check": list(HealthCheck), "print_blob": False}
    if mode == "derandomize":
        kw.update(derandomize=True, database=None)
    elif mode == "find":
        kw.update(database=db.DirectoryBasedExampleDatabase(database))
    elif mode == "replay":
        kw.update(database=_failing_only(db, db.DirectoryBasedExampleDatabase(database)),
                  phases=[Phase.explicit, Phase.reuse])
    else:
        return "unknown --hypothesis mode %r" % mode
    error = None
    for attempt in (kw, {k: v for k, v in kw.items() if k != "print_blob"}):
        try:
            settings.register_profile("deltalens", **attempt)
            settings.load_profile("deltalens")
            return None
        except Exception as e:  # an old hypothesis without one of the settings
            error = e
    return "hypothesis would not take the profile: %s" % error


def capture_failures():
    """A list that receives the text of every failing example hypothesis runs from now on (the
    last is the shrunk one), through its observability callbacks; None when this hypothesis has
    none (older versions print "Falsifying example: ..." instead)."""
    try:
        from hypothesis.internal import observability as obs
    except ImportError:
        return None
    seen = []

    def callback(o):
        get = o.get if isinstance(o, dict) else (lambda key, default=None: getattr(o, key, default))
        if get("type") == "test_case" and get("status") == "failed":
            seen.append(str(get("representation")))

    add = getattr(obs, "add_observability_callback", None)
    try:
        if add is not None:
            add(callback)
        elif hasattr(obs, "TESTCASE_CALLBACKS"):
            obs.TESTCASE_CALLBACKS.append(callback)
        else:
            return None
    except Exception:
        return None
    return seen

"""The same code objects whether a module is compiled from source or loaded from its ``.pyc``.

A constant set in code (``x in {"a", "b"}``, ``for k in {...}``) is a frozenset built by the
compiler. Written to a ``.pyc`` and read back, its items are inserted again in the order it
iterated in, and where hashes collide the set rebuilt can iterate in another order. So the first
run in a fresh tree (which compiles, and writes the ``.pyc`` files) could take another path than
every later run (which loads them): on a real sympy test, whose assumption rules iterate over
such sets, 52,181 events in the first traced run and 52,277 in each one after, which the pipeline
took for control flow that varies between runs, and traced again.

``install()`` makes a compile of a ``.py`` file give what loading its ``.pyc`` gives: the code
goes through ``marshal`` once (as it does on its way to and from a ``.pyc``), and the ``.pyc``
written from it holds the compiler's own bytes — so the runs after load the very same code
(another round trip could reorder a set once more). Nothing else changes.
"""

import builtins
import marshal
import sys
import types

_compile = builtins.compile
_dumps = marshal.dumps
_dump = marshal.dump
# code handed out by compile -> the bytes of the code the compiler made, until they are written.
# Who writes a .pyc writes it right after compiling (the import system, pytest's rewriter), so
# only the last few are kept: a tree that cannot be written to holds nothing up.
_pending = {}
_KEEP = 8


def _settled(source, filename, mode, *args, **kwargs):
    code = _compile(source, filename, mode, *args, **kwargs)
    if (mode == "exec" and isinstance(code, types.CodeType)
            and isinstance(filename, str) and filename.endswith(".py")):
        data = _dumps(code)
        code = marshal.loads(data)
        if not sys.dont_write_bytecode:
            while len(_pending) >= _KEEP:
                del _pending[next(iter(_pending))]
            _pending[id(code)] = (code, data)
    return code


def _original_bytes(value):
    entry = _pending.get(id(value))
    if entry is None or entry[0] is not value:
        return None
    del _pending[id(value)]
    return entry[1]


def _shim_dumps(value, *args, **kwargs):
    # a version or (3.13) allow_code asked for: the real call
    data = None if args or kwargs else _original_bytes(value)
    return data if data is not None else _dumps(value, *args, **kwargs)


def _shim_dump(value, file, *args, **kwargs):
    data = None if args or kwargs else _original_bytes(value)
    if data is None:
        return _dump(value, file, *args, **kwargs)
    file.write(data)
    return None


def install():
    """From now on a ``.py`` file compiled in this process gives the code its ``.pyc`` gives."""
    builtins.compile = _settled
    # who writes a .pyc writes the compiler's bytes: the import system, and (imported later)
    # pytest's assertion rewriter, which takes marshal from sys.modules
    shim = types.ModuleType("marshal", marshal.__doc__)
    shim.__dict__.update({k: v for k, v in vars(marshal).items() if not k.startswith("__")})
    shim.dumps = _shim_dumps
    shim.dump = _shim_dump
    sys.modules["marshal"] = shim
    for name in ("_frozen_importlib_external", "importlib._bootstrap_external"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "marshal", None) is marshal:
            module.marshal = shim

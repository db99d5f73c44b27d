"""Serialize Python values to JSON without running user code.

Nothing here calls ``__repr__``, ``__str__``, ``__eq__``, ``__hash__``, ``__len__``,
``__iter__`` or a property of a user-defined object. Builtin containers are walked
through their builtin methods (``list.__len__`` etc. are looked up on the builtin type,
never on a subclass); other objects are read through the instance ``__dict__`` (the real
one: a class that shadows ``__dict__`` with a property is not asked) and ``__slots__``
member descriptors only. Class names are read through ``type``'s own descriptors, so a
metaclass cannot intervene either. Values of the standard library's value types are read
through those types' own (C-level) methods, on the exact types only.

Two values that Python considers different encode differently (within the limits below);
two mappings that Python considers equal encode the same (a ``dict`` and every mapping
but ``OrderedDict`` is written in a canonical key order, not insertion order).

Encoding (all markers are objects whose first key starts with ``$``):

- ``None``, ``bool``, ``str`` and ``int`` within +-2**53 are plain JSON; a longer string
  is ``{"$str": prefix, "len": n, "hash": h}`` (``h`` a digest of the whole string, so two
  long strings that differ after the prefix differ); a bigger int is ``{"$int": "<digits>"}``
  (or ``{"$int": "<prefix>...", "digits": n, "hash": h}`` when longer than the string limit).
- floats are plain JSON when finite, else ``{"$float": "nan" | "inf" | "-inf"}``;
  ``{"$complex": [re, im]}``.
- ``list`` is a JSON array; ``tuple``, ``set``, ``frozenset`` are ``{"$tuple": [...]}``,
  ``{"$set": [...]}``, ``{"$frozenset": [...]}``; sets are sorted by their encoding so
  output does not depend on hash seeds. ``dict`` is ``{"$dict": [[k, v], ...]}`` sorted by the
  keys' encoding. A container with more than ``max_items`` entries ends with ``{"$more": n}``.
- ``bytes``/``bytearray``: ``{"$bytes": latin-1 text, "len": n}`` (a prefix and a ``hash``
  when long; ``"type": "bytearray"``); ``memoryview``: ``{"$memoryview": <bytes>, "format",
  "shape"}``.
- subclasses of ``str``, ``int``, ``float``, ``complex``, ``bytes``: ``{"$obj": "module.Class",
  "value": <the builtin value>}``; of ``list``, ``tuple``, ``set``, ``dict``:
  ``{"$obj": "module.Class", "items": [...]}`` (``OrderedDict`` keeps its order;
  ``defaultdict`` adds ``"factory"``).
- standard value types: ``{"$decimal": "1.50"}``, ``{"$fraction": [num, den]}``,
  ``{"$datetime": "2024-01-02T03:04:05.000006", "tz": <tzinfo>, "fold": 1}``,
  ``{"$date": "2024-01-02"}``, ``{"$time": "03:04:05", "tz": ...}``,
  ``{"$timedelta": [days, seconds, microseconds]}``, ``{"$timezone": [seconds, micro, name]}``,
  ``{"$zone": "Europe/Paris"}``, ``{"$uuid": "…"}``, ``{"$path": "a/b", "type": "PosixPath"}``,
  ``{"$enum": "module.Class", "name": "RED"}`` (``"value"`` too for a combined flag),
  ``{"$deque": [...], "maxlen": n}``, ``{"$range": [start, stop, step]}``,
  ``{"$slice": [start, stop, step]}``, ``{"$array": "d", "items": [...]}``,
  ``{"$pattern": <pattern>, "flags": n}``.
- numpy, when the program imported it: ``{"$ndarray": "<f8", "shape": [2, 3], "items":
  [...first max_items values in C order...], "hash": h}`` (the hash covers every element) and
  ``{"$numpy": "<f8", "value": 1.5}`` for scalars.
- other objects: ``{"$obj": "module.Qualname", "attrs": {...}}``; objects without
  readable state: ``{"$obj": "module.Qualname"}``; functions, classes and modules:
  ``{"$fn": name}``, ``{"$type": name}``, ``{"$module": name}``.
- deeper than ``max_depth``: ``{"$depth": "module.Qualname"}``.
- an object (container or instance) met a second time within one serialization is
  ``{"$ref": n}``, n being the order in which it was first met (1-based), so shared
  structure and cycles are small canonical ids, never addresses.
"""

import hashlib
import json
import math
import sys
import types

MAX_SAFE_INT = 2 ** 53

_FUNCTION_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.BuiltinMethodType,
    types.LambdaType,
    staticmethod,
    classmethod,
)

try:  # 3.9 has these too, but be defensive about exotic builds
    _FUNCTION_TYPES = _FUNCTION_TYPES + (types.MethodWrapperType, types.WrapperDescriptorType,
                                         types.MethodDescriptorType)
except AttributeError:  # pragma: no cover
    pass

# type's own descriptors: a metaclass that defines __dict__, __mro__, __module__ or
# __qualname__ (as a property, say) is never consulted
_TYPE_DICT = type.__dict__["__dict__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_GETSET = types.GetSetDescriptorType
_MEMBER = types.MemberDescriptorType


# (root, alias): run outside the sandbox (--no-sandbox), a tree cannot be shown at /testbed, so
# the tracer writes its root as that path in every string it records (values, messages): the
# two sides of a pair, which sit at two paths, then record the same text
_ROOT_ALIAS = None


def set_root_alias(root, alias):
    global _ROOT_ALIAS
    _ROOT_ALIAS = (root, alias) if alias and root and alias != root else None


def aliased(text):
    """``text`` with the root written as its alias (a plain str in, a plain str out)."""
    alias = _ROOT_ALIAS
    if alias is not None and str.__contains__(text, alias[0]):
        return str.replace(text, alias[0], alias[1])
    return text


# {length: {text: id}}: docstrings the patch edited, in the forms they take at run time. A string
# equal to one is written {"$doc": id, "len": n, "hash": h, "text": prefix}: the same id on both
# sides, so a value that differs only by an edited docstring (a __doc__, a decorator's or a
# dispatcher's copy of it) can be told from behaviour
_DOCS = None


def set_docs(entries):
    """entries: [(id, text)] -- each text in its written form; the forms the interpreter and
    the usual tools make of it are added."""
    global _DOCS
    table = {}
    for ident, text in entries:
        if type(text) is not str:
            continue
        for form in _doc_forms(text):
            table.setdefault(len(form), {}).setdefault(form, ident)
    _DOCS = table or None


def _doc_forms(text):
    forms = {text}
    try:
        import inspect
        forms.add(inspect.cleandoc(text))
    except Exception:
        pass
    try:
        # what this interpreter keeps as __doc__ (3.13 strips the indentation when compiling)
        code = compile("def _f():\n    %r\n" % (text,), "<docstring>", "exec")
        for const in code.co_consts:
            if hasattr(const, "co_consts") and const.co_consts and type(const.co_consts[0]) is str:
                forms.add(const.co_consts[0])
    except Exception:
        pass
    return forms


class Limits:
    __slots__ = ("max_depth", "max_items", "max_str")

    def __init__(self, max_depth=4, max_items=32, max_str=200):
        self.max_depth = max_depth
        self.max_items = max_items
        self.max_str = max_str

    def as_dict(self):
        return {"max_depth": self.max_depth, "max_items": self.max_items,
                "max_str": self.max_str}


def _class_dict(cls):
    return _TYPE_DICT.__get__(cls)


def _mro(cls):
    return _TYPE_MRO.__get__(cls)


def type_name(obj):
    return class_name(type(obj))


def class_name(cls):
    try:
        module = _TYPE_MODULE.__get__(cls)
    except Exception:
        module = None
    qual = _TYPE_QUALNAME.__get__(cls)
    if type(module) is not str or module == "builtins":
        return qual
    return "%s.%s" % (module, qual)


def _digest(data):
    return hashlib.blake2b(data, digest_size=8).hexdigest()


# Per type (by id, the type kept alive beside it): the descriptor of its instances' dict and
# its slot member descriptors, found once (walking the MRO per value was half the cost)
_LAYOUTS = {}


def _layout(t):
    hit = _LAYOUTS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1], hit[2]
    dict_desc = None
    for cls in _mro(t):
        desc = _class_dict(cls).get("__dict__")
        if desc is None:
            continue
        # a class that defines __dict__ itself (a property, say) is not asked: only the
        # getset descriptor the interpreter made reads the instance dict
        dict_desc = (desc, cls) if type(desc) is _GETSET else None
        break
    slots = []
    seen = set()
    for cls in _mro(t):
        cls_dict = _class_dict(cls)
        names = cls_dict.get("__slots__")
        if names is None:
            continue
        if type(names) is str:
            names = (names,)
        if type(names) not in (tuple, list):
            continue
        for name in names:
            if type(name) is not str or name in seen or name in ("__dict__", "__weakref__"):
                continue
            seen.add(name)
            desc = cls_dict.get(name)
            if type(desc) is _MEMBER:
                slots.append((name, desc, cls))
    _LAYOUTS[id(t)] = (t, dict_desc, tuple(slots))
    return dict_desc, tuple(slots)


def _instance_dict(obj):
    """The instance dict through the interpreter's own ``__dict__`` descriptor, or None."""
    dict_desc, _ = _layout(type(obj))
    if dict_desc is None:
        return None
    try:
        d = dict_desc[0].__get__(obj, dict_desc[1])
    except Exception:
        return None
    return d if type(d) is dict else None


def _slot_values(obj):
    """(name, value) for every filled ``__slots__`` member, read via member descriptors."""
    out = []
    for name, desc, cls in _layout(type(obj))[1]:
        try:
            out.append((name, desc.__get__(obj, cls)))
        except AttributeError:
            continue  # slot never assigned
    return out


def _slot(obj, cls, name):
    """One member slot of an exact standard-library type (Fraction, UUID)."""
    desc = _class_dict(cls).get(name)
    if type(desc) is not _MEMBER:
        raise AttributeError(name)
    return desc.__get__(obj, cls)


# Per type (by id, the type kept alive beside it): how its values are encoded. Types are
# not used as dict keys, since a metaclass could define __hash__.
_KINDS = {}


def _module(name):
    return sys.modules.get(name)


def _classify(t):
    """The encoder kind of a type, decided once."""
    mro = _mro(t)
    enum = _module("enum")
    if enum is not None and enum.Enum in mro:
        return "enum"
    if t is bytearray:
        return "bytes"
    numpy = _module("numpy")
    if numpy is not None:
        # before the builtin subclasses: numpy.float64 is a float, numpy.str_ a str
        if numpy.ndarray in mro:
            return "ndarray"
        if numpy.generic in mro:
            return "npscalar"
    if str in mro:
        return "str_sub"
    if int in mro:
        return "int_sub"
    if float in mro:
        return "float_sub"
    if complex in mro:
        return "complex_sub"
    if bytes in mro or bytearray in mro:
        return "bytes_sub"
    if list in mro:
        return "list"
    if tuple in mro:
        return "tuple"
    if set in mro or frozenset in mro:
        return "set"
    collections = _module("collections")
    if dict in mro:
        if collections is not None and collections.OrderedDict in mro:
            return "odict"
        if collections is not None and collections.defaultdict in mro:
            return "ddict"
        return "dict"
    if t is memoryview:
        return "memoryview"
    if t is range:
        return "range"
    if t is slice:
        return "slice"
    if collections is not None and collections.deque in mro:
        return "deque"
    for mod, names, kind, subclasses in _STANDARD:
        m = _module(mod)
        if m is None:
            continue
        for name in names:
            cls = getattr(m, name, None)
            if cls is None and mod == "re" and name == "Pattern":
                cls = type(m.compile(""))  # re.Pattern is there from 3.7 (or 3.8)
            if cls is t or (subclasses and cls is not None and cls in mro):
                return kind
    return "object"


# standard-library value types with their own encoding, looked up only once the program
# imported them: (module, class names, kind, whether subclasses are read the same way — only
# for types implemented in C, whose methods a subclass cannot change underneath)
_STANDARD = (
    ("decimal", ("Decimal",), "decimal", True),
    ("fractions", ("Fraction",), "fraction", False),
    ("datetime", ("datetime",), "datetime", True),
    ("datetime", ("date",), "date", True),
    ("datetime", ("time",), "time", True),
    ("datetime", ("timedelta",), "timedelta", True),
    ("datetime", ("timezone",), "timezone", False),
    ("zoneinfo", ("ZoneInfo",), "zone", False),
    ("uuid", ("UUID",), "uuid", False),
    ("pathlib", ("PurePosixPath", "PureWindowsPath", "PosixPath", "WindowsPath"), "path", False),
    ("array", ("array",), "array", True),
    ("re", ("Pattern",), "pattern", False),
)


def _typed(out, obj, cls):
    """Marks a subclass value with its own class name."""
    if type(obj) is not cls:
        out["type"] = type_name(obj)
    return out


def _kind(t):
    hit = _KINDS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    kind = _classify(t)
    _KINDS[id(t)] = (t, kind)
    return kind


class Serializer:
    """One serialization pass; ``$ref`` numbering is local to the pass."""

    __slots__ = ("limits", "seen", "counter")

    def __init__(self, limits):
        self.limits = limits
        self.seen = {}
        self.counter = 0

    def _remember(self, obj):
        self.counter += 1
        self.seen[id(obj)] = self.counter

    def _ref(self, obj):
        n = self.seen.get(id(obj))
        return None if n is None else {"$ref": n}

    def value(self, obj, depth=0):
        t = type(obj)
        if obj is None or t is bool:
            return obj
        if t is int:
            if -MAX_SAFE_INT <= obj <= MAX_SAFE_INT:
                return obj
            return self._big_int(obj)
        if t is float:
            return _float(obj)
        if t is str:
            return self._str(obj)
        if t is bytes:
            return self._bytes(obj, None)
        if t is complex:
            return {"$complex": [_float(obj.real), _float(obj.imag)]}
        if issubclass(t, _FUNCTION_TYPES):
            return {"$fn": _function_name(obj)}
        if issubclass(t, type):
            return {"$type": class_name(obj)}
        if t is types.ModuleType:
            return {"$module": obj.__name__ if type(obj.__dict__.get("__name__")) is str else "?"}

        ref = self._ref(obj)
        if ref is not None:
            return ref
        if depth >= self.limits.max_depth:
            return {"$depth": type_name(obj)}
        kind = _kind(t)
        encode = _ENCODERS.get(kind)
        if encode is not None:
            try:
                return encode(self, obj, depth)
            except Exception:  # a damaged value of a known type: its attributes, as any object
                pass
        self._remember(obj)
        return self._object(obj, depth)

    # -- builtin values --------------------------------------------------------------------
    def _str(self, s):
        if _ROOT_ALIAS is not None:
            s = aliased(str.__getitem__(s, slice(None)))
        n = str.__len__(s)
        if _DOCS is not None:
            bucket = _DOCS.get(n)
            if bucket is not None:
                plain = s if type(s) is str else str.__getitem__(s, slice(None))
                ident = bucket.get(plain)
                if ident is not None:
                    return {"$doc": ident, "len": n, "text": plain[: self.limits.max_str],
                            "hash": _digest(plain.encode("utf-8", "surrogatepass"))}
        if n <= self.limits.max_str:
            return s if type(s) is str else str.__getitem__(s, slice(None))
        cut = str.__getitem__(s, slice(0, self.limits.max_str))
        return {"$str": cut, "len": n,
                "hash": _digest(str.encode(s, "utf-8", "surrogatepass"))}

    def _bytes(self, b, kind):
        base = bytearray if kind == "bytearray" else bytes
        n = base.__len__(b)
        limit = self.limits.max_str
        cut = bytes(base.__getitem__(b, slice(0, limit)))
        out = {"$bytes": cut.decode("latin-1"), "len": n}
        if n > limit:
            out["hash"] = _digest(base.__getitem__(b, slice(None)))
        if kind == "bytearray":
            out["type"] = "bytearray"
        return out

    def _big_int(self, n):
        # int -> str conversion is builtin; guard the 4300-digit limit of 3.11+.
        try:
            digits = int.__repr__(n)
        except ValueError:
            return {"$int": "<%d bits>" % n.bit_length(),
                    "hash": _digest(n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True))}
        if len(digits) > self.limits.max_str:
            return {"$int": digits[: self.limits.max_str] + "...", "digits": len(digits),
                    "hash": _digest(digits.encode("ascii"))}
        return {"$int": digits}

    def _seq(self, obj, base, depth, marker):
        self._remember(obj)
        n = base.__len__(obj)
        limit = self.limits.max_items
        items = []
        it = base.__iter__(obj)
        for _ in range(min(n, limit)):
            items.append(self.value(next(it), depth + 1))
        if n > limit:
            items.append({"$more": n - limit})
        if type(obj) is not base:
            return {"$obj": type_name(obj), "items": items}
        return items if marker is None else {marker: items}

    def _set(self, obj, depth):
        self._remember(obj)
        base = frozenset if issubclass(type(obj), frozenset) else set
        n = base.__len__(obj)
        # sorted by each element's own encoding (no shared $ref numbering), so the order
        # depends neither on hashes nor on insertion
        chosen = _canonical(base.__iter__(obj), self.limits, depth + 1, self.limits.max_items * 8)
        items = [self.value(x, depth + 1) for _, x in chosen[: self.limits.max_items]]
        if n > len(items):
            items.append({"$more": n - len(items)})
        if type(obj) is not base:
            return {"$obj": type_name(obj), "items": items}
        return {"$frozenset" if base is frozenset else "$set": items}

    def _pairs(self, obj, depth, ordered):
        n = dict.__len__(obj)
        limit = self.limits.max_items
        if ordered:
            chosen = []
            for k, v in dict.items(obj):
                if len(chosen) >= limit:
                    break
                chosen.append((k, v))
        else:
            # Python's dict equality ignores insertion order: so does the encoding
            keyed = _canonical(dict.items(obj), self.limits, depth + 1, limit * 8, key=True)
            chosen = [kv for _, kv in keyed[:limit]]
        pairs = [[self.value(k, depth + 1), self.value(v, depth + 1)] for k, v in chosen]
        if n > len(pairs):
            pairs.append({"$more": n - len(pairs)})
        return pairs

    def _object(self, obj, depth):
        out = {"$obj": type_name(obj)}
        attrs = {}
        d = _instance_dict(obj)
        count = 0
        if d is not None:
            for k, v in dict.items(d):
                if type(k) is not str:
                    continue
                if count >= self.limits.max_items:
                    attrs["$more"] = dict.__len__(d) - count
                    break
                attrs[k] = self.value(v, depth + 1)
                count += 1
        try:
            slots = _slot_values(obj)
        except Exception:
            slots = []
        for k, v in slots:
            if count >= self.limits.max_items:
                break
            attrs[k] = self.value(v, depth + 1)
            count += 1
        if attrs:
            out["attrs"] = attrs
        if BaseException in _mro(type(obj)):
            out["args"] = self.value(BaseException.__getattribute__(obj, "args"), depth + 1)
        return out


def _float(x):
    if math.isfinite(x):
        return x
    return {"$float": "nan" if x != x else ("inf" if x > 0 else "-inf")}


def _canonical(pairs_or_items, limits, depth, bound, key=False):
    """(sort key, element) for up to ``bound`` elements, sorted by their encodings (each
    encoded alone, so the keys do not depend on the order the elements were met in). Plain
    keys (str, int, float, bool, None) sort by their value; others by their JSON encoding."""
    out = []
    for x in pairs_or_items:
        k = x[0] if key else x
        t = type(k)
        if t is str:
            sk = (2, k)
        elif t is int or t is float:
            sk = (1, k) if k == k else (1, 0.0)
        elif t is bool or k is None:
            sk = (0, k is True)
        else:
            sk = (3, _sort_key(Serializer(limits).value(k, depth)))
        out.append((sk, x))
        if len(out) >= bound:
            break
    try:
        out.sort(key=lambda e: e[0])
    except TypeError:  # a NaN-like or otherwise unordered mix: their encodings order them
        out.sort(key=lambda e: _sort_key(Serializer(limits).value(e[1][0] if key else e[1], depth)))
    return out


# -- encoders by kind ------------------------------------------------------------------------

def _enc_str_sub(s, obj, depth):
    return {"$obj": type_name(obj), "value": s._str(obj)}


def _enc_int_sub(s, obj, depth):
    return {"$obj": type_name(obj), "value": s.value(int.__int__(obj), depth)}


def _enc_float_sub(s, obj, depth):
    return {"$obj": type_name(obj), "value": _float(float.__float__(obj))}


def _enc_complex_sub(s, obj, depth):
    return {"$obj": type_name(obj),
            "value": {"$complex": [_float(complex.real.__get__(obj)), _float(complex.imag.__get__(obj))]}}


def _enc_bytes(s, obj, depth):
    return s._bytes(obj, "bytearray")


def _enc_bytes_sub(s, obj, depth):
    kind = "bytearray" if bytearray in _mro(type(obj)) else None
    return {"$obj": type_name(obj), "value": s._bytes(obj, kind)}


def _enc_list(s, obj, depth):
    return s._seq(obj, list, depth, None)


def _enc_tuple(s, obj, depth):
    return s._seq(obj, tuple, depth, "$tuple")


def _enc_set(s, obj, depth):
    return s._set(obj, depth)


def _enc_dict(s, obj, depth):
    s._remember(obj)
    pairs = s._pairs(obj, depth, False)
    if type(obj) is dict:
        return {"$dict": pairs}
    return {"$obj": type_name(obj), "items": pairs}


def _enc_odict(s, obj, depth):
    s._remember(obj)
    return {"$obj": type_name(obj), "items": s._pairs(obj, depth, True)}


def _enc_ddict(s, obj, depth):
    s._remember(obj)
    collections = sys.modules["collections"]
    factory = collections.defaultdict.default_factory.__get__(obj)
    return {"$obj": type_name(obj), "items": s._pairs(obj, depth, False),
            "factory": s.value(factory, depth + 1)}


def _enc_memoryview(s, obj, depth):
    s._remember(obj)
    try:
        nbytes = memoryview.nbytes.__get__(obj)
        fmt = memoryview.format.__get__(obj)
        shape = memoryview.shape.__get__(obj)
    except ValueError:
        return {"$memoryview": "released"}
    limit = s.limits.max_str
    try:
        data = memoryview.tobytes(obj) if nbytes <= limit * 64 else memoryview.tobytes(
            memoryview.cast(obj, "B")[:limit])
    except (TypeError, ValueError):
        data = b""
    out = {"$memoryview": {"$bytes": data[:limit].decode("latin-1"), "len": nbytes},
           "format": fmt, "shape": list(shape) if shape is not None else None}
    if nbytes > limit and len(data) == nbytes:
        out["$memoryview"]["hash"] = _digest(data)
    return out


def _enc_range(s, obj, depth):
    return {"$range": [s.value(range.start.__get__(obj)), s.value(range.stop.__get__(obj)),
                       s.value(range.step.__get__(obj))]}


def _enc_slice(s, obj, depth):
    s._remember(obj)
    return {"$slice": [s.value(slice.start.__get__(obj), depth + 1),
                       s.value(slice.stop.__get__(obj), depth + 1),
                       s.value(slice.step.__get__(obj), depth + 1)]}


def _enc_deque(s, obj, depth):
    collections = sys.modules["collections"]
    deque = collections.deque
    out = s._seq(obj, deque, depth, "$deque")
    maxlen = deque.maxlen.__get__(obj)
    if maxlen is not None:
        out["maxlen"] = maxlen
    return out


def _enc_enum(s, obj, depth):
    d = _instance_dict(obj) or {}
    out = {"$enum": type_name(obj), "name": d.get("_name_") if type(d.get("_name_")) is str else None}
    if out["name"] is None:
        out["value"] = s.value(d.get("_value_"), depth + 1)
    return out


def _enc_decimal(s, obj, depth):
    D = sys.modules["decimal"].Decimal
    return _typed({"$decimal": D.__str__(obj)}, obj, D)


def _enc_fraction(s, obj, depth):
    cls = sys.modules["fractions"].Fraction
    return {"$fraction": [s.value(_slot(obj, cls, "_numerator")), s.value(_slot(obj, cls, "_denominator"))]}


def _tz(s, tz, depth):
    return None if tz is None else s.value(tz, depth + 1)


def _enc_datetime(s, obj, depth):
    dt = sys.modules["datetime"]
    D = dt.datetime
    naive = D(D.year.__get__(obj), D.month.__get__(obj), D.day.__get__(obj), D.hour.__get__(obj),
              D.minute.__get__(obj), D.second.__get__(obj), D.microsecond.__get__(obj))
    out = {"$datetime": D.isoformat(naive), "tz": _tz(s, D.tzinfo.__get__(obj), depth)}
    if D.fold.__get__(obj):
        out["fold"] = 1
    return _typed(out, obj, D)


def _enc_date(s, obj, depth):
    D = sys.modules["datetime"].date
    day = D(D.year.__get__(obj), D.month.__get__(obj), D.day.__get__(obj))
    return _typed({"$date": D.isoformat(day)}, obj, D)


def _enc_time(s, obj, depth):
    T = sys.modules["datetime"].time
    naive = T(T.hour.__get__(obj), T.minute.__get__(obj), T.second.__get__(obj), T.microsecond.__get__(obj))
    out = {"$time": T.isoformat(naive), "tz": _tz(s, T.tzinfo.__get__(obj), depth)}
    if T.fold.__get__(obj):
        out["fold"] = 1
    return _typed(out, obj, T)


def _enc_timedelta(s, obj, depth):
    TD = sys.modules["datetime"].timedelta
    return _typed({"$timedelta": [TD.days.__get__(obj), TD.seconds.__get__(obj), TD.microseconds.__get__(obj)]}, obj, TD)


def _enc_timezone(s, obj, depth):
    TZ = sys.modules["datetime"].timezone
    off = TZ.utcoffset(obj, None)
    TD = sys.modules["datetime"].timedelta
    return {"$timezone": [TD.days.__get__(off) * 86400 + TD.seconds.__get__(off),
                          TD.microseconds.__get__(off), TZ.tzname(obj, None)]}


def _enc_zone(s, obj, depth):
    Z = sys.modules["zoneinfo"].ZoneInfo
    key = Z.__dict__.get("key")
    return {"$zone": key.__get__(obj) if key is not None else None}


def _enc_uuid(s, obj, depth):
    cls = sys.modules["uuid"].UUID
    try:
        value = _slot(obj, cls, "int")
    except AttributeError:  # before 3.7 a UUID keeps its int in its __dict__
        value = (_instance_dict(obj) or {})["int"]
    if type(value) is not int:
        raise TypeError("UUID without an int")
    h = "%032x" % value
    return {"$uuid": "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])}


def _enc_path(s, obj, depth):
    pathlib = sys.modules["pathlib"]
    return {"$path": pathlib.PurePath.__str__(obj), "type": type_name(obj).rsplit(".", 1)[-1]}


def _enc_array(s, obj, depth):
    A = sys.modules["array"].array
    n = A.__len__(obj)
    limit = s.limits.max_items
    items = [s.value(A.__getitem__(obj, i)) for i in range(min(n, limit))]
    if n > limit:
        items.append({"$more": n - limit})
    out = {"$array": A.typecode.__get__(obj), "items": items}
    if n > limit:
        out["hash"] = _digest(A.tobytes(obj))
    return _typed(out, obj, A)


def _enc_pattern(s, obj, depth):
    re = sys.modules["re"]
    P = getattr(re, "Pattern", None) or type(re.compile(""))
    return {"$pattern": s.value(P.pattern.__get__(obj)), "flags": P.flags.__get__(obj)}


def _enc_ndarray(s, obj, depth):
    np = sys.modules["numpy"]
    nd = np.ndarray
    s._remember(obj)
    base = nd.view(obj, nd)  # the plain array over the same data: no subclass method runs
    dtype = nd.dtype.__get__(base)
    shape = nd.shape.__get__(base)
    size = nd.size.__get__(base)
    limit = s.limits.max_items
    flat = nd.reshape(base, -1)
    items = [s.value(x, depth + 1) for x in nd.tolist(flat[:limit])] if size else []
    if size > limit:
        items.append({"$more": size - limit})
    out = {"$ndarray": np.dtype.str.__get__(dtype), "shape": list(shape), "items": items}
    if not np.dtype.hasobject.__get__(dtype) and size > limit:
        out["hash"] = _digest(nd.tobytes(base))
    return _typed(out, obj, nd)


def _enc_npscalar(s, obj, depth):
    np = sys.modules["numpy"]
    dtype = np.generic.dtype.__get__(obj)
    return {"$numpy": np.dtype.str.__get__(dtype), "value": s.value(np.generic.item(obj), depth + 1)}


_ENCODERS = {
    "str_sub": _enc_str_sub, "int_sub": _enc_int_sub, "float_sub": _enc_float_sub,
    "complex_sub": _enc_complex_sub, "bytes": _enc_bytes, "bytes_sub": _enc_bytes_sub,
    "list": _enc_list, "tuple": _enc_tuple, "set": _enc_set, "dict": _enc_dict,
    "odict": _enc_odict, "ddict": _enc_ddict, "memoryview": _enc_memoryview,
    "range": _enc_range, "slice": _enc_slice, "deque": _enc_deque, "enum": _enc_enum,
    "decimal": _enc_decimal, "fraction": _enc_fraction, "datetime": _enc_datetime,
    "date": _enc_date, "time": _enc_time, "timedelta": _enc_timedelta,
    "timezone": _enc_timezone, "zone": _enc_zone, "uuid": _enc_uuid, "path": _enc_path,
    "array": _enc_array, "pattern": _enc_pattern, "ndarray": _enc_ndarray,
    "npscalar": _enc_npscalar,
}


_METHOD_FUNC = types.MethodType.__dict__["__func__"]


def _function_name(fn):
    if type(fn) is types.MethodType:
        # a bound method: its function's name (the method object forwards attribute lookups
        # through its own type, which object.__getattribute__ does not ask)
        try:
            fn = _METHOD_FUNC.__get__(fn, types.MethodType)
        except Exception:
            return type_name(fn)
    for attr in ("__qualname__", "__name__"):
        try:
            name = object.__getattribute__(fn, attr)
        except Exception:
            continue
        if type(name) is str:
            try:
                module = object.__getattribute__(fn, "__module__")
            except Exception:
                module = None
            if type(module) is str and module != "builtins":
                return "%s.%s" % (module, name)
            return name
    return type_name(fn)


def _sort_key(encoded):
    return json.dumps(encoded, sort_keys=True, ensure_ascii=False, allow_nan=False)


def serialize(obj, limits=None):
    """Encode one value (its own ``$ref`` numbering)."""
    return Serializer(limits or Limits()).value(obj)

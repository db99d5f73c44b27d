"""Serialize Python values to JSON without running user code.

Nothing here calls ``__repr__``, ``__str__``, ``__eq__``, ``__hash__``, ``__len__``,
``__iter__`` or a property of a user-defined object. Builtin containers are walked
through their builtin methods (``list.__len__`` etc. are looked up on the builtin type,
never on a subclass); other objects are read through ``__dict__`` and ``__slots__``
member descriptors only.

Encoding (all markers are objects whose first key starts with ``$``):

- ``None``, ``bool``, ``str`` and ``int`` within +-2**53 are plain JSON; a longer string
  is ``{"$str": prefix, "len": n}``; a bigger int is ``{"$int": "<digits>"}`` (or
  ``{"$int": "<prefix>...", "digits": n}`` when longer than the string limit).
- floats are plain JSON when finite, else ``{"$float": "nan" | "inf" | "-inf"}``.
- ``list`` is a JSON array; ``tuple``, ``set``, ``frozenset`` are ``{"$tuple": [...]}``,
  ``{"$set": [...]}``, ``{"$frozenset": [...]}``; sets are sorted by their encoding so
  output does not depend on hash seeds. ``dict`` is ``{"$dict": [[k, v], ...]}``.
  A container with more than ``max_items`` entries ends with ``{"$more": n}``.
- ``bytes``/``bytearray``: ``{"$bytes": latin-1 text, "len": n}`` (prefix when long).
- other objects: ``{"$obj": "module.Qualname", "attrs": {...}}``; objects without
  readable state: ``{"$obj": "module.Qualname"}``; functions, classes and modules:
  ``{"$fn": name}``, ``{"$type": name}``, ``{"$module": name}``.
- deeper than ``max_depth``: ``{"$depth": "module.Qualname"}``.
- an object (container or instance) met a second time within one serialization is
  ``{"$ref": n}``, n being the order in which it was first met (1-based), so shared
  structure and cycles are small canonical ids, never addresses.
"""

import math
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


class Limits:
    __slots__ = ("max_depth", "max_items", "max_str")

    def __init__(self, max_depth=4, max_items=32, max_str=200):
        self.max_depth = max_depth
        self.max_items = max_items
        self.max_str = max_str

    def as_dict(self):
        return {"max_depth": self.max_depth, "max_items": self.max_items,
                "max_str": self.max_str}


def type_name(obj):
    cls = type(obj)
    module = type.__getattribute__(cls, "__module__")
    qual = type.__getattribute__(cls, "__qualname__")
    if module in ("builtins", None):
        return qual
    return "%s.%s" % (module, qual)


def _raw_attr(obj, name):
    """Read a plain attribute through ``object.__getattribute__`` only."""
    return object.__getattribute__(obj, name)


def _instance_dict(obj):
    try:
        d = _raw_attr(obj, "__dict__")
    except Exception:
        return None
    return d if type(d) is dict else None


def _slot_values(obj):
    """(name, value) for every filled ``__slots__`` member, read via member descriptors."""
    out = []
    seen = set()
    for cls in type.__getattribute__(type(obj), "__mro__"):
        cls_dict = type.__getattribute__(cls, "__dict__")
        slots = cls_dict.get("__slots__")
        if slots is None:
            continue
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if type(name) is not str or name in seen or name in ("__dict__", "__weakref__"):
                continue
            seen.add(name)
            desc = cls_dict.get(name)
            if type(desc) is not types.MemberDescriptorType:
                continue
            try:
                out.append((name, desc.__get__(obj, cls)))
            except AttributeError:
                continue  # slot never assigned
    return out


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
            if math.isfinite(obj):
                return obj
            return {"$float": "nan" if obj != obj else ("inf" if obj > 0 else "-inf")}
        if t is str:
            return self._str(obj)
        if t is bytes or t is bytearray:
            n = len(obj)
            cut = bytes(obj[: self.limits.max_str])
            out = {"$bytes": cut.decode("latin-1"), "len": n}
            if t is bytearray:
                out["type"] = "bytearray"
            return out
        if t is complex:
            return {"$complex": [self.value(obj.real), self.value(obj.imag)]}
        if issubclass(t, _FUNCTION_TYPES):
            return {"$fn": _function_name(obj)}
        if issubclass(t, type):
            return {"$type": "%s.%s" % (type.__getattribute__(obj, "__module__"),
                                        type.__getattribute__(obj, "__qualname__"))}
        if t is types.ModuleType:
            return {"$module": obj.__name__ if type(obj.__dict__.get("__name__")) is str else "?"}

        ref = self._ref(obj)
        if ref is not None:
            return ref
        if depth >= self.limits.max_depth:
            return {"$depth": type_name(obj)}

        # Builtin containers, and subclasses of them read through the builtin methods.
        if issubclass(t, list):
            self._remember(obj)
            return self._seq(obj, list, depth, None)
        if issubclass(t, tuple):
            self._remember(obj)
            return self._seq(obj, tuple, depth, "$tuple")
        if issubclass(t, (set, frozenset)):
            self._remember(obj)
            return self._set(obj, depth)
        if issubclass(t, dict):
            self._remember(obj)
            return self._dict(obj, depth)
        self._remember(obj)
        return self._object(obj, depth)

    def _str(self, s):
        if len(s) <= self.limits.max_str:
            return s
        return {"$str": s[: self.limits.max_str], "len": len(s)}

    def _big_int(self, n):
        # int -> str conversion is builtin; guard the 4300-digit limit of 3.11+.
        try:
            digits = int.__repr__(n)
        except ValueError:
            return {"$int": "<%d bits>" % n.bit_length()}
        if len(digits) > self.limits.max_str:
            return {"$int": digits[: self.limits.max_str] + "...", "digits": len(digits)}
        return {"$int": digits}

    def _seq(self, obj, base, depth, marker):
        n = base.__len__(obj)
        limit = self.limits.max_items
        items = []
        it = base.__iter__(obj)
        for i in range(min(n, limit)):
            items.append(self.value(next(it), depth + 1))
        if n > limit:
            items.append({"$more": n - limit})
        out = items if marker is None else {marker: items}
        if type(obj) is not base:
            out = {"$obj": type_name(obj), "items": items}
        return out

    def _set(self, obj, depth):
        base = frozenset if issubclass(type(obj), frozenset) else set
        n = base.__len__(obj)
        encoded = []
        # Encode every element (bounded) so the sort key does not depend on hashes.
        for x in base.__iter__(obj):
            encoded.append(self.value(x, depth + 1))
            if len(encoded) >= self.limits.max_items * 4:
                break
        encoded.sort(key=_sort_key)
        items = encoded[: self.limits.max_items]
        if n > len(items):
            items.append({"$more": n - len(items)})
        marker = "$frozenset" if base is frozenset else "$set"
        if type(obj) is not base:
            return {"$obj": type_name(obj), "items": items}
        return {marker: items}

    def _dict(self, obj, depth):
        n = dict.__len__(obj)
        limit = self.limits.max_items
        pairs = []
        for k, v in dict.items(obj):
            if len(pairs) >= limit:
                break
            pairs.append([self.value(k, depth + 1), self.value(v, depth + 1)])
        if n > limit:
            pairs.append({"$more": n - limit})
        if type(obj) is not dict:
            return {"$obj": type_name(obj), "items": pairs}
        return {"$dict": pairs}

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
        if issubclass(type(obj), BaseException):
            out["args"] = self.value(BaseException.__getattribute__(obj, "args"), depth + 1)
        return out


def _function_name(fn):
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
    import json
    return json.dumps(encoded, sort_keys=True, ensure_ascii=False, allow_nan=False)


def serialize(obj, limits=None):
    """Encode one value (its own ``$ref`` numbering)."""
    return Serializer(limits or Limits()).value(obj)

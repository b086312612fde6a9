"""The gradient of an object: :class:`Tangent`, and the fields it has.

Zygote calls these *structural gradients*: the gradient of an object is a
record with one entry per field of the object (``nothing`` in Zygote,
``None`` here, for a field no gradient reached). A dataclass instance, an
object with a ``__dict__`` or ``__slots__``, and a closure (whose fields
are its captured variables) get one. Tuples, lists, dicts and namedtuples
get a gradient of their own kind instead.

This module also owns the arithmetic of gradients of any of these shapes:
:func:`add` (which gradient code calls as ``runtime.accum``) and
:func:`leafwise`, on which ``Tangent``'s operators are built.

May import: :mod:`.errors`.
"""
from __future__ import annotations

import dataclasses
import functools
import numbers
import operator
import types
from typing import Any, Iterable

import numpy as np

from .errors import NoDerivativeRule


class Tangent:
    """The gradient of an object: ``g.a`` (or ``g["a"]``) is the gradient of
    its field ``a``, ``None`` when no gradient reached it. A name that is
    no field of the object raises ``AttributeError`` (``KeyError`` for
    ``g["name"]``).

    ``Tangent(a=3.0, b=2.0)`` makes one by hand (for a cotangent passed to
    a pullback, or to compare against); ``Tangent(("a", "b", "c"), a=3.0)``
    also declares fields that have no gradient. Two tangents are equal when
    the same fields have gradients, and equal ones (``None`` is no
    gradient). Tangents are immutable.

    For an optimiser's arithmetic, ``g1 + g2`` and ``g1 - g2`` work field
    by field (a field with no gradient on one side takes the other's, or
    its negation), as do ``-g`` and ``g * c``, ``c * g``, ``g / c`` by a
    number ``c``; fields holding lists, dicts or tangents are added or
    scaled item by item."""

    __slots__ = ("_zpy_values",)

    def __init__(self, fields: Iterable[str] = (), /, **values: Any):
        object.__setattr__(self, "_zpy_values", {**dict.fromkeys(fields), **values})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._zpy_values[name]
        except KeyError:
            raise AttributeError(f"the object of this Tangent has no field {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self._zpy_values[name]

    def __iter__(self) -> Any:
        # (a Tangent is iterated where forward mode iterates its object in
        # step; iter() would otherwise fall back to __getitem__(0): KeyError)
        raise NoDerivativeRule(
            "forward mode: the items an object yields through its class's own __iter__ or __getitem__ "
            "(a, b = obj, for v in obj, list(obj), sum(obj)...): which of its fields each came from is not known",
            hint="iterate over the list, tuple or array of the object that holds them (for v in obj.items), "
            "index the object (obj[0], obj[1]), or use reverse mode (zpy.gradient), which differentiates a "
            "for loop over an object with __len__ and __getitem__")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Tangent is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tangent):
            return NotImplemented
        return same(entries(self), entries(other))

    __hash__ = None  # type: ignore[assignment]

    # (NumPy defers to the reflected method below for a NumPy number or
    # array times a Tangent, rather than make an object array of it)
    __array_ufunc__ = None

    def __add__(self, other: Any) -> Any:
        return add(self, other) if isinstance(other, Tangent) else NotImplemented

    def __sub__(self, other: Any) -> Any:
        return add(self, leafwise(operator.neg, other)) if isinstance(other, Tangent) else NotImplemented

    def __neg__(self) -> Tangent:
        return leafwise(operator.neg, self)

    def __mul__(self, c: Any) -> Any:
        return leafwise(lambda x: x * c, self) if isinstance(c, numbers.Number) else NotImplemented

    def __rmul__(self, c: Any) -> Any:
        return leafwise(lambda x: c * x, self) if isinstance(c, numbers.Number) else NotImplemented

    def __truediv__(self, c: Any) -> Any:
        return leafwise(lambda x: x / c, self) if isinstance(c, numbers.Number) else NotImplemented

    def __reduce__(self) -> tuple:
        # (copy, deepcopy and pickle: rebuilt from its values, so that no
        # __getattr__ runs on a Tangent that has none yet)
        return _from_values, (self._zpy_values,)

    def __repr__(self) -> str:
        return "Tangent(" + ", ".join(f"{k}={v!r}" for k, v in entries(self).items()) + ")"


def _from_values(values: dict[str, Any]) -> Tangent:
    t = Tangent()
    object.__setattr__(t, "_zpy_values", dict(values))
    return t


def add(a: Any, b: Any) -> Any:
    """The sum of two gradients of the same value, ``None`` being zero.

    ``add(None, b) is b`` and ``add(a, None) is a``. Tuples and lists add
    item by item (recursively, ``None`` items allowed) and must have the
    same length; the result has ``a``'s kind (tuple or list), or is the
    namedtuple either one is (a namedtuple's gradient read by index is a
    plain tuple); an array added to either is taken as the list of its
    rows (the gradient of a list that a NumPy function read). Dicts (the
    gradients of dicts) add by key over the union of their keys, tangents
    (of objects) by field. Anything else
    adds with ``+``: numbers, and NumPy arrays, for which ``+`` makes a new
    array, so a gradient that is shared — the same ``dy`` handed to several
    arguments — is never changed in place.
    """
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, np.ndarray) != isinstance(b, np.ndarray) and isinstance(b if isinstance(a, np.ndarray) else a,
                                                                             (tuple, list)):
        # a list's gradient from a NumPy function (np.mean(xs): an array) and from its items (xs[-1]): the
        # array's rows are the items' gradients
        a, b = (_as_items(a, b), b) if isinstance(a, np.ndarray) else (a, _as_items(b, a))
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            raise ValueError(f"gradients of lengths {len(a)} and {len(b)} for the same value cannot be added")
        items = [add(x, y) for x, y in zip(a, b)]
        if isinstance(a, list):
            return items
        kind = type(a) if hasattr(a, "_fields") else type(b)
        return kind(*items) if hasattr(kind, "_fields") else tuple(items)
    if isinstance(a, dict):
        total = dict(a)
        for key, value in b.items():
            total[key] = add(total.get(key), value)
        return total
    if isinstance(a, Tangent):
        if not isinstance(b, Tangent):
            raise TypeError(f"the gradient of an object (a Tangent) and a {type(b).__name__} cannot be added")
        total = dict(a._zpy_values)
        for key, value in b._zpy_values.items():
            total[key] = add(total.get(key), value)
        return Tangent(**total)
    return a + b


def _as_items(array: np.ndarray, like: Any) -> Any:
    """The rows of ``array`` as a list, or a tuple for a tuple ``like``."""
    return list(array) if isinstance(like, list) else tuple(array)


def leafwise(fn: Any, g: Any) -> Any:
    """``fn`` applied to each number or array in the gradient ``g``, whose
    tuples, lists, namedtuples, dicts and tangents are kept, and ``None``
    (no gradient) stays ``None``."""
    if g is None:
        return None
    if isinstance(g, (tuple, list)):
        items = [leafwise(fn, x) for x in g]
        return type(g)(*items) if hasattr(g, "_fields") else type(g)(items)
    if isinstance(g, dict):
        return {k: leafwise(fn, v) for k, v in g.items()}
    if isinstance(g, Tangent):
        return _from_values({k: leafwise(fn, v) for k, v in g._zpy_values.items()})
    return fn(g)


def entries(t: Tangent) -> dict[str, Any]:
    """The fields of ``t`` that have a gradient, and their gradients."""
    return {k: v for k, v in t._zpy_values.items() if v is not None}


def values(t: Tangent) -> dict[str, Any]:
    """Every field of ``t`` (``None`` for those with no gradient)."""
    return t._zpy_values


def get(t: Tangent, name: str) -> Any:
    """The gradient of the field ``name``; ``None`` when it has none."""
    return t._zpy_values.get(name)


def fields(obj: Any) -> list[str]:
    """The fields of an object: a dataclass's fields, its ``__dict__``'s
    keys, the ``__slots__`` of its classes that hold a value (an unset slot
    is no more a field than a missing attribute); a function's captured
    variables and parameters with default values; a tangent's own fields (in gradient code differentiated
    again)."""
    if isinstance(obj, types.FunctionType):
        return [*obj.__code__.co_freevars, *_defaults(obj)]
    if isinstance(obj, Tangent):
        return list(obj._zpy_values)
    declared, slots = _class_fields(type(obj))
    names = [*declared, *getattr(obj, "__dict__", ())]
    if slots:
        names += [n for n in slots if hasattr(obj, n)]
    return list(dict.fromkeys(names)) if declared or slots else names


@functools.lru_cache(maxsize=4096)
def _class_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A class's dataclass fields and the ``__slots__`` of its classes
    (kept per class: :func:`fields` is asked for every gradient of an
    object's field)."""
    declared = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else ()
    slots = []
    for c in cls.__mro__:
        s = c.__dict__.get("__slots__", ())
        slots += [n for n in ([s] if isinstance(s, str) else s) if n not in ("__dict__", "__weakref__")]
    return declared, tuple(slots)


def same(a: Any, b: Any) -> bool:
    """Equality of gradients, NumPy arrays compared item by item. Another
    library's arrays are the same only as one object: comparing their
    items would compute a Dask array (its ``==`` gives a lazy array, no
    answer), so two of them are taken for different."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.all(a == b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    equal = a == b
    return bool(equal) if isinstance(equal, (bool, np.bool_)) else False


def value(obj: Any, name: str) -> Any:
    """The value of the field ``name`` of ``obj`` (a function's captured
    variable's or default value's)."""
    if isinstance(obj, types.FunctionType):
        if name in obj.__code__.co_freevars:
            return obj.__closure__[obj.__code__.co_freevars.index(name)].cell_contents
        return _defaults(obj)[name]
    return getattr(obj, name)


def _defaults(fn: types.FunctionType) -> dict[str, Any]:
    """A function's default values, by parameter name."""
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    return {**dict(zip(positional[len(positional) - len(defaults):], defaults)), **(fn.__kwdefaults__ or {})}

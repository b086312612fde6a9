"""Intrinsics: callees that stand for Python syntax rather than a library.

Operators use the functions of :mod:`operator` directly (``operator.add``,
``operator.getitem``, ``operator.not_``...), attribute access the builtins
``getattr``/``setattr``/``delattr``, slices the builtin ``slice``, ``for``
loops the builtin ``iter`` with :func:`iternext`. The functions here cover
the rest. Each has a run-time meaning, so an IR can be interpreted and a
callee that reaches run time still works; the backend renders each back as
the syntax it came from.

Variables that live outside SSA — globals, and locals captured by nested
scopes (cells) — are reached through the ``load_*``/``store_*``/``delete_*``
intrinsics, whose first argument is the variable's name as a constant. They
have no meaning outside the emitted function and raise if called.
"""
from __future__ import annotations

import importlib
from typing import Any


class Sentinel:
    """A marker value of the IR, named by its attribute of this module."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


STOP = Sentinel("STOP")
"""What :func:`iternext` returns once the iterator is exhausted."""

UNBOUND = Sentinel("UNBOUND")
"""The value of a local variable on a path where it has not been assigned."""


def build_tuple(*items: Any) -> tuple:
    """``(a, b, *c)``."""
    return items


def build_list(*items: Any) -> list:
    """``[a, b, *c]``."""
    return list(items)


def build_set(*items: Any) -> set:
    """``{a, b, *c}``."""
    return set(items)


def build_dict(*keys_and_values: Any) -> dict:
    """``{k1: v1, k2: v2}``: arguments alternate keys and values."""
    it = iter(keys_and_values)
    return {k: v for k, v in zip(it, it)}


def replace_fields(obj: Any, names: tuple, *values: Any) -> Any:
    """``obj._replace(**dict(zip(names, values)))``: a namedtuple's copy
    with new values of some fields (the method itself reads them with
    ``dict.pop``), the values passed by position, so that rules see their
    gradients and tangents."""
    return obj._replace(**dict(zip(names, values)))


def merge_dict(target: dict, mapping: Any) -> None:
    """A ``**mapping`` entry of a dict display: its items are added to
    ``target`` as the display adds them (a non-mapping is a TypeError, as
    in Python, where ``dict.update`` would accept pairs)."""
    if not hasattr(mapping, "keys"):
        raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
    for key in mapping.keys():
        target[key] = mapping[key]


def build_string(*parts: Any) -> str:
    """The body of an f-string: the concatenation of its parts."""
    return "".join(parts)


def format_value(value: Any, conversion: str = "", spec: str = "") -> str:
    """``{value!conversion:spec}`` inside an f-string; conversion is one of
    ``''``, ``'s'``, ``'r'``, ``'a'``."""
    if conversion == "s":
        value = str(value)
    elif conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    return format(value, spec)


def contains(item: Any, container: Any) -> bool:
    """``item in container`` (note: the operands in source order)."""
    return item in container


def not_contains(item: Any, container: Any) -> bool:
    """``item not in container``."""
    return item not in container


def iternext(iterator: Any) -> Any:
    """One step of a ``for`` loop: the next item, or :data:`STOP`."""
    return next(iterator, STOP)


def exhausted(value: Any) -> bool:
    """Whether :func:`iternext` reported the end of the iteration."""
    return value is STOP


def unpack(value: Any, count: int) -> tuple:
    """``a, b = value``: exactly ``count`` items, with Python's errors."""
    items = tuple(value)
    if len(items) != count:
        raise _count_error(len(items), count)
    return items


def check_count(value: Any, count: int) -> None:
    """``a, b = value`` of a one-dimensional array whose items the compiled
    code reads as ``value[0]``, ``value[1]``: the count check alone, with
    Python's errors."""
    if len(value) != count:
        raise _count_error(len(value), count)


def _count_error(got: int, count: int) -> ValueError:
    if got > count:
        return ValueError(f"too many values to unpack (expected {count})")
    return ValueError(f"not enough values to unpack (expected {count}, got {got})")


def unpack_starred(value: Any, before: int, after: int) -> tuple:
    """``a, *b, c = value``: ``before`` items, a list, then ``after`` items."""
    items = list(value)
    if len(items) < before + after:
        raise ValueError(
            f"not enough values to unpack (expected at least {before + after},"
            f" got {len(items)})"
        )
    stop = len(items) - after
    return (*items[:before], items[before:stop], *items[stop:])


def match_args(cls: Any, count: int) -> tuple:
    """The attributes that ``count`` positional sub-patterns of the class
    pattern ``cls(...)`` read: ``cls.__match_args__``, with Python's
    errors."""
    names = getattr(cls, "__match_args__", ())
    if not isinstance(names, tuple):
        raise TypeError(f"{cls.__name__}.__match_args__ must be a tuple (got {type(names).__name__})")
    if count > len(names):
        plural = "" if len(names) == 1 else "s"
        raise TypeError(f"{cls.__name__}() accepts {len(names)} positional sub-pattern{plural} ({count} given)")
    return names


def check_bound(value: Any, name: str) -> Any:
    """Reading a local that may be unassigned on some path."""
    if value is UNBOUND:
        raise UnboundLocalError(
            f"cannot access local variable {name!r} where it is not associated"
            " with a value"
        )
    return value


def make_function(node: Any, *defaults: Any, **kwdefaults: Any) -> Any:
    """A nested ``def`` or ``lambda``: ``node`` is its gast node, emitted as
    written; ``defaults``/``kwdefaults`` are its evaluated default values."""
    raise RuntimeError("make_function is rendered by the backend")


def captured_value(function: Any, name: str, value: Any) -> None:
    """In the reverse transform, until it differentiates the statements:
    the value of the variable ``name`` that the nested function
    ``function`` (a ``make_function`` just before) captures where it is
    made, which a change in place after that point must not replace."""
    raise RuntimeError("captured_value is read by the reverse transform, never emitted")


def make_scope(node: Any, first_iterable: Any) -> Any:
    """A generator expression or comprehension kept as written (its own
    scope): ``first_iterable`` is its outermost iterable, which Python
    evaluates in the enclosing scope."""
    raise RuntimeError("make_scope is rendered by the backend")


def import_from(module: str, name: str) -> Any:
    """``from module import name`` inside a function: the module's
    attribute, or its submodule of that name."""
    base = importlib.import_module(module)
    try:
        return getattr(base, name)
    except AttributeError:
        return importlib.import_module(f"{module}.{name}")


def _named(kind: str):
    def op(name: str, *value: Any) -> Any:
        raise RuntimeError(f"{kind} is rendered by the backend")

    op.__name__ = op.__qualname__ = kind
    op.__doc__ = f"``{kind}(name[, value])`` of a variable outside SSA."
    return op


load_global = _named("load_global")
store_global = _named("store_global")
delete_global = _named("delete_global")
load_deref = _named("load_deref")
store_deref = _named("store_deref")
delete_deref = _named("delete_deref")

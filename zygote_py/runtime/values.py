"""What kind of value a run-time value is, to differentiation: a number
(added with ``+``), a value that can carry a gradient, state that carries
none, an object that only calls what it wraps; a copy of an operand
that shares memory with an array changed in place; and values logged into
a global list (:func:`logged`).

May import: NumPy, the errors, :mod:`.operators`.
"""
from __future__ import annotations

import collections
import functools
import io
import sys
import types
from typing import Any

import numpy as np

from ..errors import UnsupportedSyntax
from .operators import number_type, python_method


def is_number(x: Any) -> bool:
    """Whether a run-time value gets a numeric gradient (added with ``+``):
    numbers, arrays, and objects of a number type written in C. An object
    whose operators are Python methods is a structure: its operators are
    differentiated through those methods, and its gradient is a
    ``Tangent``."""
    if isinstance(x, (bool, str, bytes, tuple, list, dict, set, frozenset)) or x is None:
        return False
    if isinstance(x, (np.ndarray, np.generic)) or number_type(type(x)):
        return True
    t = type(x)
    return (
        hasattr(t, "__add__") and hasattr(t, "__mul__") and not callable(x)
        and python_method(t, "__add__") is None and python_method(t, "__mul__") is None
    )


def is_differentiable_value(x: Any) -> bool:
    """Whether a run-time value can carry a gradient: real or complex
    numbers other than int and bool, float arrays, and containers or objects
    holding them; a function whose captured variables (a closure's) or
    default values hold them."""
    return _differentiable(x, set())


def _differentiable(x: Any, seen: set[int]) -> bool:
    if type(x) is float:  # (the common case: an environment's numbers, asked at every run-time call)
        return True
    if isinstance(x, (bool, int, str, bytes)) or x is None:
        return False
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc"
    if isinstance(x, (np.integer, np.bool_)):
        return False
    if isinstance(x, (tuple, list)):
        return any(_differentiable(v, seen) for v in x)
    if isinstance(x, dict):
        return any(_differentiable(v, seen) for v in x.values())
    if isinstance(x, types.FunctionType):
        if id(x) in seen:  # a recursive nested function captures itself
            return False
        seen.add(id(x))
        return any(_differentiable(v, seen) for v in (*map(cell_value, x.__closure__ or ()),
                                                      *(x.__defaults__ or ()), *(x.__kwdefaults__ or {}).values()))
    if isinstance(x, (types.BuiltinFunctionType, type, types.ModuleType)):
        return False
    return not _state_without_gradient(type(x))


@functools.lru_cache(maxsize=None)
def _state_without_gradient(cls: type) -> bool:
    """Whether instances of ``cls`` carry no gradient however they are
    reached: those of :data:`_STATE_WITHOUT_GRADIENT` and of a class of
    :data:`_STATE_MODULES` (or with a base class there). Cached per class:
    it is asked of every object a call is given."""
    return issubclass(cls, _STATE_WITHOUT_GRADIENT) or any(
        (c.__module__ or "") in _STATE_MODULES or (c.__module__ or "").startswith(_STATE_PACKAGES) for c in cls.__mro__)


_STATE_WITHOUT_GRADIENT = (np.dtype, np.finfo, np.iinfo, range, slice, type(Ellipsis), io.IOBase, np.ufunc, type(np.sum))
"""Objects whose state carries no gradient however they are reached:
dtypes, ranges, files, NumPy's ufuncs and functions (``np.hypot``,
``np.sum``: a closure capturing one, ``lambda x: f(x, x)``, captures no
array); and those of :data:`_STATE_MODULES`."""

_STATE_MODULES = ("numpy.random", "random", "logging")
"""The modules whose classes' instances carry no gradient either: random
number generators (a closure capturing one is no differentiated closure;
``rng.normal(size=x.shape)`` is no differentiated call) and loggers. Told by
the module of the class or a base class (``numpy.random.mtrand``), so that
``import zygote_py`` imports none of them (a ``random.Random`` exists only
once the user imported ``random``)."""
_STATE_PACKAGES = tuple(m + "." for m in _STATE_MODULES)


def exact_number(x: Any) -> bool:
    """Whether ``x`` is a ``fractions.Fraction`` or a ``decimal.Decimal``
    (told without importing either: an instance exists only once the user
    imported its module)."""
    fractions, decimal = sys.modules.get("fractions"), sys.modules.get("decimal")
    return fractions is not None and isinstance(x, fractions.Fraction) or \
        decimal is not None and isinstance(x, decimal.Decimal)


def captures_differentiable(fn: types.FunctionType, constants: frozenset = frozenset()) -> bool:
    """Whether a closure's captured variables hold values that carry a
    gradient (its default values aside, which are its parameters'; and
    the cells named in ``constants``, an emitted function's constants)."""
    return any(is_differentiable_value(cell_value(c))
               for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if n not in constants)


def cell_value(cell: Any) -> Any:
    """A closure cell's value; ``None`` while it is unbound."""
    try:
        return cell.cell_contents
    except ValueError:
        return None


def unshared(b: Any, a: Any) -> Any:
    """``b``, or a copy of it if it is an array that may share memory with
    the array ``a`` (``x *= x``, ``x += x[::-1]``): the operand as it was,
    for a derivative that reads it after ``a`` changes."""
    if isinstance(b, np.ndarray) and isinstance(a, np.ndarray) and np.may_share_memory(a, b):
        return b.copy()
    return b


def calls_wrapped(obj: Any) -> bool:
    """Whether calling ``obj`` only calls its ``__wrapped__`` with the same
    arguments: a ``functools.lru_cache`` object, and an object whose class
    says so with a true ``calls_wrapped`` attribute (``@zpy.differentiable``).
    Anything else with a ``__wrapped__`` (a ``functools.wraps`` wrapper, an
    object given one by ``functools.update_wrapper``) runs code of its own
    around the call, so the function it wraps is not what it computes."""
    return type(obj) is functools._lru_cache_wrapper or getattr(type(obj), "calls_wrapped", False) is True


LOG_CONTAINERS = (list, set, collections.deque)
"""The containers a differentiated function may log values into: see
:func:`logged`."""


def logged(method: Any, *args: Any) -> None:
    """``method(*args)``: ``HISTORY.append(loss)`` (a list, set or deque's
    ``append``, ``extend``, ``insert``, ``add`` or ``appendleft``) of a
    global the differentiated function reads nowhere else, a log of values
    that passes them no gradient (see ``ad.idioms.log_appends``). The
    global is checked to be such a container where it runs: a class's own
    ``append`` may keep what it is given for the result."""
    if type(getattr(method, "__self__", None)) not in LOG_CONTAINERS:
        raise UnsupportedSyntax(
            f"{getattr(method, '__qualname__', method)!r} on a global that is not a list, set or deque, given a "
            "differentiated value: where it keeps the value for is not known",
            hint="log into a plain list (HISTORY.append(float(loss))), or return the value")
    method(*args)

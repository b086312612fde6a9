"""Which run-time values are arrays: NumPy's own, and other libraries'.

User code is plain NumPy, and NumPy hands its functions and ufuncs on to
the arrays of other libraries (Dask, CuPy...) through their
``__array_function__`` and ``__array_ufunc__``; the array API standard's
``__array_namespace__`` marks one too. Such an object is an array to the
analysis, the rules and the run-time helpers: its operators and methods
get the rules of ``np.ndarray``'s, never the library's own Python source
differentiated, and the helpers that make or combine gradients keep its
library (``np.zeros_like``, dispatching functions), so that a Dask array's
gradient stays lazy and chunked and a CuPy array's stays on its device.

``np.ndarray`` and its subclasses are not *foreign*: the rules' fast paths
test for them directly (``type(x) is np.ndarray``) and stay.

May import: NumPy.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable

import numpy as np

_PROTOCOLS = ("__array_function__", "__array_ufunc__", "__array_namespace__")

_OWN: set[type] = set()
"""zygote_py's own classes that implement the protocols to look like
arrays to NumPy (a sparse gradient), which the run time handles itself."""


def own(cls: type) -> type:
    """Marks ``cls``, a class of zygote_py's run time that implements the
    protocols, as none of another library's arrays (a class decorator)."""
    _OWN.add(cls)
    foreign_type.cache_clear()
    return cls


@functools.lru_cache(maxsize=None)
def foreign_type(cls: type) -> bool:
    """Whether instances of ``cls`` are arrays of a library other than
    NumPy: it implements one of the protocols (a class that sets
    ``__array_ufunc__ = None`` opts out of NumPy's ufuncs, as a
    ``Tangent`` does, and is no array), and is neither an ``np.ndarray``
    nor a NumPy scalar."""
    if issubclass(cls, (np.ndarray, np.generic)) or cls in _OWN or isinstance(cls, type) and issubclass(cls, type):
        return False
    return any(getattr(cls, name, None) is not None for name in _PROTOCOLS)


def is_foreign(x: Any) -> bool:
    """Whether ``x`` is an array of another library (see :func:`foreign_type`)."""
    return foreign_type(type(x))


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array: an ``np.ndarray`` (or subclass), or
    another library's (see :func:`foreign_type`)."""
    return isinstance(x, np.ndarray) or foreign_type(type(x))


def asarray(x: Any) -> Any:
    """``np.asarray(x)`` for a number or a sequence; an array, of NumPy or
    of another library, as it is (``np.asarray`` would compute a Dask
    array into one process, and refuses a CuPy one)."""
    return x if is_array(x) else np.asarray(x)


def as_library(v: Any, x: Any) -> Any:
    """``v``, a number or NumPy data a rule made (from an argument such as
    ``np.quantile``'s ``q``), as an array of ``x``'s library when ``x`` is
    another library's array (``np.asarray(v, like=x)``: CuPy refuses NumPy
    operands, so helper arrays must be made on ``x``'s device); ``v`` as it
    is otherwise (NumPy's fast paths). Its gradient passes through."""
    if is_foreign(x) and not is_foreign(v):
        return np.asarray(v, like=x)
    return v


def call(f: Callable, args: tuple, kwargs: dict) -> Any:
    """``f(*args, **kwargs)``, where a method of ``np.ndarray`` called on
    another library's array (``np.ndarray.reshape(x, 24)``, which the
    descriptor refuses), or on a NumPy scalar (``x.mean().item()``), is
    that value's own method."""
    if type(f) is types.MethodDescriptorType and f.__objclass__ is np.ndarray and args \
            and (is_foreign(args[0]) or isinstance(args[0], np.generic)):
        return getattr(args[0], f.__name__)(*args[1:], **kwargs)
    return f(*args, **kwargs)

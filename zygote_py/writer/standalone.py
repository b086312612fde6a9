"""Helpers that ``zpy emit`` writes into a gradient module, so that it runs
without zygote_py.

Each function here stands in for the :mod:`zygote_py.runtime` helper of the
same name (see ``REPLACES``) on what a gradient module is emitted for: real
numbers and real arrays. They are written with NumPy and builtins only, and
the module emitter copies their source into the module that calls them
(:func:`zygote_py.writer.module.emit_module`), so keep them free of other
names. The runtime's versions keep some gradients sparse (``Scatter``,
``Items``); these make every gradient a dense array at once: the same
values, and O(size of the array) per item added instead of O(1).
``tests/cli/test_standalone.py`` checks each against the runtime's.
"""
import dataclasses
import math
import numbers
import operator
import types

import numpy as np

from .. import runtime
from ..ad import mutation
from ..runtime import arrays
from ..ir import ops
from ..rules import builtins as builtin_rules, numpy_linalg, numpy_shapes, operators as operator_rules


def seed(y):
    """The cotangent 1 for the real scalar output ``y``, of ``y``'s type
    (of its library for an array: NumPy's, Dask's, CuPy's)."""
    if type(y) is float:
        return 1.0
    if hasattr(type(y), "__array_function__") and y.ndim == 0 and y.dtype.kind in "fiu":
        return np.ones_like(y) if y.dtype.kind == "f" else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
        return 1
    raise TypeError(f"a gradient needs a real scalar output, not {type(y).__name__} {np.shape(y)}")


def unbroadcast(dy, x):
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, with ``x``'s float dtype (a Python
    number ``x`` gets a Python number)."""
    if dy is None:
        return None
    shape = np.shape(x)
    dshape = np.shape(dy)
    if dshape != shape:
        extra = len(dshape) - len(shape)
        if extra >= 0:
            axes = tuple(range(extra)) + tuple(
                i + extra for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1
            )
            if axes:
                dy = np.sum(dy, axis=axes, keepdims=True)
        if extra > 0:
            dy = np.reshape(dy, shape)
        elif np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)  # a cotangent of size 1 for a broadcast input
    if isinstance(x, np.generic) or hasattr(type(x), "__array_function__"):  # (an array of any library)
        if x.dtype.kind in "fc" and np.result_type(dy) != x.dtype:
            if np.iscomplexobj(dy) and x.dtype.kind != "c":
                dy = np.real(dy)
            dy = (dy if hasattr(type(dy), "__array_function__") else np.asarray(dy)).astype(x.dtype)
        return dy[()] if isinstance(x, np.generic) and isinstance(dy, np.ndarray) else dy
    if isinstance(dy, (np.ndarray, np.generic)) and isinstance(x, (int, float)):
        dy = dy.item()
    return dy.real if isinstance(dy, complex) and not isinstance(x, complex) else dy


def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


def is_foreign(x):
    """Whether ``x`` is an array of another library than NumPy (Dask's,
    CuPy's): it implements one of NumPy's dispatch protocols, and is
    neither an ``np.ndarray`` nor a NumPy scalar."""
    cls = type(x)
    if issubclass(cls, (np.ndarray, np.generic, type)):
        return False
    return any(getattr(cls, p, None) is not None for p in ("__array_function__", "__array_ufunc__",
                                                            "__array_namespace__"))


def is_array(x):
    """Whether ``x`` is an array: NumPy's (or a subclass), or another
    library's."""
    return isinstance(x, np.ndarray) or is_foreign(x)


def asarray(x):
    """``np.asarray(x)`` for a number or a sequence; an array, of NumPy or
    of another library, as it is (``np.asarray`` would compute a Dask
    array into one process)."""
    return x if is_array(x) else np.asarray(x)


def real_if_real(g, x):
    """``g`` as the gradient of ``x``: its real part when ``x`` is real."""
    return g.real if np.iscomplexobj(g) and not np.iscomplexobj(x) else g


def like(g, x):
    """``g``, a gradient shaped like ``x``, given ``x``'s kind: an ndarray of
    ``x``'s float dtype, a NumPy scalar of its type, a Python float, or the
    same nesting of tuples and lists (real for a real ``x``, ``None`` for a
    boolean). An object whose class makes its array in Python
    (``__array__``) is refused: which field each element came from is not
    known."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "fc" or getattr(g, "dtype", None) == x.dtype and not isinstance(g, np.generic):
            return g
        g = np.asarray(g)
        g = g.real if g.dtype.kind == "c" and x.dtype.kind != "c" else g
        return g if g.dtype == x.dtype else g.astype(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (tuple, list)):
        g = np.asarray(g)
        if g.ndim == 0 and len(x):
            g = np.broadcast_to(g, (len(x),) + np.shape(np.asarray(x[0])))
        items = [like(g[i], v) for i, v in enumerate(x)]
        return tuple(items) if isinstance(x, tuple) else items
    if isinstance(x, np.generic):
        return x.dtype.type(g if x.dtype.kind == "c" else np.real(g)) if x.dtype.kind in "fc" else np.real(g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, (int, float)):
        return float(np.real(g))
    if isinstance(getattr(type(x), "__array__", None), types.FunctionType):
        raise TypeError(f"no gradient for the array NumPy makes of a {type(x).__name__} through its __array__")
    return g


def scatter(x, key, dy):
    """The gradient of ``x`` for a gradient ``dy`` of ``x[key]``: zeros of
    ``x``'s shape with ``dy`` added at ``key`` (repeated indices add up);
    zeros of another library's array where ``dy`` or ``x`` is one (that
    library has no ``np.add.at``: ``dy`` is assigned, or added in layers
    for integer arrays, see :func:`add_in_layers`)."""
    if dy is None:
        return None
    dtype = getattr(x, "dtype", None)
    dtype = dtype if dtype is not None and dtype.kind in "fc" else np.dtype(float)
    dy = np.real(dy) if dtype.kind != "c" else dy
    lazy = [v for v in (dy, x) if hasattr(type(v), "__array_function__") and not isinstance(v, (np.ndarray, np.generic))]
    if lazy:
        g = np.zeros_like(lazy[0], dtype=dtype, shape=np.shape(x))
        if any(isinstance(k, list) or np.ndim(k) and getattr(k, "dtype", None) != bool
               for k in (key if isinstance(key, tuple) else (key,))):
            return add_in_layers(g, key, dy)
        g[key] = dy
        return g
    g = np.zeros(np.shape(x), dtype)
    np.add.at(g, key, dy)
    return g


def add_in_layers(g, key, dy):
    """``g``, an array of a library without ``np.add.at`` (Dask's), with
    ``dy`` added at ``key``, an index with integer arrays whose positions
    may repeat: the flat positions ``key`` picks (read off NumPy's
    ``arange`` of ``g``'s shape) are added by assignment, in layers of
    distinct positions: the first occurrence of each, then the second..."""
    shape = np.shape(g)
    picked = np.arange(math.prod(shape)).reshape(shape)[key]
    positions = np.reshape(picked, -1)
    values = np.reshape(np.broadcast_to(dy, np.shape(picked)), (-1,))
    flat = np.reshape(g, (-1,))
    left = np.arange(positions.size)
    while left.size:
        _, firsts = np.unique(positions[left], return_index=True)
        layer = left[firsts]
        flat[positions[layer]] = flat[positions[layer]] + values[layer]
        left = np.delete(left, firsts)
    return np.reshape(flat, shape)


def scatters(x, keys, values):
    """``scatter(x, k1, v1) + scatter(x, k2, v2) + ...``."""
    total = None
    for key, dy in zip(keys, values):
        if dy is not None:
            g = scatter(x, key, dy)
            total = g if total is None else total + g
    return total


def add_at(g, x, key, dy):
    """``g + scatter(x, key, dy)``: one more item's gradient added."""
    return g + scatter(x, key, dy)


def add_to(g, x, key, dy):
    """``add_at``: the runtime updates a gradient no one else holds in place;
    here it is a new array."""
    return g + scatter(x, key, dy)


def diagonal_scatter(a, offset, dy):
    """Zeros of the 2-d ``a``'s shape (its float dtype) with ``dy`` (a
    number, or one value per item) added along its ``offset`` diagonal."""
    n, m = np.shape(a)
    i = np.arange(max(0, min(n + min(offset, 0), m - max(offset, 0))))
    g = np.zeros((n, m), a.dtype if a.dtype.kind in "fc" else float)
    g[i + max(-offset, 0), i + max(offset, 0)] = dy
    return g


def field_gradient(obj, name, dy):
    """The gradient of the dataclass instance ``obj`` for a gradient ``dy``
    of its field ``name``: a namespace of its fields' gradients, ``None``
    for the others (zygote_py's ``Tangent`` has the same attributes)."""
    return types.SimpleNamespace(**{f.name: dy if f.name == name else None for f in dataclasses.fields(obj)})


def accum(a, b):
    """The sum of two gradients of the same value, ``None`` being zero;
    tuples, lists, dicts and the namespaces of :func:`field_gradient` add
    item by item."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, types.SimpleNamespace):
        return types.SimpleNamespace(**{k: accum(v, getattr(b, k)) for k, v in vars(a).items()})
    if isinstance(a, (tuple, list)):
        items = [accum(u, v) for u, v in zip(a, b)]
        return items if isinstance(a, list) else tuple(items)
    if isinstance(a, dict):
        total = dict(a)
        for key, value in b.items():
            total[key] = accum(total.get(key), value)
        return total
    return a + b


def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and g == 0:
        return np.zeros_like(x)
    return g


def dense(grads):
    """The gradient ``grads`` as it is: the runtime keeps some gradients
    sparse until they are used; here every gradient is dense already."""
    return grads


def store_item(obj, key, value):
    """``obj[key] = value``, then ``obj``. An assignment whose integer-array
    index repeats a position is refused: which write wins is no
    derivative."""
    if isinstance(obj, np.ndarray) and not isinstance(key, (int, np.integer, slice, tuple)):
        index = np.asarray(key)
        if index.dtype.kind in "iu" and np.unique(index).size != index.size:
            raise ValueError("no gradient for an assignment whose integer index repeats a position")
    obj[key] = value
    return obj


def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{name} is a {type(value).__name__}, but this gradient was emitted for a real "
                            "number (a parameter annotated float, or not annotated): annotate it (np.ndarray) "
                            "and run zpy emit again")


def real_arrays(**values):
    """Raise ``TypeError`` unless each value is an array, the kind that a
    parameter annotated ``np.ndarray`` was emitted for: NumPy's, or another
    library's that NumPy's functions dispatch to (Dask's, CuPy's)."""
    for name, value in values.items():
        if not isinstance(value, np.ndarray) and not any(
                getattr(type(value), p, None) is not None
                for p in ("__array_function__", "__array_ufunc__", "__array_namespace__")):
            raise TypeError(f"{name} is a {type(value).__name__}, but this gradient was emitted for an array "
                            "(a parameter annotated np.ndarray): pass np.asarray of it")


def real_values(**values):
    """Raise ``TypeError`` unless each value is a real number or an array
    (of any library), the kinds a library's function takes, which a
    parameter given to one and not annotated was emitted for."""
    for name, value in values.items():
        if not isinstance(value, (numbers.Real, np.ndarray)) and not any(
                getattr(type(value), p, None) is not None
                for p in ("__array_function__", "__array_ufunc__", "__array_namespace__")):
            raise TypeError(f"{name} is a {type(value).__name__}, but this gradient was emitted for a real number "
                            "or array (a parameter given to a library's function, not annotated): annotate it "
                            "and run zpy emit again")


def real_parameters(numbers, arrays):
    """``real_numbers(**numbers)`` and ``real_arrays(**arrays)``: the
    parameters of both kinds checked in one line."""
    real_numbers(**numbers)
    real_arrays(**arrays)


def by_rule(f, rule, *args):
    """``f(*args)`` and its pullback, by ``f``'s derivative rule ``rule``
    (both known when the module was emitted, the kinds of the arguments
    not): the pullback gives ``None`` for ``f``, then one gradient per
    argument, and no gradients for no cotangent (``None``, or the number 0
    for an array). Numbers, arrays and Python's containers only: an object
    whose class defines the operation in Python, and lists or tuples that
    ``+`` or ``*`` join or repeat, have other gradients (``zpy.gradient``
    computes them)."""
    for a in args:
        if not (plain(a) or type(a) in (str, slice, tuple, list, dict) or a is None or a is ...):
            raise TypeError(f"{getattr(f, '__name__', f)} of a {type(a).__name__}: this gradient module was "
                            "emitted for numbers and arrays; differentiate it with zpy.gradient")
    if f in (operator.add, operator.mul, operator.iadd, operator.imul) and any(
            type(a) in (tuple, list) for a in args):
        raise TypeError(f"{f.__name__} of a list or tuple: this gradient module was emitted for numbers and "
                        "arrays; differentiate it with zpy.gradient")
    y, back = rule(*args)
    array = is_array(y)

    def pullback(dy):
        if dy is None or array and isinstance(dy, (int, float, np.number)) and dy == 0:
            return (None,) * (len(args) + 1)
        return (None, *back(dy)[:len(args)])
    return y, pullback


def plain(x):
    """Whether ``x`` is a number or an array, whose operations NumPy
    defines (not an object defining them in Python, as ``np.matrix``
    does)."""
    return type(x) in (bool, int, float, complex, np.ndarray) or isinstance(x, np.generic) or is_foreign(x)


def append_(obj, value):
    """The rule of ``obj.append(value)`` (then ``obj``) for a list ``obj``:
    the gradient of the list as it was, and of ``value``, are the list's
    but its last item, and that item's."""
    if type(obj) is not list:
        raise TypeError(f"append to a {type(obj).__name__}: this gradient module was emitted for lists; "
                        "differentiate it with zpy.gradient")
    obj.append(value)

    def back(dy):
        return list(dy[:-1]), dy[-1]
    return obj, back


def sum_(iterable, *start):
    """The rule of ``sum(iterable, *start)`` over a list, tuple or array of
    numbers and arrays: each item's gradient, and ``start``'s, is the
    output's."""
    if not isinstance(iterable, (tuple, list, np.ndarray)) or not all(plain(v) for v in iterable):
        raise TypeError("sum of what is not a list, tuple or array of numbers and arrays: this gradient module "
                        "was emitted for those; differentiate it with zpy.gradient")
    n = len(iterable)

    def back(dy):
        grads = [dy] * n
        if isinstance(iterable, np.ndarray):
            grads = np.array(grads, dtype=iterable.dtype).reshape(iterable.shape)
        elif isinstance(iterable, tuple):
            grads = tuple(grads)
        return (grads, dy) if start else (grads,)
    return sum(iterable, *start), back


def getitem(container, key):
    """The rule of ``container[key]`` for a tuple, list, dict or array; the
    items of another container have no gradient here."""
    n = len(container) if isinstance(container, (tuple, list)) else 0

    def back(dy):
        if isinstance(container, (tuple, list)):
            return runtime.sequence_gradient(n, key, dy, isinstance(container, tuple)), None
        if isinstance(container, dict):
            return {key: dy}, None
        if is_array(container) or isinstance(container, np.generic):  # (a NumPy scalar's x[()])
            return scatter(container, key, dy), None
        raise TypeError(f"no gradient for the items of a {type(container).__name__} in this gradient module; "
                        "differentiate it with zpy.gradient")
    return container[key], back


def by_method(rule, obj, name, *args):
    """``obj.name(*args)`` of an array ``obj`` (the object and the value, as
    the mutation pass reads a method call that may change its object), by
    ``rule``, the rule of NumPy's method, which changes nothing (known when
    the module was emitted, the kind of ``obj`` not): the pullback takes
    the object's and the value's cotangents and gives ``None`` for the
    callee, the object's gradient, ``None`` for ``name``, the arguments'."""
    if not (type(obj) is np.ndarray or is_foreign(obj)):
        raise TypeError(f"{name} of a {type(obj).__name__}: this gradient module was emitted for an array's "
                        "method; differentiate it with zpy.gradient")
    value, back = rule(obj, *args)

    def pullback(dy):
        dobj, dvalue = (None, None) if dy is None else dy
        grads = (None,) * (len(args) + 1) if dvalue is None else back(dvalue)
        return (None, accum(dobj, grads[0]), None, *grads[1:1 + len(args)])
    return (obj, value), pullback


def call_pullback(back, dy):
    """``back(dy)``: ``back`` is a pullback of :func:`by_rule`, which gives
    no gradients for no cotangent (``None``)."""
    return back(dy)


STOP = object()
"""What :func:`iternext` returns once the iterator is exhausted."""


def iternext(iterator):
    """One step of a ``for`` loop: the next item, or ``STOP``."""
    return next(iterator, STOP)


def exhausted(value):
    """Whether :func:`iternext` reported the end of the iteration."""
    return value is STOP


REPLACES = {
    ops.iternext: iternext,
    ops.exhausted: exhausted,
    runtime.seed: seed,
    runtime.unbroadcast: unbroadcast,
    runtime.spread: spread,
    runtime.real_if_real: real_if_real,
    arrays.is_foreign: is_foreign,
    arrays.is_array: is_array,
    arrays.asarray: asarray,
    runtime.scatter: scatter,
    numpy_shapes.like: like,
    runtime.scatters: scatters,
    runtime.add_at: add_at,
    runtime.add_to: add_to,
    runtime.accum: accum,
    runtime.field_gradient: field_gradient,
    numpy_linalg.diagonal_scatter: diagonal_scatter,
    runtime.user_gradient: user_gradient,
    runtime.dense: dense,
    runtime.call_pullback: call_pullback,
    mutation.store_item: store_item,
    mutation.operations.append_: append_,
    builtin_rules.sum_: sum_,
    operator_rules.getitem: getitem,
}
"""Runtime helper → the function written into gradient modules for it."""

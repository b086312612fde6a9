"""What emitted gradient code calls at run time."""
from __future__ import annotations

import types
from typing import Any, Callable

import numbers

import numpy as np

from .errors import NoDerivativeRule, NonScalarOutput


def accum(a: Any, b: Any) -> Any:
    """The sum of two gradients of the same value, ``None`` being zero.

    ``accum(None, b) is b`` and ``accum(a, None) is a``. Tuples and lists add
    item by item (recursively, ``None`` items allowed) and must have the
    same length; the result has ``a``'s kind (tuple or list). Dicts (the
    gradients of dicts and of objects' fields) add by key over the union of
    their keys. Anything else adds with ``+``: numbers, and NumPy arrays,
    for which ``+`` makes a new array, so a gradient that is shared — the
    same ``dy`` handed to several arguments — is never changed in place.
    """
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            raise ValueError(
                f"accum: gradients of lengths {len(a)} and {len(b)} for the same value"
            )
        items = [accum(x, y) for x, y in zip(a, b)]
        return tuple(items) if isinstance(a, tuple) else items
    if isinstance(a, dict):
        total = dict(a)
        for key, value in b.items():
            total[key] = accum(total.get(key), value)
        return total
    return a + b


def seed(y: Any) -> Any:
    """The cotangent 1 for a real scalar output ``y``, of ``y``'s kind (a
    float 1.0 for a float; the integer 1 for ints, fractions and decimals,
    which keeps their gradients exact); anything else raises
    :class:`NonScalarOutput`."""
    if type(y) is float:
        return 1.0
    if isinstance(y, (bool, complex, np.complexfloating)) or not isinstance(y, (numbers.Real, np.generic, np.ndarray)):
        kind = "complex" if isinstance(y, (complex, np.complexfloating)) else type(y).__name__
        raise NonScalarOutput(
            f"gradient needs a real scalar output, not a {kind} value",
            hint="use zpy.pullback(f, *args) and call back(dy) with a cotangent shaped like the output",
        )
    if isinstance(y, np.ndarray):
        if y.ndim != 0 or y.dtype.kind not in "fiu":
            raise NonScalarOutput(
                f"gradient needs a real scalar output, not an array of shape {y.shape}",
                hint="use zpy.pullback(f, *args), or reduce the output to a scalar (e.g. .sum())",
            )
        return np.ones_like(y) if y.dtype.kind == "f" else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    return 1


def accum_item(grads: dict, key: Any, g: Any) -> None:
    """Add ``g`` into ``grads[key]`` (the gradient of a closure's captured
    variable, or of an object's field)."""
    grads[key] = accum(grads.get(key), g)


def field(grad: Any, name: str) -> Any:
    """The gradient of one field (or captured variable) in an object's or
    closure's structural gradient; ``None`` when there is none."""
    if grad is None:
        return None
    if isinstance(grad, dict):
        return grad.get(name)
    return getattr(grad, name, None)


def call_pullback(back: Any, dy: Any) -> Any:
    """``back(dy)``, or no gradients when ``dy`` is ``None``."""
    if dy is None:
        return _NO_GRADS
    return back(dy)


class _NoGrads(tuple):
    """An endless run of ``None``: the gradients of a call no gradient
    reached, whatever its arity."""

    def __getitem__(self, i):
        return None


_NO_GRADS = _NoGrads()


def differentiable_callable(fn: Any) -> bool:
    """Whether :func:`J` can differentiate calls of ``fn`` with no rule:
    Python functions and methods (by their source), and objects whose class
    defines ``__call__`` in Python."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, types.FunctionType):
        return True
    call = getattr(type(fn), "__call__", None)
    return isinstance(call, types.FunctionType)


def J(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple]]:
    """``f(*args, **kwargs)`` and its pullback, for a callee known only at
    run time. The pullback returns the gradient of ``f`` itself (its
    captured variables; ``None`` for a plain function), then one per
    positional argument, then one per keyword argument in call order."""
    from .ad import pipeline
    from .rules import registry

    rule = registry.lookup(f)
    if rule is not None:
        y, back = rule(*args, **kwargs)
        pad = (None,) * len(kwargs)
        return y, lambda dy: (None, *back(dy), *pad)
    if registry.is_nondifferentiable(f):
        return f(*args, **kwargs), _no_pullback
    if isinstance(f, types.MethodType):
        y, back = J(f.__func__, f.__self__, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    if isinstance(f, types.FunctionType):
        return pipeline.call_forward(f, args, kwargs)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType):
        y, back = J(call, f, *args, **kwargs)
        return y, lambda dy: back(dy)[1:]
    from .ad.analysis import is_differentiable_value

    if any(is_differentiable_value(v) for v in (*args, *kwargs.values())):
        name = getattr(f, "__qualname__", None) or repr(f)
        raise NoDerivativeRule(
            f"no derivative rule for {name!r}, which was called with differentiated arguments",
            hint=f"register one with @zpy.adjoint({name}), or keep it out of the differentiated path",
        )
    return f(*args, **kwargs), _no_pullback


def _no_pullback(dy: Any) -> tuple:
    return _NO_GRADS


def unbroadcast(dy: Any, x: Any) -> Any:
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, and given ``x``'s floating dtype (a
    float32 input gets a float32 gradient). A Python number ``x`` gets a
    Python number."""
    shape = getattr(x, "shape", None)
    if shape is None:  # a Python number
        if getattr(dy, "ndim", 0):
            dy = dy.sum()
        return dy.item() if isinstance(dy, (np.generic, np.ndarray)) and isinstance(x, (int, float, complex)) else dy
    dshape = getattr(dy, "shape", ())
    if dshape != shape:
        extra = len(dshape) - len(shape)
        axes = tuple(range(extra)) + tuple(
            i + extra for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1
        )
        dy = np.sum(dy, axis=axes, keepdims=True) if axes else dy
        if extra:
            dy = dy.reshape(shape)
        elif np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)  # a cotangent of size 1 for a broadcast input
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc" and getattr(dy, "dtype", dtype) != dtype:
        dy = np.asarray(dy).astype(dtype, copy=False) if x.ndim or isinstance(dy, np.ndarray) else dtype.type(dy)
    return dy


def scatter(x: Any, key: Any, dy: Any) -> Any:
    """The cotangent of ``x`` for a cotangent ``dy`` of ``x[key]``: zeros of
    ``x``'s shape and dtype, with ``dy`` added at ``key`` (repeated indices
    add up)."""
    g = np.zeros(np.shape(x), dtype=np.result_type(x, dy) if np.iscomplexobj(dy) else getattr(x, "dtype", float))
    np.add.at(g, key, dy)
    return g

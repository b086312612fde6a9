"""The one check of the outside corpus: a function of arrays, made into a
real loss, differentiated three ways against central finite differences.

:func:`check` takes ``fn(*args)`` returning an array (real or complex, any
shape), a number, or a tuple or list of them, and scores its output with
fixed random weights ``w``: ``sum(w * sin(y))`` for a real ``y``; for a
complex one ``sum(w * sin(Re y)) + sum(w * cos(Im y)) + sum(|y|^2) / 10``,
so that real part, imaginary part and modulus all reach the loss and its
second derivative is not zero for a linear ``fn``. The weights are an
argument of the loss (held fixed: a zero direction), so that the emitted
gradient captures no array and ``zpy.hvp`` can run forward over reverse.

- ``zpy.gradient`` against :func:`numeric_gradient` of the loss, one
  argument at a time (complex arguments along their real and imaginary
  parts, the convention ``dL/dx + i dL/dy``); each gradient has its
  argument's shape and dtype;
- ``zpy.jvp`` along a random direction against the central difference of
  the loss along it, and its value against the loss;
- with ``second=True``, ``zpy.hvp`` along the same direction against the
  central difference of ``zpy.gradient`` along it.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import zygote_py as zpy

from tests.rules.test_numpy_linalg import numeric_gradient, rand

STEP = 1e-6


def score(y: Any, w: Any) -> Any:
    """The real loss of an output ``y`` for weights ``w`` of its structure."""
    if isinstance(y, (tuple, list)):
        total = 0.0
        for part, weight in zip(y, w):
            total = total + score(part, weight)
        return total
    if np.iscomplexobj(y):
        return np.sum(w * np.sin(np.real(y))) + np.sum(w * np.cos(np.imag(y))) + np.sum(np.abs(y) ** 2) / 10
    return np.sum(w * np.sin(y))


def weights(y: Any, seed: int) -> Any:
    """Random weights of ``y``'s structure and shapes (real)."""
    if isinstance(y, (tuple, list)):
        return tuple(weights(part, seed + 1 + k) for k, part in enumerate(y))
    return rand(np.shape(y), seed)


# The loss for one, two or three arguments, the weights last: a fixed
# arity, as forward mode over the emitted gradient wants no ``*args``.
_LOSSES = {
    1: lambda fn: lambda a, w: score(fn(a), w),
    2: lambda fn: lambda a, b, w: score(fn(a, b), w),
    3: lambda fn: lambda a, b, c, w: score(fn(a, b, c), w),
}


def direction(x: Any, seed: int) -> Any:
    """A random direction of ``x``'s kind: complex for a complex ``x``, a
    Python number for a Python number."""
    if isinstance(x, (float, complex)):
        return type(x)(rand((), seed, type(x)))
    return rand(np.shape(x), seed, np.result_type(x, np.float64))


def _along(f: Callable, xs: tuple, vs: tuple) -> Any:
    """The central difference of ``f`` (a number, or a tuple of arrays) at
    ``xs`` along ``vs``."""
    up = f(*(x + STEP * v for x, v in zip(xs, vs)))
    down = f(*(x - STEP * v for x, v in zip(xs, vs)))
    if isinstance(up, tuple):
        return tuple((np.asarray(u) - np.asarray(d)) / (2 * STEP) for u, d in zip(up, down))
    return (up - down) / (2 * STEP)


def _close(got: Any, want: Any, what: str, rtol: float, atol: float) -> None:
    got, want = np.asarray(got), np.asarray(want)
    scale = 1.0 + float(np.max(np.abs(want), initial=0.0))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, err_msg=what)


def check(fn: Callable, *args: Any, second: bool = True, rtol: float = 1e-5, atol: float = 1e-6,
          seed: int = 0) -> None:
    """Check reverse mode, forward mode and (``second``) Hessian-vector
    products of the scored ``fn`` at ``args`` (float arrays, complex
    arrays or Python floats, all differentiated)."""
    w = weights(fn(*args), seed)
    loss = _LOSSES[len(args)](fn)
    n = len(args)

    def plain(*xs):
        return loss(*xs, w)

    grads = zpy.gradient(loss, *args, w)[:n]
    for i, (x, g) in enumerate(zip(args, grads)):
        want = numeric_gradient(lambda xi: plain(*args[:i], xi, *args[i + 1:]), x, STEP)
        got = np.zeros(np.shape(x)) if g is None else g
        if isinstance(x, np.ndarray):
            assert np.shape(got) == x.shape and np.asarray(got).dtype == x.dtype, (i, np.shape(got), x.shape)
        _close(got, want, f"gradient of argument {i}", rtol, atol)

    vs = tuple(direction(x, seed + 100 + k) for k, x in enumerate(args))
    value, slope = zpy.jvp(loss, args + (w,), vs + (None,))
    _close(value, plain(*args), "jvp's value", 1e-12, 1e-12)
    _close(slope, _along(plain, args, vs), "jvp", rtol, atol)

    if second:
        hv = zpy.hvp(loss, args + (w,), vs + (zero_like(w),))[:n]

        def gradient(*xs):
            return tuple(np.zeros(np.shape(x)) if g is None else np.asarray(g)
                         for x, g in zip(xs, zpy.gradient(loss, *xs, w)[:n]))

        want = _along(gradient, args, vs)
        for i, (x, h) in enumerate(zip(args, hv)):
            _close(np.zeros(np.shape(x)) if h is None else h, want[i], f"hvp, argument {i}", rtol, atol)


def zero_like(w: Any) -> Any:
    if isinstance(w, tuple):
        return tuple(zero_like(part) for part in w)
    return np.zeros_like(w)

"""Checking a NumPy function's rules through compiled code, at first and
second order, against central finite differences.

:func:`check_orders` takes a real-scalar-valued ``f`` of float arrays (a
NumPy function wrapped in a nonlinear, non-symmetric loss, so that every
second derivative counts) and checks, at the arguments:

- ``zpy.gradient`` (reverse mode) against central differences of ``f``;
- ``zpy.jvp`` (forward mode) along a random direction, likewise;
- ``zpy.hvp`` (forward over reverse) along that direction against central
  differences of ``zpy.gradient``;
- the gradient of ``<zpy.gradient(f), w>`` (reverse over reverse) against
  central differences of that inner product.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

import zygote_py as zpy

H = 1e-5


def _dense(g, a):
    return np.zeros(np.shape(a)) if g is None else np.asarray(g, dtype=float)


def _moved(args: tuple, vs: tuple, t: float) -> tuple:
    return tuple(a + t * v for a, v in zip(args, vs))


def _directional(f: Callable, args: tuple, vs: tuple) -> float:
    return (f(*_moved(args, vs, H)) - f(*_moved(args, vs, -H))) / (2 * H)


def _close(got, want, rtol, atol, what):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _fd_gradient(f: Callable, args: tuple, i: int) -> np.ndarray:
    """The central-difference gradient of ``f`` along argument ``i``."""
    a = args[i]
    out = np.zeros(np.shape(a))
    for idx in np.ndindex(np.shape(a)):
        e = [np.zeros(np.shape(x)) if np.ndim(x) else 0.0 for x in args]
        if np.ndim(a):
            e[i][idx] = 1.0
        else:
            e[i] = 1.0
        out[idx] = _directional(f, args, tuple(e))
    return out


def check_orders(f: Callable, *args, rtol: float = 1e-5, atol: float = 1e-6, seed: int = 0,
                 second: bool = True) -> None:
    """Check ``f``'s derivatives at ``args`` (float arrays or numbers) at
    first order in both modes and, unless ``second`` is false, at second
    order in both compositions (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    vs = tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal()) for a in args)
    grads = zpy.gradient(f, *args)
    for i, a in enumerate(args):
        _close(_dense(grads[i], a), _fd_gradient(f, args, i), rtol, atol, f"reverse mode, argument {i}")
    _, t = zpy.jvp(f, args, vs)
    _close(float(t), _directional(f, args, vs), rtol, atol, "forward mode")
    if not second:
        return
    hv = zpy.hvp(f, args, vs)
    plus, minus = zpy.gradient(f, *_moved(args, vs, H)), zpy.gradient(f, *_moved(args, vs, -H))
    for i, a in enumerate(args):
        want = (_dense(plus[i], a) - _dense(minus[i], a)) / (2 * H)
        _close(_dense(hv[i], a), want, 100 * rtol, 100 * atol, f"hvp, argument {i}")
    ws = tuple(rng.standard_normal(np.shape(a)) for a in args)

    def inner(*xs):
        total = 0.0
        for g, w in zip(zpy.gradient(f, *xs), ws):
            if g is not None:
                total = total + np.sum(g * w)
        return total

    gg = zpy.gradient(inner, *args)
    for i, a in enumerate(args):
        _close(_dense(gg[i], a), _fd_gradient(inner, args, i), 100 * rtol, 100 * atol,
               f"gradient of a gradient, argument {i}")

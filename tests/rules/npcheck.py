"""Checking NumPy rules against central finite differences.

A rule's ``back(dy)`` returns one gradient per parameter of the rule (its
positional-or-keyword parameters, in order), or, for a rule with
``*args``, one per positional argument of the call. :func:`check_rule`
binds the call's arguments to the rule's parameters the same way, and
compares every float leaf of the arguments (arrays element by element,
Python floats, arrays inside tuples and lists) with the central
difference of ``sum(dy * f(...))``. :func:`check_program` checks a whole
program using rules, differentiated by the compiler to first and second
order, against central differences.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import numpy as np

import zygote_py as zpy
from zygote_py.rules import lookup

from .pushcheck import check_pushforward

STEP = 1e-6


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of the float leaves of a value: ``(..., idx)`` ends with an
    element index for arrays, ``None`` for a Python float."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return [path + (idx,) for idx in np.ndindex(value.shape)]
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        return [path + (None,)]
    if isinstance(value, (tuple, list)):
        return [p for i, v in enumerate(value) for p in _leaves(v, path + (i,))]
    return []


def _get(value: Any, path: tuple) -> Any:
    for i in path[:-1]:
        value = value[i]
    return value if path[-1] is None else value[path[-1]]


def _with(value: Any, path: tuple, new: Any) -> Any:
    if len(path) == 1:
        if path[0] is None:
            return type(value)(new) if isinstance(value, np.floating) else new
        out = value.copy()
        out[path[0]] = new
        return out
    items = list(value)
    items[path[0]] = _with(items[path[0]], path[1:], new)
    return type(value)(items)


def bind(rule: Callable, args: tuple, kwargs: dict) -> list[tuple[int, Any, Any]]:
    """``(position in back's result, argument, where)`` for every argument
    of the call; ``where`` is the argument's index or its keyword."""
    sig = inspect.signature(rule)
    params = list(sig.parameters)
    if any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        return [(i, v, i) for i, v in enumerate(args)]
    out = [(i, v, i) for i, v in enumerate(args)]
    return out + [(params.index(k), v, k) for k, v in kwargs.items()]


def _inner(a: Any, b: Any) -> float:
    """The real inner product; a structured cotangent pairs up with a
    structured output item by item (pieces of different shapes), a ``None``
    item — no cotangent — adding nothing."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return sum(_inner(x, y) for x, y in zip(a, b) if x is not None)
    a, b = np.asarray(a), np.asarray(b)
    wide = np.result_type(a, b, np.float64)  # float32 outputs summed in double precision
    return float(np.real(np.sum(np.conj(a.astype(wide)) * b.astype(wide))))


_SINGLE = (np.float16, np.float32, np.complex64)


def _step(x: Any, out: Any) -> float:
    """The finite-difference step at ``x``: larger for an input or output in
    single precision, whose rounding would swamp a step of ``STEP``."""
    single = getattr(x, "dtype", None) in _SINGLE or getattr(out, "dtype", None) in _SINGLE
    return (1e-3 if single else STEP) * max(1.0, abs(x))


def _same(ys: Any, es: Any) -> None:
    """The rule's output equals the function's: item by item for a tuple or
    list of outputs (whose pieces may differ in shape)."""
    if isinstance(es, (tuple, list)) and not all(isinstance(e, (int, float)) for e in es):
        assert isinstance(ys, (tuple, list)) and len(ys) == len(es), (type(ys), type(es))
        for yi, ei in zip(ys, es):
            _same(yi, ei)
        return
    np.testing.assert_allclose(np.asarray(ys), np.asarray(es), rtol=1e-12, atol=1e-12)
    assert np.shape(ys) == np.shape(es)
    if isinstance(es, np.ndarray):
        assert isinstance(ys, np.ndarray) and ys.dtype == es.dtype, (type(ys), getattr(ys, "dtype", None), es.dtype)


def check_rule(
    fn: Callable,
    *args: Any,
    kwargs: Optional[dict] = None,
    dy: Any = None,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    seed: int = 0,
    output: Callable[[Any], Any] = lambda y: y,
) -> tuple:
    """Check the registered rule of ``fn`` at ``args`` (and ``kwargs``) and
    return ``back(dy)``.

    - the forward value equals ``fn(*args, **kwargs)`` (same shape and dtype);
    - ``back(dy)`` is a tuple as long as the rule's parameter list;
    - every gradient of an array argument has its shape and dtype;
    - at every float leaf, the gradient equals the central difference of
      ``<dy, output(fn(...))>``; an argument with a ``None`` gradient must
      have slope 0.

    ``dy`` defaults to a random array of the output's shape (seeded).
    ``output`` picks the differentiated part of a structured output (then
    give a structured ``dy`` and the picked part's weight via ``output``).
    """
    kwargs = kwargs or {}
    rule = lookup(fn)
    assert rule is not None, f"no rule for {fn}"
    y, back = rule(*args, **kwargs)
    expected = fn(*args, **kwargs)
    es = output(expected)
    _same(output(y), es)
    rng = np.random.default_rng(seed)
    if dy is None:
        dy = rng.standard_normal(np.shape(es))
        if isinstance(es, np.ndarray):
            dy = dy.astype(es.dtype) if es.dtype.kind in "fc" else dy
        elif not np.shape(es):
            dy = float(dy)
    weight = dy

    def loss(*a, **k):
        return _inner(weight, output(fn(*a, **k)))

    grads = back(dy)
    sig = inspect.signature(rule)
    if not any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        assert isinstance(grads, tuple) and len(grads) == len(sig.parameters), (grads, sig)
    for pos, value, where in bind(rule, args, kwargs):
        g = grads[pos]
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc" and g is not None:
            g = np.asarray(g)
            assert g.shape == value.shape, (fn, where, g.shape, value.shape)
            assert g.dtype == value.dtype, (fn, where, g.dtype, value.dtype)
        for path in _leaves(value):
            x = _get(value, path)
            h = _step(x, es)

            def at(v):
                a, k = list(args), dict(kwargs)
                if isinstance(where, int):
                    a[where] = _with(value, path, v)
                else:
                    k[where] = _with(value, path, v)
                return loss(*a, **k)

            slope = (at(x + h) - at(x - h)) / (2 * h)
            got = 0.0 if g is None else _get(g, path)
            got = 0.0 if got is None else float(np.real(got))
            assert abs(got - slope) <= rtol * abs(slope) + atol, (fn, where, path, got, slope)
    pairs = [(where, grads[pos]) for pos, _, where in bind(rule, args, kwargs)]
    check_pushforward(fn, args, kwargs, y, pairs, dy, seed)
    return grads


def difference_gradient(f, args, i, h=1e-6):
    """Central differences of a real-valued ``f`` in ``args[i]``."""
    x = args[i]
    g = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        up, down = list(args), list(args)
        step = np.zeros(x.shape)
        step[k] = h
        up[i], down[i] = x + step, x - step
        g[k] = (f(*up) - f(*down)) / (2 * h)
    return g


def check_program(f, *args, rtol=1e-5, atol=1e-6):
    """``zpy.gradient`` and ``zpy.jvp`` of ``f`` against central
    differences of ``f``; ``zpy.hessian`` against central differences of
    ``zpy.gradient``."""
    grads = zpy.gradient(f, *args)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, difference_gradient(f, args, i), rtol=rtol, atol=atol)
    rng = np.random.default_rng(20)
    v = tuple(rng.standard_normal(np.shape(a)) for a in args)
    _, t = zpy.jvp(f, args, v)
    np.testing.assert_allclose(t, sum(np.sum(g * d) for g, d in zip(grads, v)), rtol=1e-8)
    h = zpy.hessian(f, *args)
    blocks = [[h]] if len(args) == 1 else h
    for i, a in enumerate(args):
        for j in range(len(args)):
            rows = [difference_gradient(lambda *xs: zpy.gradient(f, *xs)[i].ravel()[k], args, j)
                    for k in range(np.size(a))]
            np.testing.assert_allclose(blocks[i][j], np.reshape(rows, blocks[i][j].shape), rtol=rtol, atol=atol)

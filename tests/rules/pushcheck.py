"""Checking a pushforward (forward-mode) rule against the adjoint rule of
the same function, which the callers have just checked against finite
differences: for a random tangent ``v`` of the arguments and the
cotangent ``dy``, ``<dy, J v>`` (the pushforward) must equal
``sum_i <back(dy)_i, v_i>`` (the adjoint), and the output's tangent must
have the output's shape and dtype."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from zygote_py.ad import pushrules
from zygote_py import registry


def _direction(value: Any, rng: np.random.Generator) -> Any:
    """A random tangent of ``value``'s float leaves; None (zero) for the rest."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        v = rng.standard_normal(value.shape)
        if value.dtype.kind == "c":
            v = v + 1j * rng.standard_normal(value.shape)
        return v.astype(value.dtype)
    if isinstance(value, (np.floating, np.complexfloating)):
        v = rng.standard_normal() + (1j * rng.standard_normal() if value.dtype.kind == "c" else 0)
        return value.dtype.type(v)
    if isinstance(value, complex):
        return complex(rng.standard_normal(), rng.standard_normal())
    if isinstance(value, float):
        return float(rng.standard_normal())
    if isinstance(value, (tuple, list)) and any(_direction(x, rng) is not None for x in value):
        items = [_direction(x, rng) for x in value]
        items = [x if x is not None else _zero(v) for x, v in zip(items, value)]
        return items if isinstance(value, list) else tuple(items)
    return None


def _zero(value: Any) -> Any:
    from zygote_py import runtime

    return runtime.zero_tangent(value)


def _inner(a: Any, b: Any) -> float:
    if a is None or b is None:
        return 0.0
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return sum(_inner(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    wide = np.result_type(a, b, np.float64)
    return float(np.real(np.sum(np.conj(a.astype(wide)) * b.astype(wide))))


def _same_kind(t: Any, y: Any, fn: Any) -> None:
    if t is None:
        return
    if isinstance(y, (tuple, list)):
        assert isinstance(t, (tuple, list)) and len(t) == len(y), (fn, t, y)
        for ti, yi in zip(t, y):
            _same_kind(ti, yi, fn)
        return
    if isinstance(y, np.ndarray) and y.dtype.kind in "fc":
        t = np.asarray(t)
        assert t.shape == y.shape, (fn, t.shape, y.shape)
        assert t.dtype == y.dtype, (fn, t.dtype, y.dtype)
    elif isinstance(y, (np.floating, np.complexfloating)):
        assert np.shape(t) == (), (fn, np.shape(t))
        assert np.asarray(t).dtype == y.dtype, (fn, np.asarray(t).dtype, y.dtype)


def check_pushforward(
    fn: Callable, args: tuple, kwargs: dict, y: Any, grads: list[tuple[Any, Any]], dy: Any,
    seed: int = 0, rtol: float = 1e-6, atol: float = 1e-9,
) -> None:
    """If ``fn`` has a pushforward rule, check it at ``args``/``kwargs``.
    ``grads`` pairs each argument (by its index or keyword) with its
    gradient from the adjoint rule for ``dy`` (``None``: no gradient)."""
    rule = registry.lookup_pushforward(fn)
    if rule is None:
        return
    rng = np.random.default_rng(seed + 7919)  # (not the generator of the tests' data)
    dargs = tuple(_direction(a, rng) for a in args)
    dkwargs = {k: _direction(v, rng) for k, v in kwargs.items()}
    t = pushrules.call(rule, y, args, kwargs, dargs, dkwargs)
    _same_kind(t, y, fn)
    forward = _inner(dy, t)
    reverse = 0.0
    for where, g in grads:
        v = dargs[where] if isinstance(where, int) else dkwargs[where]
        reverse += _inner(g, v)
    if _single(args) or _single(tuple(kwargs.values())) or _single((y,)):  # float32 sums round at 1e-7
        rtol, atol = max(rtol, 1e-4), max(atol, 1e-6)
    assert abs(forward - reverse) <= rtol * max(abs(forward), abs(reverse)) + atol, (fn, forward, reverse)


def _single(values: tuple) -> bool:
    """Whether any of ``values`` (or their items) is in single precision."""
    for v in values:
        if isinstance(v, (tuple, list)) and _single(tuple(v)):
            return True
        if getattr(v, "dtype", None) in (np.float16, np.float32, np.complex64):
            return True
    return False


def rules_of(module) -> list:
    """The functions with a built-in adjoint rule defined in ``module``."""
    return [k.obj if isinstance(k, registry._ByIdentity) else k for k, rule in registry._builtin.items()
            if rule is not registry.NONDIFFERENTIABLE and getattr(rule, "__module__", None) == module.__name__]


def check_tangents_one_at_a_time(fn, *args, kwargs=None):
    """The pushforward with only one argument's tangent (the others dropped
    as zeros, as the compiler drops them) has the output's shape and dtype,
    and these add up to the pushforward with every tangent."""
    kwargs = kwargs or {}
    y = fn(*args, **kwargs)
    rng = np.random.default_rng(5)
    tangents = [
        rng.standard_normal(np.shape(a)).astype(np.asarray(a).dtype) if np.asarray(a).dtype.kind == "f" else None
        for a in args
    ]
    push = registry.lookup_pushforward(fn)
    total = pushrules.call(push, y, args, kwargs, tuple(tangents), {})
    parts = []
    for i, t in enumerate(tangents):
        if t is not None:
            only = tuple(t if j == i else None for j in range(len(args)))
            part = pushrules.call(push, y, args, kwargs, only, {})
            assert np.shape(part) == np.shape(y) and np.result_type(part) == np.result_type(y), (fn, i)
            parts.append(part)
    assert len(parts) > 1
    np.testing.assert_allclose(sum(parts), total, rtol=1e-10, atol=1e-12)

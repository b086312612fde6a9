"""Checking rules against central finite differences of the functions they
differentiate."""
from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Optional

from zygote_py.rules import lookup

from .pushcheck import check_pushforward

STEP = 1e-6
RTOL = 1e-5


def same_value(a: Any, b: Any) -> bool:
    """Equality that also holds for nan, and inside tuples and lists."""
    if isinstance(a, (tuple, list)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same_value(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def float_paths(args: tuple) -> list[tuple[int, ...]]:
    """The positions of the float leaves of ``args``: ``(i,)`` for an
    argument, ``(i, j)`` for an item of a tuple or list argument."""
    paths = []
    for i, a in enumerate(args):
        if isinstance(a, float):
            paths.append((i,))
        elif isinstance(a, (tuple, list)):
            paths.extend((i, j) for j, v in enumerate(a) if isinstance(v, float))
    return paths


def at(tree: Any, path: tuple[int, ...]) -> Any:
    for i in path:
        tree = tree[i]
    return tree


def with_leaf(args: tuple, path: tuple[int, ...], value: float) -> tuple:
    """``args`` with the leaf at ``path`` replaced (containers rebuilt with
    their own type)."""
    args = list(args)
    if len(path) == 1:
        args[path[0]] = value
    else:
        i, j = path
        items = list(args[i])
        items[j] = value
        args[i] = type(args[i])(items)
    return tuple(args)


def central_difference(
    f: Callable, args: tuple, path: tuple[int, ...]
) -> tuple[float, float]:
    """The central difference of ``f`` at ``args`` along the leaf at ``path``,
    and the error to allow for rounding in it."""
    x = at(args, path)
    h = STEP * max(1.0, abs(x))
    hi = f(*with_leaf(args, path, x + h))
    lo = f(*with_leaf(args, path, x - h))
    rounding = 1e-15 * max(abs(hi), abs(lo)) / h
    return (hi - lo) / (2 * h), rounding


def assert_gradients(
    fn: Callable,
    args: tuple,
    dy: Any,
    *,
    scalar_dy: Optional[float] = None,
    output: Callable[[Any], Any] = lambda y: y,
) -> tuple:
    """Check ``fn``'s rule at ``args`` against finite differences and return
    ``back(dy)``.

    The forward value must be ``fn(*args)``. ``back(dy)`` must have one
    entry per argument, and at each float leaf of ``args`` equal
    ``scalar_dy`` times the central difference of ``output(fn(...))``, a
    ``None`` gradient counting as 0. ``scalar_dy`` is ``dy`` unless the
    output is structured: then ``dy`` is the structured cotangent and
    ``output`` picks the part that ``scalar_dy`` weighs.
    """
    rule = lookup(fn)
    assert rule is not None, f"no rule for {fn}"
    y, back = rule(*args)
    assert same_value(y, fn(*args)), (y, fn(*args))
    grads = back(dy)
    # one per argument, or one per parameter (those the call left to their defaults too)
    params = len(inspect.signature(rule).parameters)
    assert isinstance(grads, tuple) and len(grads) in (len(args), params), grads
    grads = grads[:len(args)]
    weight = dy if scalar_dy is None else scalar_dy
    for path in float_paths(args):
        slope, rounding = central_difference(lambda *a: output(fn(*a)), args, path)
        expected = weight * slope
        got = at(grads, path)
        if got is None:  # no gradient: the slope must be 0
            got = 0.0
        tolerance = RTOL * abs(expected) + abs(weight) * rounding + 1e-12
        assert abs(got - expected) <= tolerance, (fn, args, path, got, expected)
    check_pushforward(fn, args, {}, y, list(enumerate(grads)), dy)
    return grads

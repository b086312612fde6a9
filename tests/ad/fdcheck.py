"""The oracle of the AD tests: central finite differences.

:func:`assert_gradient` checks ``zpy.value_and_gradient(f, *args)``: the
value must be exactly ``f(*args)``, the gradient must have one entry per
positional argument, ``None`` for every int argument, and for every float
argument the central difference of the plain ``f`` along it (a ``None``
gradient counting as 0). :func:`time_limit` turns a hang into a failure.
"""
from __future__ import annotations

import contextlib
import signal
from typing import Callable, Iterator, Optional

import zygote_py as zpy

STEP = 1e-6
RTOL = 1e-6


class TookTooLong(Exception):
    """A differentiated program ran past its time limit (the emitted code
    loops forever, or the compiler does)."""


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise :class:`TookTooLong` in the block after ``seconds``, so that a
    hang fails its test instead of stopping the suite (SIGALRM: the main
    thread on Unix, where pytest runs tests)."""
    def expire(signum, frame):
        raise TookTooLong(f"more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def central_difference(f: Callable, args: tuple, i: int, step: float = STEP) -> tuple[float, float]:
    """The central difference of ``f`` along argument ``i`` with a step
    relative to its size, and the rounding error to allow for in it."""
    x = args[i]
    h = step * max(1.0, abs(x))
    hi = f(*args[:i], x + h, *args[i + 1:])
    lo = f(*args[:i], x - h, *args[i + 1:])
    rounding = 4e-16 * (abs(hi) + abs(lo) + abs(f(*args))) / h
    return (hi - lo) / (2 * h), rounding


def close(got: Optional[float], expected: float, rounding: float, rtol: float = RTOL) -> bool:
    """``got`` agrees with a finite difference ``expected`` (``None`` is 0)."""
    got = 0.0 if got is None else got
    return abs(got - expected) <= rtol * max(abs(expected), abs(got)) + rounding + 1e-10


def float_positions(args: tuple) -> list[int]:
    return [i for i, a in enumerate(args) if isinstance(a, float)]


def assert_gradient(f: Callable, *args, rtol: float = RTOL) -> tuple:
    """Check ``zpy.value_and_gradient(f, *args)``: the value is exactly
    ``f(*args)``, the gradient agrees with finite differences of ``f``.
    Returns the gradient."""
    value, grads = zpy.value_and_gradient(f, *args)
    assert value == f(*args), (f.__name__, args, value)
    assert isinstance(grads, tuple) and len(grads) == len(args), grads
    for i, a in enumerate(args):
        if isinstance(a, int):
            assert grads[i] is None, (f.__name__, args, i, grads)
    for i in float_positions(args):
        slope, rounding = central_difference(f, args, i)
        assert close(grads[i], slope, rounding, rtol), (f.__name__, args, i, grads[i], slope)
    return grads

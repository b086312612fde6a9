"""Calls known only when they run (``runtime.J``) and their shortcuts: a
built-in function (an operator, a function of ``math``) of Python floats
and NumPy float64 scalars goes straight to its rule, which is looked up at
each call, so that a rule registered later applies and one removed no
longer does. Gradients against central differences."""
from __future__ import annotations

import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py import registry


def chain(x, n):
    """Calls itself through ``J``: its products and sums are of values
    known only when they run."""
    if n == 0:
        return x
    a = chain(x, n - 1)
    return a * chain(x, n - 1) + np.sin(a) - a / 3.0


def through(g, x):
    return g(x) * 1.0  # (g known only when it runs: a call through J)


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("x", [0.7, np.float64(0.7)])
def test_arithmetic_of_numbers_known_at_run_time(x):
    """Products, sums, quotients of a Python float and of the NumPy
    float64 that ``np.sin`` gives, against central differences."""
    for _ in range(2):  # (the second time through compiled code)
        g = zpy.gradient(chain, x, 3)[0]
        assert g == pytest.approx(central(lambda v: chain(v, 3), float(x)), rel=1e-6)
        assert isinstance(g, float)


@pytest.fixture
def sin_rule_removed():
    yield
    registry.remove(math.sin)


def test_a_rule_registered_for_a_built_in_function_called_at_run_time(sin_rule_removed):
    """``math.sin`` called through ``J``: the built-in rule, then a rule of
    the user's registered after it was called (a deliberately wrong one,
    three times the true gradient), then the built-in one again once
    removed."""
    x = 0.4
    for _ in range(2):
        assert zpy.gradient(through, math.sin, x)[1] == pytest.approx(math.cos(x), rel=1e-12)

    @zpy.adjoint(math.sin)
    def _(v):
        return math.sin(v), lambda dy: (3.0 * dy * math.cos(v),)

    assert zpy.gradient(through, math.sin, x)[1] == pytest.approx(3.0 * math.cos(x), rel=1e-12)
    registry.remove(math.sin)
    assert zpy.gradient(through, math.sin, x)[1] == pytest.approx(math.cos(x), rel=1e-12)

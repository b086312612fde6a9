"""Nested differentiation: ``zpy.gradient`` called inside a function that
is differentiated. The inner gradient is computed by code zygote_py emitted,
and that code is differentiated in turn (to second order; a third order is
refused with a clear error, as is a second order whose inner function
calls another Python function). Each second derivative is checked against an
analytic value or central differences of the first derivative."""
import math

import numpy as np
import pytest

import zygote_py as zpy
from zygote_py.errors import NoDerivativeRule


def d(f, x):
    return zpy.gradient(f, x)[0]


def dsin(x):
    return d(math.sin, x)


def confusable_sum(x):
    return x * d(lambda y: x + y, 1.0)


def confusable_product(x):
    return x * d(lambda y: x * y, 1.0)


def poly(x):
    return x ** 3 - 2.0 * x * x + math.exp(0.5 * x)


def dpoly(x):
    return d(poly, x)


def mixed(x, y):
    return math.sin(x * y) + x * x * y


def dmixed_dy(x):
    return zpy.gradient(lambda y: math.sin(x * y) + x * x * y, 0.7)[0]


def through_a_call(x):
    return zpy.gradient(lambda y: mixed(x, y), 0.7)[0]


def loop_inside(x):
    def inner(y):
        r = 1.0
        for _ in range(4):
            r = r * y + x
        return r
    return d(inner, 0.3) * x


def value_and_slope(x):
    v, (g,) = zpy.value_and_gradient(lambda y: y * math.cos(y) + x * y, x)
    return v + 2.0 * g


def array_gradient_of(w):
    v = np.array([0.1, 0.2, -0.4])
    g = zpy.gradient(lambda u: np.sum(np.sin(u) * w * u), v)[0]
    return float(np.sum(g * g))


def test_the_papers_examples():
    assert d(dsin, 0.5) == pytest.approx(-math.sin(0.5), rel=1e-14)
    assert d(confusable_sum, 1.0) == 1.0  # no perturbation confusion
    assert d(confusable_product, 4.0) == 8.0


def slope(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f, x", [
    (dpoly, 0.8), (dmixed_dy, 0.4), (loop_inside, 1.3), (value_and_slope, 0.6), (array_gradient_of, 1.5),
    (through_a_call, 2.0),  # mixed, a function of this module, is inlined (see ad/callees.py)
], ids=lambda v: getattr(v, "__name__", None))
def test_second_derivatives(f, x):
    assert d(f, x) == pytest.approx(slope(f, x), rel=1e-6, abs=1e-8)


def test_second_derivative_analytic():
    x = 0.8
    assert d(dpoly, x) == pytest.approx(6 * x - 4.0 + 0.25 * math.exp(0.5 * x), rel=1e-13)


def third(x):
    return d(lambda y: d(lambda z: z * z * z, y), x)


def through_an_opaque_call(x):
    return zpy.gradient(lambda y: math.fsum([mixed(x, y), mixed(y, x)]) * recursive(y, 2), 0.7)[0]


def recursive(y, n):
    return y if n == 0 else y * recursive(y, n - 1)  # (recursive: not inlined)


@pytest.mark.parametrize("f", [third, through_an_opaque_call], ids=lambda f: f.__name__)
def test_a_third_derivative_or_a_second_through_a_call_is_refused_with_a_clear_error(f):
    """(Their gradient code calls zygote_py's run-time machinery, which is
    not differentiated yet.)"""
    with pytest.raises(NoDerivativeRule, match="gradient of a gradient of a gradient"):
        d(f, 2.0)


LEVELS = []


def records_its_level(x):
    LEVELS.append(zpy.nestlevel())
    return x * x


def outer_records(x):
    LEVELS.append(zpy.nestlevel())
    return x * d(records_its_level, x)


def test_nestlevel_counts_the_differentiations_running():
    LEVELS.clear()
    assert zpy.nestlevel() == 0
    d(records_its_level, 1.5)
    assert LEVELS == [1]
    LEVELS.clear()
    assert d(outer_records, 1.5) == pytest.approx(6.0)  # d/dx (x * 2x)
    assert LEVELS == [1, 2] and zpy.nestlevel() == 0


def x_log_x(s):
    return s * math.log(s) + math.log(s, 2.0)


def test_second_derivative_through_math_log():
    """``math.log``'s rule is inlined (its base has a default), so its
    gradient code can be differentiated again."""
    s = 1.5
    assert zpy.hessian(x_log_x, s) == pytest.approx(1 / s - 1 / (s * s * math.log(2.0)), rel=1e-12)
    assert d(lambda v: d(x_log_x, v), s) == pytest.approx(1 / s - 1 / (s * s * math.log(2.0)), rel=1e-12)
